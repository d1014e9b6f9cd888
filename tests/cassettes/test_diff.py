"""``raf cassette diff``: what changed between two recordings of one scenario, by severity.

The user story: a provider renames a field, moves usage, or adds an event type; a fresh
recording diffed against the committed one names each change with its severity, and the
command's exit status follows the most severe one."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import raf.cassettes.diff as diff_module
from raf import formats
from raf.cassettes import inventory
from raf.cassettes.diff import KINDS, Change, Drift, diff, render_table, table
from raf.cassettes.format import Cassette
from raf.cassettes.inventory import Unread, UnreadEvent, UnreadField
from raf.cassettes.persister import load, save
from raf.cli import main
from raf.shared.bundled import bundled
from tests.hostile import REGULAR, SPECIAL, Hostile, build_cassettes

OPENAI = "openai_chat/text_with_usage_chunk.yaml"
ANTHROPIC = "anthropic_messages/plain_text.yaml"
DOC = Path(__file__).resolve().parents[2] / "docs" / "recording.md"


def recording(name: str) -> Cassette:
    return load(bundled().cassettes / name)


def rewritten(name: str, edit: Callable[[dict[str, Any]], dict[str, Any] | None]) -> Cassette:
    """The bundled cassette ``name`` with each JSON ``data:`` payload of its body passed
    through ``edit`` (``None`` drops the payload's line)."""
    cassette = recording(name)
    response = cassette.interactions[0].response
    lines = []
    for line in response.body.decode().split("\n"):
        if line.startswith("data: {"):
            payload = edit(json.loads(line[len("data: ") :]))
            if payload is None:
                continue
            lines.append("data: " + json.dumps(payload, separators=(",", ":")))
        else:
            lines.append(line)
    response.body = "\n".join(lines).encode()
    return cassette


def inserted(name: str, before: bytes, frame: bytes) -> Cassette:
    """The bundled cassette ``name`` with ``frame`` put in its body before ``before``."""
    cassette = recording(name)
    response = cassette.interactions[0].response
    assert before in response.body
    response.body = response.body.replace(before, frame + before, 1)
    return cassette


def kinds(drift: Drift) -> dict[str, list[Change]]:
    out: dict[str, list[Change]] = {}
    for change in drift.changes:
        out.setdefault(change.kind, []).append(change)
    return out


def one(drift: Drift, kind: str, where: str) -> Change:
    found = [c for c in drift.changes if c.kind == kind and c.where.endswith(where)]
    assert len(found) == 1, (kind, where, [c.message for c in drift.changes])
    return found[0]


# -- the user story --------------------------------------------------------------------------


def _rename_openai(payload: dict[str, Any]) -> dict[str, Any]:
    for choice in payload.get("choices") or ():
        if "content" in choice["delta"]:
            choice["delta"]["text"] = choice["delta"].pop("content")
    return payload


def _rename_anthropic(payload: dict[str, Any]) -> dict[str, Any]:
    delta = payload.get("delta")
    if payload.get("type") == "content_block_delta" and isinstance(delta, dict) and "text" in delta:
        delta["content"] = delta.pop("text")
    return payload


@pytest.mark.parametrize(
    ("name", "edit", "removed", "added", "event"),
    [
        (
            OPENAI,
            _rename_openai,
            "choices[].delta.content",
            "choices[].delta.text",
            "chat.completion.chunk",
        ),
        (ANTHROPIC, _rename_anthropic, "delta.text", "delta.content", "content_block_delta"),
    ],
)
def test_a_renamed_field_is_removed_added_and_loses_the_text(
    name: str, edit: Any, removed: str, added: str, event: str
) -> None:
    drift = diff(recording(name), rewritten(name, edit))
    gone = one(drift, "field_removed", f"{event} {removed}")
    assert gone.severity == "warning"
    assert removed in gone.message
    came = one(drift, "field_added", f"{event} {added}")
    assert came.severity == "notice"
    text = one(drift, "meaning_changed", "response.text")
    assert text.severity == "error"
    assert text.new == ""
    assert "(lost)" in text.message
    assert drift.worst == "error"


def _move_usage_openai(payload: dict[str, Any]) -> dict[str, Any]:
    usage = payload.pop("usage", None)
    if usage is not None:
        payload["x_meta"] = {"usage": usage}
    return payload


def _move_usage_anthropic(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("type") == "message_delta":
        payload["metrics"] = {"usage": payload.pop("usage")}
    return payload


@pytest.mark.parametrize(
    ("name", "edit", "event", "removed", "added"),
    [
        (OPENAI, _move_usage_openai, "chat.completion.chunk", "usage", "x_meta"),
        (ANTHROPIC, _move_usage_anthropic, "message_delta", "usage", "metrics"),
    ],
)
def test_moved_usage_changes_usage_and_moves_the_fields(
    name: str, edit: Any, event: str, removed: str, added: str
) -> None:
    drift = diff(recording(name), rewritten(name, edit))
    usage = one(drift, "meaning_changed", "response.usage")
    assert usage.severity == "error"
    gone = one(drift, "field_removed", f"{event} {removed}")
    assert gone.severity == "warning"
    assert "field(s) under it" in gone.message
    came = one(drift, "field_added", f"{event} {added}")
    assert came.severity == "notice"
    assert f"{added}.usage" in came.message or "under it" in came.message


NEW_ANTHROPIC_EVENT = (
    b"event: content_block_annotation\n"
    b'data: {"type":"content_block_annotation","index":0,"annotation":{"kind":"citation"}}\n\n'
)
NEW_OPENAI_CHUNK = (
    b'data: {"id":"chatcmpl-x","object":"chat.annotation","created":1761744920,'
    b'"annotation":{"kind":"citation","text":"policy 1"}}\n\n'
)


def _new_event(name: str) -> tuple[Cassette, str]:
    if name == ANTHROPIC:
        return inserted(name, b"event: message_stop", NEW_ANTHROPIC_EVENT), (
            "content_block_annotation"
        )
    return inserted(name, b"data: [DONE]", NEW_OPENAI_CHUNK), "chat.annotation"


@pytest.mark.parametrize("name", [OPENAI, ANTHROPIC])
def test_a_new_event_type_is_named(name: str) -> None:
    new, event = _new_event(name)
    drift = diff(recording(name), new)
    added = one(drift, "event_type_added", f"event {event}")
    assert added.severity == "notice"
    assert event in added.message
    assert added.new == 1
    assert "meaning_changed" not in kinds(drift)


def _edited(story: str, name: str) -> Cassette:
    edits = {
        "renamed": {OPENAI: _rename_openai, ANTHROPIC: _rename_anthropic},
        "moved": {OPENAI: _move_usage_openai, ANTHROPIC: _move_usage_anthropic},
    }
    return _new_event(name)[0] if story == "new event" else rewritten(name, edits[story][name])


@pytest.mark.parametrize(
    ("story", "name", "kind", "says"),
    [
        ("renamed", OPENAI, "unread_field", "raf does not read field choices[].delta.text"),
        ("renamed", ANTHROPIC, "unread_field", "raf does not read field delta.content"),
        ("moved", OPENAI, "unread_field", "raf does not read field x_meta"),
        ("moved", ANTHROPIC, "unread_field", "raf does not read field metrics"),
        ("new event", OPENAI, "unread_event_type", "raf does not read event type chat.annotation"),
        (
            "new event",
            ANTHROPIC,
            "unread_event_type",
            "raf does not read event type content_block_annotation",
        ),
    ],
)
def test_what_raf_does_not_read_in_new_is_a_warning(
    story: str, name: str, kind: str, says: str
) -> None:
    """Needs raf.cassettes.inventory.unread to list what raf does not read (an unrecognised
    event type, an unknown field)."""
    drift = diff(recording(name), _edited(story, name))
    found = [c for c in drift.changes if c.kind == kind and c.message.startswith(says)]
    assert len(found) == 1, [c.message for c in drift.changes]
    assert found[0].severity == "warning"


def test_unread_event_types_and_fields_new_in_new_are_warnings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What :func:`raf.cassettes.inventory.unread` reports, by its contract: only what NEW
    has and OLD had not is a change."""
    old, new = recording(ANTHROPIC), recording(ANTHROPIC)
    new.interactions[0].response.body += b"\n"  # tell the two bodies apart

    def fake(dialect: str, body: bytes, **_: object) -> Unread:
        shared = UnreadEvent("ping", 1, 2, "skipped")
        old_event = UnreadEvent("old_thing", 1, 3, "unrecognised")
        if body == old.interactions[0].response.body:
            return Unread(events=(shared, old_event))
        return Unread(
            events=(shared, old_event, UnreadEvent("annotation", 2, 4, "unrecognised")),
            fields=(
                UnreadField("delta.citation", "content_block_delta", 3, False),
                UnreadField("message.container", "message_start", 1, True),
            ),
        )

    monkeypatch.setattr(diff_module, "unread", fake)
    drift = diff(old, new)
    found = kinds(drift)
    assert [c.message for c in found["unread_event_type"]] == [
        "raf does not read event type annotation (2 event(s), the first #4)"
    ]
    assert [c.message for c in found["unread_field"]] == [
        "raf does not read field delta.citation of content_block_delta events (3 event(s))"
    ]
    assert all(c.severity == "warning" for c in found["unread_event_type"] + found["unread_field"])


# -- the command -----------------------------------------------------------------------------


def _saved(tmp_path: Path, cassette: Cassette, name: str) -> str:
    path = tmp_path / name
    save(cassette, path)
    return str(path)


@pytest.mark.parametrize(("fail_on", "status"), [("error", 1), ("warning", 1), ("notice", 1)])
def test_the_command_names_each_change_and_exits_by_severity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_on: str, status: int
) -> None:
    old = _saved(tmp_path, recording(OPENAI), "old.yaml")
    new = _saved(tmp_path, rewritten(OPENAI, _rename_openai), "new.yaml")
    assert main(["cassette", "diff", old, new, "--fail-on", fail_on, "--no-color"]) == status
    out = capsys.readouterr().out
    assert "errors (1)" in out
    assert "notices (1)" in out
    assert "field choices[].delta.content (string) removed" in out
    assert "raf reads text:" in out
    assert "(lost)" in out
    assert re.search(r"\n1 error, [12] warnings?, 1 notice\n$", out), out  # 2: the field raf
    # does not read (raf.cassettes.inventory)


@pytest.mark.parametrize("name", [OPENAI, ANTHROPIC])
@pytest.mark.parametrize(
    ("story", "expected"),
    [
        ("renamed", ("error meaning_changed interactions[0]: raf reads text:", 1, 1)),
        ("moved", ("error meaning_changed interactions[0]: raf reads usage:", 1, 1)),
        ("new event", ("notice event_type_added interactions[0]: event type ", 0, 1)),
    ],
)
def test_the_command_shows_each_story_with_its_severity_and_exit_status(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    story: str,
    expected: tuple[str, int, int],
) -> None:
    """The line naming the change, the exit status by default (--fail-on error) and under
    --fail-on warning (a new event type raf notices it skips is a warning)."""
    line, status, status_on_warning = expected
    old = _saved(tmp_path, recording(name), "old.yaml")
    new = _saved(tmp_path, _edited(story, name), "new.yaml")
    assert main(["cassette", "diff", old, new, "--no-color"]) == status
    out = capsys.readouterr().out
    assert line in out
    shown = [out.find(f"{title} (") for title in ("errors", "warnings", "notices")]
    present = [at for at in shown if at >= 0]
    assert present == sorted(present)  # the most severe first
    assert main(["cassette", "diff", old, new, "--fail-on", "warning"]) == status_on_warning


def test_the_exit_status_follows_fail_on(tmp_path: Path) -> None:
    old = _saved(tmp_path, recording(ANTHROPIC), "old.yaml")
    new = _saved(
        tmp_path, inserted(ANTHROPIC, b"event: message_stop", b": keep-alive\n\n"), "new.yaml"
    )  # a comment line only: one notice
    assert main(["cassette", "diff", old, new]) == 0
    assert main(["cassette", "diff", old, new, "--fail-on", "warning"]) == 0
    assert main(["cassette", "diff", old, new, "--fail-on", "notice"]) == 1


def test_identical_recordings_show_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _saved(tmp_path, recording(OPENAI), "old.yaml")
    assert diff(recording(OPENAI), load(path)).changes == ()
    assert main(["cassette", "diff", path, path, "--fail-on", "notice", "--no-color"]) == 0
    assert "0 errors, 0 warnings, 0 notices (no change)" in capsys.readouterr().out


def test_json_output_to_a_file_and_to_standard_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _saved(tmp_path, recording(OPENAI), "old.yaml")
    new = _saved(tmp_path, rewritten(OPENAI, _move_usage_openai), "new.yaml")
    assert main(["cassette", "diff", old, new, "--json", "-"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["worst"] == "error"
    assert document["counts"]["error"] == 1
    assert document["counts"]["notice"] == 1
    assert {c["kind"] for c in document["changes"]} - {"unread_field"} == {
        "meaning_changed",
        "field_removed",
        "field_added",
    }
    report = tmp_path / "drift.json"
    assert main(["cassette", "diff", old, new, "--json", str(report)]) == 1
    assert json.loads(report.read_text()) == document
    assert "errors (1)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["missing.yaml", "{old}"], "OLD: "),
        (["{old}", "{bad}"], "NEW: "),
        (["{old}", "{old}", "--interaction", "3"], "--interaction: no interaction 3"),
        (["{old}", "{old}", "--json", "{tmp}"], "is a folder"),
        (["{old}", "{other}", "--json", "{other}"], "a cassette compared"),
        (["{old}", "{other}", "--json", "{tmp}/no/such/folder.json"], "no folder"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    old = _saved(tmp_path, recording(OPENAI), "old.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("not: [a cassette\n")
    other = _saved(tmp_path, recording(OPENAI), "other.yaml")
    before = Path(other).read_bytes()
    args = [a.format(old=old, bad=bad, tmp=tmp_path, other=other) for a in argv]
    assert main(["cassette", "diff", *args]) == 2
    assert Path(other).read_bytes() == before
    err = capsys.readouterr().err
    assert err.startswith("raf: ")
    assert says in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Hostile]:
    return build_cassettes(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("name", [n for n in REGULAR + SPECIAL if n != "fifo"])
def test_a_hostile_file_on_either_side_is_a_usage_error(
    hostile: dict[str, Hostile],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    side: int,
) -> None:
    good = _saved(tmp_path, recording(OPENAI), "good.yaml")
    case = hostile[name]
    argv = [good, str(case.path)] if side else [str(case.path), good]
    assert main(["cassette", "diff", *argv]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("NEW: " if side else "OLD: ", len("raf: "))
    assert case.problem in err
    assert "Traceback" not in out + err


def test_different_dialects_are_an_error_change_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _saved(tmp_path, recording(OPENAI), "old.yaml")
    new = _saved(tmp_path, recording(ANTHROPIC), "new.yaml")
    assert main(["cassette", "diff", old, new, "--no-color"]) == 1
    out = capsys.readouterr().out
    assert "format openai_chat -> anthropic_messages" in out


# -- what is and is not a change -------------------------------------------------------------


def test_tool_calls_are_named_by_name_and_by_the_arguments_that_differ() -> None:
    name = "openai_chat/single_tool_call.yaml"

    def rename(payload: dict[str, Any]) -> dict[str, Any]:
        for choice in payload.get("choices") or ():
            for call in choice["delta"].get("tool_calls") or ():
                if call.get("function", {}).get("name"):
                    call["function"]["name"] = "get_forecast"
        return payload

    def paris_to_lyon(payload: dict[str, Any]) -> dict[str, Any]:
        for choice in payload.get("choices") or ():
            for call in choice["delta"].get("tool_calls") or ():
                arguments = call.get("function", {}).get("arguments")
                if arguments:
                    call["function"]["arguments"] = arguments.replace("Paris", "Lyon")
        return payload

    renamed = one(diff(recording(name), rewritten(name, rename)), "meaning_changed", "tool_calls")
    assert renamed.message == "raf reads tool_calls: [get_weather] -> [get_forecast]"
    argued = one(
        diff(recording(name), rewritten(name, paris_to_lyon)), "meaning_changed", "tool_calls"
    )
    assert argued.message.startswith("raf reads tool_calls: call 0 (get_weather): arguments {")
    assert '"location":"Lyon, France"' in argued.message


def test_a_different_request_is_a_notice_naming_what_differs() -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    request = json.loads(new.interactions[0].request.body or "{}")
    request["model"] = "gpt-5"
    new.interactions[0].request.body = json.dumps(request, indent=2)  # layout: not a change
    new.interactions[0].request.uri += "?api-version=1"  # the query: not a change
    change = one(diff(old, new), "request_changed", "request")
    assert change.severity == "notice"
    assert change.message == "the requests differ in body.model"
    assert (change.old, change.new) == ({"body.model": "gpt-5-mini"}, {"body.model": "gpt-5"})


def test_a_plain_vcrpy_cassette_is_read_in_the_format_its_request_uri_speaks() -> None:
    old, new = recording(ANTHROPIC), rewritten(ANTHROPIC, _rename_anthropic)
    old.info = new.info = None
    drift = diff(old, new)
    assert "dialect_changed" not in kinds(drift)
    assert one(drift, "meaning_changed", "response.text").old == "Paris is the capital of France."


def test_a_re_chunked_recording_shows_only_chunking_and_timing_notices() -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    size = len(old.interactions[0].response.body)
    old.interactions[0].timing = [(size // 2, 120.0), (size - size // 2, 30.0)]
    thirds = [size // 3, size // 3, size - 2 * (size // 3)]
    new.interactions[0].timing = [(thirds[0], 300.0), (thirds[1], 5.0), (thirds[2], 5.0)]
    drift = diff(old, new)
    assert drift.changes
    assert {c.kind for c in drift.changes} <= {
        "chunking_changed",
        "timing_changed",
    }
    assert drift.worst == "notice"
    assert one(drift, "chunking_changed", "timing.reads").message == "network reads 2 -> 3"
    assert "delays (median/p95/total ms)" in one(drift, "timing_changed", "delays").message


def test_crlf_line_endings_are_a_framing_change_and_no_meaning_change() -> None:
    old, new = recording(ANTHROPIC), recording(ANTHROPIC)
    body = new.interactions[0].response.body
    new.interactions[0].response.body = body.replace(b"\n", b"\r\n")
    drift = diff(old, new)
    assert [(c.kind, c.severity, c.message) for c in drift.changes] == [
        ("line_endings_changed", "warning", "line endings LF -> CRLF")
    ]


def test_every_bundled_recording_against_itself_and_with_crlf_line_endings() -> None:
    """Diffing is deterministic (a recording has no change against itself), and CRLF line
    endings change the framing of any text format, never raf's reading (a binary event
    stream has no lines: there, the same bytes changed are a corrupt stream)."""
    paths = sorted(bundled().cassettes.rglob("*.yaml"))
    assert len(paths) > 100
    for path in paths:
        old, new = load(path), load(path)
        assert diff(old, new).changes == (), path
        assert old.info is not None
        if formats.get(old.info.dialect).framing == "aws_eventstream":
            continue
        for interaction in new.interactions:
            if not interaction.response.coded:
                body = interaction.response.body
                interaction.response.body = body.replace(b"\n", b"\r\n")
        found = kinds(diff(old, new))
        assert set(found) <= {"line_endings_changed"}, (path, found)


@pytest.mark.parametrize(
    ("edit", "kind"),
    [
        (lambda b: b"\xef\xbb\xbf" + b, "bom_changed"),
        (lambda b: b.replace(b"data: [DONE]\n\n", b""), "done_marker_changed"),
        (lambda b: b.replace(b"data: {", b": processing\n\ndata: {", 2), "comments_changed"),
        (lambda b: b.replace(b"data: {", b"event: chunk\ndata: {"), "event_names_changed"),
    ],
)
def test_framing_edits_are_named(edit: Callable[[bytes], bytes], kind: str) -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    new.interactions[0].response.body = edit(new.interactions[0].response.body)
    drift = diff(old, new)
    assert kind in kinds(drift)
    assert "meaning_changed" not in kinds(drift)


def test_status_headers_and_content_type() -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    headers = new.interactions[0].response.headers
    headers["date"] = ["Thu, 03 Dec 2026 14:00:00 GMT"]  # date-like: not a change
    headers["x-request-id"] = ["req_other"]  # id-like: not a change
    headers["x-new-header"] = ["1"]
    del headers["openai-version"]
    headers["content-type"] = ["application/json"]
    drift = diff(old, new)
    assert sorted((c.kind, c.where.split(" ")[-1]) for c in drift.changes) == [
        ("content_type_changed", "response.headers.content-type"),
        ("header_added", "response.headers.x-new-header"),
        ("header_removed", "response.headers.openai-version"),
    ]
    new.interactions[0].response.status = 500
    assert one(diff(old, new), "status_changed", "response.status").severity == "error"


def test_a_field_whose_type_changes_is_an_error_and_one_that_narrows_a_notice() -> None:
    def stringly(payload: dict[str, Any]) -> dict[str, Any]:
        payload["created"] = str(payload["created"])
        return payload

    drift = diff(recording(OPENAI), rewritten(OPENAI, stringly))
    change = one(drift, "field_type_changed", "chat.completion.chunk created")
    assert (change.severity, change.old, change.new) == ("error", "integer", "string")

    def usage_only_once(payload: dict[str, Any]) -> dict[str, Any]:
        if payload.get("usage") is None:
            payload["usage"] = {"prompt_tokens": 0}  # never null any more
        return payload

    narrowed = one(
        diff(recording(OPENAI), rewritten(OPENAI, usage_only_once)),
        "field_type_narrowed",
        "chat.completion.chunk usage",
    )
    assert (narrowed.severity, narrowed.old, narrowed.new) == ("notice", "null|object", "object")
    widened = one(
        diff(rewritten(OPENAI, usage_only_once), recording(OPENAI)),
        "field_type_changed",
        "chat.completion.chunk usage",
    )
    assert widened.severity == "error"


def test_removed_event_types_counts_and_order() -> None:
    old = recording(ANTHROPIC)
    drop_ping = recording(ANTHROPIC)
    body = drop_ping.interactions[0].response.body
    drop_ping.interactions[0].response.body = body.replace(
        b'event: ping\ndata: {"type":"ping"}\n\n', b""
    )
    removed = one(diff(old, drop_ping), "event_type_removed", "event ping")
    assert removed.severity == "warning"
    moved = recording(ANTHROPIC)
    moved.interactions[0].response.body = b'event: ping\ndata: {"type":"ping"}\n\n' + body.replace(
        b'event: ping\ndata: {"type":"ping"}\n\n', b""
    )
    order = one(diff(old, moved), "event_order_changed", "events")
    assert order.severity == "warning"
    assert order.new[0] == "ping"
    twice = recording(ANTHROPIC)
    twice.interactions[0].response.body = body.replace(
        b'event: ping\ndata: {"type":"ping"}\n\n', b'event: ping\ndata: {"type":"ping"}\n\n' * 2
    )
    count = one(diff(old, twice), "event_count_changed", "event ping")
    assert (count.severity, count.old, count.new) == ("notice", 1, 2)


def test_interaction_counts_and_one_interaction() -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    new.interactions.append(msgspec.structs.replace(new.interactions[0]))
    drift = diff(old, new)
    assert [c.kind for c in drift.changes] == ["interaction_count_changed"]
    assert drift.compared == (0,)
    assert diff(old, new, interaction=0).compared == (0,)
    with pytest.raises(ValueError, match="no interaction 1 in both"):
        diff(old, new, interaction=1)


def test_a_body_that_does_not_decode_is_an_error_change() -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    response = new.interactions[0].response
    response.headers["content-encoding"] = ["gzip"]
    response.body = gzip.compress(response.body)[:40]
    drift = diff(old, new)
    assert one(drift, "body_not_read", "response.body").severity == "error"
    coded = recording(OPENAI)
    coded.interactions[0].response.headers["content-encoding"] = ["gzip"]
    coded.interactions[0].response.body = gzip.compress(old.interactions[0].response.body)
    assert [c.kind for c in diff(old, coded).changes] == ["content_encoding_changed"]


ODD_BODIES = [
    b"",
    b"not json at all",
    b"data: {\n\n",
    b'data: {"choices": [{"delta": {"content": "cut',
    b'data: [1, 2, 3]\n\ndata: null\n\ndata: "x"\n\n',
    b"\xff\xfe\x00garbage\r\r\r",
    b"data: " + b"[" * 5000 + b"\n\n",
    b'data: {"type": 3, "object": []}\n\n',
]


@pytest.mark.parametrize("dialect", ["openai_chat", "anthropic_messages", "gemini", "nope"])
@pytest.mark.parametrize("body", ODD_BODIES)
def test_the_diff_never_raises_on_odd_bodies(dialect: str, body: bytes) -> None:
    old, new = recording(OPENAI), recording(OPENAI)
    assert new.info is not None
    new.info = msgspec.structs.replace(new.info, dialect=dialect)
    new.interactions[0].response.body = body
    for drift in (diff(old, new), diff(new, old), diff(new, new)):
        assert isinstance(drift.to_json(), dict)
        json.dumps(drift.to_json())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=st.binary(max_size=400)
    | st.lists(
        st.sampled_from(
            [
                b"data: ",
                b"{",
                b"}",
                b'"a":',
                b"[",
                b"]",
                b"1",
                b"\n",
                b"\r",
                b"event: x\n",
                b": c\n",
                b"[DONE]",
                b"null",
                b",",
                b'"type"',
            ]
        ),
        max_size=60,
    ).map(b"".join),
    dialect=st.sampled_from(["openai_chat", "anthropic_messages", "openai_responses"]),
)
def test_the_diff_never_raises_property(body: bytes, dialect: str) -> None:
    old = recording(ANTHROPIC)
    new = recording(ANTHROPIC)
    assert new.info is not None
    new.info = msgspec.structs.replace(new.info, dialect=dialect)
    new.interactions[0].response.body = body
    json.dumps(diff(old, new).to_json())
    json.dumps(diff(new, old).to_json())


def test_the_diff_is_linear_in_the_number_of_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fields are aggregated per event type: the work (counted as JSON values looked at)
    grows with the events, never with pairs of events."""
    looked = [0]
    original = inventory.json_type  # what raf.cassettes.diff imports

    def counting(value: Any) -> Any:
        looked[0] += 1
        return original(value)

    monkeypatch.setattr(diff_module, "json_type", counting)
    frame = (
        b'data: {"object":"chat.completion.chunk","choices":[{"index":0,'
        b'"delta":{"content":"x"}}]}\n\n'
    )

    def work(events: int) -> int:
        old, new = recording(OPENAI), recording(OPENAI)
        old.interactions[0].response.body = frame * events + b"data: [DONE]\n\n"
        new.interactions[0].response.body = frame.replace(b"content", b"text") * events
        looked[0] = 0
        diff(old, new)
        return looked[0]

    small, large = work(500), work(5000)
    assert large <= 10 * small * 1.05


# -- the documentation -----------------------------------------------------------------------


def test_the_kinds_table_has_one_row_per_kind_and_unique_names() -> None:
    names = [k.name for k in KINDS]
    assert len(names) == len(set(names))
    rows = table().splitlines()[2:]
    assert [row.split("|")[1].strip() for row in rows] == [f"`{n}`" for n in names]


def test_the_documented_table_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render_table(text) == text, (
        "docs/recording.md: the table of kinds is stale; rewrite it with "
        "python -m raf.cassettes.diff docs/recording.md"
    )


def test_render_table_needs_exactly_one_block() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        render_table("no block here")
