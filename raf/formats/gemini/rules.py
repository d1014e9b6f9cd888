"""The request rules of ``gemini`` (:mod:`raf.formats.request_rules`): each check named by
its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object.

Gemini's calls often have no id: the checks that compare with what was streamed find, for
each earlier round, the model content of the body that sends it back by its calls (names and
arguments, in order) or, for a round without calls, by its text."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]

Found = Iterator[tuple[str, str]]
_SIGNATURE: Final = "thoughtSignature"


def _contents(body: Mapping[str, Any]) -> list[Any]:
    contents = body.get("contents")
    return contents if isinstance(contents, list) else []


def _parts(content: Any) -> list[Any]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def _is_model(content: Any) -> bool:
    return isinstance(content, dict) and content.get("role") == "model"


def _member(part: Any, name: str) -> dict[str, Any] | None:
    value = part.get(name) if isinstance(part, dict) else None
    return value if isinstance(value, dict) else None


def _calls(content: Any) -> list[tuple[int, dict[str, Any]]]:
    """The ``functionCall`` parts of a model content: (part index, the call)."""
    if not _is_model(content):
        return []
    out = []
    for k, part in enumerate(_parts(content)):
        call = _member(part, "functionCall")
        if call is not None:
            out.append((k, call))
    return out


def _responses(content: Any) -> list[tuple[int, dict[str, Any]]]:
    """The ``functionResponse`` parts of a content that is not the model's."""
    if not isinstance(content, dict) or _is_model(content):
        return []
    out = []
    for k, part in enumerate(_parts(content)):
        answer = _member(part, "functionResponse")
        if answer is not None:
            out.append((k, answer))
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _same(signature: Any) -> Any:
    """A signature as bytes go: the same in base64 and in base64url (a client's SDK may
    decode the bytes and encode them the other way), padding aside."""
    if not isinstance(signature, str):
        return signature
    return signature.replace("-", "+").replace("_", "/").rstrip("=")


def _name(call: Mapping[str, Any]) -> str:
    return _text(call.get("name")) or "?"


def function_calls_answered(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``gemini.function_calls_answered``: a model content with ``functionCall`` parts is
    followed by a content with as many ``functionResponse`` parts."""
    contents = _contents(body)
    for at, content in enumerate(contents):
        calls = _calls(content)
        if not calls:
            continue
        following = contents[at + 1] if at + 1 < len(contents) else None
        answers = _responses(following)
        if len(answers) != len(calls):
            names = ", ".join(_name(c) for _, c in calls)
            yield (
                f"contents[{at + 1}]" if following is not None else f"contents[{at}]",
                f"{len(calls)} function call(s) ({names}) answered by {len(answers)} "
                "functionResponse part(s) in the next content",
            )


def function_responses_in_one_content(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``gemini.function_responses_in_one_content``: the responses to one turn's calls are
    all in ONE content, not spread over several."""
    contents = _contents(body)
    for at, content in enumerate(contents):
        if not _calls(content):
            continue
        after = at + 2
        while after < len(contents) and _responses(contents[after]):
            yield (
                f"contents[{after}]",
                f"function responses to the calls of contents[{at}] spread over more than one "
                "content; send them all in the content right after the calls",
            )
            after += 1


def function_response_per_call(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``gemini.function_response_per_call``: each ``functionResponse`` answers one call of
    the turn before it, by name (and id when the call has one), each call once."""
    contents = _contents(body)
    for at, content in enumerate(contents):
        calls = _calls(content)
        if not calls or at + 1 >= len(contents):
            continue
        open_calls = [c for _, c in calls]
        for k, answer in _responses(contents[at + 1]):
            answer_id = _text(answer.get("id"))
            match = next(
                (
                    c
                    for c in open_calls
                    if c.get("name") == answer.get("name")
                    and (answer_id is None or _text(c.get("id")) in (None, answer_id))
                ),
                None,
            )
            if match is None:
                shown = f"{_name(answer)}" + (f" (id {answer_id})" if answer_id else "")
                yield (
                    f"contents[{at + 1}].parts[{k}].functionResponse",
                    f"the response for {shown} answers no unanswered call of contents[{at}]",
                )
            else:
                open_calls.remove(match)


def _signed(parts: list[Any]) -> list[tuple[int, Any]]:
    return [(k, p.get(_SIGNATURE)) for k, p in enumerate(parts) if isinstance(p, dict)]


def _plain_texts(parts: list[Any]) -> list[Any]:
    return [
        p.get("text")
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    ]


def _pairs(body: Mapping[str, Any], prior: Sequence[Any]) -> Iterator[tuple[int, Any, Any]]:
    """Each earlier round's model content and the body's model content that sends it back:
    (its index in the body, the body's content, the streamed content)."""
    contents = _contents(body)
    used: set[int] = set()
    for one in prior:
        for streamed in getattr(one, "turn", ()) or ():
            if not _is_model(streamed):
                continue
            made = [(c.get("name"), c.get("args")) for _, c in _calls(streamed)]
            said = [t for t in _plain_texts(_parts(streamed)) if t]
            for at, content in enumerate(contents):
                if at in used or not _is_model(content):
                    continue
                sent = [(c.get("name"), c.get("args")) for _, c in _calls(content)]
                if (made and sent == made) or (
                    not made
                    and not sent
                    and said
                    and said == [t for t in _plain_texts(_parts(content)) if t]
                ):
                    used.add(at)
                    yield at, content, streamed
                    break


def call_signature_kept(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``gemini.call_signature_kept``: a ``thoughtSignature`` streamed on a ``functionCall``
    part is sent back on that same call part (in a parallel turn, only the first)."""
    for at, content, streamed in _pairs(body, prior):
        mine = _calls(content)
        theirs = _calls(streamed)
        parts = _parts(content)
        streamed_parts = _parts(streamed)
        for (k, call), (j, _) in zip(mine, theirs, strict=False):
            want = _text(streamed_parts[j].get(_SIGNATURE))
            got = parts[k].get(_SIGNATURE) if isinstance(parts[k], dict) else None
            if want is not None and _same(got) != _same(want):
                yield (
                    f"contents[{at}].parts[{k}].{_SIGNATURE}",
                    f"the call of {_name(call)} was streamed with a thoughtSignature; send it "
                    "back on this part, unchanged" + (" (it is missing)" if got is None else ""),
                )
            elif want is None and got is not None:
                yield (
                    f"contents[{at}].parts[{k}].{_SIGNATURE}",
                    f"the call of {_name(call)} was streamed without a thoughtSignature; a "
                    "signature belongs on the part it came with",
                )


def text_signature_kept(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``gemini.text_signature_kept``: a ``thoughtSignature`` streamed on a text (or thought)
    part is sent back with that turn, unchanged (Gemini accepts it on a neighbouring part of
    the turn, as clients that merge parts put it)."""
    for at, content, streamed in _pairs(body, prior):
        sent = {_same(s) for _, s in _signed(_parts(content)) if isinstance(s, str)}
        for j, part in enumerate(_parts(streamed)):
            signature = _text(part.get(_SIGNATURE)) if isinstance(part, dict) else None
            if signature is None or "text" not in part:
                continue
            if _same(signature) not in sent:
                yield (
                    f"contents[{at}].parts",
                    f"the signature streamed on text part {j} of this turn is missing; send it "
                    "back on its text part (an empty one included)",
                )


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "gemini.function_calls_answered": function_calls_answered,
    "gemini.function_responses_in_one_content": function_responses_in_one_content,
    "gemini.function_response_per_call": function_response_per_call,
    "gemini.call_signature_kept": call_signature_kept,
    "gemini.text_signature_kept": text_signature_kept,
}
"""The checks, by rule id."""
