"""The framing step: JSON array and JSON lines bodies split into frames, whatever the
network chunking; truncation, BOM, limits and stray text; and the ``auto`` choice."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from raf import framing
from raf.errors import DialectError, SSELimitExceeded
from raf.framing import AutoFraming, JSONArrayDecoder, JSONLinesDecoder
from raf.testing.strategies import json_values, network_chunkings


def frames(decoder: framing.Framing, chunks: list[bytes]) -> tuple[list[str], bool]:
    out = [e.data for chunk in chunks for e in decoder.feed(chunk)]
    out += [e.data for e in decoder.close()]
    return out, decoder.truncated


GEMINI = (
    b'[{"candidates": [{"content": {"parts": [{"text": "Hel"}]}}]}\r\n,'
    b'{"candidates": [{"content": {"parts": [{"text": "lo \\"]}\\\\"}]}}]}\r\n]'
)


def test_a_gemini_json_array_is_one_frame_per_element() -> None:
    data, truncated = frames(JSONArrayDecoder(), [GEMINI])
    assert [json.loads(d)["candidates"][0]["content"]["parts"][0]["text"] for d in data] == [
        "Hel",
        'lo "]}\\',
    ]
    assert not truncated


@given(st.lists(json_values(max_leaves=6), max_size=5), st.data())
def test_any_json_array_splits_into_its_elements_under_any_chunking(
    values: list[object], data: st.DataObject
) -> None:
    body = ("[" + ",\r\n".join(json.dumps(v) for v in values) + "]").encode()
    chunks = data.draw(network_chunkings(body))
    got, truncated = frames(JSONArrayDecoder(), chunks)
    assert [json.loads(d) for d in got] == values
    assert not truncated


@given(
    st.lists(json_values(max_leaves=6).filter(lambda v: isinstance(v, dict)), max_size=5), st.data()
)
def test_any_json_lines_body_splits_into_its_lines_under_any_chunking(
    values: list[object], data: st.DataObject
) -> None:
    body = "".join(json.dumps(v) + "\r\n" for v in values).encode()
    got, truncated = frames(JSONLinesDecoder(), data.draw(network_chunkings(body)))
    assert [json.loads(d) for d in got] == values
    assert not truncated


def test_a_cut_array_element_is_discarded_and_reported_as_truncation() -> None:
    got, truncated = frames(JSONArrayDecoder(), [b'[{"a": 1},\n{"b": "unfini'])
    assert got == ['{"a": 1}']
    assert truncated


def test_an_array_without_its_closing_bracket_is_truncated() -> None:
    assert frames(JSONArrayDecoder(), [b'[{"a": 1}'])[1] is True


def test_a_bom_split_across_feeds_is_skipped() -> None:
    assert frames(JSONArrayDecoder(), [b"\xef", b"\xbb", b'\xbf[{"a":1}]']) == (['{"a":1}'], False)
    assert frames(JSONLinesDecoder(), [b"\xef\xbb\xbf{}\n"]) == (["{}"], False)


def test_stray_text_between_elements_is_a_frame_of_its_own_not_lost() -> None:
    got, _ = frames(JSONArrayDecoder(), [b'[{"a":1}, oops, {"b":2}] ]'])
    assert got == ['{"a":1}', "oops", '{"b":2}', "]"]


def test_values_outside_an_array_are_frames_too() -> None:
    assert frames(JSONArrayDecoder(), [b'{"error": {"code": 500}}'])[0] == [
        '{"error": {"code": 500}}'
    ]


def test_a_multibyte_character_split_across_feeds_is_kept() -> None:
    body = '[{"t": "é✓😀"}]'.encode()
    assert frames(JSONArrayDecoder(), [body[i : i + 1] for i in range(len(body))])[0] == [
        '{"t": "é✓😀"}'
    ]


def test_an_element_past_the_limit_raises_with_the_frames_before_it() -> None:
    decoder = JSONArrayDecoder(max_event_bytes=64)
    with pytest.raises(SSELimitExceeded) as caught:
        decoder.feed(b'[{"a": 1}, {"b": "' + b"x" * 100)
    assert [e.data for e in caught.value.events] == ['{"a": 1}']


def test_a_json_line_past_the_limit_raises() -> None:
    with pytest.raises(SSELimitExceeded):
        JSONLinesDecoder(max_line_bytes=8).feed(b'{"a": "long line"}\n')


def test_an_unterminated_last_json_line_is_truncation() -> None:
    assert frames(JSONLinesDecoder(), [b'{"a":1}\n{"b"']) == (['{"a":1}'], True)


@pytest.mark.parametrize(
    ("body", "chosen"),
    [
        (b'  \r\n[{"a":1}]', "json_array"),
        (b'\xef\xbb\xbf{"a":1}\n', "json_lines"),
        (b'data: {"a":1}\n\n', "sse"),
        (b": comment\n\n", "sse"),
    ],
)
def test_auto_chooses_by_the_first_byte_under_any_split(body: bytes, chosen: str) -> None:
    for size in (1, 2, len(body)):
        auto = AutoFraming()
        got, _ = frames(auto, [body[i : i + size] for i in range(0, len(body), size)])
        assert auto.chosen == chosen
        assert got in ([], ['{"a":1}'])


def test_unknown_framing_names_are_refused_with_the_known_ones() -> None:
    with pytest.raises(DialectError, match="json_array"):
        framing.create("xml")


# Pieces of hostile JSON-array bodies: values compact, spaced or spread over lines, stray
# text, separators of every kind, values sharing a line, cut or unbalanced objects.
_PIECES = st.one_of(
    json_values(max_leaves=6).map(lambda v: json.dumps(v, separators=(",", ":"))),
    json_values(max_leaves=6).map(json.dumps),
    json_values(max_leaves=4).map(lambda v: json.dumps(v, indent=1)),
    st.sampled_from(
        ["[", "]", ",", "\r\n,", "\n", "\r\n", " ", "oops", '{"a":', "}", '{"a":"\\u00"}', "{}{}"]
    ),
    st.sampled_from(
        ['{"a":"x\\n\\"}\\\\"}', '{"b":"\xff"}', '{"c":1} {"d":2}', '{"e":[1,{"f":2}]}']
    ),
)


def _outcome(
    chunks: list[bytes], limit: int, *, fast: bool = True
) -> tuple[list[list[str]], bool | None]:
    """The frames of each feed (and of close), and the truncation (``None``: a limit
    error); ``fast=False``: the scanner alone."""
    decoder = JSONArrayDecoder(max_event_bytes=limit)
    got: list[list[str]] = []
    try:
        for chunk in chunks:
            fed = decoder._feed_chunk(chunk, fast=fast)
            got.append([e.data for e in fed])
    except SSELimitExceeded as exc:
        return [*got, [e.data for e in exc.events]], None
    got.append([e.data for e in decoder.close()])
    return got, decoder.truncated


@given(st.lists(_PIECES, max_size=12), st.sampled_from([16, 64, 1 << 20]), st.data())
def test_whole_line_objects_split_as_the_scanner_splits_them(
    pieces: list[str], limit: int, data: st.DataObject
) -> None:
    """An object alone on its line is taken whole (checked by msgspec), or held while its
    line goes on and it cannot have ended, only where the scanner would give exactly it in
    the same feed: any body, however cut, gives the same frames feed by feed, truncation and
    limit errors as the scanner alone."""
    body = "".join(pieces).encode("utf-8", "surrogatepass")
    for chunks in (data.draw(network_chunkings(body)), [body]):
        assert _outcome(chunks, limit) == _outcome(chunks, limit, fast=False)
