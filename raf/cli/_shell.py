"""What every command of the ``raf`` command line shares: its two errors, the guarded
standard output and console, argument types, and the replay server of the commands that
need one."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console

from raf.chunking import check_chunking

__all__ = [
    "_Console",
    "_InputError",
    "_Output",
    "_OutputError",
    "_at_least",
    "_chunking",
    "_discard",
    "_positive",
    "_reason",
    "_replay_server",
    "_seconds",
    "_warn",
]


class _InputError(Exception):
    """An input or output the command cannot use, or a usage error (exit status 2)."""


class _OutputError(Exception):
    """Writing to the standard output failed (not a broken pipe): exit status 2."""


class _Output:
    """The standard output, for the commands and their rich consoles: a write or flush that
    fails (a full disk, a closed stream) raises :class:`_OutputError`; a broken pipe stays a
    ``BrokenPipeError``. Everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise _OutputError(_reason(exc)) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise _OutputError(_reason(exc)) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Console(Console):
    """A rich console for which a broken pipe is what it is for every command: rich's own
    handling exits with status 1; :func:`main` makes it status 0, as for the JSON output."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or repr(exc)


def _warn(message: str) -> None:
    """Print ``message`` on the standard error, if there is one that works."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(message + "\n")
        stream.flush()
    except (OSError, ValueError):
        _discard(stream)  # nothing can be reported; do not fail again at exit


def _discard(stream: TextIO | None) -> None:
    """Point the file descriptor of ``stream`` at the null device, as the Python docs advise
    after a broken pipe: the interpreter's final flush then succeeds, instead of printing
    "Exception ignored ... BrokenPipeError" and exiting 120."""
    if stream is None:
        return
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argument type: a whole number of at least ``minimum``."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return whole


_positive = _at_least(1)


def _chunking(text: str) -> str:
    try:
        return check_chunking(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


@contextlib.contextmanager
def _replay_server(cassettes_dir: Path) -> Iterator[Any]:
    """``raf serve`` on the suite's cassettes, on a free port of 127.0.0.1."""
    from raf.serve.server import ReplayServer  # noqa: PLC0415 - aiohttp only when asked

    server = ReplayServer([cassettes_dir])
    try:
        server.start()
    except OSError as exc:
        raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
    try:
        yield server
    finally:
        server.stop()
