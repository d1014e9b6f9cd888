"""Golden files: the expected canonical output of each cassette. Format and paths; no IO
beyond reading and writing the files themselves.

One golden per cassette, at ``<goldens>/<dialect>/<scenario>.json``::

    {
      "scenario": "plain_text",
      "dialect": "openai_chat",
      "interactions": [
        {
          "updates": [
            {"type":"response_metadata","id":"chatcmpl-...","model":"gpt-4o-mini"},
            ...
          ],
          "results": [ ... one AgentResponseResult per line, metadata left out ... ],
          "response": { ... the aggregated AgentResponse, indented ... }
        }
      ]
    }

Each update and result sits on its own line, so a diff shows exactly which ones changed. The
pytest snapshot extension (``raf.testing.snapshot``) writes these files and ``raf conform``
reads them, both through this module: one format, one copy.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

__all__ = ["Golden", "InteractionOutput", "dumps", "golden_path", "load", "loads"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")


@dataclass(frozen=True)
class InteractionOutput:
    """The canonical output of one interaction (JSON builtins)."""

    updates: list[Any]
    results: list[Any]
    response: dict[str, Any]


@dataclass(frozen=True)
class Golden:
    """The expected output of one cassette."""

    scenario: str
    dialect: str
    interactions: list[InteractionOutput]


def golden_path(goldens: str | Path, dialect: str, scenario: str) -> Path:
    """Where the golden of ``dialect``/``scenario`` lives under the folder ``goldens``."""
    for name in (dialect, scenario):
        if not _NAME.match(name):
            raise ValueError(f"{name!r} cannot name a golden file (use a-z, 0-9, _ and -)")
    return Path(goldens) / dialect / f"{scenario}.json"


def _line(value: Any) -> str:
    return msgspec.json.encode(value).decode("utf-8")


def _block(items: list[Any], indent: str) -> str:
    if not items:
        return "[]"
    inner = ",\n".join(f"{indent}  {_line(item)}" for item in items)
    return f"[\n{inner}\n{indent}]"


def dumps(golden: Golden) -> str:
    """The text of a golden file (deterministic; valid JSON; ends with a newline)."""
    parts = []
    for output in golden.interactions:
        response = json.dumps(output.response, indent=2, ensure_ascii=False).replace(
            "\n", "\n      "
        )
        parts.append(
            "    {\n"
            f'      "updates": {_block(output.updates, "      ")},\n'
            f'      "results": {_block(output.results, "      ")},\n'
            f'      "response": {response}\n'
            "    }"
        )
    return (
        "{\n"
        f'  "scenario": {_line(golden.scenario)},\n'
        f'  "dialect": {_line(golden.dialect)},\n'
        '  "interactions": [\n' + ",\n".join(parts) + "\n  ]\n}\n"
    )


def loads(text: str | bytes) -> Golden:
    """Parse a golden file's text.

    Raises:
        ValueError: not JSON, or not the shape above.
    """
    document = json.loads(text)
    try:
        return Golden(
            scenario=document["scenario"],
            dialect=document["dialect"],
            interactions=[
                InteractionOutput(
                    updates=item["updates"], results=item["results"], response=item["response"]
                )
                for item in document["interactions"]
            ],
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a golden file: missing {exc}") from exc


def load(path: str | Path) -> Golden | None:
    """The golden at ``path``, or ``None`` when the file does not exist."""
    try:
        return loads(Path(path).read_bytes())
    except FileNotFoundError:
        return None
