"""raf's reference pipeline as a program speaking ``raf-conformance/1`` on stdin/stdout.

``python -m raf.conformance.stdio_reference`` is an implementation like any other: every
dialect raf has, every level and every capability. It is what the harness itself is tested
with (the reference must pass every level through the protocol too), the baseline the cost
of the protocol is measured against, and an example of the protocol's server side.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

import msgspec

from raf import __version__, dialects
from raf.conformance.goldens import InteractionOutput
from raf.conformance.protocol import (
    CAPABILITIES,
    LEVELS,
    PROTOCOL,
    Case,
    HttpRequest,
    ImplementationHello,
)
from raf.conformance.reference import output_for, output_of_reads

__all__ = ["main", "serve"]

_Incoming = msgspec.json.Decoder(dict[str, object])


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer messages until ``bye`` or the end of ``stdin``."""
    encoder = msgspec.json.Encoder()
    case_decoder = msgspec.json.Decoder(Case)
    for line in stdin:
        try:
            reply = _answer(line, case_decoder)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:  # not a raf message
            print(f"raf-reference: ignored a malformed line: {exc}", file=sys.stderr, flush=True)
            continue
        if reply is _BYE:
            return 0
        if reply is not None:
            stdout.write(encoder.encode(reply) + b"\n")
            stdout.flush()
    return 0


_BYE = object()


def _answer(line: bytes, case_decoder: msgspec.json.Decoder[Case]) -> object:
    """The reply to one line (``None`` for none, ``_BYE`` to stop)."""
    kind = _Incoming.decode(line).get("type")
    if kind == "hello":
        return ImplementationHello(
            protocol=PROTOCOL,
            name="raf-reference",
            version=__version__,
            dialects=dialects.names(),
            levels=list(LEVELS),
            capabilities=list(CAPABILITIES),
        )
    if kind == "case":
        case = case_decoder.decode(line)
        if case.transport == "http" and case.request is not None:
            output = _over_http(case.request, case.dialect)
        else:
            output = output_for(case.status, "", case.body_chunks(), case.dialect)
        return {
            "type": "result",
            "id": case.id,
            "response": output.response,
            "results": output.results,
            "updates": output.updates,
        }
    if kind == "bye":
        return _BYE
    print(f"raf-reference: unknown message {kind!r}", file=sys.stderr, flush=True)
    return None


def _over_http(request: HttpRequest, dialect: str) -> InteractionOutput:
    """Make the case's request with httpx and feed each network read to the pipeline."""
    import httpx  # noqa: PLC0415 - only http cases need it

    reads: list[bytes] = []
    failure: Exception | None = None
    status, reason = 0, ""
    try:
        with (
            httpx.Client(timeout=_HTTP_TIMEOUT) as client,
            client.stream(
                request.method,
                request.url,
                headers=request.headers,
                content=None if request.body is None else msgspec.json.encode(request.body),
            ) as response,
        ):
            status, reason = response.status_code, response.reason_phrase
            reads.extend(response.iter_raw())
    except httpx.HTTPError as exc:
        failure = exc
    if status == 0:  # no response at all
        return output_of_reads(200, "", [], dialect, failure or OSError("no response"))
    return output_of_reads(status, reason, reads, dialect, failure)


_HTTP_TIMEOUT = 30.0


def main() -> int:
    """Serve on this process's standard input and output."""
    return serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
