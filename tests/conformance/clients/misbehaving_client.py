"""A client that misbehaves at the protocol level on five scenarios, and is correct otherwise.

A deliberately wrong implementation for the tests of raf's conformance harness: it is the
Python example client (``examples/clients/python/client.py``, named ``misbehaving-python``
here), except that on the cases of these scenarios (read from the case ``id``,
``<dialect>/<scenario>#<interaction>@<chunking>``), under every chunking, it:

=======================  ==================================================================
scenario                 behaviour (what the harness should report)
=======================  ==================================================================
``missing_id``           raises ``RuntimeError``, prints its traceback to stderr and exits
                         with status 3 (``the implementation exited (status 3)``)
``choices_null``         writes the line ``this is not JSON`` (``malformed line: ...``)
``missing_index``        answers with the id ``not-<the case id>`` (``wrong id: ...``)
``leading_bom``          never answers: sleeps 600 s (``timeout after N s``), then answers
``keep_alive_comments``  answers ``{"raised": "ValueError: boom", "response": null}``: an
                         error the client reported, where the golden has none
=======================  ==================================================================

Every other case is answered correctly, and it keeps answering after each misbehaviour (the
harness restarts it anyway): a run over the bundled Chat Completions cassettes and six
chunkings has exactly 5 x 6 = 30 failing cases, each costing its own case only.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.conformance.clients.example import load_example
else:
    from example import load_example  # the module beside this script, run as a script

example: Any = load_example()  # a module run from its path: its globals are set below


def scenario_of(case_id: str) -> str:
    """``openai_chat/missing_id#0@bytes`` -> ``missing_id``."""
    return case_id.partition("/")[2].partition("#")[0]


def answer(case: dict[str, Any]) -> dict[str, Any] | None:
    scenario = scenario_of(case["id"])
    if scenario == "missing_id":
        try:
            raise RuntimeError(f"crashing on purpose on {case['id']}")
        except RuntimeError:
            traceback.print_exc()
            sys.stderr.flush()
            sys.exit(3)
    if scenario == "choices_null":
        sys.stdout.buffer.write(b"this is not JSON\n")
        sys.stdout.buffer.flush()
        return None
    if scenario == "missing_index":
        reply = example.answer(case)
        return {**reply, "id": f"not-{case['id']}"}
    if scenario == "leading_bom":
        time.sleep(600)
    if scenario == "keep_alive_comments":
        return {"type": "result", "id": case["id"], "raised": "ValueError: boom", "response": None}
    correct: dict[str, Any] | None = example.answer(case)
    return correct


if __name__ == "__main__":
    example.HELLO = {**example.HELLO, "name": "misbehaving-python"}
    example.main(answer)
