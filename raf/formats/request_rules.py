"""Request rules: what a provider requires of the request a client sends after a streamed
turn, as data, and the checks that say which rules a request breaks. Pure functions, no IO
(the catalogue is package data, read once).

The catalogue is ``raf/formats/request_rules.yaml``: one entry per rule, with its id, the
formats it applies to, a one-line statement, the provider's documentation, the reported bugs
it stands for, a severity (:data:`SEVERITIES`), what the provider answers a request that
breaks it (:class:`ProviderError`, or nothing when the provider accepts it) and, per format,
a minimal request that breaks it and one that keeps it (:class:`Example`). docs/requests.md's
table of rules is generated from it (:func:`rules_table`).

Each rule's check is code in the package of each format it applies to: the format's
:attr:`raf.formats.Format.request_rules` maps the rule's id to a :data:`RuleCheck`. A check
gets the request body and the earlier rounds of the conversation as the server streamed them
(:class:`Prior`), and yields ``(field, message)`` for each place the body breaks the rule.

    from raf.formats.request_rules import check_rules, rules

    for broken in check_rules("anthropic_messages", body, prior):
        print(broken.rule, broken.field, broken.message)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Final, Literal, get_args

import yaml

from raf import formats
from raf.model.response import AgentResponse

__all__ = [
    "CATALOGUE",
    "MESSAGE_LISTS",
    "SEVERITIES",
    "Broken",
    "Example",
    "Prior",
    "ProviderError",
    "RequestRule",
    "RuleCheck",
    "Severity",
    "check_rules",
    "prior_of",
    "rule",
    "rules",
    "rules_for",
    "rules_table",
]

CATALOGUE: Final = "request_rules.yaml"
"""The catalogue's file name, in the package ``raf.formats``."""

Severity = Literal["rejected", "misread", "degraded"]
"""What breaking a rule costs, from the worst:

- ``rejected``: the provider refuses the request (an HTTP error; the agent's turn ends);
- ``misread``: the provider accepts it, and the model is told something other than what
  happened (a result attributed to another call, a call it never made);
- ``degraded``: the provider accepts it, and something the model relies on is lost (its
  earlier reasoning, a cached prefix): answers get worse or dearer, silently.
"""

SEVERITIES: Final[tuple[Severity, ...]] = get_args(Severity)

MESSAGE_LISTS: Final[Mapping[str, str]] = {
    "openai_chat": "messages",
    "ollama_chat": "messages",
    "anthropic_messages": "messages",
    "gemini": "contents",
    "openai_responses": "input",
    "cohere_v2": "messages",
    "bedrock_converse": "messages",
    "gemini_interactions": "input",
}
"""The request body member that holds the conversation, by format."""


@dataclass(frozen=True)
class Prior:
    """One earlier round of the conversation, as the server streamed it.

    Attributes:
        turn: the round's assistant turn in the format's own wire form, as a correct client
            sends it back (what :func:`prior_of` builds with the format's request builder
            from the streamed response): Chat Completions and Ollama messages, Anthropic
            messages, Gemini contents, Responses input items.
        response_id: the provider's id of the response (a Responses client may chain to it
            with ``previous_response_id``).
    """

    turn: tuple[Mapping[str, Any], ...] = ()
    response_id: str | None = None


RuleCheck = Callable[[Mapping[str, Any], Sequence[Prior]], Iterable[tuple[str, str]]]
"""A rule's check in one format (:data:`raf.formats.format.RuleCheck`, typed there without
:class:`Prior`): ``(body, prior)`` → ``(field, message)`` for each place the body breaks the
rule. ``field`` is a path into the body (``messages[2].content[0]``);
``message`` says what is wrong and what is right, quoting only ids and names (never text a
user wrote, never a secret). A check never raises on any JSON object."""


@dataclass(frozen=True)
class Broken:
    """One place where a request breaks a rule."""

    rule: str
    field: str
    message: str

    def to_builtins(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": self.message}


@dataclass(frozen=True)
class ProviderError:
    """What the provider answers a request that breaks the rule: the HTTP status and the
    message of its error document (:attr:`raf.formats.Format.error_document` wraps it as
    the format's provider does), mirroring a real one (``mirrors`` says where it was seen)."""

    status: int
    message: str
    mirrors: str = ""


@dataclass(frozen=True)
class Example:
    """A request body, with the earlier rounds it follows."""

    body: Mapping[str, Any]
    prior: tuple[Prior, ...] = ()


@dataclass(frozen=True)
class RequestRule:
    """One rule of the catalogue (module docstring)."""

    id: str
    formats: tuple[str, ...]
    statement: str
    docs: tuple[str, ...]
    bugs: tuple[str, ...]
    severity: Severity
    error: ProviderError | None
    breaks: Mapping[str, Example] = field(default_factory=dict)
    keeps: Mapping[str, Example] = field(default_factory=dict)
    why: str = ""


def _prior(value: Any) -> Prior:
    return Prior(turn=tuple(value.get("turn") or ()), response_id=value.get("response_id"))


def _example(value: Any) -> Example:
    return Example(body=value["body"], prior=tuple(_prior(p) for p in value.get("prior") or ()))


def _rule(value: Mapping[str, Any]) -> RequestRule:
    error = value.get("error")
    examples = value.get("examples") or {}
    return RequestRule(
        id=value["id"],
        formats=tuple(value["formats"]),
        statement=value["statement"],
        docs=tuple(value.get("docs") or ()),
        bugs=tuple(value.get("bugs") or ()),
        severity=value["severity"],
        error=None if error is None else ProviderError(**error),
        breaks={name: _example(e["breaks"]) for name, e in examples.items()},
        keeps={name: _example(e["keeps"]) for name, e in examples.items()},
        why=value.get("why", ""),
    )


@cache
def rules() -> tuple[RequestRule, ...]:
    """Every rule of the catalogue, in its order."""
    text = resources.files("raf.formats").joinpath(CATALOGUE).read_text(encoding="utf-8")
    return tuple(_rule(entry) for entry in yaml.safe_load(text)["rules"])


def rule(rule_id: str) -> RequestRule | None:
    """The rule with ``rule_id``, or ``None``."""
    return next((r for r in rules() if r.id == rule_id), None)


def rules_for(dialect: str) -> tuple[RequestRule, ...]:
    """The rules that apply to requests of ``dialect``."""
    return tuple(r for r in rules() if dialect in r.formats)


def check_rules(dialect: str, body: Mapping[str, Any], prior: Sequence[Prior] = ()) -> list[Broken]:
    """Every place where ``body`` (a request of ``dialect`` following the rounds ``prior``)
    breaks a rule, in the catalogue's order. Never raises on a JSON object; a format without
    checks breaks nothing."""
    found = formats.find(dialect)
    if found is None:
        return []
    checks = found.request_rules
    out: list[Broken] = []
    for known in rules_for(dialect):
        check = checks.get(known.id)
        if check is None:
            continue
        out.extend(Broken(known.id, where, message) for where, message in check(body, prior))
    return out


def prior_of(dialect: str, response: AgentResponse) -> Prior:
    """The earlier round a streamed ``response`` is, as a correct client sends it back: its
    turn (``response.turn_transcript``) built into the format's wire messages by the
    format's own request builder, and the response's id."""
    found = formats.find(dialect)
    key = MESSAGE_LISTS.get(dialect)
    if found is None or found.build_request is None or key is None:
        return Prior(response_id=response.id)
    from raf.model.request import Conversation  # noqa: PLC0415 - kept next to its one use

    body = found.build_request(Conversation(messages=response.turn_transcript))
    turn = body.get(key)
    return Prior(turn=tuple(turn) if isinstance(turn, list) else (), response_id=response.id)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _link(bug: str) -> str:
    repo, number = bug.split("#", 1)
    return f"[{bug}](https://github.com/{repo}/issues/{number})"


def rules_table() -> str:
    """The catalogue as a Markdown table (docs/requests.md, "Request rules"): each rule's
    id, formats, statement, severity, what the provider answers a request that breaks it,
    and the reported bugs and documentation it stands on, as links."""
    lines = [
        "| Rule | Formats | Statement | Severity | The provider answers | Bugs, docs |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for known in rules():
        answer = "accepts it"
        if known.error is not None:
            answer = f"{known.error.status}: {known.error.message}"
        sources = [_link(b) for b in known.bugs]
        sources += [f"[docs]({url})" for url in known.docs]
        cells = (
            f"`{known.id}`",
            ", ".join(f"`{f}`" for f in known.formats),
            known.statement,
            known.severity,
            answer,
            ", ".join(sources),
        )
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
