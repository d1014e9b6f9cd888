"""``raf record``: the recording proxy in the foreground (docs/recording.md)."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any, TextIO

from raf.cassettes.expiry import MAX_AGE_FORMS
from raf.cassettes.format import NAME_RULE, is_file_name
from raf.cassettes.recorder import MODES, is_max_age
from raf.cli._shell import _InputError, _reason, _warn

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``raf record`` to the subcommands ``sub``."""
    record = sub.add_parser(
        "record",
        help="record a provider's streams through a proxy on 127.0.0.1, read by read",
        description="Listen on 127.0.0.1 and forward each request to the provider at "
        "--upstream, streaming each network read back to the client as it arrives, and save "
        "each exchange as a cassette <DIR>/<dialect>/<scenario>.yaml that keeps every read "
        "and its timing (raf serve replays them so), scrubbed of secrets before it is "
        "written. Name the scenario by the path (/s/<scenario>/ before the provider path) or "
        "an x-raf-scenario header; the requests of one scenario are the interactions of one "
        "cassette, in order. Ctrl-C stops and lists what was saved.",
        epilog="examples:\n"
        "  raf record --upstream https://api.openai.com -o cassettes\n"
        "  OPENAI_BASE_URL=http://127.0.0.1:8766/s/my_case/v1 python my_agent.py\n"
        "  raf record --upstream https://api.anthropic.com -o cassettes --mode once "
        "--max-age 30d\n\n"
        "modes: all (forward and record everything; the default), once (replay a scenario "
        "that has a cassette, record one that has none), new_episodes (replay the requests "
        "recorded before, record and append the others), none (replay only)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    record.add_argument("--upstream", required=True, metavar="URL", help="the provider's base URL")
    record.add_argument(
        "-o", "--output", required=True, type=Path, metavar="DIR", help="the cassette folder"
    )
    record.add_argument("--mode", choices=MODES, default="all", help="the record mode")
    record.add_argument(
        "--scenario",
        type=_name,
        metavar="NAME",
        help="the scenario of a request that names none (else it gets 400)",
    )
    record.add_argument(
        "--dialect",
        type=_name,
        metavar="D",
        help="the dialect folder (default: guessed from the provider path)",
    )
    record.add_argument(
        "--host", default="127.0.0.1", help="where to listen (default 127.0.0.1: this machine)"
    )
    record.add_argument(
        "--port", type=_port, default=8766, help="the port (default 8766; 0: a free one)"
    )
    record.add_argument(
        "--max-age",
        type=_max_age,
        metavar="AGE",
        help="how long a recording stays current (90m, 12h, 30d, 2w), in each cassette's header",
    )
    record.add_argument(
        "--on-expiry",
        choices=("warn", "fail"),
        default="warn",
        help="what lint does with an expired recording (default warn)",
    )


def _name(text: str) -> str:
    if not is_file_name(text):
        raise argparse.ArgumentTypeError(f"not a name ({NAME_RULE}): {text!r}")
    return text


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {text!r}")
    return int(text)


def _max_age(text: str) -> str:
    if not is_max_age(text):
        raise argparse.ArgumentTypeError(f"not a max age ({MAX_AGE_FORMS}): {text!r}")
    return text


def run(args: argparse.Namespace, out: TextIO) -> int:
    from raf.record.proxy import RecordingProxy, check_upstream  # noqa: PLC0415 - aiohttp

    try:
        check_upstream(args.upstream)
    except ValueError as exc:
        raise _InputError(f"--upstream: {exc}") from None
    folder: Path = args.output
    if folder.exists() and not folder.is_dir():
        raise _InputError(f"the output folder {folder} is a file")
    if folder.is_symlink():
        raise _InputError(f"the output folder {folder} is a link")
    lock = threading.Lock()

    def report(line: str) -> None:
        with lock:
            out.write(f"raf record: {line}\n")
            out.flush()

    proxy = RecordingProxy(
        args.upstream,
        folder,
        mode=args.mode,
        scenario=args.scenario,
        dialect=args.dialect,
        max_age=args.max_age,
        on_expiry=args.on_expiry,
        host=args.host,
        port=args.port,
        report=report,
    )
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        try:
            proxy.start()
        except (OSError, RuntimeError) as exc:
            raise _InputError(f"cannot listen on {args.host}:{args.port}: {_reason(exc)}") from exc
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            _warn(f"raf record: listening on {args.host}: any machine that reaches it can use it")
        example = proxy.url(args.scenario or "my_case")
        with lock:  # one line: a reader of the first line has all it needs
            out.write(
                f"raf record: listening on {proxy.base_url}, forwarding to {proxy.upstream} "
                f"(mode {args.mode}); point a client at {example}/<provider path> (base URL "
                f"{example}/v1) or send x-raf-scenario: NAME; Ctrl-C stops\n"
            )
            out.flush()
        while not stop.wait(0.5):
            pass
    finally:
        proxy.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    saved = proxy.saved
    with lock:
        out.write(f"raf record: stopped; {len(saved)} cassette(s) saved\n")
        for path in saved:
            out.write(f"  {path}\n")
    return 0
