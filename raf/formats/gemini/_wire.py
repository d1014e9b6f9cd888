"""The msgspec structs the dialect (:mod:`raf.formats.gemini.dialect`) decodes its usual
payloads into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

from typing import Any

import msgspec


# The usual chunk, strictly typed (the fast paths, :meth:`GeminiDialect.usual` and
# :meth:`GeminiDialect.feed_run`): every field the handler reads, with the type it accepts
# without a problem; fields raf does not read are skipped by the decoder. A chunk that does
# not fit (a field of another type) takes the shared path, which names the problem.
class _Usage(msgspec.Struct, gc=False):
    promptTokenCount: int | None = None
    toolUsePromptTokenCount: int | None = None
    candidatesTokenCount: int | None = None
    thoughtsTokenCount: int | None = None
    totalTokenCount: int | None = None
    cachedContentTokenCount: int | None = None


class _FunctionCall(msgspec.Struct, gc=False):
    name: str | None = None
    id: str | None = None
    args: Any = None
    partialArgs: Any = None
    willContinue: Any = None


class _Part(msgspec.Struct, gc=False):
    text: str | None = None
    thought: Any = None
    thoughtSignature: str | None = None
    functionCall: _FunctionCall | None = None
    executableCode: Any = None
    codeExecutionResult: Any = None
    toolCall: Any = None
    toolResponse: Any = None


class _Content(msgspec.Struct, gc=False):
    parts: list[_Part] | None = None


class _Candidate(msgspec.Struct, gc=False):
    content: _Content | None = None
    index: int | None = None
    finishReason: str | None = None


class _Response(msgspec.Struct, gc=False):
    candidates: list[_Candidate] | None = None
    usageMetadata: _Usage | None = None
    responseId: str | None = None
    modelVersion: str | None = None
    error: Any = None
    promptFeedback: Any = None
