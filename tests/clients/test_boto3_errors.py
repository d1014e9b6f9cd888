"""boto3 against raf serve's injected HTTP errors of bedrock_converse: the error's code is the
one Bedrock names in ``x-amzn-ErrorType``, as boto3 reads it from a real Bedrock response."""

from __future__ import annotations

import pytest

from raf.serve import ReplayServer
from tests.clients.support import library


@pytest.mark.parametrize(
    ("status", "code"), [(429, "ThrottlingException"), (400, "ValidationException")]
)
def test_boto3_reports_the_error_bedrock_names_in_its_header(
    server: ReplayServer, status: int, code: str
) -> None:
    boto3 = library("boto3")
    botocore_config = library("botocore.config")
    exceptions = library("botocore.exceptions")
    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=f"{server.url}/s/bedrock_converse/plain_text/f/http-{status}/i/0",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="not-a-secret",
        config=botocore_config.Config(retries={"max_attempts": 1, "mode": "standard"}),
    )
    messages = [{"role": "user", "content": [{"text": "What is the capital of France?"}]}]
    with pytest.raises(exceptions.ClientError) as raised:
        client.converse_stream(modelId="us.amazon.nova-micro-v1:0", messages=messages)
    error = raised.value.response["Error"]
    assert error["Code"] == code
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert error["Message"]  # the injected error document's message
