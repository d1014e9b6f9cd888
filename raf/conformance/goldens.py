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

A golden is read like any untrusted file: a regular file of at most
:data:`raf.limits.MAX_GOLDEN_BYTES`, whose nesting (at most
:data:`raf.limits.MAX_GOLDEN_DEPTH` levels) and number of values (at most
:data:`raf.limits.MAX_GOLDEN_VALUES`) are checked by a linear scan that does not recurse,
before ``json.loads`` builds anything; then its shape is checked. Any problem is a
:class:`raf.errors.GoldenFormatError`. Goldens are written by raf's own canonical encoder,
which does not recurse either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from raf.cassettes.files import read_limited
from raf.cassettes.format import NAME_RULE, is_file_name
from raf.errors import FileRefused, GoldenFormatError
from raf.limits import MAX_GOLDEN_BYTES, MAX_GOLDEN_DEPTH, MAX_GOLDEN_VALUES
from raf.model.canonical import encode_json

__all__ = [
    "Golden",
    "InteractionOutput",
    "beside",
    "dumps",
    "golden_path",
    "load",
    "loads",
]

_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{},")
_WINDOW = 1024 * 1024
_BACKSLASH = ord("\\")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


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
    """Where the golden of ``dialect``/``scenario`` lives under the folder ``goldens``.

    Raises:
        ValueError: a name cannot name a file (:data:`raf.cassettes.format.NAME_RULE`).
    """
    for name in (dialect, scenario):
        if not is_file_name(name):
            raise ValueError(f"{name!r} cannot name a golden file (use {NAME_RULE})")
    return Path(goldens) / dialect / f"{scenario}.json"


def beside(cassettes: str | Path) -> Path:
    """The golden folder of a cassette folder of one's own, when none is named: a folder
    beside it, named after it (``tests/cassettes`` -> ``tests/cassettes_goldens``)."""
    folder = Path(cassettes).resolve()
    return folder.parent / f"{folder.name}_goldens"


def _line(value: Any) -> str:
    return encode_json(value)


def _block(items: list[Any], indent: str) -> str:
    if not items:
        return "[]"
    inner = ",\n".join(f"{indent}  {_line(item)}" for item in items)
    return f"[\n{inner}\n{indent}]"


def dumps(golden: Golden) -> str:
    """The text of a golden file (deterministic; valid JSON; ends with a newline)."""
    parts = []
    for output in golden.interactions:
        response = encode_json(output.response, indent=2).replace("\n", "\n      ")
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


def _structure(data: bytes) -> bytes:
    """The brackets and commas of the JSON text ``data`` that are outside strings, in order.

    The text is taken a window at a time (bounded memory; a window never ends inside an
    escape): escaped backslashes, then escaped quotes, are dropped, so that every quote left
    opens or closes a string; the window is split on quotes and the parts outside strings
    are kept.
    """
    kept: list[bytes] = []
    inside = False
    start = 0
    while start < len(data):
        end = start + _WINDOW
        while end < len(data) and data[end - 1] == _BACKSLASH:
            end += 1
        window = data[start:end].replace(b"\\\\", b"").replace(b'\\"', b"")
        parts = window.split(b'"')
        kept.append(
            b"".join(parts[1::2] if inside else parts[0::2]).translate(None, _NOT_STRUCTURE)
        )
        if len(parts) % 2 == 0:  # an odd number of quotes in this window
            inside = not inside
        start = end
    return b"".join(kept)


def _check_structure(data: bytes, source: str) -> None:
    """Refuse JSON nested deeper than ``MAX_GOLDEN_DEPTH`` or holding more than
    ``MAX_GOLDEN_VALUES`` values, without decoding it (no recursion, linear time)."""
    structure = _structure(data)
    values = len(structure) - structure.count(b"]") - structure.count(b"}")
    if values > MAX_GOLDEN_VALUES:
        raise GoldenFormatError(source, f"more than {MAX_GOLDEN_VALUES:,} values")
    brackets = structure.replace(b",", b"")
    if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_GOLDEN_DEPTH:
        raise GoldenFormatError(source, f"nested deeper than {MAX_GOLDEN_DEPTH} levels")


def _shape_problem(document: Any) -> str | None:
    if not isinstance(document, dict):
        return "the document is not an object"
    for key in ("scenario", "dialect"):
        if not isinstance(document.get(key), str):
            return f"{key!r} is missing or not a string"
    interactions = document.get("interactions")
    if not isinstance(interactions, list):
        return "'interactions' is missing or not a list"
    for n, item in enumerate(interactions):
        if not isinstance(item, dict):
            return f"interactions[{n}] is not an object"
        for key, kind in (("updates", list), ("results", list), ("response", dict)):
            if not isinstance(item.get(key), kind):
                return f"interactions[{n}].{key} is missing or not {_KIND_NAMES[kind]}"
    return None


_KIND_NAMES = {list: "a list", dict: "an object"}


def loads(text: str | bytes, *, source: str = "<golden>") -> Golden:
    """Parse a golden file's text.

    Raises:
        GoldenFormatError: not UTF-8, nested too deeply or too many values, not JSON, or
            not the shape above (also a ``ValueError``).
    """
    _check_structure(text if isinstance(text, bytes) else text.encode("utf-8", "replace"), source)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GoldenFormatError(source, f"not UTF-8 text: {exc}") from exc
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError
        raise GoldenFormatError(source, f"not JSON: {exc}") from exc
    problem = _shape_problem(document)
    if problem is not None:
        raise GoldenFormatError(source, f"not a golden file: {problem}")
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


def load(path: str | Path) -> Golden | None:
    """The golden at ``path``, or ``None`` when the file does not exist.

    Raises:
        GoldenFormatError: the file is not a regular file, is larger than
            ``MAX_GOLDEN_BYTES``, cannot be read, or is not a valid golden (see
            :func:`loads`).
    """
    source = str(path)
    try:
        data = read_limited(path, MAX_GOLDEN_BYTES)
    except FileNotFoundError:
        return None
    except FileRefused as exc:
        raise GoldenFormatError(source, exc.reason) from exc
    return loads(data, source=source)
