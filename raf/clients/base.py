"""What a client adapter is: one real client library, driven the way its users drive it,
against ``raf serve`` over a real socket, its result mapped to raf's canonical response.

An adapter is a module of :mod:`raf.clients` that defines ``ADAPTER``, an :class:`Adapter`:
the library's name and distribution, the dialects it reads, the capabilities it reports,
the response framings it asks for (when it cannot ask for another), one paragraph
(``how``) saying how a user of the library reads the result (that is what is mapped,
nothing more), and ``run``, which makes one call for a :class:`ClientCase` and returns a
:class:`~raf.shared.client_response.ClientResponse`.

When the library raises, ``run`` raises :class:`ClientRaised` with what the user had seen
before (the text streamed so far, the calls already handed out), as a user's loop would
keep it; any other exception counts as the library raising with nothing kept.

Adapters import their library inside ``run`` (or inside the functions it calls): the
library is an optional extra (``raf[clients]``), never a dependency of raf.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from raf import formats
from raf.cassettes.tool_loops import ToolLoopSpec
from raf.dialects.tables import finish_reason as _mapped
from raf.shared.client_response import ClientResponse, ClientToolCall, ClientUsage

__all__ = [
    "Adapter",
    "ClientCase",
    "ClientRaised",
    "ToolLoopAdapter",
    "ToolLoopCase",
    "arguments",
    "finish_reason",
    "usage",
]

TEST_API_KEY = "sk-raf-test-not-a-secret"
"""The API key adapters give their library (raf serve ignores it; the journal redacts it)."""


@dataclass(frozen=True)
class ClientCase:
    """One call to make.

    Attributes:
        dialect: the wire format the server answers in.
        scenario: the cassette's scenario.
        server: ``http://127.0.0.1:PORT``.
        prefix: the case's path prefix (``/s/openai_chat/plain_text/c/whole/i/0``); a
            client's base URL is ``server + prefix`` plus whatever the library expects
            (``/v1`` for the OpenAI SDK).
        request: the recorded request body (a JSON object): the model, messages, tools and
            options to give the library.
        path: the recorded provider path (``/v1/chat/completions``,
            ``/v1beta/models/gemini-2.5-flash:streamGenerateContent``).
        timeout: seconds the call may take.
        method: the recorded method (``GET`` for a resumed Responses stream).
    """

    dialect: str
    scenario: str
    server: str
    prefix: str
    request: dict[str, Any]
    path: str
    timeout: float = 10.0
    method: str = "POST"

    @property
    def base_url(self) -> str:
        return self.server + self.prefix

    @property
    def model(self) -> str:
        """The model: the request's ``model``, else the one in the path, where the format
        puts it there (:attr:`raf.formats.Format.request_url`: Gemini's)."""
        model = self.request.get("model")
        if isinstance(model, str):
            return model
        found = formats.find(self.dialect)
        shape = None if found is None else found.request_url
        return (None if shape is None else shape.parts(self.path).model) or "model"


class ClientRaised(Exception):
    """The library raised ``error`` after the user had seen ``partial``."""

    def __init__(self, error: BaseException, partial: ClientResponse) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error
        self.partial = partial


@dataclass(frozen=True)
class Adapter:
    """One client library, as the matrix runs it."""

    name: str
    distribution: str
    dialects: tuple[str, ...]
    capabilities: tuple[str, ...]
    how: str
    run: Callable[[ClientCase], ClientResponse]
    module: str = ""
    """The module the library is imported as (default: ``distribution`` with ``-`` as
    ``_``)."""
    framings: tuple[str, ...] = ()
    """The response framings the library asks for, where a request's URL chooses one
    (:attr:`raf.formats.Format.request_url`: Gemini's ``?alt=sse`` is ``sse``, no ``alt``
    ``json_array``); empty: it asks for what the recording asked for. A case recorded with
    another framing is a response the library never receives: the matrix skips it."""

    def version(self) -> str | None:
        """The installed version of the library, or ``None`` when it is not installed."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None

    def missing(self) -> str | None:
        """Why the library cannot be used here (not installed, fails to import), or
        ``None``."""
        try:
            importlib.import_module(self.module or self.distribution.replace("-", "_"))
        except Exception as exc:  # an optional library that is absent or broken
            return f"{self.distribution} is not installed ({type(exc).__name__}: {exc})"
        return None


@dataclass(frozen=True)
class ToolLoopCase:
    """One run of a library's own tool loop over a tool-loop recording
    (:class:`~raf.cassettes.tool_loops.ToolLoopSpec`).

    The library is given the conversation (``spec.messages``), the tools (``spec.tools``, each
    a function of the library's own kind whose body is :meth:`tool_result`), the model
    (``spec.model``) and the base URL, and runs its loop as its documentation shows until it
    hands its user the final answer; the adapter maps that answer (the last round's response:
    text, reasoning, calls, finish reason, usage as the library reports them) to a
    :class:`~raf.shared.client_response.ClientResponse`. Every request the loop made is in
    the server's journal under the run's name (``/r/<run>`` in ``prefix``); the matrix judges
    them.

    Attributes:
        spec: the recording.
        server: ``http://127.0.0.1:PORT``.
        prefix: the run's path prefix (``/s/<dialect>/<scenario>/c/<chunking>/r/<run>``).
        timeout: seconds the whole run may take.
    """

    spec: ToolLoopSpec
    server: str
    prefix: str
    timeout: float = 30.0

    @property
    def dialect(self) -> str:
        return self.spec.dialect

    @property
    def scenario(self) -> str:
        return self.spec.scenario

    @property
    def base_url(self) -> str:
        return self.server + self.prefix

    @property
    def model(self) -> str:
        return self.spec.model

    def tool_result(self, name: str, args: Any) -> tuple[str, bool]:
        """What the tool ``name`` returns when called with ``args`` (parsed JSON, or the
        JSON text): the recorded result's text and whether it is an error. A call the
        recording never made gets an error text naming it (the loop goes on, and the judge
        sees a request the recording does not have)."""
        parsed = arguments(args) if isinstance(args, str | bytes) else args
        found = self.spec.result_for(name, parsed)
        if found is None:
            return f"raf: the recording has no result for {name}({parsed!r})", True
        return found.content, found.is_error


@dataclass(frozen=True)
class ToolLoopAdapter:
    """One client library's own tool loop, as the matrix's tool-loop section runs it: like
    :class:`Adapter`, with ``run`` taking a :class:`ToolLoopCase`. ``how`` says which of the
    library's loops is driven and how (the documented way), in one paragraph."""

    name: str
    distribution: str
    dialects: tuple[str, ...]
    capabilities: tuple[str, ...]
    how: str
    run: Callable[[ToolLoopCase], ClientResponse]
    module: str = ""

    def version(self) -> str | None:
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None

    def missing(self) -> str | None:
        try:
            importlib.import_module(self.module or self.distribution.replace("-", "_"))
        except Exception as exc:  # an optional library that is absent or broken
            return f"{self.distribution} is not installed ({type(exc).__name__}: {exc})"
        return None


def finish_reason(dialect: str, raw: str | None) -> str | None:
    """A provider's finish reason (``end_turn``, ``STOP``, ``tool_calls``...) in raf's
    terms (``stop``, ``tool_calls``, ``length``, ``content_filter``...), by the format's own
    table (:attr:`raf.formats.Format.finish_reasons`); ``None`` stays ``None``."""
    if raw is None:
        return None
    found = formats.find(dialect)
    return str(_mapped({} if found is None else found.finish_reasons, raw))


def arguments(value: Any) -> Any:
    """Tool-call arguments as the user gets them, as JSON: a string is parsed (kept as the
    string when it is not JSON); a mapping or list is taken as it is."""
    if isinstance(value, str | bytes):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    return msgspec.to_builtins(value) if value is not None else None


def tool_call(call_id: str | None, name: str, args: Any) -> ClientToolCall:
    """A tool call as the user got it."""
    return ClientToolCall(id=call_id or None, name=name, arguments=arguments(args))


def usage(
    prompt: int | None,
    completion: int | None,
    total: int | None = None,
    **details: int | None,
) -> ClientUsage:
    """Token usage as the library reported it (``total`` defaults to the sum)."""
    p, c = prompt or 0, completion or 0
    return ClientUsage(
        prompt_tokens=p,
        completion_tokens=c,
        total_tokens=total if total is not None else p + c,
        **{k: v for k, v in details.items() if v is not None},
    )
