"""The AWS event stream encoder (raf.framing.aws_eventstream_encode): what it writes, the
decoder reads back exactly, whatever the headers, the payload and the cuts."""

from __future__ import annotations

import zlib

from hypothesis import given
from hypothesis import strategies as st

from raf.cassettes import load
from raf.framing import ServerSentEvent
from raf.framing import aws_eventstream_encode as encode
from raf.framing.aws_eventstream import EventStreamDecoder, HeaderValue
from raf.shared.bundled import bundled

_NAMES = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=20)
_VALUES: st.SearchStrategy[HeaderValue | encode.Header] = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.uuids(),
)


def _decoded(body: bytes, cuts: list[int]) -> list[ServerSentEvent]:
    decoder = EventStreamDecoder()
    out: list[ServerSentEvent] = []
    start = 0
    for cut in [*sorted(c % (len(body) + 1) for c in cuts), len(body)]:
        out += decoder.feed(body[start:cut])
        start = max(start, cut)
    out += decoder.close()
    assert not decoder.truncated
    return out


@given(
    messages=st.lists(
        st.tuples(
            st.dictionaries(_NAMES.filter(lambda n: len(n.encode()) < 256), _VALUES, max_size=4),
            st.binary(max_size=64),
        ),
        max_size=5,
    ),
    cuts=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_what_the_encoder_writes_decodes_to_the_same_headers_and_payload(
    messages: list[tuple[dict[str, HeaderValue], bytes]], cuts: list[int]
) -> None:
    body = b"".join(encode.encode_message(list(h.items()), p) for h, p in messages)
    decoded = _decoded(body, cuts)
    assert [(m.headers, m.payload) for m in decoded] == [  # type: ignore[attr-defined]
        (h, p) for h, p in messages
    ]


def test_typed_headers_keep_their_width_and_both_crcs_are_zlib_crc32() -> None:
    message = encode.encode_message(
        [
            ("b", encode.Header("b", 2, -1)),
            ("s", encode.Header("s", 3, -2)),
            ("t", encode.Header("t", 8, 1_700_000_000_000)),
        ],
        b"{}",
    )
    assert zlib.crc32(message[:8]) == int.from_bytes(message[8:12], "big")
    assert zlib.crc32(message[:-4]) == int.from_bytes(message[-4:], "big")
    (decoded,) = _decoded(message, [])
    assert decoded.headers == {"b": -1, "s": -2, "t": 1_700_000_000_000}  # type: ignore[attr-defined]


def test_the_three_kinds_of_message_carry_bedrock_s_headers() -> None:
    body = (
        encode.event("messageStart", b'{"role":"assistant"}')
        + encode.exception("throttlingException", b'{"message":"slow down"}')
        + encode.error("InternalFailure", "try again")
    )
    kinds = [(m.message_type, m.event) for m in _decoded(body, [])]  # type: ignore[attr-defined]
    assert kinds == [
        ("event", "messageStart"),
        ("exception", "throttlingException"),
        ("error", "InternalFailure"),
    ]


# Cassettes whose bodies are real Bedrock bodies, message for message (their notes say so).
REAL = (
    "plain_text",
    "claude_reasoning_with_signature",
    "claude_redacted_reasoning",
    "gpt_oss_empty_text_block",
    "nova_code_interpreter_hosted_then_client_tool",
    "nova_tool_round_then_answer",
)


def test_the_encoder_writes_bedrock_s_own_bytes() -> None:
    """Each real body, decoded and written again message by message, is the same bytes: the
    encoder lays out headers, lengths and CRCs as Bedrock does."""
    for scenario in REAL:
        cassette = load(bundled().cassettes / "bedrock_converse" / f"{scenario}.yaml")
        for interaction in cassette.interactions:
            body = interaction.response.body
            again = b"".join(
                encode.encode_message(list(m.headers.items()), m.payload)  # type: ignore[attr-defined]
                for m in _decoded(body, [])
            )
            assert again == body, scenario
