"""Per tool call, the contents follow the lifecycle Start -> Args (with Parsed/Progress) ->
End -> ToolCalling, exactly once each; call ids are stable and unique; what the incremental
parser reported agrees with the final arguments."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hypothesis import given

from raf.model import contents
from raf.pipeline import run
from raf.testing.strategies import GeneratedStream, streams

# The contents of a tool call's lifecycle, each naming its call.
LIFECYCLE = (
    contents.ToolCallStart,
    contents.ToolCallArgs,
    contents.ToolCallArgsParsed,
    contents.ToolCallArgsProgress,
    contents.ToolCallEnd,
    contents.ToolCalling,
)
STEP = dict(zip(LIFECYCLE, ["start", "args", "parsed", "progress", "end", "calling"], strict=True))


@given(streams())
def test_tool_call_lifecycle(stream: GeneratedStream) -> None:
    steps: dict[str, list[str]] = defaultdict(list)
    parsed: dict[str, dict[str, Any]] = defaultdict(dict)
    progress: dict[str, dict[str, str]] = defaultdict(lambda: defaultdict(str))
    final: dict[str, Any] = {}
    names: dict[str, str] = {}
    for result in run(stream.chunks):
        for content in result.contents:
            if not isinstance(content, LIFECYCLE):
                continue
            kind = STEP[type(content)]
            call_id = content.call_id
            steps[call_id].append(kind)
            if isinstance(content, contents.ToolCallStart):
                names[call_id] = content.name
            elif isinstance(content, contents.ToolCallArgsParsed):
                parsed[call_id][content.name] = content.value
            elif isinstance(content, contents.ToolCallArgsProgress):
                progress[call_id][content.name] += content.value
                assert content.received == len(progress[call_id][content.name])
            elif isinstance(content, contents.ToolCalling):
                final[call_id] = content.arguments
                assert content.name == names[call_id]  # the id names one call throughout

    expected_ids = [call.id for call in stream.response.tool_calls]
    incomplete = {
        e.call_id for e in stream.response.errors if e.error_code == "tool_call_incomplete"
    }
    # stable, unique, in first-seen order
    assert [call_id for call_id in steps if call_id not in incomplete] == expected_ids
    assert incomplete <= set(steps)
    for incomplete_id in incomplete:  # started, ended, never called
        assert incomplete_id is not None
        assert steps.pop(incomplete_id) == ["start", "end"]
    for call_id, sequence in steps.items():
        assert sequence[0] == "start"
        assert sequence[-2:] == ["end", "calling"]
        assert sequence.count("start") == sequence.count("end") == sequence.count("calling") == 1
        assert set(sequence[1:-2]) <= {"args", "parsed", "progress"}
        for key, value in parsed[call_id].items():
            assert final[call_id][key] == value  # Parsed agrees with the strict final parse
        for key, text in progress[call_id].items():
            assert isinstance(final[call_id][key], str)
            assert final[call_id][key].startswith(text)
