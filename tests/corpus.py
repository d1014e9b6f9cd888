"""The shared corpus of real recorded streams (``../shared/corpus``), imported with raf's own
importer. Read-only. When it is absent (or has no recording in it) the tests that use it skip,
with a reason that names the folder and ``RAF_REQUIRE_CORPUS``; with ``RAF_REQUIRE_CORPUS=1``
(CI sets it) they fail instead. Set ``RAF_CORPUS`` to point elsewhere.

A test over corpus items is parametrised with :func:`params`, never with a bare list: an
absent corpus is then one test that says so, not an empty parameter set (which fails the
collection: ``empty_parameter_set_mark`` in pyproject.toml)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes.importers import guess_dialect, import_file, is_event_stream
from raf.dialects import names

ROOT = Path(
    os.environ.get("RAF_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)

SWITCH = "RAF_REQUIRE_CORPUS"
"""The environment variable that makes an absent or empty corpus a failure, not a skip."""

MISSING = (
    f"the shared corpus of real recordings is not at {ROOT} (or has no *.yaml in it): "
    f"set RAF_CORPUS to where it is; with {SWITCH}=1 its absence fails these tests"
)
"""What a corpus test says when the corpus is not there."""

MARK = "shared_corpus"
"""The mark of :func:`params`'s placeholder; tests/conftest.py calls :func:`require` for it."""


@dataclass(frozen=True)
class RecordedStream:
    """One streamed response of a recorded cassette."""

    path: Path
    index: int
    uri: str
    body: bytes

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}#{self.index}"

    @property
    def wire_format(self) -> str:
        return guess_dialect(self.uri)

    @property
    def dialect(self) -> str | None:
        """The raf dialect for this stream, or None while raf has none for its format."""
        return self.wire_format if self.wire_format in names() else None


def required() -> bool:
    """Whether ``RAF_REQUIRE_CORPUS=1``: an absent corpus is then a failure."""
    return os.environ.get(SWITCH) == "1"


def files() -> list[Path]:
    """The corpus's cassette files, in path order (none when the corpus is absent)."""
    return sorted(ROOT.rglob("*.yaml")) if ROOT.is_dir() else []


def present() -> bool:
    """Whether the corpus is there with at least one recording in it."""
    return ROOT.is_dir() and next(ROOT.rglob("*.yaml"), None) is not None


def require() -> None:
    """Go on if the corpus is there; else skip, saying where it was looked for and how to
    require it (fail instead, with ``RAF_REQUIRE_CORPUS=1``)."""
    if present():
        return
    if required():
        pytest.fail(f"{SWITCH}=1 but {MISSING}", pytrace=False)
    pytest.skip(MISSING)


def check() -> None:
    """For a test that runs on the bundled data with or without the corpus and adds the
    corpus's recordings when it is there: fail if ``RAF_REQUIRE_CORPUS=1`` and it is not."""
    if required() and not present():
        pytest.fail(f"{SWITCH}=1 but {MISSING}", pytrace=False)


def params(items: Sequence[Any]) -> list[Any]:
    """The parameters of a test over items of the corpus: ``items`` as they are (values or
    ``pytest.param``) when the corpus is there; when it is not, one placeholder that skips,
    or fails with ``RAF_REQUIRE_CORPUS=1``, saying so (its setup stops before the test body).
    With the corpus there and no item (none of the format a test wants, say), the empty
    parameter set fails the collection."""
    if present():
        return list(items)
    return [pytest.param(None, id="shared-corpus-absent", marks=getattr(pytest.mark, MARK))]


def recorded_streams() -> list[RecordedStream]:
    """Every ``text/event-stream`` response in the corpus, imported by raf, in path order
    (none when the corpus is absent)."""
    out = []
    for path in files():
        cassette = import_file(path)
        for index, interaction in enumerate(cassette.interactions):
            if is_event_stream(interaction):
                out.append(
                    RecordedStream(path, index, interaction.request.uri, interaction.response.body)
                )
    return out
