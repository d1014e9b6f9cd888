"""The pipeline: byte chunks -> SSE events -> updates -> results. Sans-IO core plus drivers.

* :class:`UpdateDecoder` composes a framing (:mod:`raf.framing`) and a dialect: bytes in,
  ``AgentResponseUpdate`` values out.
* :class:`Pipeline` adds an :class:`raf.converter.AgentResponseConverter`: bytes in,
  ``AgentResponseResult`` values out, one per update that produced contents or events, and
  the converter's final result at ``close()`` (raf-spec 3.6).
* :func:`iter_updates` / :func:`aiter_updates` and :func:`run` / :func:`arun` drive them over
  any iterable of byte chunks (a file, an HTTP body, a list in a test); :func:`respond` /
  :func:`arespond` go all the way to the aggregated :class:`AgentResponse`. None of them does
  IO itself.

Abnormal ends never lose what arrived (docs/converter.md, "When the stream breaks"):

* the chunk source raises (a dropped connection, a read timeout): the drivers first yield the
  ``transport_error`` and the final result (in which calls still streaming get
  ``tool_call_incomplete``), then re-raise, so :func:`respond` raises
  :class:`raf.errors.AgentResponseError` whose ``response`` has everything;
* cancellation, a timeout or ``KeyboardInterrupt`` (``BaseException``): the exception
  propagates untouched, as asyncio and the interpreter expect; every driver given a
  ``collector`` (:func:`respond`, :func:`arespond`, :func:`run`, :func:`arun`, and through
  them :mod:`raf.transport` and :mod:`raf.collect`) first closes the turn (``cancelled``) into
  it, so its :meth:`~raf.collect.ResponseCollector.response` is the partial response. Callers
  that drive a :class:`Pipeline` themselves call :meth:`Pipeline.fail` with
  :func:`cancelled_error`.

All of them are one implementation, :class:`Driver`, sync and async.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Generic, Protocol, TypeVar, cast

from raf import dialects
from raf import framing as framings
from raf.collect import ResponseCollector
from raf.converter import AgentResponseConverter
from raf.dialects import sniff
from raf.dialects.base import Dialect, accelerators_of
from raf.dialects.sniff import AUTO
from raf.errors import (
    AgentResponseError,
    EventStreamError,
    SSEError,
    SSELimitExceeded,
    StateError,
    excerpt,
    internal_error_message,
    raw_excerpt,
)
from raf.framing import Framing
from raf.framing.sse import EventOrRun, ServerSentEvent
from raf.limits import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_JSON_DEPTH,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_RAW_CHARS,
)
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.updates import AgentResponseUpdate

__all__ = [
    "Driver",
    "Machine",
    "Pipeline",
    "UpdateDecoder",
    "adrive",
    "aiter_updates",
    "arespond",
    "arun",
    "cancelled_error",
    "drive",
    "http_error",
    "iter_updates",
    "respond",
    "run",
    "transport_error",
]


class UpdateDecoder:
    """Bytes in, ``AgentResponseUpdate`` values out, for one stream: a framing (SSE, JSON
    array, JSON lines: :mod:`raf.framing`) and a dialect.

    Never raises on input: every problem becomes an ``updates.Error`` and the updates decoded
    before it are returned with it.

    Args:
        dialect: a dialect name (``"openai_chat"``), ``"auto"`` (the dialect is chosen from the
            first bytes of the body, :mod:`raf.dialects.sniff`), or a dialect object.
        framing: the framing to use (default: the one the dialect names).
        max_line_bytes: passed to the framing.
        max_event_bytes: passed to the framing.
        max_json_depth: passed to a dialect created by name.
        max_raw_chars: passed to a dialect created by name.

    Attributes:
        dialect: the dialect (``None`` while ``"auto"`` has not decided yet).
        framing: the framing (``None`` likewise).
        done: no more input is wanted: the dialect saw its end marker, or the stream was
            abandoned (a size limit, :meth:`fail`). Bytes fed after that are ignored.
        interrupted: the stream ended abnormally: it was truncated (the dialect reported
            ``stream_truncated``), abandoned at a size limit, or failed from outside.
    """

    def __init__(
        self,
        dialect: str | Dialect = "openai_chat",
        *,
        framing: str | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        self._limits = {"max_json_depth": max_json_depth, "max_raw_chars": max_raw_chars}
        self._framing_limits = {
            "max_line_bytes": max_line_bytes,
            "max_event_bytes": max_event_bytes,
        }
        self._framing_name = framing
        if framing is not None:
            framings.create(framing, **self._framing_limits)  # an unknown name fails here
        self.dialect: Dialect | None = None
        self.framing: Framing | None = None
        self._feed_events: Callable[[Iterable[ServerSentEvent]], list[AgentResponseUpdate]]
        self._feed_frames: Callable[[Iterable[EventOrRun], bool], list[Any]] | None = None
        self._feed_runs: Callable[[bytes], list[EventOrRun]] | None = None
        self._flush_held: Callable[[], list[Any]] | None = None
        self._sniffing: bytearray | None = None
        if dialect == AUTO:
            self._sniffing = bytearray()
        else:
            self._start(dialects.create(dialect, **self._limits))
        self.interrupted = False
        self._aborted = False
        self._closed = False

    def _start(self, dialect: Dialect, framing: str | None = None) -> None:
        self.dialect = dialect
        name = self._framing_name or framing or dialect.framing
        self.framing = framings.create(name, **self._framing_limits)
        offered = accelerators_of(dialect)  # the declared ones, checked once per class
        feed_events = offered.feed_events
        if feed_events is None:
            feed = dialect.feed

            def feed_events(events: Iterable[ServerSentEvent]) -> list[AgentResponseUpdate]:
                out: list[AgentResponseUpdate] = []
                for event in events:
                    if dialect.done:
                        break
                    out.extend(feed(event))
                return out

        self._feed_events = feed_events
        self._flush_held = offered.flush
        # Runs of frames (DataRun), when both the framing and the dialect handle them.
        self._feed_frames = offered.feed_frames
        self._feed_runs = None if self._feed_frames is None else framings.runs_of(self.framing)

    @property
    def sse(self) -> Framing | None:
        """The framing (its historical name, from when every stream was SSE)."""
        return self.framing

    @property
    def done(self) -> bool:
        """See the class docstring."""
        return self._aborted or (self.dialect is not None and self.dialect.done)

    def feed(self, data: bytes, *, batch: bool = False) -> list[AgentResponseUpdate]:
        """Decode the next chunk of bytes into the updates it completes.

        Args:
            data: the next bytes of the body.
            batch: the caller only aggregates the updates (:meth:`Pipeline.feed_into`): the
                list may then hold :class:`raf.model.updates.DeltaBatch` values too.
        """
        if self._closed:
            raise StateError("feed() after close()")
        if self._aborted:
            return []
        dialect = self.dialect
        if dialect is not None:
            if dialect.done:
                return []
        elif self._sniffing is not None:
            self._sniffing += data
            if (
                sniff.sniff(bytes(self._sniffing)) is None
                and len(self._sniffing) < sniff.SNIFF_BYTES
            ):
                return []  # not decided yet: hold the bytes
            return self._decide()
        return self._feed_framing(data, batch)

    def _decide(self) -> list[AgentResponseUpdate]:
        """``"auto"``: choose the dialect from the bytes held, then feed them."""
        held = bytes(self._sniffing or b"")
        self._sniffing = None
        chosen = sniff.sniff(held)
        if chosen is None:  # no dialect's format: read it as the fallback's, framed as it is
            self._start(dialects.create(sniff.FALLBACK, **self._limits), framing="auto")
        else:
            self._start(dialects.create(chosen, **self._limits))
        return self._feed_framing(held) if held else []

    def _feed_framing(self, data: bytes, batch: bool = False) -> list[AgentResponseUpdate]:
        assert self.framing is not None
        assert self.dialect is not None
        try:
            feed_runs = self._feed_runs
            if feed_runs is not None:
                return self._frames(feed_runs(data), batch)
            events = self.framing.feed(data)
        except (SSELimitExceeded, EventStreamError) as exc:
            return self._framing_failed(exc, batch)
        except Exception as exc:  # a bug in raf: report it and abandon the stream
            self._abort()
            return [*self._flush(), _internal_error(exc, "the framing")]
        return self._events(events)

    def _framing_failed(self, exc: SSEError, batch: bool) -> list[AgentResponseUpdate]:
        """The framing gave up (a size limit, a corrupt binary stream): the updates of the
        frames it decoded first, then the error; the stream is abandoned."""
        assert self.dialect is not None
        frames: list[Any] = getattr(exc, "events", [])
        out = self._events(frames) if self._feed_runs is None else self._frames(frames, batch)
        out.extend(self._flush())
        if not self.dialect.done:
            self._abort()
            code = (
                ErrorCode.STREAM_CORRUPT
                if isinstance(exc, EventStreamError)
                else ErrorCode.SSE_LIMIT_EXCEEDED
            )
            out.append(updates.Error(error_code=code, message=str(exc)))
        return out

    def _flush(self) -> list[AgentResponseUpdate]:
        """What the dialect held back (``flush``, after a batch), before an update of ours."""
        flush = self._flush_held
        if flush is None:
            return []
        try:
            return flush()
        except Exception as exc:  # a third-party dialect that broke its promise
            return [self._dialect_failed(exc)]

    def _dialect_failed(self, exc: Exception) -> updates.Error:
        name = "?" if self.dialect is None else self.dialect.name
        return _internal_error(exc, f"the {name} dialect")

    def close(self) -> list[AgentResponseUpdate]:
        """End of input: flush the framing and let the dialect report truncation."""
        if self._closed:
            return []
        # A body too short to decide: the best guess.
        out = self._decide() if self._sniffing is not None else []
        self._closed = True
        assert self.framing is not None
        assert self.dialect is not None
        if self._aborted:
            return out
        try:
            if self.dialect.done:  # what follows the end marker is not read
                out.extend(self.dialect.close())
            else:
                out.extend(self._events(self.framing.close()))
                out.extend(self.dialect.close(truncated=self.framing.truncated))
        except Exception as exc:  # a bug in raf: report it
            self.interrupted = True
            return [*out, _internal_error(exc, "the end of the stream")]
        if any(
            type(u) is updates.Error and u.error_code == ErrorCode.STREAM_TRUNCATED for u in out
        ):
            self.interrupted = True
        return out

    def fail(self, error: updates.Error) -> list[AgentResponseUpdate]:
        """End the stream with an error that happened outside it (an HTTP status, a dropped
        connection, a cancellation); nothing more is read. Returns the updates to deliver:
        the error (nothing when the stream was already closed)."""
        if self._closed:
            return []
        self._closed = True
        self._abort()
        return [*self._flush(), error]

    def _abort(self) -> None:
        self._aborted = True
        self.interrupted = True

    def _frames(self, frames: list[EventOrRun], batch: bool) -> list[AgentResponseUpdate]:
        if not frames:
            return []
        try:
            assert self._feed_frames is not None
            return self._feed_frames(frames, batch)
        except Exception as exc:  # a third-party dialect that broke its promise
            return [self._dialect_failed(exc)]

    def _events(self, events: list[ServerSentEvent]) -> list[AgentResponseUpdate]:
        if not events:
            return []
        try:
            return self._feed_events(events)
        except Exception as exc:  # a third-party dialect that broke its promise
            return [self._dialect_failed(exc)]


def _internal_error(exc: Exception, where: str) -> updates.Error:
    return updates.Error(
        error_code=ErrorCode.INTERNAL_ERROR, message=internal_error_message(exc, where)
    )


T = TypeVar("T")


class Machine(Protocol[T]):
    """A sans-IO state machine fed bytes: :class:`UpdateDecoder` and :class:`Pipeline`.

    ``feed`` the chunks, ``close`` at the end, or ``fail`` with an error that happened
    outside the stream; ``done`` says no more input is wanted.
    """

    @property
    def done(self) -> bool: ...

    def feed(self, data: bytes) -> list[T]: ...

    def close(self) -> list[T]: ...

    def fail(self, error: updates.Error) -> list[T]: ...


class Driver(Generic[T]):
    """A machine driven over a source of byte chunks: an iterator of its outputs over a sync
    source, an async iterator over an async one. The one implementation of every driver of
    raf (:func:`drive`, :func:`adrive`, so :func:`run`, :func:`arun`, :func:`respond`,
    :func:`arespond` and the :mod:`raf.transport` functions), sync and async alike.

    * each chunk is fed to the machine; reading stops once the machine is ``done``, and the
      machine is closed at the end of the source;
    * when the source raises an ``Exception`` (a dropped connection, a read timeout), the
      machine is failed with a ``transport_error``: its outputs (the error, then for a
      :class:`Pipeline` the final result) are returned first, then the exception is raised
      again (:attr:`failure` is it);
    * when reading is interrupted by a ``BaseException`` (``asyncio.CancelledError`` from
      ``task.cancel()`` or ``asyncio.timeout``, ``KeyboardInterrupt``), the machine is failed
      with a ``cancelled`` error into ``keep`` and the exception propagates unchanged, as
      asyncio and the interpreter expect.

    ``keep`` (``collector.add``, :meth:`collect_into`) receives every output as soon as the
    machine produced it, before it is returned, so it holds everything that arrived
    whenever the consumer stops, cancelled while it was handling an output included.

    Attributes:
        failure: the exception the source raised, once it did.
        collector: the collector :meth:`collect_into` was given, if any.
    """

    def __init__(
        self,
        machine: Machine[T],
        chunks: Iterable[bytes] | AsyncIterable[bytes],
        keep: Callable[[T], None] | None = None,
    ) -> None:
        self._machine = machine
        self._chunks = chunks
        self._source: Any = None
        self._keep = keep
        self._ready: deque[T] = deque()
        self._ended = False
        self._started = False
        self._raised = False
        self.failure: Exception | None = None
        self.collector: ResponseCollector | None = None

    def collect_into(self, collector: ResponseCollector) -> bool:
        """Add every result to ``collector`` as it is produced, and close the turn into it
        when cancelled (what ``collect_agent_response(..., collector=)`` asks for). Only
        before the first result is read and for a driver of results that keeps nowhere
        else; whether the collector is (now) this driver's."""
        if self.collector is collector:
            return True
        if self._started or self._keep is not None or not isinstance(self._machine, Pipeline):
            return False
        self.collector = collector
        self._keep = cast(Callable[[T], None], collector.add)
        return True

    # -- sync ------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        ready, machine = self._ready, self._machine
        while not ready:
            if self._ended:
                self._raise_failure()
                raise StopIteration
            if self._source is None:
                self._started = True
                self._source = iter(cast(Iterable[bytes], self._chunks))
            try:
                chunk = next(self._source)
            except StopIteration:
                self._end()
            except Exception as exc:
                self._failed(exc)
            except BaseException as exc:
                self._cancelled(exc)
                raise
            else:  # the hot path, inline: one chunk
                outputs = machine.feed(chunk)
                if outputs:
                    self._put(outputs)
                if machine.done:
                    self._end()
        return ready.popleft()

    # -- async -----------------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        ready, machine = self._ready, self._machine
        while not ready:
            if self._ended:
                self._raise_failure()
                raise StopAsyncIteration
            if self._source is None:
                self._started = True
                self._source = aiter(cast(AsyncIterable[bytes], self._chunks))
            try:
                chunk = await anext(self._source)
            except StopAsyncIteration:
                self._end()
            except Exception as exc:
                self._failed(exc)
            except BaseException as exc:
                self._cancelled(exc)
                raise
            else:  # the hot path, inline: one chunk
                outputs = machine.feed(chunk)
                if outputs:
                    self._put(outputs)
                if machine.done:
                    self._end()
        return ready.popleft()

    # -- what happens, sync or async -------------------------------------------------------

    def _put(self, outputs: list[T]) -> None:
        keep = self._keep
        if keep is not None:
            for output in outputs:
                keep(output)
        self._ready.extend(outputs)

    def _end(self) -> None:
        self._ended = True
        self._put(self._machine.close())

    def _failed(self, exc: Exception) -> None:
        self._ended = True
        self.failure = exc
        self._put(self._machine.fail(transport_error(exc)))

    def _cancelled(self, exc: BaseException) -> None:
        self._ended = True
        if isinstance(exc, GeneratorExit):
            return
        try:
            outputs = self._machine.fail(cancelled_error(exc))
            if self._keep is not None:
                for output in outputs:
                    self._keep(output)
        except Exception:  # pragma: no cover - never mask the interrupt with a bug of raf
            pass

    def _raise_failure(self) -> None:
        """Raise the source's exception once its outputs were returned (once only)."""
        failure = self.failure
        if failure is not None and not self._raised:
            self._raised = True
            raise failure


def drive(
    machine: Machine[T], chunks: Iterable[bytes], *, keep: Callable[[T], None] | None = None
) -> Driver[T]:
    """Feed ``chunks`` to ``machine`` until it is done, then close it, yielding its outputs
    (see :class:`Driver`: a source that raises an ``Exception`` fails the machine with a
    ``transport_error`` whose outputs come first, then the exception is raised again;
    ``KeyboardInterrupt`` fails it with ``cancelled`` into ``keep`` and propagates)."""
    return Driver(machine, chunks, keep)


def adrive(
    machine: Machine[T],
    chunks: AsyncIterable[bytes],
    *,
    keep: Callable[[T], None] | None = None,
) -> Driver[T]:
    """Async twin of :func:`drive`. Cancellation (``asyncio.CancelledError``) fails the
    machine with ``cancelled`` into ``keep`` and propagates unchanged."""
    return Driver(machine, chunks, keep)


def iter_updates(
    chunks: Iterable[bytes], dialect: str | Dialect = "openai_chat", **limits: Any
) -> Iterator[AgentResponseUpdate]:
    """Yield the updates of a stream given as byte chunks; stops reading at the end marker.

    ``limits`` are those of :class:`UpdateDecoder` (``framing``, ``max_line_bytes``,
    ``max_event_bytes``, ``max_json_depth``, ``max_raw_chars``).
    """
    return drive(UpdateDecoder(dialect, **limits), chunks)


def aiter_updates(
    chunks: AsyncIterable[bytes], dialect: str | Dialect = "openai_chat", **limits: Any
) -> AsyncIterator[AgentResponseUpdate]:
    """Async twin of :func:`iter_updates`."""
    return adrive(UpdateDecoder(dialect, **limits), chunks)


class Pipeline:
    """Bytes in, ``AgentResponseResult`` values out, for one model turn.

    Never raises on input (see :class:`UpdateDecoder`).

    Args:
        dialect: a dialect name or object.
        converter: the converter to use (default: a new one built from ``converter_options``).
        framing: passed to :class:`UpdateDecoder` (default: the dialect's).
        max_line_bytes: passed to the framing.
        max_event_bytes: passed to the framing.
        max_json_depth: passed to the dialect and to a converter built here.
        max_raw_chars: passed to the dialect.
        **converter_options: passed to :class:`AgentResponseConverter` (``agent_id``,
            ``executor_id``, ``properties``, ``clock``, ``max_arguments_chars``...).

    Attributes:
        updates: the :class:`UpdateDecoder` (its ``done`` says no more input is wanted).
        converter: the :class:`AgentResponseConverter`.
    """

    def __init__(
        self,
        dialect: str | Dialect = "openai_chat",
        *,
        converter: AgentResponseConverter | None = None,
        framing: str | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
        **converter_options: Any,
    ) -> None:
        self.updates = UpdateDecoder(
            dialect,
            framing=framing,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_json_depth=max_json_depth,
            max_raw_chars=max_raw_chars,
        )
        self.converter = converter or AgentResponseConverter(
            max_json_depth=max_json_depth, **converter_options
        )
        self._closed = False

    @property
    def done(self) -> bool:
        """No more input is wanted (see :attr:`UpdateDecoder.done`)."""
        return self.updates.done

    @property
    def closed(self) -> bool:
        """:meth:`close` or :meth:`fail` was called: the final result was returned."""
        return self._closed

    def feed(self, data: bytes) -> list[AgentResponseResult]:
        """The results completed by the next chunk of bytes."""
        return self._convert(self.updates.feed(data))

    def close(self) -> list[AgentResponseResult]:
        """End of input: the remaining results, then the converter's final result."""
        if self._closed:
            return []
        self._closed = True
        out = self._convert(self.updates.close())
        out.append(self._finalize())
        return out

    def fail(self, error: updates.Error) -> list[AgentResponseResult]:
        """End the turn with an error that happened outside the stream (an HTTP error status,
        a dropped connection, a cancellation): its result, then the final result, in which
        calls still streaming are reported ``tool_call_incomplete``. Nothing more is read;
        nothing is returned when the turn was already closed."""
        if self._closed:
            return []
        self._closed = True
        out = self._convert(self.updates.fail(error))
        out.append(self._finalize())
        return out

    # -- folded into a collector (what respond() uses): no result per update --------------

    def feed_into(self, data: bytes, collector: ResponseCollector) -> None:
        """``feed(data)``, its results folded into ``collector`` (see
        :meth:`AgentResponseConverter.collect`)."""
        converter = self.converter
        batch = self.updates.feed(data, batch=not converter.streaming_contents)
        if batch:
            converter.collect(batch, collector)

    def close_into(self, collector: ResponseCollector) -> None:
        """``close()``, its results folded into ``collector``."""
        if self._closed:
            return
        self._closed = True
        batch = self.updates.close()
        if batch:
            self.converter.collect(batch, collector)
        collector.add(self._finalize())

    def fail_into(self, error: updates.Error, collector: ResponseCollector) -> None:
        """``fail(error)``, its results folded into ``collector``."""
        for result in self.fail(error):
            collector.add(result)

    def _finalize(self) -> AgentResponseResult:
        converter = self.converter
        return converter.finalize(converter.finish_reason, interrupted=self.updates.interrupted)

    def _convert(self, batch: list[AgentResponseUpdate]) -> list[AgentResponseResult]:
        return self.converter.results(batch) if batch else []


def http_error(
    status: int, reason: str, body: bytes, *, max_raw_chars: int = DEFAULT_MAX_RAW_CHARS
) -> updates.Error:
    """The update that reports an HTTP error status, quoting the response body (``raw`` keeps
    at most ``max_raw_chars`` of it)."""
    return updates.Error(
        error_code=ErrorCode.HTTP_ERROR,
        message=f"HTTP {status} {reason}: {excerpt(body, 300) if body else '(empty body)'}",
        raw=raw_excerpt(body.decode("utf-8", "replace"), max_raw_chars) if body else None,
    )


def transport_error(exc: BaseException) -> updates.Error:
    """The update that reports a failure to read the stream (``exc``: what the source raised)."""
    detail = str(exc) or "(no message)"
    if len(detail) > 200:
        detail = detail[:197] + "..."
    return updates.Error(
        error_code=ErrorCode.TRANSPORT_ERROR,
        message=f"reading the stream failed: {type(exc).__name__}: {detail}",
    )


def cancelled_error(exc: BaseException | None = None) -> updates.Error:
    """The update that reports a cancelled run (``exc``: the ``CancelledError``,
    ``KeyboardInterrupt``... that stopped it)."""
    what = "" if exc is None else f" ({type(exc).__name__})"
    return updates.Error(error_code=ErrorCode.CANCELLED, message=f"the run was cancelled{what}")


def run(
    chunks: Iterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    collector: ResponseCollector | None = None,
    **options: Any,
) -> Driver[AgentResponseResult]:
    """Yield the results of a stream given as byte chunks; the last is the final result.

    ``options`` are those of :class:`Pipeline`. Reading stops at the dialect's end marker.
    With ``collector``, every result is also added to it as it is produced (do not add them
    again), and an interrupted turn is closed into it (see :class:`Driver`), so that
    ``collector.response()`` is the partial response after ``KeyboardInterrupt``.
    """
    return _results(Pipeline(dialect, **options), chunks, collector)


def arun(
    chunks: AsyncIterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    collector: ResponseCollector | None = None,
    **options: Any,
) -> Driver[AgentResponseResult]:
    """Async twin of :func:`run`: with ``collector``, a cancellation (``task.cancel()``,
    ``asyncio.timeout``) closes the turn into it before the ``CancelledError`` propagates."""
    return _results(Pipeline(dialect, **options), chunks, collector)


def _results(
    pipeline: Pipeline,
    chunks: Iterable[bytes] | AsyncIterable[bytes],
    collector: ResponseCollector | None,
) -> Driver[AgentResponseResult]:
    driver = Driver(pipeline, chunks)
    if collector is not None:
        driver.collect_into(collector)
    return driver


def respond(
    chunks: Iterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    raise_on_error: bool = False,
    collector: ResponseCollector | None = None,
    streaming_contents: bool | None = None,
    **options: Any,
) -> AgentResponse:
    """The aggregated response of a stream: ``collect_agent_response(run(chunks, ...))``.

    Args:
        chunks: the body, as byte chunks split anywhere.
        dialect: the wire format.
        raise_on_error: raise :class:`AgentResponseError` after the whole stream was read if
            it reported any error (``exc.response`` is the response).
        collector: where the results are collected (default: a new one). Pass your own to
            read the partial response after ``KeyboardInterrupt``: the turn is closed into it
            (a ``cancelled`` error, calls still streaming as ``tool_call_incomplete``) before
            the interrupt propagates.
        streaming_contents: build the contents only a streaming caller sees (tool-call
            starts, argument fragments, incremental parses, ends). By default (``None``)
            they are left out, since the response does not hold them, unless a
            ``converter`` is passed (it is used as it is) or ``collector`` is a subclass of
            :class:`ResponseCollector` (its ``add`` may look at them). The response is the
            same either way (docs/converter.md, "Aggregate-only").
        **options: those of :class:`Pipeline`.

    Raises:
        AgentResponseError: iterating ``chunks`` raised (``__cause__``); ``exc.response``
            holds everything that arrived, the ``transport_error`` and every call.
    """
    pipeline, collector = _aggregating(dialect, collector, streaming_contents, options)
    driver = Driver(_Folded(pipeline, collector), chunks)
    try:
        for _ in driver:
            pass
    except Exception as exc:
        if exc is not driver.failure:
            raise
        raise AgentResponseError(collector.response(), cause=exc) from exc
    return collector.finish(raise_on_error=raise_on_error)


async def arespond(
    chunks: AsyncIterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    raise_on_error: bool = False,
    collector: ResponseCollector | None = None,
    streaming_contents: bool | None = None,
    **options: Any,
) -> AgentResponse:
    """Async twin of :func:`respond`. On cancellation (``task.cancel()``, ``asyncio.timeout``)
    the turn is closed into ``collector`` (a ``cancelled`` error) and the ``CancelledError``
    propagates unchanged, so asyncio's timeouts and task groups behave as usual."""
    pipeline, collector = _aggregating(dialect, collector, streaming_contents, options)
    driver = Driver(_Folded(pipeline, collector), chunks)
    try:
        async for _ in driver:
            pass
    except Exception as exc:
        if exc is not driver.failure:
            raise
        raise AgentResponseError(collector.response(), cause=exc) from exc
    return collector.finish(raise_on_error=raise_on_error)


def _aggregating(
    dialect: str | Dialect,
    collector: ResponseCollector | None,
    streaming_contents: bool | None,
    options: dict[str, Any],
) -> tuple[Pipeline, ResponseCollector]:
    """The pipeline and collector of :func:`respond`: aggregate-only unless asked otherwise."""
    if streaming_contents is None:
        streaming_contents = "converter" in options or (
            collector is not None and type(collector) is not ResponseCollector
        )
    pipeline = Pipeline(dialect, streaming_contents=streaming_contents, **options)
    return pipeline, ResponseCollector() if collector is None else collector


class _Folded:
    """A :class:`Pipeline` folded into a collector, as a machine that returns nothing: what
    :func:`respond` and :func:`arespond` drive (no result per update is built)."""

    def __init__(self, pipeline: Pipeline, collector: ResponseCollector) -> None:
        self._pipeline = pipeline
        self._collector = collector

    @property
    def done(self) -> bool:
        return self._pipeline.done

    def feed(self, data: bytes) -> list[None]:
        self._pipeline.feed_into(data, self._collector)
        return []

    def close(self) -> list[None]:
        self._pipeline.close_into(self._collector)
        return []

    def fail(self, error: updates.Error) -> list[None]:
        self._pipeline.fail_into(error, self._collector)
        return []
