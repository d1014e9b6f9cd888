"""A client whose tool loop answers a call with the wrong id, and is correct otherwise.

A deliberately wrong implementation for the tests of the ``requests`` level: it is the Python
example client (``examples/clients/python/client.py``), except that in a round of two calls
or more its second ``tool`` message answers the FIRST call's id (the first call is answered
twice, the second never): the bug of a client that pairs results and calls by position and
gets the position wrong. The server refuses the follow-up as the provider would (HTTP 400),
and ``raf conform --level requests`` names the rule it breaks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.conformance.clients.example import load_example
else:
    from example import load_example  # the module beside this script, run as a script

example: Any = load_example()  # a module run from its path: its globals are set below
correct = example.tool_messages


def wrong_id(response: dict[str, Any], tools: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = correct(response, tools)
    if len(messages) >= 2:
        messages[1]["tool_call_id"] = messages[0]["tool_call_id"]
    return messages


example.tool_messages = wrong_id
example.HELLO = {**example.HELLO, "name": "wrong-id-python"}

if __name__ == "__main__":
    example.main()
