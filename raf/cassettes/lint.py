"""``raf cassette lint``: structure checks and a secret scan. Reads the file it checks.

Each problem is a :class:`Finding` with the file, the line, the place in the document and a
message. Errors (a malformed cassette, a credential) make the lint fail; warnings (a missing
``expect`` block, a stream without ``text/event-stream``) are reported but do not.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from raf import dialects
from raf.cassettes.format import Cassette
from raf.cassettes.scrub import REDACTED, SECRET_HEADERS, SECRET_QUERY_PARAMETERS, find_secrets
from raf.cassettes.serializer import loads
from raf.errors import CassetteFormatError

__all__ = ["Finding", "cassette_files", "lint_file", "lint_paths"]


@dataclass(frozen=True)
class Finding:
    """One problem in one file."""

    path: str
    line: int
    where: str
    severity: str  # "error" or "warning"
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.where}: {self.message}"


def cassette_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The ``.yaml``/``.yml`` files among ``paths``, folders searched recursively."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml")))
        else:
            out.append(path)
    return out


def lint_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Finding]:
    """Lint every cassette file found under ``paths``."""
    return [finding for file in cassette_files(paths) for finding in lint_file(file)]


def lint_file(path: str | os.PathLike[str]) -> list[Finding]:
    """Every problem of one cassette file."""
    source = str(path)
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        return [Finding(source, 0, "file", "error", f"cannot read: {exc.strerror or exc}")]
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        document = loads(text)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", -1) + 1
        return [Finding(source, line, "file", "error", f"not valid YAML: {exc}")]
    lines = _line_index(node)
    findings = [
        Finding(source, lines.get(where, lines.get("", 1)), where or "document", severity, message)
        for where, severity, message in _check(document, source)
    ]
    return sorted(findings, key=lambda f: (f.line, f.where))


def _check(document: Any, source: str) -> Iterator[tuple[str, str, str]]:
    try:
        cassette = Cassette.from_dict(document, source=source)
    except CassetteFormatError as exc:
        yield "", "error", exc.problem
        return
    if cassette.info is None:
        yield (
            "",
            "warning",
            "no 'raf' block: the scenario, its dialect and its expected response are unknown",
        )
    else:
        if cassette.info.dialect not in dialects.names():
            yield (
                "raf.dialect",
                "error",
                (
                    f"unknown dialect {cassette.info.dialect!r} "
                    f"(known: {', '.join(dialects.names())})"
                ),
            )
        if cassette.info.expect is None:
            yield "raf", "warning", "no 'expect' block: the golden of this cassette is not reviewed"
    if not cassette.interactions:
        yield "interactions", "error", "no interactions"
    yield from _secrets(document)
    for n, interaction in enumerate(cassette.interactions):
        response = interaction.response
        content_type = response.header("content-type") or ""
        if (
            response.status == 200
            and b"data:" in response.body
            and "event-stream" not in content_type
        ):
            yield (
                f"interactions[{n}].response.headers",
                "warning",
                (f"the body looks like an event stream but content-type is {content_type!r}"),
            )


def _secrets(document: Any) -> Iterator[tuple[str, str, str]]:
    for where, value in _strings(document, ""):
        lowered = where.lower()
        header = lowered.rsplit(".", 2)
        if ".headers." in lowered and header[-1].split("[")[0] in SECRET_HEADERS:
            if value != REDACTED:
                yield where, "error", f"secret header is not scrubbed ({_shorten(value)})"
            continue
        if lowered.endswith(".uri"):
            for parameter in SECRET_QUERY_PARAMETERS:
                marker = f"{parameter}="
                for piece in value.split("?", 1)[-1].split("&"):
                    if piece.lower().startswith(marker) and piece[len(marker) :] != REDACTED:
                        yield where, "error", f"query parameter {parameter!r} holds a credential"
        for kind, match in find_secrets(value):
            yield where, "error", f"{kind} in the text ({_shorten(match)})"


def _shorten(secret: str) -> str:
    return secret[:6] + "..." if len(secret) > 8 else "..."


def _strings(node: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{where}.{key}" if where else str(key))
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from _strings(value, f"{where}[{n}]")
    elif isinstance(node, str):
        yield where, node
    elif isinstance(node, bytes):
        yield where, node.decode("utf-8", "replace")


def _line_index(node: yaml.Node | None) -> dict[str, int]:
    """Document path (as ``_strings`` writes it) -> 1-based line of the value."""
    index: dict[str, int] = {}

    def walk(n: yaml.Node, where: str) -> None:
        index[where] = n.start_mark.line + 1
        if isinstance(n, yaml.MappingNode):
            for key, value in n.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else "?"
                walk(value, f"{where}.{name}" if where else str(name))
        elif isinstance(n, yaml.SequenceNode):
            for k, value in enumerate(n.value):
                walk(value, f"{where}[{k}]")

    if node is not None:
        walk(node, "")
    return index
