"""``raf cassette show``: a readable timeline of what the pipeline makes of a cassette.

:func:`timeline` (pure) replays a response body event by event and records, for each SSE
event, the updates the dialect made of it and the contents the converter made of those;
:func:`render` prints it with rich (colour in a terminal, plain text when piped). A body
recorded with a ``content-encoding`` is shown decoded; one that does not decode is named, with
why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import msgspec
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from raf import dialects
from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.expiry import age_text, parse_date, parse_max_age, verdict
from raf.cassettes.format import Cassette, Interaction, Recorded
from raf.cassettes.inventory import unread as unread_of
from raf.cassettes.inventory import unread_lines
from raf.collect import collect_agent_response
from raf.converter import AgentResponseConverter
from raf.dialects.base import Accelerator, Dialect
from raf.framing.sse import ServerSentEvent
from raf.model.canonical import to_canonical
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import UpdateDecoder, http_error
from raf.quirks import Quirk, QuirkCatalogueError, catalogue

__all__ = ["Step", "not_read_lines", "quirk_lines", "recorded_lines", "render", "timeline"]


@dataclass
class Step:
    """One SSE event (``None`` for the end of the stream) and what it produced."""

    event: ServerSentEvent | None
    updates: list[AgentResponseUpdate] = field(default_factory=list)
    results: list[AgentResponseResult] = field(default_factory=list)


class _Recorder:
    """A dialect that records the updates each event produced (for the timeline)."""

    accelerators: ClassVar[frozenset[Accelerator]] = frozenset({"feed_events"})

    def __init__(self, inner: Dialect) -> None:
        self.inner = inner
        self.name = inner.name
        self.framing = inner.framing
        self.steps: list[Step] = []

    @property
    def done(self) -> bool:
        return self.inner.done

    def feed(self, event: ServerSentEvent) -> list[AgentResponseUpdate]:
        return self.feed_events((event,))

    def feed_events(self, events: Iterable[ServerSentEvent]) -> list[AgentResponseUpdate]:
        out: list[AgentResponseUpdate] = []
        for event in events:
            if self.inner.done:
                break
            produced = self.inner.feed(event)
            self.steps.append(Step(event, produced))
            out.extend(produced)
        return out

    def close(self, *, truncated: bool = False) -> list[AgentResponseUpdate]:
        return self.inner.close(truncated=truncated)


def timeline(interaction: Interaction, dialect: str) -> tuple[list[Step], AgentResponse]:
    """Replay one interaction event by event (the pipeline's own decoder, limits and all),
    its body as a client reads it (decoded from its ``content-encoding``).

    Raises:
        BodyNotDecoded: the body has a ``content-encoding`` and does not decode.
    """
    converter = AgentResponseConverter()
    response = interaction.response
    body = response.content()
    if not 200 <= response.status < 300:
        error = http_error(response.status, response.reason, body)
        step = Step(None, [error], converter.results([error]))
        step.results.append(converter.finalize(None))
        return [step], collect_agent_response(step.results)
    recorder = _Recorder(dialects.create(dialect))
    decoder = UpdateDecoder(recorder)
    produced = decoder.feed(body)
    steps = recorder.steps
    from_events = sum(len(step.updates) for step in steps)
    end = produced[from_events:] + decoder.close()  # limits, truncation: not of one event
    for step in steps:
        step.results = converter.results(step.updates)
    last = Step(None, end, converter.results(end))
    last.results.append(
        converter.finalize(converter.finish_reason, interrupted=decoder.interrupted)
    )
    steps.append(last)
    results = [r for s in steps for r in s.results]
    return steps, collect_agent_response(results)


_STYLE = {
    "error": "bold red",
    "text_delta": "green",
    "text": "green",
    "reasoning_delta": "magenta",
    "reasoning": "magenta",
    "finish": "bold cyan",
    "usage": "cyan",
}


def _short(text: str, width: int = 110) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def _event_text(data: str, previous: dict[str, Any]) -> str:
    """The event's data; for a JSON object, only the top-level fields that changed since the
    previous event (ids, models and fingerprints repeat on every chunk)."""
    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return _short(data, 140)
    if not isinstance(value, dict):
        return _short(data, 140)
    changed = {k: v for k, v in value.items() if previous.get(k, _MISSING) != v}
    previous.clear()
    previous.update(value)
    shown = msgspec.json.encode(changed).decode()
    return _short(shown if len(changed) < len(value) else data, 140)


_MISSING = object()


def _fields(value: dict[str, Any]) -> str:
    return " ".join(f"{k}={_short(repr(v), 60)}" for k, v in value.items() if k != "type")


def _item(console: Console, label: str, value: dict[str, Any]) -> None:
    kind = str(value.get("type"))
    style = _STYLE.get(kind, "yellow" if kind.startswith("tool_call") else "white")
    console.print(
        f"      [dim]{label}[/dim] [{style}]{kind}[/{style}] {escape(_fields(value))}",
        soft_wrap=True,
    )


def quirk_lines(quirks: Iterable[str]) -> list[str]:
    """One line per quirk a cassette names: its id and what the provider does, from the
    catalogue (:mod:`raf.quirks`); an id the catalogue does not have is said to be unknown."""
    try:
        known: Mapping[str, Quirk] = catalogue()
    except QuirkCatalogueError:  # a broken installation: the ids alone
        known = {}
    return [
        f"quirk {name}: {known[name].title}"
        if name in known
        else f"quirk {name}: not in the quirk catalogue"
        for name in quirks
    ]


def recorded_lines(recorded: Recorded, now: datetime) -> list[str]:
    """The ``recorded`` header as lines: when (and how long before ``now``), from which
    provider, the model, the raf that recorded it, the request's fingerprint, and its
    ``max_age``: whether the recording is current or expired at ``now``
    (:mod:`raf.cassettes.expiry`)."""
    try:
        age = now - parse_date(recorded.date)
    except ValueError as exc:
        when = f"{recorded.date} ({exc})"
    else:
        later = age.total_seconds() < 0
        when = f"{recorded.date}, {'later than now' if later else age_text(age) + ' ago'}"
    lines = [f"recorded     {when}"]
    for label, value in (
        ("provider", recorded.provider),
        ("model", recorded.model),
        ("raf version", recorded.raf_version),
        ("fingerprint", recorded.fingerprint),
    ):
        if value:
            lines.append(f"{label:<12} {value}")
    if recorded.max_age is None:
        lines.append("max_age      none (the recording never expires)")
        return lines
    try:
        parse_max_age(recorded.max_age)
    except ValueError as exc:
        lines.append(f"max_age      {exc}")
        return lines
    expired = verdict(recorded, now)
    state = (
        f"EXPIRED ({'fails' if expired.action == 'fail' else 'warns in'} raf cassette lint)"
        if expired is not None
        else "current"
    )
    lines.append(f"max_age      {recorded.max_age}, on expiry {recorded.on_expiry}: {state}")
    return lines


def not_read_lines(interaction: Interaction, dialect: str) -> list[str]:
    """What raf did not read of an interaction's response (:mod:`raf.cassettes.inventory`):
    event types it did not read, unknown fields, known fields left aside. Nothing for an
    error response (its body is read whole, as the error) or a body that does not decode."""
    response = interaction.response
    if not 200 <= response.status < 300:
        return []
    try:
        body = response.content()
    except BodyNotDecoded:
        return []
    return unread_lines(unread_of(dialect, body))


def _not_read(console: Console, interaction: Interaction, dialect: str) -> None:
    lines = not_read_lines(interaction, dialect)
    if not lines:
        return
    console.print("  [bold]not read by raf[/bold]:")
    for line in lines:
        style = "yellow" if ": unrecognised" in line or line.startswith("unknown") else "dim"
        console.print(f"    [{style}]{escape(line)}[/{style}]", soft_wrap=True)


def render(console: Console, cassette: Cassette) -> int:
    """Print the timeline of every interaction, its aggregated response and what raf did not
    read of it (:func:`not_read_lines`); for an interaction whose body does not decode from
    its ``content-encoding``, why. Returns the number of such interactions."""
    unread = 0
    dialect = cassette.info.dialect if cassette.info else "openai_chat"
    if cassette.info is not None:
        console.print(
            f"[bold]{escape(cassette.info.scenario)}[/bold]  {escape(cassette.info.title)}",
            soft_wrap=True,
        )
        for line in quirk_lines(cassette.info.quirks):
            console.print(f"  {escape(line)}", soft_wrap=True)
        if cassette.info.recorded is not None:
            for line in recorded_lines(cassette.info.recorded, datetime.now(UTC)):
                console.print(f"  {escape(line)}", soft_wrap=True)
    for number, interaction in enumerate(cassette.interactions):
        request = interaction.request
        console.print(
            f"[bold]interaction {number}[/bold]: {request.method} {escape(request.uri)} -> "
            f"{interaction.response.status} {escape(interaction.response.reason)}",
            soft_wrap=True,
        )
        try:
            steps, response = timeline(interaction, dialect)
        except BodyNotDecoded as exc:
            unread += 1
            console.print(
                f"  [bold red]not read[/bold red]: interactions[{number}].response: "
                f"{escape(str(exc))}",
                soft_wrap=True,
            )
            continue
        previous: dict[str, Any] = {}
        for index, step in enumerate(steps):
            if step.event is None:
                console.print("  [bold]end of stream[/bold]")
            else:
                event = step.event
                extra = f" id={event.id!r}" if event.id else ""
                console.print(
                    f"  [dim]#{index}[/dim] [blue]{escape(event.event)}[/blue]{extra} "
                    f"{escape(_event_text(event.data, previous))}",
                    soft_wrap=True,
                )
            for update in step.updates:
                _item(console, "update ", to_canonical(update))
            for result in step.results:
                for content in result.contents:
                    _item(console, "content", to_canonical(content))
                for ev in result.events:
                    _item(console, "event  ", to_canonical(ev))
                if result.finish_reason or result.id:
                    console.print(
                        f"      [dim]result [/dim] id={result.id} model={result.model} "
                        f"finish_reason={result.finish_reason and str(result.finish_reason)}",
                        soft_wrap=True,
                    )
        table = Table(title=f"aggregated response (interaction {number})", show_header=False)
        table.add_column("field", style="bold")
        table.add_column("value")
        table.add_row("text", escape(_short(response.text, 400)))
        table.add_row("reasoning", escape(_short(response.reasoning_text or "", 400)) or "-")
        for call in response.tool_calls:
            table.add_row(
                "tool call", escape(f"{call.id} {call.name}({_short(repr(call.arguments), 200)})")
            )
        for hosted in response.hosted_tool_calls:
            outcome = (
                f" -> error {hosted.error}"
                if hosted.error is not None
                else " -> no result"
                if hosted.output is None
                else f" -> {_short(repr(hosted.output), 120)}"
            )
            table.add_row(
                "hosted call",
                escape(
                    f"{hosted.id} {hosted.name}({_short(repr(hosted.arguments), 120)}){outcome}"
                ),
            )
        for approval in response.approval_requests:
            table.add_row(
                "approval request",
                escape(
                    f"{approval.call_id} {approval.name}({_short(repr(approval.arguments), 200)})"
                ),
            )
        table.add_row("finish_reason", str(response.finish_reason and str(response.finish_reason)))
        usage = response.usage
        table.add_row(
            "usage",
            "-"
            if usage is None
            else f"{usage.prompt_tokens} prompt, {usage.completion_tokens} completion, "
            f"{usage.total_tokens} total",
        )
        for error in response.errors:
            table.add_row(
                "[red]error[/red]", escape(f"{error.error_code}: {_short(error.message, 200)}")
            )
        for notice in response.notices:
            table.add_row(
                "[yellow]notice[/yellow]",
                escape(f"{notice.error_code}: {_short(notice.message, 200)}"),
            )
        console.print(table)
        _not_read(console, interaction, dialect)
    return unread
