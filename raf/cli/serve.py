"""``raf serve``: the replay server in the foreground (docs/serve.md)."""

from __future__ import annotations

import argparse
import ipaddress
import socket
from pathlib import Path
from typing import Any, TextIO

from raf.chunking import check_chunking
from raf.cli._shell import (
    _InputError,
    _positive,
    _reason,
    _warn,
)
from raf.limits import (
    SERVE_BODY_TIMEOUT,
    SERVE_HEADER_TIMEOUT,
    SERVE_MAX_BODY_BYTES,
    SERVE_MAX_CONNECTIONS,
    SERVE_MAX_STREAMS,
)
from raf.serve.faults import FAULTS
from raf.serve.verdicts import DEFAULT_MODE, MODES
from raf.shared.bundled import bundled

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``raf serve`` to the subcommands ``sub``."""
    serve = sub.add_parser(
        "serve",
        help="replay cassettes over HTTP on 127.0.0.1, with chunkings, timing and faults",
        description="Serve every cassette of the folders (the bundled ones by default) over "
        "HTTP, each under /s/<dialect>/<scenario>[/c/<chunking>][/f/<fault>][/i/<n>][/r/<run>]"
        "[/as/<model>], followed "
        "by the path a client appends (/v1/chat/completions, /v1/messages, ...): set a "
        "client's base URL to a case and it gets the recorded stream, cut as asked, with the "
        "faults asked; a tool loop's follow-up gets the round after the calls it answers. "
        "/as/<model> (ag-ui, ui-message-stream, ...) sends the recorded answer re-encoded in "
        "that message model, as a front end reads it from its agent backend. "
        "GET /_raf/journal lists the requests received (scrubbed), each checked against the "
        "recorded request and the request rules. docs/serve.md has the URL scheme and faults.",
        epilog="examples:\n"
        "  raf serve --port 0\n"
        "  raf serve --cassettes my_cassettes --journal requests.jsonl\n"
        "  curl -sN -d '{}' http://127.0.0.1:8765/s/openai_chat/plain_text/c/bytes"
        "/f/stall-500/v1/chat/completions\n"
        "  curl -sN -d '{}' http://127.0.0.1:8765/s/openai_chat/plain_text/as/ag-ui/agent\n\n"
        "faults: " + ", ".join(FAULTS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "--cassettes",
        type=Path,
        action="append",
        metavar="DIR",
        help="a cassette folder (repeatable; default: the bundled cassettes)",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="where to listen (default 127.0.0.1: this machine only)"
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=8765,
        help="the port (default 8765; 0: a free one, printed when listening)",
    )
    serve.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        help="recorded delays are divided by this (default 1; 0: no delays)",
    )
    serve.add_argument(
        "--chunking",
        type=_serve_chunking,
        metavar="NAME",
        help="the chunking of a path that names none (default: recorded when the cassette "
        "has a timing, else whole)",
    )
    serve.add_argument(
        "--journal",
        type=Path,
        metavar="FILE",
        help="also append every request to FILE (JSON lines)",
    )
    serve.add_argument(
        "--rules",
        choices=MODES,
        default=DEFAULT_MODE,
        metavar="MODE",
        help="what a request that breaks a request rule (docs/requests.md) gets: reject (the "
        "default) answers the provider's error when the provider refuses the rule, report "
        "answers the recorded response, both listing the rules in the journal; off checks "
        "nothing",
    )
    serve.add_argument(
        "--max-streams",
        type=_positive,
        default=SERVE_MAX_STREAMS,
        metavar="N",
        help=f"most responses in progress at once (default {SERVE_MAX_STREAMS}; more get 503)",
    )
    serve.add_argument(
        "--max-connections",
        type=_positive,
        default=SERVE_MAX_CONNECTIONS,
        metavar="N",
        help=f"most connections served at once (default {SERVE_MAX_CONNECTIONS}); one more "
        "closes the connection idle the longest, or when none is idle gets 503 and is closed",
    )
    serve.add_argument(
        "--header-timeout",
        type=_seconds,
        default=SERVE_HEADER_TIMEOUT,
        metavar="SECONDS",
        help="a new connection that sends no complete request head in this time is closed "
        f"(default {SERVE_HEADER_TIMEOUT:g})",
    )
    serve.add_argument(
        "--body-timeout",
        type=_seconds,
        default=SERVE_BODY_TIMEOUT,
        metavar="SECONDS",
        help="a request body that has not all arrived in this time gets 408 "
        f"(default {SERVE_BODY_TIMEOUT:g})",
    )
    serve.add_argument(
        "--max-body",
        type=_positive,
        default=SERVE_MAX_BODY_BYTES,
        metavar="BYTES",
        help=f"largest request body (default {SERVE_MAX_BODY_BYTES}; larger get 413)",
    )


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address, or a name) is this machine only: every address it
    resolves to is a loopback one (``127.0.0.0/8``, ``::1``, ``::ffff:127.x.y.z``)."""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError, ValueError):
        return False
    for address in addresses:
        ip = ipaddress.ip_address(str(address).partition("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if not ip.is_loopback:
            return False
    return bool(addresses)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {text!r}")
    return int(text)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a speed (a number >= 0): {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds (more than 0): {text!r}")
    return value


def _serve_chunking(text: str) -> str:
    if text == "recorded":
        return text
    try:
        return check_chunking(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, or recorded") from None


def run(args: argparse.Namespace, out: TextIO) -> int:
    from raf.serve.app import ServeConfig  # noqa: PLC0415 - aiohttp only for this command
    from raf.serve.journal import Journal  # noqa: PLC0415
    from raf.serve.server import bind, serve_forever  # noqa: PLC0415

    folders = args.cassettes or [bundled().cassettes]
    for folder in folders:
        if not folder.is_dir():
            raise _InputError(f"no cassette folder at {folder}")
    try:
        journal = Journal(file=args.journal)
    except OSError as exc:
        raise _InputError(f"cannot write {args.journal}: {_reason(exc)}") from exc
    config = ServeConfig(
        folders=list(folders),
        speed=args.speed,
        chunking=args.chunking,
        max_body=args.max_body,
        max_streams=args.max_streams,
        max_connections=args.max_connections,
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        journal=journal,
        rules=args.rules,
    )
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        journal.close()
        raise _InputError(f"cannot listen on {args.host}:{args.port}: {_reason(exc)}") from exc
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    if not is_loopback(str(sock.getsockname()[0])):
        _warn(
            f"raf serve: listening on {args.host}: any machine that reaches it reads the cassettes"
        )

    def ready() -> None:
        out.write(
            f"raf serve: listening on http://{host}:{port} ({len(config.catalog)} cassettes; "
            "Ctrl-C stops)\n"
        )
        out.flush()

    serve_forever(config, sock, ready)
    out.write(f"raf serve: stopped after {journal.count} request(s)\n")
    return 0
