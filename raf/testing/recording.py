"""Recording in pytest: the ``raf_record`` marker and the ``raf_recording`` fixture.

A test asks for ``raf_recording`` and points the client it tests at
``raf_recording.base_url``: a recording proxy on 127.0.0.1 (:class:`raf.record.RecordingProxy`)
that, depending on ``--raf-record-mode``, replays the test's cassette or forwards to the
provider and records what comes back::

    @pytest.mark.raf_record(upstream="https://api.openai.com", max_age="30d")
    def test_hello(raf_recording):
        client = OpenAI(base_url=raf_recording.base_url + "/v1", api_key=key)
        ...

The record modes are pytest-recording's: ``none`` (the default: replay only, never touch the
network; a missing cassette fails the test, saying how to record it), ``once`` (record what
has no cassette yet, replay the rest), ``new_episodes`` (replay the requests a cassette has,
record the new ones into it), ``all`` (record everything again). Cassettes go to
``--raf-cassette-dir``, by default a ``cassettes`` folder beside the test module, as
``<dialect>/<scenario>.yaml``; the scenario is the marker's ``scenario`` or made of the test's
node id (:func:`scenario_of`).

A replayed cassette older than its ``max_age`` warns (:class:`RafCassetteExpired`), or fails
the test when it says ``on_expiry: fail`` (:mod:`raf.cassettes.expiry`).

The proxy (and aiohttp with it) is imported when a test first asks for the fixture.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

import pytest

__all__ = [
    "DEFAULT_UPSTREAM",
    "MARKER",
    "MARKER_HELP",
    "MODES",
    "RafCassetteExpired",
    "RecordSettings",
    "Recording",
    "cassette_folder",
    "recording",
    "scenario_of",
]

MARKER = "raf_record"
"""The marker's name."""

MODES = ("none", "once", "new_episodes", "all")
"""The record modes (``--raf-record-mode``), as pytest-recording names them."""

Mode = Literal["none", "once", "new_episodes", "all"]

DEFAULT_UPSTREAM = "https://api.openai.com"
"""The provider a test records from when its marker names none."""

MARKER_HELP = (
    f"{MARKER}(upstream=URL, scenario=None, dialect=None, max_age=None, on_expiry='warn'): "
    "what the raf_recording fixture records and replays for this test: the provider's base "
    f"URL (default {DEFAULT_UPSTREAM}), the cassette's scenario (default: from the test's "
    "node id), its wire format, how long the recording stays current (90m, 12h, 30d, 2w) "
    "and whether an expired one warns or fails"
)
"""The marker's line in ``pytest --markers`` (no colon before its description)."""

_MAX_NAME = 200


class RafCassetteExpired(UserWarning):
    """A test replayed a cassette older than its ``max_age`` (``on_expiry: warn``);
    ``-W error::raf.testing.recording.RafCassetteExpired`` makes it fail."""


def scenario_of(nodeid: str) -> str:
    """The scenario name of a test: its module's name and the rest of its node id, lower
    case, with every run of other characters than ``a-z0-9_-`` made one ``_`` and ``::``
    made ``-`` (``tests/test_chat.py::TestChat::test_hi[gpt-4]`` is
    ``test_chat-testchat-test_hi_gpt-4``). A name longer than 200 characters keeps its first
    191 and a digest of the node id, so that it still names one file
    (:func:`raf.cassettes.format.is_file_name`)."""
    path, *rest = nodeid.split("::")
    parts = [Path(path).stem, *rest]
    cleaned = [re.sub(r"[^a-z0-9_\-]+", "_", part.lower()).strip("_-") for part in parts]
    name = "-".join(part for part in cleaned if part) or "test"
    if len(name) > _MAX_NAME:
        digest = hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:8]
        name = f"{name[: _MAX_NAME - 9].rstrip('_-')}-{digest}"
    return name


@dataclass(frozen=True)
class RecordSettings:
    """What a test's ``raf_record`` marker says (the defaults without one)."""

    upstream: str = DEFAULT_UPSTREAM
    scenario: str | None = None
    dialect: str | None = None
    max_age: str | None = None
    on_expiry: Literal["warn", "fail"] = "warn"

    @classmethod
    def of(cls, node: pytest.Item) -> RecordSettings:
        """The settings of the closest ``raf_record`` marker of ``node``.

        Raises:
            ValueError: the marker has positional arguments, an unknown keyword or a value
                raf cannot use; the message says which and what it may be.
        """
        marker = node.get_closest_marker(MARKER)
        if marker is None:
            return cls()
        where = f"{node.nodeid}: @pytest.mark.{MARKER}"
        if marker.args:
            raise ValueError(f"{where} takes keywords only: {MARKER_HELP}")
        unknown = sorted(set(marker.kwargs) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{where}: unknown keyword(s) {', '.join(unknown)}: {MARKER_HELP}")
        settings = cls(**marker.kwargs)
        problem = settings.problem()
        if problem is not None:
            raise ValueError(f"{where}: {problem}")
        return settings

    def problem(self) -> str | None:
        """What is wrong with these settings, or ``None``."""
        from raf import dialects  # noqa: PLC0415
        from raf.cassettes.expiry import parse_max_age  # noqa: PLC0415
        from raf.cassettes.format import NAME_RULE, is_file_name  # noqa: PLC0415

        if not isinstance(self.upstream, str) or not re.match(r"https?://", self.upstream):
            return f"upstream {self.upstream!r} is not an http:// or https:// base URL"
        if self.scenario is not None and not is_file_name(self.scenario):
            return f"scenario {self.scenario!r} cannot name a file (use {NAME_RULE})"
        if self.dialect is not None and self.dialect not in dialects.names():
            return f"unknown dialect {self.dialect!r} (known: {', '.join(dialects.names())})"
        if self.max_age is not None:
            try:
                parse_max_age(self.max_age)
            except ValueError as exc:
                return str(exc)
        if self.on_expiry not in ("warn", "fail"):
            return f"on_expiry {self.on_expiry!r} is not 'warn' or 'fail'"
        return None


def cassette_folder(config: pytest.Config, module: Path) -> Path:
    """Where the cassettes of a test module are: ``--raf-cassette-dir`` (relative to where
    pytest was started), else a ``cassettes`` folder beside the module."""
    chosen = config.getoption("raf_cassette_dir", None)
    if chosen is None:
        return module.parent / "cassettes"
    return Path(config.invocation_params.dir) / Path(chosen)


class Recording:
    """What the ``raf_recording`` fixture gives a test: the proxy's URLs and what it wrote.

    ``base_url`` is the proxy's URL for this test's scenario: give it to the client under
    test as its provider base URL (the client appends its path, ``/v1/chat/completions``).
    ``url(scenario)`` is the same for another scenario of the same test.
    """

    def __init__(
        self,
        proxy: Any,
        *,
        item: pytest.Item,
        settings: RecordSettings,
        scenario: str,
        folder: Path,
        mode: Mode,
    ) -> None:
        self._proxy = proxy
        self._item = item
        self._settings = settings
        self._checked: set[str] = set()
        self.scenario = scenario
        """The scenario of ``base_url``."""
        self.folder = folder
        """The folder of the cassettes (``<dialect>/<scenario>.yaml`` in it)."""
        self.mode = mode
        """The record mode (``--raf-record-mode``)."""

    @property
    def base_url(self) -> str:
        """The proxy's URL for this test's scenario (``http://127.0.0.1:PORT/s/<scenario>``)."""
        return self.url(self.scenario)

    def url(self, scenario: str) -> str:
        """The proxy's URL for ``scenario``. In ``none`` mode a scenario without a cassette
        fails the test here, saying how to record it; a replayed cassette past its
        ``max_age`` warns, or fails the test with ``on_expiry: fail``."""
        from raf.cassettes.format import NAME_RULE, is_file_name  # noqa: PLC0415

        if not is_file_name(scenario):
            pytest.fail(
                f"raf: scenario {scenario!r} cannot name a file (use {NAME_RULE})", pytrace=False
            )
        if scenario not in self._checked:
            self._check(scenario)
            self._checked.add(scenario)
        return cast(str, self._proxy.url(scenario))

    @property
    def cassette_path(self) -> Path | None:
        """The cassette of this test's scenario: the one recorded during the test, else the
        one that exists, else where it will be written when the dialect is known
        (``None`` when it is not: the proxy learns it from the request)."""
        return self.path_of(self.scenario)

    def path_of(self, scenario: str) -> Path | None:
        """The cassette of ``scenario`` (see :attr:`cassette_path`)."""
        for path in self.saved:
            if path.stem == scenario:
                return path
        existing = self._existing(scenario)
        if existing:
            return existing[0]
        if self._settings.dialect is not None:
            return self.folder / self._settings.dialect / f"{scenario}.yaml"
        return None

    @property
    def saved(self) -> list[Path]:
        """The cassettes the proxy has written so far. A cassette is written once its
        response has ended, which may be a moment after the client has read the last byte:
        the list is complete after the test (the end of the run lists them)."""
        return [Path(path) for path in self._proxy.saved]

    def _existing(self, scenario: str) -> list[Path]:
        if self._settings.dialect is not None:
            path = self.folder / self._settings.dialect / f"{scenario}.yaml"
            return [path] if path.is_file() else []
        return sorted(self.folder.glob(f"*/{scenario}.yaml"))

    def _check(self, scenario: str) -> None:
        if self.mode == "all":  # everything is recorded again
            return
        existing = self._existing(scenario)
        if not existing:
            if self.mode == "none":
                pytest.fail(self._missing(scenario), pytrace=False)
            return
        if len(existing) > 1:
            pytest.fail(
                f"raf: scenario {scenario!r} has a cassette in more than one format: "
                f"{', '.join(map(str, existing))}; say which in "
                f"@pytest.mark.{MARKER}(dialect=...)",
                pytrace=False,
            )
        self._expiry(existing[0])

    def _missing(self, scenario: str) -> str:
        config = self._item.config
        command = ["pytest", self._item.nodeid, "--raf-record-mode", "once"]
        if config.getoption("raf_cassette_dir", None) is not None:
            command += ["--raf-cassette-dir", str(self.folder)]
        started = Path(config.invocation_params.dir)
        where = "" if started == config.rootpath else f" (in {config.rootpath})"
        looked = (
            self.folder / self._settings.dialect / f"{scenario}.yaml"
            if self._settings.dialect is not None
            else self.folder / "*" / f"{scenario}.yaml"
        )
        return (
            f"raf: no cassette for scenario {scenario!r} (looked for {looked}), and record "
            "mode 'none' (the default) replays only, never touching the network.\n"
            f"Record it from {self._settings.upstream} once, then commit the cassette:\n"
            f"    {shlex.join(command)}{where}"
        )

    def _expiry(self, path: Path) -> None:
        from raf.cassettes.expiry import verdict  # noqa: PLC0415
        from raf.cassettes.persister import load  # noqa: PLC0415
        from raf.errors import CassetteError  # noqa: PLC0415

        try:
            cassette = load(path)
        except CassetteError as exc:
            pytest.fail(f"raf: cannot replay {path}: {exc}", pytrace=False)
        header = cassette.info.recorded if cassette.info is not None else None
        if header is None:
            return
        expired = verdict(header, datetime.now(UTC))
        if expired is None:
            return
        message = f"{path}: {expired.message()}"
        if expired.action == "fail":
            pytest.fail(f"raf: {message}", pytrace=False)
        warnings.warn(RafCassetteExpired(message), stacklevel=1)


@contextmanager
def recording(item: pytest.Item) -> Iterator[Recording]:
    """A recording proxy for ``item`` (the ``raf_recording`` fixture), stopped on exit."""
    # aiohttp only when used
    from raf.record import (  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: PLC0415
        RecordingProxy,
    )

    try:
        settings = RecordSettings.of(item)
    except ValueError as exc:
        pytest.fail(f"raf: {exc}", pytrace=False)
    mode = cast(Mode, item.config.getoption("raf_record_mode", "none"))
    folder = cassette_folder(item.config, Path(item.path))
    scenario = settings.scenario or scenario_of(item.nodeid)
    try:
        proxy = RecordingProxy(
            settings.upstream,
            folder,
            mode=mode,
            scenario=scenario,
            dialect=settings.dialect,
            max_age=settings.max_age,
            on_expiry=settings.on_expiry,
        )
    except ValueError as exc:  # what the proxy refuses that the marker let through
        pytest.fail(f"raf: {item.nodeid}: @pytest.mark.{MARKER}: {exc}", pytrace=False)
    with proxy:
        yield Recording(
            proxy, item=item, settings=settings, scenario=scenario, folder=folder, mode=mode
        )
