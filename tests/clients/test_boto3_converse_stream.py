"""The boto3 column: ``boto3.client("bedrock-runtime").converse_stream`` against ``raf serve``
on every bundled Bedrock ConverseStream scenario, and raf's event-stream decoder against
botocore's (``botocore.eventstream.EventStreamBuffer``) on valid streams.

A missing boto3 skips these tests; with ``RAF_REQUIRE_CLIENTS=1`` it fails them instead.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.cassettes import load as load_cassette
from raf.chunking import chunk
from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter
from raf.clients.boto3_converse_stream import split_path
from raf.conformance.bundled import bundled
from raf.errors import EventStreamError
from raf.framing import aws_eventstream_encode as encode
from raf.framing.aws_eventstream import EventStreamDecoder
from raf.serve import ReplayServer
from tests.clients.support import library, require

CHUNKINGS = ("whole", "random", "eventstream")
DIALECT = "bedrock_converse"

# Scenarios the library fails, and the difference that fails it (docs/_clients_boto3.md).
FAILING = {
    # botocore/eventstream.py EventStream._create_raw_event_generator ends the iteration when
    # the body ends, whatever EventStreamBuffer still holds: a cut message is dropped silently.
    "cut_mid_message": ["unreported: errors: expected at least one error"],
}


def scenarios() -> list[str]:
    return sorted(p.stem for p in (bundled().cassettes / DIALECT).glob("*.yaml"))


@pytest.fixture(scope="module")
def cells(server: ReplayServer) -> dict[str, list[Cell]]:
    require("boto3")
    b = bundled()
    out: dict[str, list[Cell]] = {}
    for cell in run_client(
        adapter("boto3"), server, cassettes=b.cassettes, goldens=b.goldens, chunkings=CHUNKINGS
    ):
        out.setdefault(cell.scenario, []).append(cell)
    return out


def test_every_bedrock_scenario_is_run_under_every_chunking(cells: dict[str, list[Cell]]) -> None:
    assert sorted(cells) == scenarios()
    assert len(scenarios()) >= 10
    for scenario, found in cells.items():
        path = bundled().cassettes / DIALECT / f"{scenario}.yaml"
        interactions = len(load_cassette(path).interactions)
        assert sorted(c.chunkings[0] for c in found) == sorted(CHUNKINGS * interactions), scenario


@pytest.mark.parametrize("scenario", scenarios())
def test_each_cell_is_what_botocore_makes_of_the_stream(
    cells: dict[str, list[Cell]], scenario: str
) -> None:
    for cell in cells[scenario]:
        assert cell.request == [], cell.request  # the library sent the recorded request
        if scenario in FAILING:
            assert cell.status == "fail", (cell.chunkings, cell.details)
            assert [d[: len(f)] for d, f in zip(cell.details, FAILING[scenario], strict=True)] == (
                FAILING[scenario]
            ), cell.details
        else:
            assert cell.status == "pass", (cell.chunkings, cell.reason, cell.details, cell.raised)


def test_in_stream_exceptions_are_raised_as_event_stream_errors(
    cells: dict[str, list[Cell]],
) -> None:
    for scenario, code in [
        ("throttling_exception_mid_reasoning", "throttlingException"),
        ("model_stream_error_exception_mid_text", "modelStreamErrorException"),
    ]:
        for cell in cells[scenario]:
            assert cell.raised is not None
            assert cell.raised.startswith("EventStreamError:"), cell.raised
            assert code in cell.raised


def test_a_bad_crc_is_raised_as_checksum_mismatch(cells: dict[str, list[Cell]]) -> None:
    for cell in cells["bad_message_crc"]:
        assert cell.raised is not None
        assert cell.raised.startswith("ChecksumMismatch:"), cell.raised


def test_the_model_id_reaches_raf_serve_in_the_path(server: ReplayServer) -> None:
    require("boto3")
    assert split_path("/model/us.amazon.nova-micro-v1%3A0/converse-stream") == (
        "",
        "us.amazon.nova-micro-v1:0",
    )
    assert split_path("/proxy/model/arn%3Aaws%3Ax%2Fy/converse-stream") == (
        "/proxy",
        "arn:aws:x/y",
    )
    mark = server.journal.count
    b = bundled()
    run_client(
        adapter("boto3"),
        server,
        cassettes=b.cassettes,
        goldens=b.goldens,
        chunkings=("whole",),
        select=["plain_text"],
    )
    entries = [e for e in server.journal.since(mark) if e.get("case") == f"{DIALECT}/plain_text"]
    # whole, and eventstream: the suite adds it to an event-stream body.
    assert len(entries) == 2
    recorded = load_cassette(b.cassettes / DIALECT / "plain_text.yaml").interactions[0].request
    _, model = split_path(recorded.uri.split("amazonaws.com", 1)[-1])
    for entry in entries:
        assert entry["path"].endswith(f"/model/{model}/converse-stream")
        assert entry["status"] == 200


# -- raf's decoder against botocore's ---------------------------------------------------------


def botocore_messages(body: bytes, pieces: list[bytes]) -> list[tuple[dict[str, Any], bytes]]:
    eventstream = library("botocore.eventstream")
    buffer = eventstream.EventStreamBuffer()
    out: list[tuple[dict[str, Any], bytes]] = []
    for piece in pieces:
        buffer.add_data(piece)
        out.extend((dict(m.headers), bytes(m.payload)) for m in buffer)
    return out


def raf_messages(pieces: list[bytes]) -> tuple[list[tuple[dict[str, Any], bytes]], bool]:
    decoder = EventStreamDecoder()
    out = []
    for piece in pieces:
        out.extend(decoder.feed(piece))
    out.extend(decoder.close())
    return [
        (
            {k: v.bytes if isinstance(v, uuid.UUID) else v for k, v in m.headers.items()},  # type: ignore[attr-defined]
            m.payload,  # type: ignore[attr-defined]
        )
        for m in out
    ], decoder.truncated


def recorded_bodies() -> list[tuple[str, bytes]]:
    out = []
    for path in sorted((bundled().cassettes / DIALECT).glob("*.yaml")):
        for n, interaction in enumerate(load_cassette(path).interactions):
            content_type = interaction.response.header("content-type") or ""
            if "eventstream" in content_type and path.stem != "bad_message_crc":
                out.append((f"{path.stem}#{n}", interaction.response.content()))
    return out


@pytest.mark.parametrize(("name", "body"), recorded_bodies(), ids=lambda v: str(v)[:40])
@pytest.mark.parametrize("chunking", ["whole", "bytes", "random-5", "eventstream"])
def test_raf_and_botocore_decode_every_recorded_body_alike(
    name: str, body: bytes, chunking: str
) -> None:
    pieces = chunk(body, chunking)
    ours, truncated = raf_messages(pieces)
    assert ours == botocore_messages(body, pieces)
    # Where they differ: a body cut inside a message ends silently in botocore; raf says so.
    assert truncated == (name.startswith("cut_mid_message"))


_NAMES = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12
)
_VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.uuids(),
)
_MESSAGES = st.lists(
    st.tuples(st.dictionaries(_NAMES, _VALUES, max_size=6), st.binary(max_size=200)),
    max_size=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=_MESSAGES, seed=st.integers(min_value=0, max_value=1000))
def test_raf_and_botocore_decode_any_valid_stream_alike(
    messages: list[tuple[dict[str, Any], bytes]], seed: int
) -> None:
    body = b"".join(encode.encode_message(list(h.items()), p) for h, p in messages)
    pieces = chunk(body, f"random-{seed}")
    ours, truncated = raf_messages(pieces)
    assert not truncated
    assert ours == botocore_messages(body, pieces)
    assert [p for _, p in ours] == [p for _, p in messages]


def test_botocore_ignores_a_cut_body_where_raf_reports_it() -> None:
    body = encode.event("messageStart", json.dumps({"role": "assistant"}).encode())
    cut = body + body[:-5]
    assert len(botocore_messages(cut, [cut])) == 1  # and no error: the cut message is gone
    ours, truncated = raf_messages([cut])
    assert len(ours) == 1
    assert truncated


def test_redacted_reasoning_round_trips_through_botocore_as_bytes() -> None:
    """botocore hands ``redactedContent`` over as the decoded bytes; the adapter's loop
    re-encodes them to the base64 text the stream carried."""
    parsers = library("botocore.parsers")
    session = library("botocore.session").get_session()
    model = session.get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]
    secret = base64.b64encode(b"opaque reasoning").decode()
    payload = {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": secret}}}
    message = encode.event("contentBlockDelta", json.dumps(payload).encode())
    [(headers, body)] = botocore_messages(message, [message])
    parsed = parsers.EventStreamJSONParser().parse(
        {"headers": headers, "body": body, "status_code": 200}, shape
    )
    raw = parsed["contentBlockDelta"]["delta"]["reasoningContent"]["redactedContent"]
    assert raw == b"opaque reasoning"
    from raf.clients.boto3_converse_stream import _Loop  # noqa: PLC0415

    loop = _Loop()
    loop.read(parsed)
    assert loop.redacted == [secret]


def test_the_adapter_declares_what_it_is() -> None:
    found = adapter("boto3")
    assert found.name == "boto3"
    assert found.dialects == (DIALECT,)
    assert "http_errors" in found.capabilities
    assert found.how
    assert Path(found.run.__code__.co_filename).name == "boto3_converse_stream.py"


@pytest.mark.parametrize(
    ("block", "headers_length"),
    [
        (b"\x01x\x0a", None),  # header type 10: no such type
        (b"", 30),  # a header block longer than the message leaves
    ],
    ids=["unknown_header_type", "headers_past_the_message"],
)
def test_botocore_raises_untyped_errors_where_raf_reports_a_malformed_stream(
    block: bytes, headers_length: int | None
) -> None:
    library("botocore.eventstream")
    payload = b"x" * 20
    total = 16 + len(block) + len(payload)
    length = len(block) if headers_length is None else headers_length
    prelude = total.to_bytes(4, "big") + length.to_bytes(4, "big")
    prelude += zlib.crc32(prelude).to_bytes(4, "big")
    body = prelude + block + payload
    body += zlib.crc32(body).to_bytes(4, "big")
    with pytest.raises((KeyError, UnicodeDecodeError, struct.error)):
        botocore_messages(body, [body])
    decoder = EventStreamDecoder()
    with pytest.raises(EventStreamError) as caught:
        decoder.feed(body)
    assert caught.value.kind == "malformed"


def test_blobs_of_the_recorded_request_are_given_to_botocore_as_bytes() -> None:
    from raf.clients.boto3_converse_stream import _blobs  # noqa: PLC0415

    secret = base64.b64encode(b"opaque").decode()
    picture = base64.b64encode(b"\x89PNG").decode()
    request = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"reasoningContent": {"redactedContent": secret}},
                    {"text": "redactedContent"},
                ],
            },
            {
                "role": "user",
                "content": [{"image": {"format": "png", "source": {"bytes": picture}}}],
            },
        ],
        "inferenceConfig": {"maxTokens": 10},
    }
    given = _blobs(request)
    assert given["messages"][0]["content"][0]["reasoningContent"]["redactedContent"] == b"opaque"
    assert given["messages"][0]["content"][1] == {"text": "redactedContent"}
    assert given["messages"][1]["content"][0]["image"]["source"]["bytes"] == b"\x89PNG"
    assert given["inferenceConfig"] == {"maxTokens": 10}
    # Text that is not base64 is left as it is, for botocore to refuse as the user would see.
    assert _blobs({"bytes": "not base64!"}) == {"bytes": "not base64!"}
