"""AWS event streams through the whole pipeline: a corrupt stream is ``stream_corrupt`` after
every update decoded before it, ``--framing auto`` recognises an event stream, the
``eventstream`` chunking cuts each message at its structure, the conformance suite adds that
chunking to event-stream bodies, and ``raf serve`` sends a binary body byte-exact, with its
content type, its faults and a model id (an ARN too) in the path."""

from __future__ import annotations

import base64
import dataclasses
import http.client
import json
import random
import zlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from raf import formats, framing
from raf.cassettes import load as load_cassette
from raf.cassettes import save as save_cassette
from raf.chunking import EVENTSTREAM, chunk, eventstream_cuts
from raf.cli import main
from raf.conformance.cases import load_suite
from raf.conformance.levels import Mismatch
from raf.conformance.protocol import Case as ProtocolCase
from raf.conformance.update import update_goldens
from raf.errors import EventStreamError
from raf.formats._strategies.common import chunked
from raf.framing import aws_eventstream_encode as encode
from raf.framing.aws_eventstream import EventStreamDecoder
from raf.fuzz.cassette import finding_cassette
from raf.fuzz.generate import streams as fuzz_streams
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.pipeline import UpdateDecoder, respond
from raf.serve import ReplayServer, routes
from raf.serve.faults import parse_faults, plan

MODEL_PATH = "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"
LOST_TEXT = Mismatch("text", '"a"', '""', kind="lost")


def event(name: str, payload: dict[str, Any]) -> bytes:
    return encode.event(name, json.dumps(payload, separators=(",", ":")).encode())


START = event("messageStart", {"role": "assistant"})
HEL = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}})
LO = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "lo"}})
BANG = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "!"}})
STOP_BLOCK = event("contentBlockStop", {"contentBlockIndex": 0})
STOP = event("messageStop", {"stopReason": "end_turn"})
METADATA = event(
    "metadata",
    {"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}, "metrics": {"latencyMs": 9}},
)
BEFORE = START + HEL + LO
WHOLE = BEFORE + BANG + STOP_BLOCK + STOP + METADATA


def flipped(message: bytes, at: int) -> bytes:
    out = bytearray(message)
    out[at] ^= 0x01
    return bytes(out)


def with_prelude(total: int, headers: int) -> bytes:
    prelude = total.to_bytes(4, "big") + headers.to_bytes(4, "big")
    return prelude + zlib.crc32(prelude).to_bytes(4, "big")


# What follows BEFORE, and the kind of EventStreamError it is.
CORRUPT = {
    "prelude_crc": flipped(BANG, 9),
    "length_bit": flipped(BANG, 2),
    "message_crc": flipped(BANG, len(BANG) - 1),
    "payload_bit": flipped(BANG, len(BANG) - 6),
    "too_short": with_prelude(12, 0) + b"\x00" * 8,
    "headers_past_message": with_prelude(32, 40) + b"\x00" * 20,
    "html_after_stream": b"<html><body>502 Bad Gateway</body></html>",
}

CHUNKINGS = ("whole", "bytes", "fixed-7", "random", "random-3", EVENTSTREAM)


def feed_all(body: bytes, chunking: str, **options: Any) -> list[Any]:
    decoder = UpdateDecoder("bedrock_converse", **options)
    out: list[Any] = []
    for piece in chunk(body, chunking):
        out.extend(decoder.feed(piece))
    return out + decoder.close()


def errors(out: list[Any]) -> list[str]:
    return [u.error_code for u in out if type(u) is updates.Error]


def texts(out: list[Any]) -> str:
    return "".join(u.delta for u in out if type(u) is updates.TextDelta)


# -- stream_corrupt -------------------------------------------------------------------------


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("corrupt", sorted(CORRUPT))
def test_a_corrupt_stream_is_stream_corrupt_after_every_earlier_update(
    corrupt: str, chunking: str
) -> None:
    out = feed_all(BEFORE + CORRUPT[corrupt] + STOP_BLOCK + STOP + METADATA, chunking)
    assert texts(out) == "Hello"  # everything before the bad message, nothing after
    assert errors(out) == [ErrorCode.STREAM_CORRUPT]
    assert type(out[-1]) is updates.Error  # the stream is abandoned there
    assert "AWS event stream" in out[-1].message


@pytest.mark.parametrize("framing_name", [None, "auto", "aws_eventstream"])
def test_the_response_keeps_the_text_and_reports_the_corruption(framing_name: str | None) -> None:
    options: dict[str, Any] = {} if framing_name is None else {"framing": framing_name}
    body = BEFORE + CORRUPT["message_crc"] + STOP
    response = respond([body], "bedrock_converse", **options)
    assert response.text == "Hello"
    assert [e.error_code for e in response.errors] == ["stream_corrupt"]
    assert "message CRC" in response.errors[0].message


def test_a_message_past_max_event_bytes_is_still_sse_limit_exceeded() -> None:
    out = feed_all(BEFORE + with_prelude(10_000, 0), "bytes", max_event_bytes=4096)
    assert texts(out) == "Hello"
    assert errors(out) == [ErrorCode.SSE_LIMIT_EXCEEDED]


def test_a_valid_stream_has_no_error_under_every_chunking() -> None:
    for chunking in CHUNKINGS:
        out = feed_all(WHOLE, chunking)
        assert texts(out) == "Hello!"
        assert errors(out) == [], chunking


def test_the_error_type_lives_with_the_other_framing_errors() -> None:
    with pytest.raises(EventStreamError) as caught:
        EventStreamDecoder().feed(BEFORE + CORRUPT["prelude_crc"])
    assert caught.value.kind == "prelude_crc"
    assert len(caught.value.events) == 3
    from raf.framing import aws_eventstream  # noqa: PLC0415 - the old import still works

    assert aws_eventstream.EventStreamError is EventStreamError


@settings(max_examples=150, deadline=None)
@given(
    cut=st.integers(min_value=0, max_value=len(WHOLE)),
    flips=st.lists(st.integers(min_value=0, max_value=len(WHOLE) * 8 - 1), max_size=3),
    noise=st.binary(max_size=40),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_hostile_bytes_give_updates_and_typed_errors_never_an_exception(
    cut: int, flips: list[int], noise: bytes, seed: int
) -> None:
    """Valid messages with bits flipped, cut short, followed by noise: the pipeline returns
    updates and errors (never raises, never internal_error), the same however it is cut,
    and every text decoded before the first damaged byte is kept."""
    body = bytearray(WHOLE[:cut])
    for bit in flips:
        if bit // 8 < len(body):
            body[bit // 8] ^= 1 << (bit % 8)
    body += noise
    whole = feed_all(bytes(body), "whole")
    assert ErrorCode.INTERNAL_ERROR not in errors(whole)
    assert feed_all(bytes(body), f"random-{seed}") == whole
    assert feed_all(bytes(body), EVENTSTREAM) == whole
    first_damage = min([bit // 8 for bit in flips if bit // 8 < len(body)] + [cut])
    intact = sum(1 for end in _ends(WHOLE) if end <= first_damage)
    expected = "".join(["", "Hel", "lo", "!"][:intact])  # START, HEL, LO, BANG
    assert texts(whole).startswith(expected)


def _ends(body: bytes) -> list[int]:
    ends, at = [], 0
    while at < len(body):
        at += int.from_bytes(body[at : at + 4], "big")
        ends.append(at)
    return ends


# -- auto framing -----------------------------------------------------------------------------


def test_auto_framing_chooses_the_event_stream_by_its_prelude_crc() -> None:
    auto = framing.create("auto")
    assert auto.feed(WHOLE[:11]) == []  # a prelude not yet whole: held
    frames = auto.feed(WHOLE[11:])
    assert auto.chosen == "aws_eventstream"  # type: ignore[attr-defined]
    assert [f.event for f in frames][:3] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockDelta",
    ]


def test_auto_framing_reads_nul_without_a_prelude_as_sse() -> None:
    auto = framing.create("auto")
    auto.feed(b"\x00" * 12 + b"data: x\n\n")
    assert auto.chosen == "sse"  # type: ignore[attr-defined]


def test_auto_framing_takes_a_short_nul_body_for_a_cut_event_stream() -> None:
    auto = framing.create("auto")
    auto.feed(WHOLE[:7])
    auto.close()
    assert auto.chosen == "aws_eventstream"  # type: ignore[attr-defined]
    assert auto.truncated


def test_the_content_type_of_the_framing_is_known() -> None:
    from raf.formats import CONTENT_TYPES  # noqa: PLC0415

    assert CONTENT_TYPES["aws_eventstream"] == EVENTSTREAM_TYPE


# -- the eventstream chunking -----------------------------------------------------------------


def test_eventstream_chunking_cuts_every_message_at_its_structure() -> None:
    body = START + HEL
    headers = int.from_bytes(START[4:8], "big")
    first = [1, 4, 8, 11, 12, 12 + headers, len(START) - 4, len(START) - 1, len(START)]
    headers = int.from_bytes(HEL[4:8], "big")
    second = [len(START) + n for n in (1, 4, 8, 11, 12, 12 + headers, len(HEL) - 4, len(HEL) - 1)]
    assert eventstream_cuts(body) == first + second
    pieces = chunk(body, EVENTSTREAM)
    assert b"".join(pieces) == body
    assert len(pieces) == len(first) + len(second) + 1


@pytest.mark.parametrize(
    "body",
    [b"", b"data: hello\n\n", b"\x00\x00\x00\x05", BEFORE + b"\x00\x00\x00\x08" + b"x" * 20],
)
def test_eventstream_chunking_keeps_what_is_no_message_whole(body: bytes) -> None:
    pieces = chunk(body, EVENTSTREAM)
    assert b"".join(pieces) == body
    assert all(c < len(BEFORE) + 1 for c in eventstream_cuts(body))


# -- conformance and serve --------------------------------------------------------------------


def write_cassette(folder: Path, scenario: str, body: bytes, *, text: str = "Hello!") -> Path:
    expect: dict[str, Any] = {
        "text": text,
        "reasoning": None,
        "tool_calls": [],
        "finish_reason": "stop",
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        "errors": [],
    }
    request = {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    document = {
        "raf": {
            "scenario": scenario,
            "dialect": "bedrock_converse",
            "provider": "Amazon Bedrock",
            "title": "A short answer in an AWS event stream",
            "notes": "Written by this test with raf's event-stream encoder.",
            "expect": expect,
        },
        "interactions": [
            {
                "request": {
                    "body": json.dumps(request),
                    "headers": {"content-type": ["application/json"]},
                    "method": "POST",
                    "uri": "https://bedrock-runtime.us-east-1.amazonaws.com" + MODEL_PATH,
                },
                "response": {
                    "body": {"string": "BODY"},
                    "headers": {"content-type": [EVENTSTREAM_TYPE]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
        ],
        "version": 1,
    }
    text_doc = msgspec.yaml.encode(document).decode()
    binary = "!!binary |\n          " + base64.b64encode(body).decode()
    path = folder / "bedrock_converse" / f"{scenario}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text_doc.replace("BODY", binary, 1))
    return path


def test_the_suite_adds_the_eventstream_chunking_to_event_stream_bodies(tmp_path: Path) -> None:
    write_cassette(tmp_path / "cassettes", "short_answer", WHOLE)
    written = update_goldens(tmp_path / "cassettes", tmp_path / "goldens")
    assert [u.verdict for u in written] == ["new"], written  # the expect block agrees
    suite = load_suite(tmp_path / "cassettes", tmp_path / "goldens", chunkings=("whole",))
    assert [c.chunking for c in suite.cases] == ["whole", EVENTSTREAM]
    case = suite.cases[1]
    assert case.chunks() == chunk(WHOLE, EVENTSTREAM)
    # raf-conformance/1 carries each read as base64: the binary reads come back exact.
    sent = ProtocolCase(
        id=case.id,
        dialect=case.dialect,
        level="response",
        status=200,
        headers={"content-type": EVENTSTREAM_TYPE},
        chunks=[base64.b64encode(c).decode("ascii") for c in case.chunks()],
    )
    received = msgspec.json.decode(msgspec.json.encode(sent), type=ProtocolCase)
    assert received.body_chunks() == chunk(WHOLE, EVENTSTREAM)


def _post(server: ReplayServer, path: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        body = json.dumps({"messages": [{"role": "user", "content": [{"text": "hi"}]}]})
        connection.request("POST", path, body=body, headers={"content-type": "application/json"})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("cassettes")
    write_cassette(folder, "short_answer", WHOLE)
    with ReplayServer([folder]) as server:
        yield server


@pytest.mark.parametrize("chunking", ["whole", "bytes", EVENTSTREAM, "random"])
def test_serve_sends_the_binary_body_byte_exact_with_its_content_type(
    served: ReplayServer, chunking: str
) -> None:
    status, headers, body = _post(
        served, f"/s/bedrock_converse/short_answer/c/{chunking}{MODEL_PATH}"
    )
    assert status == 200
    assert headers["content-type"] == EVENTSTREAM_TYPE
    assert body == WHOLE


def test_serve_routes_a_model_arn_with_an_encoded_slash(served: ReplayServer) -> None:
    arn = "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.nova-micro"
    status, _, body = _post(served, f"/s/bedrock_converse/short_answer/model/{arn}/converse-stream")
    assert status == 200
    assert body == WHOLE
    route = routes.parse(f"/s/bedrock_converse/short_answer/model/{arn}/converse-stream")
    assert isinstance(route, routes.Route)
    assert route.provider_path == (
        "/model/arn:aws:bedrock:us-east-1:123456789012:inference-profile%2Fus.nova-micro"
        "/converse-stream"
    )
    # An encoded slash still names no cassette.
    refused = routes.parse(f"/s/bedrock_converse/a%2Fb{MODEL_PATH}")
    assert isinstance(refused, routes.RouteError)


def test_the_garbage_fault_injects_a_valid_message_whose_payload_is_not_json() -> None:
    sent = plan(
        dialect="bedrock_converse",
        status=200,
        reason="OK",
        headers=[("content-type", EVENTSTREAM_TYPE)],
        chunks=chunk(WHOLE, "bytes"),
        faults=parse_faults("garbage"),
    ).body()
    decoder = EventStreamDecoder()
    frames = decoder.feed(sent)
    decoder.close()
    assert not decoder.truncated
    assert [f.event for f in frames[:2]] == ["messageStart", "messageStart"]
    assert frames[1].data.startswith("{raf injected garbage")
    out = feed_all(sent, "whole")
    assert texts(out) == "Hello!"
    assert ErrorCode.SSE_PARSE_ERROR in errors(out)


def test_random_bodies_never_break_the_route_or_the_chunking() -> None:
    rng = random.Random(7)
    for _ in range(200):
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        assert b"".join(chunk(body, EVENTSTREAM)) == body


def test_generated_reads_include_the_eventstream_cuts_for_an_event_stream() -> None:
    """The reads the strategies draw (and ``raf fuzz`` sends) cut an event stream at its
    structure where they cut a text stream between CR and LF."""
    reads = st.composite(lambda draw: chunked(draw, WHOLE))()
    found = find(reads, lambda pieces: pieces == chunk(WHOLE, EVENTSTREAM))
    assert b"".join(found) == WHOLE


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_generated_read_of_an_event_stream_decodes_the_same(data: st.DataObject) -> None:
    pieces = data.draw(st.composite(lambda draw: chunked(draw, WHOLE))())
    assert b"".join(pieces) == WHOLE
    decoder = UpdateDecoder("bedrock_converse")
    out = [u for piece in pieces for u in decoder.feed(piece)] + decoder.close()
    assert out == feed_all(WHOLE, "whole")


@pytest.mark.parametrize("dialect", ["bedrock_converse", "auto"])
def test_raf_pipeline_reads_a_binary_file_and_reports_the_corruption(
    dialect: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "converse.bin"
    path.write_bytes(BEFORE + CORRUPT["message_crc"] + STOP)
    assert main(["pipeline", str(path), "--dialect", dialect]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line]
    assert "".join(u.get("delta", "") for u in out if u["type"] == "text_delta") == "Hello"
    assert [u["error_code"] for u in out if u["type"] == "error"] == ["stream_corrupt"]
    assert main(["pipeline", str(path), "--dialect", dialect, "--strict"]) == 1


def test_an_injected_http_error_carries_the_format_s_error_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bedrock names an HTTP error in ``x-amzn-ErrorType``, which botocore reads as the
    error's code; a format that declares such headers gets them on ``/f/http-STATUS``."""
    bedrock = formats.get("bedrock_converse")
    named = dataclasses.replace(
        bedrock, error_headers=lambda status: {"x-amzn-ErrorType": f"E{status}Exception"}
    )
    monkeypatch.setattr(
        "raf.serve.faults.formats.find", lambda name: named if name == bedrock.name else None
    )
    sent = plan(
        dialect="bedrock_converse",
        status=200,
        reason="OK",
        headers=[("content-type", EVENTSTREAM_TYPE)],
        chunks=[WHOLE],
        faults=parse_faults("http-429"),
    )
    assert sent.status == 429
    assert ("x-amzn-ErrorType", "E429Exception") in sent.headers
    assert ("retry-after", "1") in sent.headers
    plain = plan(
        dialect="openai_chat",
        status=200,
        reason="OK",
        headers=[],
        chunks=[b"data: [DONE]\n\n"],
        faults=parse_faults("http-429"),
    )
    assert [k for k, _ in plain.headers] == ["content-type", "retry-after"]


@settings(max_examples=10, deadline=None, database=None)
@given(data=st.data())
def test_a_fuzz_finding_in_an_event_stream_is_saved_as_a_binary_cassette(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    stream = data.draw(fuzz_streams("bedrock_converse", max_tool_calls=1))
    assert stream.body[:1] == b"\x00"
    cassette = finding_cassette(stream, [LOST_TEXT], seed=1)
    (interaction,) = cassette.interactions
    assert interaction.response.header("content-type") == EVENTSTREAM_TYPE
    path = tmp_path_factory.mktemp("found") / "bedrock_converse" / "finding.yaml"
    path.parent.mkdir()
    save_cassette(cassette, path)
    assert load_cassette(path).interactions[0].response.content() == stream.body
