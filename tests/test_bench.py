"""Smoke tests of bench/: the harness's verdicts and ratios on fake contenders; the workloads
of the pipeline benchmark and of every format (small) against raf; and, counted, that raf's
fast paths engage on every format's workloads. No assertion on a time, ever."""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

from raf import dialects as raf_dialects
from raf import formats as raf_formats
from raf import interop as raf_interop
from raf.dialects.base import JSONEventDialect

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench(name: str) -> ModuleType:
    """A module of bench/ (its scripts import each other by plain name)."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


harness = _bench("harness")
pipeline = _bench("pipeline")
SETTINGS = harness.Settings()


def test_a_wrong_contender_is_reported_wrong_and_never_timed() -> None:
    calls: list[str] = []

    def contender(name: str, result: int) -> Any:
        def go() -> int:
            calls.append(name)
            return result

        return harness.Contender(name, go, lambda got: None if got == 1 else f"got {got}")

    comparison = harness.compare(
        [contender("base", 1), contender("right", 1), contender("wrong", 2)],
        rounds=3,
        settings=SETTINGS,
    )
    wrong = comparison.outcomes["wrong"]
    assert (wrong.status, wrong.verdict) == ("WRONG", "WRONG: got 2")
    assert calls.count("wrong") == 1  # the checked run only
    assert calls.count("right") == 4
    assert comparison.speed("wrong") is None
    speed = comparison.speed("right")
    assert speed is not None
    assert speed.rounds == 3
    assert speed.lo <= speed.median <= speed.hi


def test_errors_and_budgets_are_outcomes() -> None:
    def boom() -> None:
        raise ValueError("no")

    def endless() -> int:
        return sum(1 for _ in harness.metered(range(10**9)))

    comparison = harness.compare(
        [harness.Contender("boom", boom), harness.Contender("endless", endless)],
        rounds=2,
        settings=harness.Settings(budget=-1.0),  # past the budget before the first item
    )
    assert comparison.outcomes["boom"].verdict == "error: ValueError: no"
    assert comparison.outcomes["endless"].status == "timeout"


def test_targets_fail_on_a_missing_value_or_a_problem() -> None:
    targets = harness.Targets()
    spread = harness.Spread.of([0.4, 0.6, 0.5])
    assert spread.format(unit="x") == "0.50x (0.40-0.60)"
    assert targets.expect("fast", spread, at_least=0.45)
    assert targets.exit_status() == 0
    assert not targets.expect("wrong", spread, at_least=0.45, problem="WRONG: text differs")
    assert not targets.expect("missing", None, at_most=2.0)
    assert targets.exit_status() == 1
    report = targets.report()
    assert "PASS  fast" in report
    assert "FAIL  wrong" in report
    assert report.endswith("overall FAIL: 1 of 3 targets met")


def test_peak_heap_and_table() -> None:
    heap, result = harness.peak_heap(lambda: bytes(1_000_000))
    assert len(result) == 1_000_000
    assert heap.peak >= 1_000_000
    assert heap.per(1_000_000) >= 1.0
    assert 1_000_000 <= heap.kept <= heap.peak  # the result is still held
    dropped, _ = harness.peak_heap(lambda: len(bytes(1_000_000)))
    assert dropped.peak >= 1_000_000 > dropped.kept
    text = harness.table(["name", "n"], [["a", "1"], ["bb", "22"]])
    assert text.splitlines() == ["  name   n", "  ----  --", "  a      1", "  bb    22"]
    assert any(line.startswith("versions: raf ") for line in harness.environment())


SMALL = [
    pipeline.text_workload(40),
    pipeline.parallel_workload(4, 1500),
    pipeline.string_workload(2),
    pipeline.escapes_workload(2),
]


@pytest.mark.parametrize("workload", SMALL, ids=lambda w: w.name)
def test_the_workloads_ground_truth_is_what_raf_responds(workload: Any) -> None:
    for make in (pipeline.floor, pipeline.run_contender, pipeline.respond_contender):
        contender = make(workload)
        assert contender.check(contender.run()) is None, contender.name


def _entries(workload: Any) -> list[dict[str, Any]]:
    """The tool-call entries of a workload's payloads, in order."""
    return [
        entry
        for payload in workload.stream.payloads[:-1]
        for choice in msgspec.json.decode(payload)["choices"]
        for entry in choice["delta"].get("tool_calls", ())
    ]


def test_the_workloads_have_the_shapes_they_promise() -> None:
    text, parallel, string, escapes = SMALL
    assert text.events == 43  # role, 40 deltas, finish, usage
    indices = [entry["index"] for entry in _entries(parallel)]
    assert list(dict.fromkeys(indices)) == [0, 1, 2, 3]  # an index is its rank of first sight
    assert indices != sorted(indices)  # interleaved
    fragments = [entry["function"]["arguments"] for entry in _entries(string)]
    assert fragments[0] == ""  # the opening entry, as OpenAI sends it
    assert {len(f) for f in fragments[1:-1]} <= set(range(3, 9))
    assert sum(map(len, fragments)) == string.argument_chars
    assert pipeline.escape_share(escapes) > 0.5


def test_a_wrong_aggregate_is_described() -> None:
    workload = SMALL[1]
    truth = workload.stream.response
    response = pipeline.respond(workload.chunks, "openai_chat")
    calls = list(response.tool_calls)
    calls[2] = msgspec.structs.replace(calls[2], arguments={**calls[2].arguments, "path": "x"})
    wrong = msgspec.structs.replace(response, tool_calls=tuple(calls))
    assert (
        pipeline.check_response(wrong, truth)
        == "call 2: arguments differ (wrong values for ['path'])"
    )
    short = msgspec.structs.replace(response, text="hello")
    assert pipeline.check_response(short, truth).startswith("text differs at char 0")


def test_a_run_past_its_budget_is_a_timeout_even_when_wrapped() -> None:
    workload = SMALL[0]
    comparison = harness.compare(
        [pipeline.respond_contender(workload)], rounds=1, settings=harness.Settings(budget=-1.0)
    )
    assert comparison.outcomes["respond()"].status == "timeout"


# -- bench/formats.py: every format, every workload, both JSON styles ---------------------------

formats = _bench("formats")

FORMAT_SMALL = 100  # the workloads at 1/100 of their size: 50 text deltas, 2,000-character strings
FORMAT_CELLS = [
    (wire, name, style)
    for wire in formats.WIRES
    for style in formats.STYLES
    for name in formats.workloads(wire, style, FORMAT_SMALL)
    if name != "big50"  # big200, smaller
]


def _format_workload(wire: str, name: str, style: str) -> Any:
    return formats.workloads(wire, style, FORMAT_SMALL)[name]


def test_every_format_raf_reads_has_a_wire_in_the_benchmark() -> None:
    read = {spec.dialect or wire for wire, spec in formats.WIRES.items()}
    assert set(raf_formats.names()) <= read


@pytest.mark.parametrize(("wire", "name", "style"), FORMAT_CELLS)
def test_the_format_workloads_ground_truth_is_what_raf_responds(
    wire: str, name: str, style: str
) -> None:
    workload = _format_workload(wire, name, style)
    for make in (formats.floor, formats.run_contender, formats.respond_contender):
        contender = make(workload)
        assert contender.check(contender.run()) is None, contender.name


@pytest.mark.parametrize(("wire", "name", "style"), FORMAT_CELLS)
def test_the_fast_paths_engage_on_every_format_workload(wire: str, name: str, style: str) -> None:
    """Counted, never timed: every usual payload of the stream (a text delta, an argument
    fragment, a call that arrives whole) is read by a fast path (a template or a typed
    decoder); only the stream's other frames (starts, stops, the finish, usage) go the shared
    path's full decode, plus at most one payload per kind of delta streamed (the text, each
    call) to learn its shape. A dialect that reads through templates reads most through them,
    in both JSON styles, where the usual frames differ only in their string."""
    workload = _format_workload(wire, name, style)
    dialect = raf_dialects.create(workload.dialect)
    response = formats.respond(workload.chunks, dialect)
    assert formats.check(response, workload) is None
    assert isinstance(dialect, JSONEventDialect)
    counts = dialect.fast_path_counts()
    streamed = 0 if formats.WIRES[wire].whole_calls else len(workload.truth.calls)
    learning = bool(workload.truth.text) + streamed
    others = workload.frames - workload.usual
    fast = counts.get("template", 0) + counts.get("typed", 0)
    detail = f"{counts} for {workload.frames} payloads, {workload.usual} usual"
    if not formats.WIRES[wire].fast_paths:  # no fast path yet: each payload decoded once
        assert (fast, counts.get("full", 0)) == (0, workload.frames), detail
        return
    assert counts.get("full", 0) <= others + learning, detail
    assert fast >= workload.usual - learning, detail
    if "template" in counts and formats.WIRES[wire].templated and workload.usual >= 16:
        assert counts["template"] >= workload.usual // 2, detail


@pytest.mark.parametrize("wire", list(formats.WIRES))
def test_each_floor_finds_every_payload_however_the_reads_cut_it(wire: str) -> None:
    workload = _format_workload(wire, "big200", "spaced")
    floor = formats.floor(workload)
    for size in (1, 2, 3, 7, 4096):
        chunks = tuple(workload.body[i : i + size] for i in range(0, len(workload.body), size))
        replaced = dataclasses.replace(workload, chunks=chunks)
        assert floor.check(formats.floor(replaced).run()) is None, size


def test_the_format_workloads_have_the_shapes_they_promise() -> None:
    compact = _format_workload("openai_chat", "text", "compact").body
    spaced = _format_workload("openai_chat", "text", "spaced").body
    assert b'"content":"' in compact
    assert b'"content": "' not in compact
    assert b'"content": "' in spaced
    assert b"\\u" in spaced  # Python's default: non-ASCII escaped
    assert "🚀".encode() in compact
    text = formats.logicals(FORMAT_SMALL)["text"].text
    assert {len(c.encode()) for c in "".join(text)} == {1, 2, 3, 4}  # every UTF-8 length
    tools = formats.logicals(FORMAT_SMALL)["tools"]
    assert list(dict.fromkeys(tools.order)) == [0, 1, 2, 3]  # an index: its rank of first sight
    assert list(tools.order) != sorted(tools.order)  # interleaved
    escapes = formats.logicals(FORMAT_SMALL)["escapes"].calls[0].text
    assert escapes.count("\\") > len(escapes) / 4  # about half the text is two-character escapes


def test_the_heap_target_counts_each_value_of_the_response_once() -> None:
    workload = _format_workload("openai_chat", "tools", "compact")
    memory = formats.respond_heap(workload)
    response = formats.respond(workload.chunks, "openai_chat")
    arguments = response.tool_calls[0].arguments
    assert formats.deep_size(arguments) > sum(len(str(v)) for v in arguments.values())
    assert memory.own == formats.own_size(response)
    assert memory.peak >= memory.held >= memory.own > 0
    assert memory.ratio == memory.peak / memory.own


# -- bench/peers.py: each library checked right before it is timed --------------------------

peers = _bench("peers")
peers_wire = _bench("peers_wire")
PEER_LOADS = peers_wire.workloads(deltas=25, calls=2, arg_bytes=300)


def _installed(modules: tuple[str, ...]) -> None:
    """Skip unless every module imports; with RAF_REQUIRE_CLIENTS=1 a missing one fails."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
                pytest.fail(f"{module} is required (RAF_REQUIRE_CLIENTS=1) but missing: {exc}")
            pytest.skip(f"{module} is not installed (the bench extra: pip install raf[bench])")


@pytest.mark.parametrize("spec", peers.SPECS, ids=lambda s: f"{s.format}-{s.name}")
def test_each_peer_aggregates_its_format_to_the_truth(spec: Any) -> None:
    _installed(spec.modules)
    peer = spec.build()
    loads = [w for w in PEER_LOADS if w.format == spec.format]
    assert [w.name for w in loads] == ["text", "tools"]
    for workload in loads:
        contender = peers.contender(peer, workload)
        assert contender.check(contender.run()) is None, workload.name


@pytest.mark.parametrize("workload", PEER_LOADS, ids=lambda w: f"{w.format}-{w.name}")
def test_raf_responds_the_peer_workloads_truth(workload: Any) -> None:
    contender = peers.respond_contender(workload)
    assert contender.check(contender.run()) is None
    text, calls, usage = workload.truth
    assert usage == (120, 4000)
    assert len(calls) == (2 if workload.name == "tools" else 0)
    assert len(text) > 0


def test_a_peer_that_loses_a_call_is_wrong_and_never_timed() -> None:
    _installed(("httpx_sse", "httpx"))
    workload = next(w for w in PEER_LOADS if w.name == "tools")
    spec = next(
        s for s in peers.SPECS if s.format == workload.format and s.name == "httpx-sse by hand"
    )
    peer = spec.build()
    lossy = peers.FormatPeer("lossy", peer.format, peer.run, lambda s: (s[0], s[1][:-1], s[2]))
    comparison = harness.compare(
        [peers.respond_contender(workload), peers.contender(lossy, workload)],
        rounds=2,
        settings=SETTINGS,
    )
    assert comparison.outcomes["lossy"].verdict == "WRONG: 1 tool calls (want 2)"
    assert comparison.outcomes["lossy"].times == []
    assert comparison.outcomes["respond()"].ok


@pytest.mark.parametrize("name", ["openai-python", "langchain-openai", "httpx-sse by hand"])
def test_each_pipeline_peer_aggregates_the_chat_workloads(name: str) -> None:
    modules = {
        "openai-python": ("openai",),
        "langchain-openai": ("langchain_openai",),
        "httpx-sse by hand": ("httpx_sse", "httpx"),
    }
    _installed(modules[name])
    peer = peers.peers(pipeline.MODEL)[name]
    assert peer is not None
    for workload in SMALL:
        contender = pipeline.peer_contender(peer, workload)
        assert contender.check(contender.run()) is None, workload.name


# -- bench/interop.py: every model's export of every workload, checked ------------------------

interop_bench = _bench("interop")


@pytest.mark.parametrize(
    ("wire", "name", "style"),
    FORMAT_CELLS + [(wire, "big50", style) for wire in formats.WIRES for style in formats.STYLES],
)
def test_every_model_exports_every_interop_workload_and_back(
    wire: str, name: str, style: str
) -> None:
    """Counted, never timed: each model's round trip of the workload collects to raf's own
    response on the model's kept rows (the check bench/interop.py runs before timing), and
    the contenders it times make as many items and results as the checked pass."""
    workload = formats.workloads(wire, style, FORMAT_SMALL)[name]
    models = [raf_interop.get(model) for model in raf_interop.names()]
    cell = interop_bench.prepare(workload, models)  # raises RoundTripError when one differs
    assert [e.model.name for e in cell.exports] == list(raf_interop.names())
    for export in cell.exports:
        assert export.items, export.model.name
        for contender in (
            interop_bench.encode_contender(export, cell.source),
            interop_bench.decode_contender(export),
        ):
            assert contender.check(contender.run()) is None, contender.name


def test_a_model_that_loses_a_part_stops_the_interop_bench() -> None:
    workload = _format_workload("openai_chat", "tools", "compact")
    model = raf_interop.get("tiny-agent")

    class Lossy:  # what every other item makes is lost
        def __init__(self) -> None:
            assert model.decoder is not None
            self.decoder, self.fed = model.decoder(), 0

        def feed(self, item: Any) -> list[Any]:
            self.fed += 1
            results = self.decoder.feed(item)
            return results if self.fed % 2 else []

        def close(self) -> list[Any]:
            return self.decoder.close()

    lossy = dataclasses.replace(model, decoder=Lossy)
    with pytest.raises(
        interop_bench.RoundTripError, match=r"^openai_chat tools compact: tiny-agent: "
    ):
        interop_bench.prepare(workload, [lossy])
    assert interop_bench.first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "a[1]: '2' (want '3')"


# -- bench/drift.py: what raf did not read, wire events and the diff, checked ----------------

drift_bench = _bench("drift")
DRIFT_CELLS = FORMAT_CELLS + [
    (wire, "big50", style) for wire in formats.WIRES for style in formats.STYLES
]


@pytest.mark.parametrize(("wire", "name", "style"), DRIFT_CELLS)
def test_every_drift_stage_passes_its_checks_on_every_workload(
    wire: str, name: str, style: str
) -> None:
    """Counted, never timed: on each of raf's own streams ``unread`` finds nothing unknown,
    ``wire_events`` gives every frame, ``diff`` finds nothing between a cassette and itself
    and only chunking and timing notices against its re-chunked twin (the checks
    bench/drift.py runs before timing), and every contender it times passes them too."""
    workload = formats.workloads(wire, style, FORMAT_SMALL)[name]
    cell = drift_bench.prepare(workload)  # raises StageError when a stage is wrong
    assert cell.events == drift_bench.expected_events(workload)
    for cassette, reads in ((cell.old, len(workload.chunks)), (cell.new, None)):
        interaction = cassette.interactions[0]
        chunks, delays = interaction.timed_chunks()
        assert b"".join(chunks) == workload.body
        assert reads is None or len(chunks) == reads
        assert set(delays) == {0.001 if reads else 0.002}
    assert len(cell.new.interactions[0].timing) > len(cell.old.interactions[0].timing)
    contenders = drift_bench.stage_contenders(cell)
    assert [c.name for c in contenders] == ["run()", *drift_bench.STAGE_NAMES]
    for contender in contenders:
        assert contender.check(contender.run()) is None, contender.name


def _wrong_unread(dialect: str, body: bytes, **_: Any) -> Any:
    unknown = drift_bench.inventory.UnreadField("choices[].delta.annotation", None, 3, False)
    return drift_bench.inventory.Unread(fields=(unknown,))


def _wrong_events(dialect: str, body: bytes) -> Any:
    return drift_bench.inventory.wire_events(dialect, body)[:-1]  # the last frame lost


def _wrong_diff(old: Any, new: Any) -> Any:
    return drift_bench.drift.Drift()  # blind to the chunking


@pytest.mark.parametrize(
    ("stage", "wrong", "problem"),
    [
        ("unread", _wrong_unread, r"unknown field choices\[\]\.delta\.annotation"),
        ("wire_events", _wrong_events, r"\d+ events \(want \d+\)"),
        ("diff", _wrong_diff, "no chunking_changed"),
    ],
)
def test_a_wrong_stage_stops_the_drift_bench_before_timing(
    stage: str,
    wrong: Any,
    problem: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(drift_bench.STAGES, stage, wrong)
    workload = _format_workload("openai_chat", "tools", "compact")
    with pytest.raises(
        drift_bench.StageError, match=rf"^openai_chat tools compact: {stage}: {problem}"
    ):
        drift_bench.prepare(workload)
    assert drift_bench.main(["--quick", "--format", "openai_chat", "--style", "compact"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"stage WRONG, nothing timed: openai_chat text compact: {stage}: ")
    assert "paired rounds" in out
    assert "targets" not in out  # nothing timed


def test_the_drift_bench_sees_a_diff_that_finds_a_change_in_a_cassette_and_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = drift_bench.drift.diff

    def noisy(old: Any, new: Any) -> Any:
        found = real(old, new)
        change = drift_bench.drift.Change("notice", "comments_changed", "body", 0, 1, "noise")
        return dataclasses.replace(found, changes=(*found.changes, change))

    monkeypatch.setitem(drift_bench.STAGES, "diff", noisy)
    with pytest.raises(drift_bench.StageError, match="1 changes of a cassette with itself"):
        drift_bench.prepare(_format_workload("anthropic_messages", "text", "spaced"))


def test_a_stage_wrong_in_the_rounds_fails_its_targets_untimed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stage that passes the checks before timing and goes wrong after is WRONG in round 0,
    never timed, and fails every target it is part of."""
    workload = _format_workload("openai_responses", "text", "compact")
    cell = drift_bench.prepare(workload)
    monkeypatch.setitem(drift_bench.STAGES, "unread", _wrong_unread)
    cell.comparison = harness.compare(
        drift_bench.stage_contenders(cell), rounds=1, settings=SETTINGS
    )
    unread = cell.comparison.outcomes["unread"]
    assert unread.status == "WRONG"
    assert unread.times == []
    assert cell.comparison.outcomes["diff"].ok
    targets = harness.Targets()
    drift_bench.report("openai_responses", {("compact", "text"): cell}, targets)
    assert not targets.ok
    failed = [d for passed, d in targets.results if not passed]
    assert failed == [
        "openai_responses text compact unread / run(): -, target <= 6x (WRONG: unknown field "
        "choices[].delta.annotation)"
    ]
    assert "WRONG: unknown field" in capsys.readouterr().out
