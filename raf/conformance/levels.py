"""The three levels at which an implementation is compared with the expected output. No IO.

Each function takes the expected output of one interaction (a golden's canonical JSON) and
what the implementation produced, and returns the :class:`Mismatch` values, empty when they
agree. A mismatch names the field (``tool_calls[1].arguments``), so a report says *what* is
wrong, not only that something is. docs/conformance.md defines every rule.

* :func:`compare_response` (level ``response``): what a client hands its caller.
* :func:`check_lifecycle` (level ``lifecycle``): the order of what it streamed, by rules that
  hold for any correct client (not by comparison with raf's own results: batching is free).
* :func:`compare_updates` (level ``updates``): raf-native ports, compared with raf's canonical
  updates and results, error messages and synthetic call ids normalised.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from raf.conformance.severity import Kind
from raf.model.codes import NOTICE_CODES
from raf.shared.client_response import ClientError, ClientResponse

__all__ = [
    "Mismatch",
    "check_lifecycle",
    "compare_response",
    "compare_updates",
    "is_synthetic_id",
    "normalise",
    "provider_ids_of",
    "render",
]

_SYNTHETIC = "__tc_"
_USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")
_USAGE_DETAILS = ("prompt_cache_hit_tokens", "prompt_cache_miss_tokens", "reasoning_tokens")
_SHOWN = 300  # characters of a value shown in a mismatch


@dataclass(frozen=True)
class Mismatch:
    """One disagreement.

    Attributes:
        where: the place, as shown (``tool_calls[1].arguments``, ``call call_abc``).
        expected: the expected value, or a description of it.
        actual: what the implementation gave.
        diff: a unified diff for long values and lists.
        kind: what the difference is (:data:`raf.conformance.severity.KINDS`).
        field: the place, named the same in every run and under every chunking (no ids the
            implementation chose, no positions in a list of deltas): what an
            expected-failures baseline records. Empty means ``where``.
        level: the check that found it: ``response``, ``lifecycle``, ``updates`` or
            ``request`` (the request a client sent over HTTP).
    """

    where: str
    expected: str
    actual: str
    diff: str = ""
    kind: Kind = "wrong"
    field: str = ""
    level: str = "response"

    @property
    def key(self) -> str:
        """The stable name of the place (``field``, else ``where``)."""
        return self.field or self.where

    def summary(self) -> str:
        """One line: ``where: expected X, got Y``."""
        return f"{self.where}: expected {self.expected}, got {self.actual}"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _text_diff(label: str, want: str, got: str) -> str:
    """A line diff of two texts, or of their characters around the first difference."""
    if "\n" in want or "\n" in got:
        return "\n".join(
            difflib.unified_diff(
                want.splitlines(),
                got.splitlines(),
                f"expected {label}",
                f"actual {label}",
                lineterm="",
                n=1,
            )
        )
    at = next((i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b), None)
    if at is None:
        at = min(len(want), len(got))
    start = max(at - 40, 0)
    return (
        f"first difference at character {at}:\n"
        f"  expected ...{want[start : at + 40]!r}\n"
        f"  actual   ...{got[start : at + 40]!r}"
    )


def is_synthetic_id(call_id: str | None) -> bool:
    """Whether a golden call id is raf's own (the stream carried no provider id)."""
    return call_id is None or call_id.startswith(_SYNTHETIC)


def _is_subsequence(short: str, long: str) -> bool:
    """Whether ``short`` is ``long`` with some characters left out (linear)."""
    rest = iter(long)
    return all(char in rest for char in short)


def text_kind(want: str, got: str) -> Kind:
    """The kind of a difference between two texts: ``lost`` when the actual one is the
    expected one with parts left out (empty included), ``invented`` when it is the expected
    one with parts added, ``wrong`` otherwise."""
    if not got or (len(got) < len(want) and _is_subsequence(got, want)):
        return "lost"
    if not want or (len(got) > len(want) and _is_subsequence(want, got)):
        return "invented"
    return "wrong"


def compare_response(
    expected: dict[str, Any],
    actual: ClientResponse | None,
    *,
    raised: str | None = None,
    capabilities: Iterable[str] = (),
    provider_ids: Collection[str] | None = None,
) -> list[Mismatch]:
    """Level ``response``: ``actual`` (what the client returned; ``None`` when it raised
    without a partial response) against ``expected`` (a golden's canonical response).

    Compared: text; reasoning (``None`` and ``""`` alike); tool calls in order (name and
    arguments; the id when the expected one is an id the stream carried, else present and
    unique); finish reason; usage with the ``usage`` capability (the three counts, and each
    richer count the client reports); errors: at least one (raising counts) where errors are
    expected, none where none are, and their codes in order with ``error_codes``; notices
    (``notices``, and errors under a notice code, :data:`raf.model.codes.NOTICE_CODES`) the
    same way, each difference a ``detail``. Messages are never compared.

    ``provider_ids`` are the call ids the stream carried (:func:`provider_ids_of` of the
    expected updates): a call whose expected id is not one of them got its id from raf, and
    any id that is unique in the response is as good (a ``detail`` when it is not raf's).
    Without them, raf's own ids are told by their ``__tc_`` prefix.

    Each mismatch has its kind (docs/conformance.md, "Kinds of difference").
    """
    caps = set(capabilities)
    got = actual if actual is not None else ClientResponse()
    out: list[Mismatch] = []

    want_text = expected.get("text") or ""
    if got.text != want_text:
        out.append(
            Mismatch(
                "text",
                _shown(want_text),
                _shown(got.text),
                _text_diff("text", want_text, got.text),
                kind=text_kind(want_text, got.text),
            )
        )
    want_reasoning = expected.get("reasoning_text") or ""
    got_reasoning = got.reasoning_text or ""
    if got_reasoning != want_reasoning:
        out.append(
            Mismatch(
                "reasoning_text",
                _shown(want_reasoning or None),
                _shown(got_reasoning or None),
                _text_diff("reasoning", want_reasoning, got_reasoning),
                kind=text_kind(want_reasoning, got_reasoning),
            )
        )
    out.extend(_compare_calls(expected.get("tool_calls") or [], got, provider_ids))
    want_finish = expected.get("finish_reason")
    if got.finish_reason != want_finish:
        out.append(
            Mismatch(
                "finish_reason",
                _shown(want_finish),
                _shown(got.finish_reason),
                kind="lost"
                if got.finish_reason is None
                else "invented"
                if want_finish is None
                else "wrong",
            )
        )
    if "usage" in caps:
        out.extend(_compare_usage(expected.get("usage"), got))
    if "hosted_tools" in caps:
        out.extend(_compare_hosted(expected, got))
    out.extend(_compare_errors(expected, got, raised, "error_codes" in caps))
    return out


def _compare_hosted(expected: dict[str, Any], got: ClientResponse) -> list[Mismatch]:
    """``hosted_tool_calls`` (id, name, arguments, and whether the result came) and
    ``approval_requests`` (call id, name, arguments), in order."""
    out: list[Mismatch] = []
    want_hosted = expected.get("hosted_tool_calls") or []
    if len(got.hosted_tool_calls) != len(want_hosted):
        out.append(
            Mismatch(
                "hosted_tool_calls",
                f"{len(want_hosted)} call(s) {_shown([w.get('name') for w in want_hosted])}",
                f"{len(got.hosted_tool_calls)} {_shown([g.name for g in got.hosted_tool_calls])}",
                kind="lost" if len(got.hosted_tool_calls) < len(want_hosted) else "invented",
            )
        )
    for n, (want, hosted) in enumerate(zip(want_hosted, got.hosted_tool_calls, strict=False)):
        answered = want.get("output") is not None or want.get("error") is not None
        pairs: tuple[tuple[str, Any, Any], ...] = (
            ("id", want.get("id"), hosted.id),
            ("name", want.get("name"), hosted.name),
            ("arguments", want.get("arguments"), hosted.arguments),
            ("answered", answered, hosted.output is not None or hosted.error is not None),
        )
        for field, w, g in pairs:
            if w != g:
                out.append(Mismatch(f"hosted_tool_calls[{n}].{field}", _shown(w), _shown(g)))
    want_requests = expected.get("approval_requests") or []
    if len(got.approval_requests) != len(want_requests):
        out.append(
            Mismatch(
                "approval_requests",
                f"{len(want_requests)} request(s)",
                f"{len(got.approval_requests)}",
                kind="lost" if len(got.approval_requests) < len(want_requests) else "invented",
            )
        )
    for n, (want, request) in enumerate(zip(want_requests, got.approval_requests, strict=False)):
        pairs = (
            ("call_id", want.get("call_id"), request.call_id),
            ("name", want.get("name"), request.name),
            ("arguments", want.get("arguments"), request.arguments),
        )
        for field, w, g in pairs:
            if w != g:
                out.append(Mismatch(f"approval_requests[{n}].{field}", _shown(w), _shown(g)))
    return out


def _compare_calls(
    want: list[dict[str, Any]], got: ClientResponse, provider_ids: Collection[str] | None
) -> list[Mismatch]:
    out: list[Mismatch] = []
    calls = got.tool_calls
    if len(calls) != len(want):
        out.append(
            Mismatch(
                "tool_calls",
                f"{len(want)} call(s) {_shown([c.get('name') for c in want])}",
                f"{len(calls)} call(s) {_shown([c.name for c in calls])}",
                kind="lost" if len(calls) < len(want) else "invented",
            )
        )
    seen: set[str] = set()
    for n, (w, g) in enumerate(zip(want, calls, strict=False)):
        if g.name != w.get("name"):
            out.append(
                Mismatch(
                    f"tool_calls[{n}].name",
                    _shown(w.get("name")),
                    _shown(g.name),
                    kind="lost" if not g.name else "wrong",
                )
            )
        if g.arguments != w.get("arguments"):
            as_doubles = _as_doubles(g.arguments) == _as_doubles(w.get("arguments"))
            out.append(
                Mismatch(
                    f"tool_calls[{n}].arguments",
                    _shown(w.get("arguments"))
                    + (" (the same as IEEE-754 doubles)" if as_doubles else ""),
                    _shown(g.arguments),
                    _json_diff(f"tool_calls[{n}].arguments", w.get("arguments"), g.arguments),
                    kind="lost" if g.arguments is None else "detail" if as_doubles else "wrong",
                )
            )
        want_id = w.get("id")
        carried = (
            not is_synthetic_id(want_id)
            if provider_ids is None
            else isinstance(want_id, str) and want_id in provider_ids
        )
        where = f"tool_calls[{n}].id"
        if not g.id:
            what = "the provider's id" if carried else "an id (the stream carried none)"
            out.append(Mismatch(where, f"{what} {_shown(want_id)}", _shown(g.id), kind="lost"))
        elif g.id in seen:
            out.append(Mismatch(where, "an id unique in the response", f"{g.id!r} again"))
        elif carried and g.id != want_id:
            out.append(Mismatch(where, _shown(want_id), _shown(g.id)))
        elif not carried and g.id != want_id:
            out.append(
                Mismatch(
                    where,
                    f"any unique id (the stream carried none for this call; raf names it "
                    f"{_shown(want_id)})",
                    _shown(g.id),
                    kind="detail",
                )
            )
        if g.id:
            seen.add(g.id)
    return out


_EXACT_IN_A_DOUBLE = 2**53


def _as_doubles(value: Any) -> Any:
    """``value`` with every number as an IEEE-754 double holds it: what a JSON reader whose
    numbers are doubles (JavaScript's ``JSON.parse``) reads. Integers beyond 2**53 lose
    digits there, which RFC 8259 (section 6) allows, so arguments that differ only by that
    are a ``detail``, not a wrong value."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if abs(value) <= _EXACT_IN_A_DOUBLE:
            return value
        try:
            return float(value)
        except OverflowError:  # past the largest double: JSON.parse reads an infinity
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) <= _EXACT_IN_A_DOUBLE else value
    if isinstance(value, list):
        return [_as_doubles(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_doubles(v) for k, v in value.items()}
    return value


def _compare_usage(want: dict[str, Any] | None, got: ClientResponse) -> list[Mismatch]:
    usage = got.usage
    if want is None or usage is None:
        if want is None and usage is not None:
            shown = msgspec.to_builtins(usage)
            zero = not any(v for v in shown.values())
            return [
                Mismatch(
                    "usage",
                    "none (the provider sent no usage)",
                    _shown(shown),
                    kind="detail" if zero else "invented",
                )
            ]
        if want is not None and usage is None:
            return [Mismatch("usage", _shown(want), "null", kind="lost")]
        return []
    out = [
        Mismatch(f"usage.{name}", _shown(want.get(name)), _shown(getattr(usage, name)))
        for name in _USAGE_COUNTS
        if getattr(usage, name) != want.get(name)
    ]
    for name in _USAGE_DETAILS:
        value, wanted = getattr(usage, name), want.get(name)
        if value is None or value == wanted:
            continue
        if wanted is None:
            kind: Kind = "detail" if value == 0 else "invented"
            out.append(
                Mismatch(
                    f"usage.{name}", "none (the provider did not send it)", _shown(value), kind=kind
                )
            )
        else:
            out.append(Mismatch(f"usage.{name}", _shown(wanted), _shown(value)))
    return out


def _compare_errors(
    expected: dict[str, Any], got: ClientResponse, raised: str | None, codes: bool
) -> list[Mismatch]:
    want: list[dict[str, Any]] = []
    want_notices: list[dict[str, Any]] = list(expected.get("notices") or [])
    for error in expected.get("errors") or []:
        (want_notices if error.get("error_code") in NOTICE_CODES else want).append(error)
    errors = [e for e in got.errors if e.error_code not in NOTICE_CODES]
    notices = [e for e in got.errors if e.error_code in NOTICE_CODES] + list(got.notices)
    out = _compare_notices(want_notices, notices, codes)
    want_codes = [e.get("error_code") for e in want]
    reported = len(errors) + (raised is not None)
    got_shown = [e.error_code or e.message[:60] for e in errors]
    if raised is not None:
        got_shown.append(f"raised {raised[:80]}")
    if want and not reported:
        out.append(
            Mismatch(
                "errors", f"at least one error {_shown(want_codes)}", "none", kind="unreported"
            )
        )
    elif not want and reported:
        out.append(Mismatch("errors", "no error", _shown(got_shown), kind="invented"))
    elif codes and want:
        got_codes = [e.error_code for e in errors]
        if got_codes != want_codes:
            out.append(Mismatch("errors[].error_code", _shown(want_codes), _shown(got_codes)))
    return out


def _compare_notices(
    want: list[dict[str, Any]], got: list[ClientError], codes: bool
) -> list[Mismatch]:
    """Notices: a harmless deviation of the stream told or not, so every difference is a
    ``detail`` (docs/conformance.md): none where some are expected, some where none are, and
    their codes in order with ``error_codes``."""
    want_codes = [e.get("error_code") for e in want]
    got_codes = [e.error_code for e in got]
    if want and not got:
        return [Mismatch("notices", f"notice(s) {_shown(want_codes)}", "none", kind="detail")]
    if got and not want:
        return [Mismatch("notices", "no notice", _shown(got_codes), kind="detail")]
    if codes and got_codes != want_codes:
        return [
            Mismatch("notices[].error_code", _shown(want_codes), _shown(got_codes), kind="detail")
        ]
    return []


def _json_diff(label: str, want: Any, got: Any) -> str:
    def lines(value: Any) -> list[str]:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True).splitlines()

    return "\n".join(
        difflib.unified_diff(
            lines(want), lines(got), f"expected {label}", f"actual {label}", lineterm="", n=2
        )
    )


# -- lifecycle --------------------------------------------------------------------------------

_LIFECYCLE = "lifecycle"
_UPDATES = "updates"

_CALL_STEPS = {
    "tool_call_start": "start",
    "tool_call_args": "args",
    "tool_call_args_parsed": "progress",
    "tool_call_args_progress": "progress",
    "tool_call_end": "end",
    "tool_calling": "calling",
    "tool_called": "called",
}


def check_lifecycle(results: Sequence[Any], response: dict[str, Any]) -> list[Mismatch]:
    """Level ``lifecycle``: the rules every correct stream of results obeys, checked against
    the response the same client returned (``response``: canonical JSON).

    * the text and reasoning deltas, joined, are the response's text and reasoning;
    * each call: one start (with its name), argument fragments whose concatenation parses to
      its final arguments, one end, then one calling (or an error naming the call) with the
      same id throughout; nothing about a call after its calling but its outcome;
    * calls start in the order of the response's tool calls;
    * the final result (the one with a finish reason, or the last) is the last.
    """
    out: list[Mismatch] = []
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        return [
            Mismatch(
                "results",
                "a list of agent_response_result objects",
                "something else",
                level=_LIFECYCLE,
            )
        ]
    text: list[str] = []
    reasoning: list[str] = []
    steps: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    arguments: dict[str, list[str]] = {}
    final: dict[str, Any] = {}
    errored: set[str] = set()
    order: list[str] = []
    for n, result in enumerate(results):
        contents = result.get("contents") or []
        if not isinstance(contents, list):
            out.append(
                Mismatch(
                    f"results[{n}].contents",
                    "a list",
                    _shown(contents),
                    field="results.contents",
                    level=_LIFECYCLE,
                )
            )
            continue
        for content in contents:
            if not isinstance(content, dict):
                out.append(
                    Mismatch(
                        f"results[{n}].contents",
                        "objects",
                        _shown(content),
                        field="results.contents",
                        level=_LIFECYCLE,
                    )
                )
                continue
            kind = content.get("type")
            if kind == "text":
                text.append(str(content.get("delta") or ""))
            elif kind == "reasoning":
                reasoning.append(str(content.get("delta") or ""))
            elif kind == "error" and content.get("call_id") is not None:
                errored.add(str(content["call_id"]))
            elif kind in _CALL_STEPS:
                call_id = str(content.get("call_id"))
                step = _CALL_STEPS[kind]
                if call_id not in steps:
                    steps[call_id] = []
                    order.append(call_id)
                steps[call_id].append(step)
                if step == "start":
                    names[call_id] = str(content.get("name"))
                elif step == "args":
                    arguments.setdefault(call_id, []).append(str(content.get("args_delta") or ""))
                elif step == "calling":
                    final[call_id] = content.get("arguments")
                    if content.get("name") != names.get(call_id):
                        out.append(
                            Mismatch(
                                f"call {call_id}.name",
                                f"the name of its start {_shown(names.get(call_id))}",
                                _shown(content.get("name")),
                                field="lifecycle.call.name",
                                level=_LIFECYCLE,
                            )
                        )
    for where, parts, field in (("text", text, "text"), ("reasoning", reasoning, "reasoning_text")):
        joined, want = "".join(parts), response.get(field) or ""
        if joined != want:
            out.append(
                Mismatch(
                    f"lifecycle {where}",
                    f"deltas adding up to {_shown(want)}",
                    _shown(joined),
                    _text_diff(where, want, joined),
                    kind=text_kind(want, joined),
                    field=f"lifecycle.{where}",
                    level=_LIFECYCLE,
                )
            )
    for call_id in order:
        out.extend(_check_call(call_id, steps[call_id], arguments.get(call_id, []), final, errored))
    called = [c for c in order if "calling" in steps[c]]
    want_order = [c.get("id") for c in response.get("tool_calls") or []]
    if called != want_order:
        out.append(
            Mismatch(
                "lifecycle call order",
                _shown(want_order),
                _shown(called),
                field="lifecycle.call_order",
                level=_LIFECYCLE,
            )
        )
    last = [n for n, r in enumerate(results) if r.get("finish_reason") is not None]
    if last and last[-1] != len(results) - 1:
        out.append(
            Mismatch(
                "lifecycle end",
                "nothing after the final result",
                f"{len(results) - 1 - last[-1]} result(s) after it",
                field="lifecycle.end",
                level=_LIFECYCLE,
            )
        )
    return out


def _check_call(
    call_id: str,
    sequence: list[str],
    fragments: list[str],
    final: dict[str, Any],
    errored: set[str],
) -> list[Mismatch]:
    where = f"call {call_id}"
    core = [s for s in sequence if s not in ("progress", "called")]
    calling = "calling" in core
    expected_tail = ["end", "calling"] if calling else ["end"]
    body = core[1 : -len(expected_tail)] if len(core) > len(expected_tail) else []
    well_formed = (
        core[:1] == ["start"]
        and core[len(core) - len(expected_tail) :] == expected_tail
        and all(step == "args" for step in body)
        and core.count("start") == core.count("end") == 1
        and core.count("calling") <= 1
    )
    if "called" in sequence and sequence[-1] != "called":
        well_formed = False
    out: list[Mismatch] = []
    if not well_formed:
        out.append(
            Mismatch(
                where,
                "start, args..., end, calling (each once, in this order)",
                _shown(core),
                field="lifecycle.call",
                level=_LIFECYCLE,
            )
        )
    if not calling and call_id not in errored:
        out.append(
            Mismatch(
                where,
                "a calling, or an error naming the call",
                "neither",
                kind="lost",
                field="lifecycle.call",
                level=_LIFECYCLE,
            )
        )
    if calling:
        joined = "".join(fragments)
        try:
            parsed = json.loads(joined) if joined.strip() else {}
        except ValueError:
            parsed = _UNPARSEABLE
        if parsed != final[call_id]:
            out.append(
                Mismatch(
                    f"{where} arguments",
                    f"fragments adding up to {_shown(final[call_id])}",
                    _shown(joined),
                    field="lifecycle.call.arguments",
                    level=_LIFECYCLE,
                )
            )
    return out


_UNPARSEABLE = object()


# -- updates ---------------------------------------------------------------------------------


def normalise(items: Sequence[Any], provider_ids: set[str]) -> list[Any]:
    """Canonical updates or results with every error ``message`` emptied and every call id
    that is not one of ``provider_ids`` replaced by ``<call N>`` (N counting such ids in
    order of first appearance), so an implementation's own wording and synthetic ids do not
    count as differences."""
    renamed: dict[str, str] = {}

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "message" and node.get("type") == "error":
                    out[key] = ""
                elif key in ("call_id", "id") and isinstance(value, str) and _is_call(node):
                    out[key] = _rename(value)
                elif key in _JSON_VALUES:
                    out[key] = value  # a model's value (arguments...): compared as it is
                else:
                    out[key] = walk(value)
            return out
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    def _rename(call_id: str) -> str:
        if call_id in provider_ids:
            return call_id
        return renamed.setdefault(call_id, f"<call {len(renamed)}>")

    return [walk(item) for item in items]


_JSON_VALUES = frozenset(
    {"arguments", "value", "raw", "delta", "args_delta", "arguments_delta", "usage"}
)


def _is_call(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind in _CALL_STEPS or (kind == "error" and "call_id" in node) or kind is None


def provider_ids_of(updates: Sequence[Any]) -> set[str]:
    """The call ids a stream carried (from its canonical updates)."""
    return {
        u["id"]
        for u in updates
        if isinstance(u, dict)
        and u.get("type") in ("tool_call_delta", "tool_call_start")
        and isinstance(u.get("id"), str)
    }


def compare_updates(
    expected_updates: Sequence[Any],
    expected_results: Sequence[Any],
    updates: Sequence[Any] | None,
    results: Sequence[Any] | None,
) -> list[Mismatch]:
    """Level ``updates``: the canonical updates and results equal the expected ones, after
    :func:`normalise` (the provider's ids are those the expected updates carry)."""
    ids = provider_ids_of(expected_updates)
    out = []
    for part, want, got in (
        ("updates", expected_updates, updates),
        ("results", expected_results, results),
    ):
        if got is None:
            out.append(
                Mismatch(part, f"{len(want)} {part}", "none sent", kind="lost", level=_UPDATES)
            )
            continue
        a, b = normalise(want, ids), normalise(got, ids)
        if a != b:
            first = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            at = min(len(a), len(b)) if first is None else first
            out.append(
                Mismatch(
                    f"{part}[{at}]",
                    _shown(a[at]) if at < len(a) else "the end",
                    _shown(b[at]) if at < len(b) else "the end",
                    _list_diff(part, a, b),
                    field=part,
                    level=_UPDATES,
                )
            )
    return out


def _list_diff(part: str, want: Sequence[Any], got: Sequence[Any]) -> str:
    def lines(items: Sequence[Any]) -> list[str]:
        return [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in items]

    return "\n".join(
        difflib.unified_diff(
            lines(want), lines(got), f"expected {part}", f"actual {part}", lineterm="", n=2
        )
    )


def render(mismatches: Sequence[Mismatch]) -> str:
    """Every mismatch, one per paragraph: the summary line, then its diff if any."""
    return "\n\n".join(m.summary() + (f"\n{m.diff}" if m.diff else "") for m in mismatches)
