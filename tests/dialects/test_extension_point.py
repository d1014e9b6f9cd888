"""The dialect extension point: a dialect written to docs/dialects.md (``feed``, ``close``,
``done``, ``name``, ``framing``) plugs in; a third-party package registers one through the
``raf.dialects`` entry point group; usage tables and ``--dialect auto`` sniffing."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from raf import dialects, formats
from raf.dialects.base import JSONEventDialect
from raf.dialects.sniff import sniff
from raf.dialects.tables import UsageTable, finish_reason
from raf.errors import DialectError
from raf.model import updates
from raf.model.usage import Usage
from raf.pipeline import UpdateDecoder, respond
from raf.sse import ServerSentEvent
from tests import processes


class Minimal:
    """A dialect with only the documented members: no feed_events."""

    name = "minimal"
    framing = "json_lines"

    def __init__(self) -> None:
        self.done = False
        self.seen = 0

    def feed(self, event: ServerSentEvent) -> list[Any]:
        self.seen += 1
        payload = json.loads(event.data)
        if payload.get("end"):
            self.done = True
            return [updates.Finish(finish_reason="stop")]
        return [updates.TextDelta(delta=payload["t"])]

    def close(self, *, truncated: bool = False) -> list[Any]:
        return [] if self.done else [updates.Error(error_code="stream_truncated", message="cut")]


def test_a_dialect_written_to_the_documented_protocol_runs_in_the_pipeline() -> None:
    dialect = Minimal()
    body = b'{"t": "Hel"}\n{"t": "lo"}\n{"end": true}\n{"t": "after the end"}\n'
    response = respond([body[i : i + 3] for i in range(0, len(body), 3)], dialect)
    assert (response.text, response.finish_reason, response.errors) == ("Hello", "stop", ())
    assert dialect.seen == 3  # nothing is fed after the end


def test_register_makes_a_name_usable_everywhere() -> None:
    dialects.register("minimal", lambda **_: Minimal())
    try:
        assert "minimal" in dialects.names()
        assert respond([b'{"t": "x"}\n{"end": 1}\n'], "minimal").text == "x"
    finally:
        dialects._REGISTRY.pop("minimal")


ENTRY_POINT_PACKAGE = """
from raf.dialects.base import JSONEventDialect
from raf.model import updates


def _say(dialect, payload, frame):
    frame.out.append(updates.TextDelta(delta=frame.str(payload, "say") or ""))


def _bye(dialect, payload, frame):
    dialect.finished = True
    frame.out.append(updates.Finish(finish_reason="stop"))


class ShoutDialect(JSONEventDialect):
    name = "shout"
    framing = "sse"
    sniff = (rb'"say"',)
    handlers = {"say": _say, "bye": _bye}
"""


def test_a_third_party_dialect_registers_through_the_entry_point_group(tmp_path: Path) -> None:
    # A real installed distribution: a module and its dist-info with entry_points.txt.
    (tmp_path / "shout_dialect.py").write_text(ENTRY_POINT_PACKAGE)
    info = tmp_path / "shout_dialect-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shout-dialect\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[raf.dialects]\nshout = shout_dialect:ShoutDialect\n")
    script = textwrap.dedent(
        """
        from raf import dialects
        from raf.pipeline import respond
        body = (b'data: {"type": "say", "say": "hi"}\\n\\n'
                b'data: {"type": "other"}\\n\\n'
                b'data: {"type": "bye"}\\n\\n')
        print("shout" in dialects.names(), respond([body], "shout").text,
              respond([body], "auto").finish_reason)
        """
    )
    result = processes.run(
        [sys.executable, "-c", script],
        text=True,
        check=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
        cwd=tmp_path,
    )
    assert result.stdout.split() == ["True", "hi", "stop"]


def test_a_broken_entry_point_is_a_dialect_error_not_a_crash(tmp_path: Path) -> None:
    info = tmp_path / "broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[raf.dialects]\nbroken = no_such_module:X\n")
    script = (
        "from raf import dialects\n"
        "from raf.errors import DialectError\n"
        "try:\n    dialects.create('broken')\n"
        "except DialectError as exc:\n    print('refused:', exc)\n"
    )
    result = processes.run(
        [sys.executable, "-c", script],
        text=True,
        check=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )
    assert "refused: dialect 'broken' could not be loaded" in result.stdout


def test_unknown_dialects_are_refused_with_the_known_names() -> None:
    with pytest.raises(DialectError, match="openai_chat"):
        dialects.create("nope")


def test_every_built_in_dialect_is_listed_and_loads() -> None:
    assert set(formats.names()) <= set(dialects.names())
    for name in formats.names():
        dialect = dialects.create(name)
        assert dialect.name == name
        assert isinstance(dialect, JSONEventDialect)


# -- usage tables -------------------------------------------------------------------------------

ANTHROPIC_LIKE = UsageTable(
    prompt_tokens=(("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),),
    completion_tokens=(("output_tokens",),),
    cache_hit=(("cache_read_input_tokens",),),
)


def test_a_usage_count_can_be_the_sum_of_several_fields() -> None:
    usage = ANTHROPIC_LIKE.parse(
        {
            "input_tokens": 3,
            "cache_creation_input_tokens": 10,
            "cache_read_input_tokens": 90,
            "output_tokens": 7,
        }
    )
    assert usage == Usage(
        prompt_tokens=103,
        completion_tokens=7,
        total_tokens=110,
        prompt_cache_hit_tokens=90,
        prompt_cache_miss_tokens=13,
    )


def test_alternatives_are_tried_in_order_and_malformed_counts_are_missing() -> None:
    table = UsageTable(
        prompt_tokens=(("a",),),
        completion_tokens=(("b",),),
        cache_hit=(("hit",), ("details.cached",)),
    )
    assert table.parse({"a": 5, "b": True, "details": {"cached": 2}}) == Usage(
        prompt_tokens=5,
        completion_tokens=0,
        total_tokens=5,
        prompt_cache_hit_tokens=2,
        prompt_cache_miss_tokens=3,
    )
    assert table.parse({"a": -1, "hit": "3"}).prompt_tokens == 0
    assert not table.has_any({"other": 1})


def test_finish_reasons_map_by_table_and_unknown_ones_are_kept_verbatim() -> None:
    table = {"end_turn": "stop", "tool_use": "tool_calls"}
    assert finish_reason(table, "tool_use") == "tool_calls"
    assert finish_reason(table, "pause_turn") == "pause_turn"


# -- sniffing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "dialect"),
    [
        (b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n', "openai_chat"),
        (
            b'event: message_start\ndata: {"type":"message_start","message":{}}\n\n',
            "anthropic_messages",
        ),
        (
            b'event: response.created\ndata: {"type":"response.created","response":{}}\n\n',
            "openai_responses",
        ),
        (b'data: {"candidates": [{"content": {"parts": [{"text": "a"}]}}]}\n\n', "gemini"),
        (b'[{"candidates": [{"content": {"parts": [{"text": "a"}]}}]}]', "gemini"),
    ],
)
def test_auto_recognises_each_format_under_any_split(body: bytes, dialect: str) -> None:
    assert sniff(body) == dialect
    for size in (1, 5, len(body)):
        decoder = UpdateDecoder("auto")
        for start in range(0, len(body), size):
            decoder.feed(body[start : start + size])
        decoder.close()
        assert decoder.dialect is not None
        assert decoder.dialect.name == dialect


def test_a_body_no_format_claims_is_read_as_chat_completions() -> None:
    decoder = UpdateDecoder("auto")
    out = decoder.feed(b"data: hello\n\n") + decoder.close()
    assert decoder.dialect is not None
    assert decoder.dialect.name == "openai_chat"
    assert next(u.error_code for u in out if isinstance(u, updates.Error)) == "sse_parse_error"
