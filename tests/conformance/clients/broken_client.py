"""The Python example client with real-world bugs switched on.

A deliberately wrong implementation for the tests of raf's conformance harness: it speaks
``raf-conformance/1`` correctly (as ``broken-python``) and gets everything right except what
the bugs below touch. Run it as
``python tests/conformance/clients/broken_client.py [--bug NAME]...`` (``concat-names`` and
``index-only`` when no ``--bug`` is given).

``concat-names`` (peers #41 open-webui/open-webui#22177, #25 BerriAI/litellm#21482): a name on a
later delta of a call is appended to the call's name instead of being ignored, so a server
that repeats ``function.name`` on every delta produces ``read_fileread_fileread_file...``.

``index-only`` (peers #13 langchain-ai/langchain#34807, #22 BerriAI/litellm#7621, #37
ollama/ollama#15457, #16 langchain-ai/langchain#40392): calls are keyed by ``index`` alone and ids are ignored, so parallel calls
that all say index 0 with distinct ids merge into one call whose arguments are ``{..}{..}``
(not JSON: the merged call becomes an error); a delta without an index goes to the last call.

``finish-delta`` (ag-ui-protocol/ag-ui#2006, jeremychone/rust-genai PR #164): a chunk with a
finish reason is taken for a bare end marker and its delta is skipped.

``all-choices`` (BerriAI/litellm#35793): every choice of a chunk is read as the response's,
whatever its index, so the answers of an ``n > 1`` request are joined.

Which bundled scenarios each bug makes fail, measured with ``raf conform`` on the 42 cassettes
(43 interactions) of ``cassettes/openai_chat`` under the six standard chunkings (each failing
scenario fails under every chunking: the bugs are about what the chunks say, not how they are
cut):

- ``--bug concat-names``: exactly ``{id_and_name_repeated_every_delta,
  tool_call_header_repeated_type_null}`` (12 of 258 cases). MiniMax via NVIDIA NIM resends
  ``function.name`` on all 8 deltas of the first call and all 6 of the second, which come out
  as ``read_file`` repeated 8 and 6 times; the relay repeats the name on all 12 deltas of
  ``get_weather``. Every other bundled stream names a call once (continuations carry no name,
  or ``"name": null`` in ``missing_id``), so the bug is invisible there,
  ``two_entries_for_one_index_in_one_chunk`` included (its second entry has no name).
- ``--bug index-only``: exactly ``{index_always_zero_distinct_ids, missing_index}`` (12
  cases). Ollama's three calls all say index 0 and Gemini's two calls have no index at all;
  keyed by index only, each stream's calls merge into one whose arguments are two or three
  JSON objects back to back, which do not parse: no call at all and an error where the golden
  has three (or two) calls and no error. Streams whose parallel calls have distinct indices
  (``parallel_tool_calls``, ``parallel_tool_calls_interleaved``, ``missing_id``,
  ``id_and_name_repeated_every_delta``) and single calls (``index_starting_at_one`` and
  ``two_entries_for_one_index_in_one_chunk`` included) route the same either way.
- both (the default): the union, ``{id_and_name_repeated_every_delta,
  tool_call_header_repeated_type_null, index_always_zero_distinct_ids, missing_index}`` (24
  cases); the merged calls then also carry concatenated names
  (``get_weatherget_weatherget_local_time``).
- ``--bug finish-delta``: exactly ``{text_beside_finish_reason,
  tool_arguments_beside_finish_reason, missing_index}`` (18 cases): the last words
  (`` at once.``), the last argument fragment (the call's JSON is cut: no call, an error), and
  Gemini's two calls, which its OpenAI-compatible endpoint sends in the finish chunk.
- ``--bug all-choices``: exactly ``{n_two_choices_interleaved}`` (6 cases), whose text comes
  out as the two answers interleaved word by word.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.conformance.clients.example import load_example
else:
    from example import load_example  # the module beside this script, run as a script

BUGS = ("concat-names", "index-only", "finish-delta", "all-choices")
DEFAULT_BUGS = ("concat-names", "index-only")


def broken(example: ModuleType, bugs: set[str]) -> type:
    """The example's ``ChatCompletionStream`` with ``bugs`` switched on."""

    class BrokenStream(example.ChatCompletionStream):  # type: ignore[name-defined,misc]
        def set_name(self, call: Any, name: str | None) -> None:
            if "concat-names" in bugs and name is not None:
                call.name = (call.name or "") + name  # the bug: "+=" on every delta
            else:
                super().set_name(call, name)

        def on_chunk(self, chunk: dict[str, Any], data: str) -> None:
            choices = chunk.get("choices")
            if isinstance(choices, list) and bugs & {"finish-delta", "all-choices"}:
                seen = []
                for raw in choices:
                    choice = dict(raw) if isinstance(raw, dict) else raw
                    if isinstance(choice, dict):
                        if "all-choices" in bugs:  # the bug: every choice read as the first
                            choice["index"] = 0
                        if "finish-delta" in bugs and choice.get("finish_reason"):
                            choice["delta"] = {}  # the bug: a finishing chunk is a bare marker
                    seen.append(choice)
                chunk = {**chunk, "choices": seen}
            super().on_chunk(chunk, data)

        def route(self, index: int | None, call_id: str | None, name: str | None) -> Any:
            if "index-only" in bugs:  # the bug: the id plays no part in finding the call
                existing = self.current if index is None else self.by_index.get(index)
                return existing or self.new_call(index, None)
            return super().route(index, call_id, name)

    return BrokenStream


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the example client, with tool-call bugs")
    parser.add_argument(
        "--bug", action="append", choices=BUGS, help="default: concat-names and index-only"
    )
    bugs = set(parser.parse_args(argv).bug or DEFAULT_BUGS)
    example: Any = load_example()  # a module run from its path: its globals are set below
    example.HELLO = {**example.HELLO, "name": "broken-python"}
    # read_response builds its stream from the module's global: replace it.
    example.ChatCompletionStream = broken(example, bugs)
    example.main()


if __name__ == "__main__":
    main(sys.argv[1:])
