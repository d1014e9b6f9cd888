"""Cassette documents to and from YAML text: legible, exact, and safe. No file IO.

Bodies are written so that a person can read them and so that they load back byte for byte:

* text that YAML can hold verbatim in a literal block (``|``) is written that way, which is
  how a stream reads best: one SSE line per line;
* text that a literal block cannot carry exactly (carriage returns, a BOM, trailing spaces,
  control characters) is written as a double-quoted string with escapes;
* bytes that are not valid UTF-8 are written as ``!!binary`` (base64), which vcrpy reads too.

Every write is checked by loading it back. Loading uses a safe loader: cassettes are
untrusted input and no YAML tag may construct arbitrary objects.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["dumps", "loads"]

_Loader: type[yaml.SafeLoader | yaml.CSafeLoader]
try:  # the C implementation when present, as vcrpy does
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


class _Dumper(yaml.SafeDumper):
    """A safe dumper that writes multi-line text as literal blocks where that is exact."""

    literal_blocks = True


class _QuotingDumper(_Dumper):
    """The fallback: no literal blocks at all."""

    literal_blocks = False


def _text(dumper: _Dumper, text: str) -> yaml.ScalarNode:
    if dumper.literal_blocks and "\n" in text and _literal_is_exact(text):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    if "\r" in text or "\ufeff" in text or any(ord(c) < 0x20 and c not in "\n\t" for c in text):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
    return dumper.represent_str(text)


def _literal_is_exact(text: str) -> bool:
    """Whether a literal block reproduces ``text`` exactly (YAML normalises some text)."""
    if "\r" in text or "\ufeff" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return False
    if any(ord(c) < 0x20 and c not in "\n\t" for c in text):
        return False
    # Trailing spaces and tabs, and lines of only spaces, make PyYAML fall back to quotes;
    # the round-trip check in ``dumps`` catches anything else.
    return not any(line != line.rstrip(" \t") for line in text.split("\n"))


_Dumper.add_representer(str, _text)


def dumps(document: dict[str, Any]) -> str:
    """YAML text of a cassette document (keys in the document's order).

    Raises:
        ValueError: the text would not load back as the same document (a bug in raf).
    """
    prepared = _prepare(document)
    for dumper in (_Dumper, _QuotingDumper):
        text = yaml.dump(
            prepared,
            Dumper=dumper,
            sort_keys=False,
            allow_unicode=True,
            width=100,
            default_flow_style=False,
        )
        if loads(text) == prepared:
            return text
    raise ValueError("the cassette does not survive a YAML round trip")


def loads(text: str | bytes) -> Any:
    """Load YAML text with the safe loader."""
    return yaml.load(text, Loader=_Loader)


def _prepare(node: Any) -> Any:
    """Bodies: valid UTF-8 bytes become text; other bytes stay bytes (``!!binary``)."""
    if isinstance(node, dict):
        return {k: _prepare(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_prepare(v) for v in node]
    if isinstance(node, bytes):
        try:
            return node.decode("utf-8")
        except UnicodeDecodeError:
            return node
    return node
