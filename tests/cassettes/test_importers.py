"""raf cassette import: VCR YAML (incl. pydantic-ai's parsed_body), raw bodies, JSON lines."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from raf.cassettes import load
from raf.cassettes.importers import guess_dialect, import_file, scenario_name
from raf.cli import main
from raf.errors import CassetteFormatError
from raf.pipeline import respond

CHUNK = '{"id":"c","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}'

PYDANTIC_AI_STYLE = """\
interactions:
- request:
    headers:
      authorization:
      - Bearer sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
    method: POST
    parsed_body:
      messages:
      - content: Hello
        role: user
      model: deepseek-reasoner
      stream: true
    uri: https://api.deepseek.com/chat/completions
  response:
    headers:
      content-type:
      - text/event-stream; charset=utf-8
    body:
      string: "data: {chunk}\\n\\ndata: [DONE]\\n\\n"
    status:
      code: 200
      message: OK
version: 1
""".replace("{chunk}", CHUNK.replace('"', '\\"'))


def test_import_pydantic_ai_parsed_body_cassette(tmp_path: Path) -> None:
    source = tmp_path / "test_deepseek_stream[text].yaml"
    source.write_text(PYDANTIC_AI_STYLE)
    cassette = import_file(source)
    assert cassette.info is not None
    assert (cassette.info.scenario, cassette.info.dialect) == (
        "test_deepseek_stream_text",
        "openai_chat",
    )
    request = cassette.interactions[0].request
    assert '"model": "deepseek-reasoner"' in str(request.body)
    assert respond([cassette.interactions[0].response.body]).text == "hi"


def test_import_raw_sse_and_json_lines(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(f"data: {CHUNK}\n\n".encode())
    (tmp_path / "b.jsonl").write_text(CHUNK + "\n\n" + "[DONE]\n")
    for name in ("a.sse", "b.jsonl"):
        cassette = import_file(tmp_path / name)
        assert respond([cassette.interactions[0].response.body]).text == "hi"
    assert (
        import_file(tmp_path / "b.jsonl")
        .interactions[0]
        .response.body.endswith(b"data: [DONE]\n\n")
    )


def test_json_lines_that_are_already_sse_are_refused(tmp_path: Path) -> None:
    (tmp_path / "c.jsonl").write_text(f"data: {CHUNK}\n")
    with pytest.raises(CassetteFormatError, match="already SSE"):
        import_file(tmp_path / "c.jsonl")


def test_cli_import_scrubs_and_qualifies_clashing_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("prefect", "temporal"):
        (tmp_path / "src" / folder).mkdir(parents=True)
        (tmp_path / "src" / folder / "test_run.yaml").write_text(PYDANTIC_AI_STYLE)
    assert main(["cassette", "import", str(tmp_path / "src"), "-o", str(tmp_path / "out")]) == 0
    written = sorted(p.name for p in (tmp_path / "out" / "openai_chat").iterdir())
    assert written == ["temporal__test_run.yaml", "test_run.yaml"]
    assert "sk-proj" not in (tmp_path / "out" / "openai_chat" / "test_run.yaml").read_text()
    assert main(["cassette", "lint", str(tmp_path / "out")]) == 0  # warnings only (no expect)
    assert load(tmp_path / "out" / "openai_chat" / "test_run.yaml").interactions[0].request.headers[
        "authorization"
    ] == ["REDACTED"]


@pytest.mark.parametrize(
    ("uri", "dialect"),
    [
        ("https://api.openai.com/v1/chat/completions", "openai_chat"),
        ("https://api.mistral.ai/v1/chat/completions#stream", "openai_chat"),
        ("https://api.openai.com/v1/responses", "openai_responses"),
        ("https://api.anthropic.com/v1/messages?beta=true", "anthropic_messages"),
        (
            "https://x.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
            "gemini",
        ),
        (
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/"
            "publishers/anthropic/models/claude-sonnet-4-5:streamRawPredict",
            "anthropic_messages",
        ),
        ("https://mcp.deepwiki.com/mcp", "unknown"),
    ],
)
def test_guess_dialect(uri: str, dialect: str) -> None:
    assert guess_dialect(uri) == dialect


def test_scenario_name() -> None:
    assert scenario_name("tests/Test Cancel[huggingface].yaml") == "test_cancel_huggingface"


ANTHROPIC_BODY = (
    b"event: message_start\n"
    b'data: {"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5",'
    b'"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
    b"event: content_block_start\n"
    b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n'
    b"event: message_delta\n"
    b'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)
GEMINI_ARRAY = b'[{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}]'


@pytest.mark.parametrize(
    ("name", "body", "dialect"),
    [
        ("claude.sse", ANTHROPIC_BODY, "anthropic_messages"),
        ("gemini.txt", GEMINI_ARRAY, "gemini"),
        (
            "responses.sse",
            b'event: response.created\ndata: {"type":"response.created","response":'
            b'{"id":"resp_1","model":"gpt-5"}}\n\n',
            "openai_responses",
        ),
    ],
)
def test_a_raw_body_of_any_format_is_recognised_and_gets_its_request_uri(
    tmp_path: Path, name: str, body: bytes, dialect: str
) -> None:
    source = tmp_path / name
    source.write_bytes(body)
    cassette = import_file(source)
    assert cassette.info is not None
    assert cassette.info.dialect == dialect
    assert guess_dialect(cassette.interactions[0].request.uri) == dialect


def test_imported_cassettes_of_the_new_formats_replay_through_their_dialect(tmp_path: Path) -> None:
    source = tmp_path / "claude.sse"
    source.write_bytes(ANTHROPIC_BODY)
    assert main(["cassette", "import", str(source), "-o", str(tmp_path / "out")]) == 0
    (saved,) = (tmp_path / "out").rglob("*.yaml")
    assert saved.parent.name == "anthropic_messages"
    cassette = load(saved)
    assert cassette.info is not None
    response = respond([cassette.interactions[0].response.body], cassette.info.dialect)
    assert (response.text, response.finish_reason, response.errors) == ("Hi", "stop", ())


def test_an_aws_event_stream_response_is_the_stream_of_an_imported_cassette(
    tmp_path: Path,
) -> None:
    # A recording of a Bedrock call made after another request (an STS call, a JSON body):
    # the binary application/vnd.amazon.eventstream response is the one that names the
    # dialect.
    bundled = Path(__file__).resolve().parents[2] / "cassettes" / "bedrock_converse"
    recorded = yaml.safe_load((bundled / "plain_text.yaml").read_text(encoding="utf-8"))
    stream = recorded["interactions"][0]
    assert stream["response"]["headers"]["content-type"] == ["application/vnd.amazon.eventstream"]
    before = {
        "request": {"method": "POST", "uri": "https://sts.us-east-1.amazonaws.com/", "body": None,
                    "headers": {}},
        "response": {"status": {"code": 200, "message": "OK"},
                     "headers": {"content-type": ["application/json"]},
                     "body": {"string": '{"Credentials": {"Expiration": 1}}'}},
    }  # fmt: skip
    path = tmp_path / "bedrock_after_sts.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "interactions": [before, stream]}))
    cassette = import_file(path)
    assert cassette.info is not None
    assert cassette.info.dialect == "bedrock_converse"
    body = cassette.interactions[1].response.body
    response = respond([body], "bedrock_converse")
    assert response.text.startswith("The capital of France is Paris.")
    assert response.finish_reason == "stop"
