"""Tools the client runs (RAF's ``ITool``, ``ToolResult``): what the tool loop offers the
model and executes when the model calls it.

A tool has a ``name``, a ``description``, the JSON Schema of its arguments (``parameters``),
whether a person must approve each call (``requires_approval``), and runs with the parsed
arguments, synchronously (:meth:`Tool.invoke`) or not (:meth:`Tool.ainvoke`), returning a
:class:`ToolResult` (sent to the model as its JSON text, as RAF does) or a ``str`` (sent as it
is: the tool's own text, what most frameworks send). A tool that fails for its own reasons
returns ``ToolResult.failure(...)`` (the model sees it as the call's result); one that raises
is reported to the model as a framework error (docs/agent.md, "Error texts").
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import re
import typing
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol, overload, runtime_checkable

import jsonschema
import msgspec

from raf.model._base import JSONValue, Record
from raf.model.request import ToolSpec

__all__ = [
    "ApprovalRequiredTool",
    "FunctionTool",
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "ToolSchemaError",
    "ToolText",
    "check_schema",
    "tool",
]


class ToolResult(Record, frozen=True, kw_only=True):
    """What a tool returns (raf-spec 1.8): ``ok``, and ``data`` on success or ``error`` (and
    optionally ``data``) on failure. Its JSON text, the tool message the model reads, has the
    keys in the order ``ok``, ``data``, ``error`` and leaves out the ones that are ``None``:
    ``{"ok":true,"data":{"temp":21}}``."""

    ok: bool
    data: JSONValue = None
    error: str | None = None

    @classmethod
    def success(cls, data: JSONValue = None) -> ToolResult:
        """A successful result carrying ``data``."""
        return cls(ok=True, data=data)

    @classmethod
    def failure(cls, message: str, data: JSONValue = None) -> ToolResult:
        """A failed result (RAF's ``error`` / ``error_with_data``; renamed because ``error``
        is also the field): the model reads ``message`` as the call's result."""
        return cls(ok=False, data=data, error=message)

    def to_json(self) -> str:
        """The JSON text the model reads."""
        value: dict[str, JSONValue] = {"ok": self.ok}
        if self.data is not None:
            value["data"] = self.data
        if self.error is not None:
            value["error"] = self.error
        return msgspec.json.encode(value).decode()


class ToolText(Record, frozen=True, kw_only=True):
    """A tool's answer sent to the model exactly as ``text``, an error result when
    ``is_error`` (Anthropic's ``is_error``...): for a tool that already holds the words the
    model reads, such as a result replayed from a recording (``raf conform``'s tool loops)."""

    text: str
    is_error: bool = False


@runtime_checkable
class Tool(Protocol):
    """A tool the client runs (RAF's ``ITool``)."""

    @property
    def name(self) -> str:
        """The name the model calls it by."""
        ...

    @property
    def description(self) -> str:
        """What it does, for the model."""
        ...

    @property
    def parameters(self) -> Mapping[str, JSONValue]:
        """The JSON Schema of its arguments (an object schema)."""
        ...

    @property
    def requires_approval(self) -> bool:
        """Whether each call waits for a person's approval (RAF's default: no)."""
        ...

    def invoke(self, arguments: JSONValue) -> ToolResult | ToolText | str:
        """Run with the parsed arguments (called from a worker thread by the sync loop)."""
        ...

    async def ainvoke(self, arguments: JSONValue) -> ToolResult | ToolText | str:
        """Run with the parsed arguments (the async loop)."""
        ...


class ToolSchemaError(ValueError):
    """A tool's parameter schema is not a valid JSON Schema, or a function's signature cannot
    be turned into one. Raised when the tool is made, never when it is called."""


def check_schema(name: str, schema: Mapping[str, JSONValue]) -> jsonschema.protocols.Validator:
    """The validator of a tool's parameter ``schema``, after checking that it is a valid
    JSON Schema (of the draft its ``$schema`` names, 2020-12 by default).

    Raises:
        ToolSchemaError: the schema is not valid; the message names the tool and the problem.
    """
    if not isinstance(schema, Mapping):
        raise ToolSchemaError(f"tool {name!r}: its parameters must be a JSON Schema object")
    plain = dict(schema)
    cls = jsonschema.validators.validator_for(plain, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(plain)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        raise ToolSchemaError(
            f"tool {name!r}: invalid JSON Schema at {where}: {exc.message}"
        ) from None
    validator: jsonschema.protocols.Validator = cls(plain)
    return validator


# -- functions as tools -------------------------------------------------------------------

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters)\s*:\s*$")
_SECTION_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")
_ARG_LINE = re.compile(r"^(\s*)\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The summary of a docstring (its first paragraph, lines joined) and the descriptions of
    the parameters its Google-style ``Args:`` section gives (``name (type): text``, with
    continuation lines indented deeper)."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _ARGS_HEADER.match(line) or _SECTION_HEADER.match(line):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    inside = False
    indent: int | None = None
    current: str | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            inside, indent, current = True, None, None
            continue
        if not inside:
            continue
        if not line.strip():
            current = None
            continue
        width = len(line) - len(line.lstrip())
        if width == 0:  # the next section (or text) ends the Args section
            inside = False
            continue
        match = _ARG_LINE.match(line)
        if match is not None and (indent is None or width <= indent):
            indent = width
            current = match.group(2)
            params[current] = match.group(3).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return " ".join(summary), params


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """msgspec's schema of the arguments struct with the struct itself as the root and every
    ``$ref`` replaced by its definition, unless a definition refers to itself (then the
    remaining ``$defs`` stay at the root)."""
    defs: dict[str, Any] = dict(schema.get("$defs", {}))
    root_ref = schema.get("$ref", "")
    root = defs.pop(root_ref.rsplit("/", 1)[-1]) if root_ref else dict(schema)

    def refs(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                yield ref[len("#/$defs/") :]
            for value in node.values():
                yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    # A definition that reaches itself cannot be inlined.
    def reaches(start: str, target: str, seen: set[str]) -> bool:
        for name in refs(defs.get(start)):
            if name == target or (name not in seen and reaches(name, target, seen | {name})):
                return True
        return False

    recursive = {name for name in defs if reaches(name, name, {name})}

    def expand(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/") :]
                if name not in recursive and name in defs:
                    rest = {k: expand(v) for k, v in node.items() if k != "$ref"}
                    target = expand(copy.deepcopy(defs[name]))
                    target.pop("title", None)
                    return {**target, **rest}
            return {k: expand(v) for k, v in node.items()}
        if isinstance(node, list):
            return [expand(v) for v in node]
        return node

    out: dict[str, Any] = expand(root)
    out.pop("title", None)
    if recursive:
        out["$defs"] = {name: expand(defs[name]) for name in sorted(recursive)}
    return out


_MISSING = inspect.Parameter.empty


def _run_async(awaitable: Awaitable[Any]) -> Any:
    """Run a coroutine in an event loop of its own (an async tool in the sync loop's worker
    thread)."""

    async def wrapped() -> Any:
        return await awaitable

    return asyncio.run(wrapped())


def _as_result(value: Any) -> ToolResult | str:
    """What a tool function returned, as the loop takes it: a ``ToolResult`` or a ``str`` as
    it is, anything else as a successful result holding it as JSON."""
    if isinstance(value, ToolResult | str):
        return value
    try:
        data = msgspec.to_builtins(value)
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        # RAF's text when a result cannot be serialised (raf-spec 5.4 step 4).
        return ToolResult(ok=False, error=f"serialize: {exc}")
    return ToolResult.success(data)


class FunctionTool:
    """A typed Python function (sync or ``async``) as a tool.

    The parameters' JSON Schema comes from the signature, through msgspec's JSON Schema
    generation (an object with one property per parameter; ``required`` lists the parameters
    without a default), with the parameter descriptions of the docstring's Google-style
    ``Args:`` section; the description is the docstring's summary. The function receives its
    arguments converted to the annotated types (``msgspec.convert``). It returns a
    :class:`ToolResult` (sent as its JSON text), a ``str`` (sent as it is) or any other value
    (sent as ``ToolResult.success(value)``).

    A sync function run by the async loop runs in a thread (``asyncio.to_thread``); an async
    function run by the sync loop runs in the loop's worker thread, in an event loop of its
    own. The schema is checked when the tool is made (:class:`ToolSchemaError`).
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        requires_approval: bool = False,
    ) -> None:
        self.func = func
        self._name = name or func.__name__
        summary, documented = parse_docstring(func.__doc__)
        self._description = summary if description is None else description
        self._requires_approval = requires_approval
        self._is_async = inspect.iscoroutinefunction(func)
        self._struct, schema = self._arguments_struct(documented)
        self._parameters: dict[str, JSONValue] = schema
        self.validator = check_schema(self._name, schema)

    def _arguments_struct(
        self, documented: Mapping[str, str]
    ) -> tuple[type[msgspec.Struct], dict[str, Any]]:
        try:
            signature = inspect.signature(self.func)
            hints = typing.get_type_hints(self.func, include_extras=True)
        except (TypeError, ValueError, NameError) as exc:
            raise ToolSchemaError(
                f"tool {self._name!r}: cannot read its signature: {exc}"
            ) from None
        fields: list[Any] = []
        for param in signature.parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
                raise ToolSchemaError(
                    f"tool {self._name!r}: parameter {param.name!r} must be a named parameter "
                    "(no *args, **kwargs or positional-only parameters)"
                )
            annotation = hints.get(param.name, Any)
            if param.default is _MISSING:
                fields.append((param.name, annotation))
            else:
                fields.append((param.name, annotation, param.default))
        try:
            struct = msgspec.defstruct(f"{self._name}_arguments", fields, kw_only=True)
            schema = _inline(msgspec.json.schema(struct))
        except (TypeError, ValueError) as exc:
            raise ToolSchemaError(
                f"tool {self._name!r}: no JSON Schema for its parameters: {exc}"
            ) from None
        schema.setdefault("properties", {})
        for key, text in documented.items():
            prop = schema["properties"].get(key)
            if isinstance(prop, dict) and text:
                prop["description"] = text
        schema.setdefault("required", [])
        return struct, schema

    @property
    def name(self) -> str:
        """The name the model calls it by (the function's name unless given)."""
        return self._name

    @property
    def description(self) -> str:
        """The docstring's summary unless given."""
        return self._description

    @property
    def parameters(self) -> Mapping[str, JSONValue]:
        """The JSON Schema of its arguments."""
        return self._parameters

    @property
    def requires_approval(self) -> bool:
        """Whether each call waits for a person's approval."""
        return self._requires_approval

    def _call(self, arguments: JSONValue) -> Any:
        # Not strict: JSON Schema counts 2.0 as an integer, and the loop has already checked the
        # arguments against the schema, so only what the schema accepts reaches here.
        values = msgspec.convert(arguments, type=self._struct, strict=False)
        return self.func(**{f: getattr(values, f) for f in self._struct.__struct_fields__})

    def invoke(self, arguments: JSONValue) -> ToolResult | str:
        """Run with the parsed arguments (an async function in an event loop of its own)."""
        value = self._call(arguments)
        if self._is_async:
            value = _run_async(value)
        return _as_result(value)

    async def ainvoke(self, arguments: JSONValue) -> ToolResult | str:
        """Run with the parsed arguments (a sync function in a thread)."""
        if self._is_async:
            return _as_result(await self._call(arguments))
        return _as_result(await asyncio.to_thread(self._call, arguments))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function itself."""
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"FunctionTool({self._name!r})"


@overload
def tool(func: Callable[..., Any], /) -> FunctionTool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, requires_approval: bool = False
) -> Callable[[Callable[..., Any]], FunctionTool]: ...
def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a :class:`FunctionTool` of a function: ``@tool`` or ``@tool(name=...,
    description=..., requires_approval=True)``."""

    def make(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            f, name=name, description=description, requires_approval=requires_approval
        )

    return make if func is None else make(func)


class ApprovalRequiredTool:
    """A tool whose every call waits for a person's approval (RAF's ``ApprovalRequiredTool``):
    everything else is the wrapped tool's."""

    def __init__(self, inner: Tool) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        """The wrapped tool's name."""
        return self.inner.name

    @property
    def description(self) -> str:
        """The wrapped tool's description."""
        return self.inner.description

    @property
    def parameters(self) -> Mapping[str, JSONValue]:
        """The wrapped tool's schema."""
        return self.inner.parameters

    @property
    def requires_approval(self) -> bool:
        """Always true."""
        return True

    def invoke(self, arguments: JSONValue) -> ToolResult | ToolText | str:
        """Run the wrapped tool."""
        return self.inner.invoke(arguments)

    async def ainvoke(self, arguments: JSONValue) -> ToolResult | ToolText | str:
        """Run the wrapped tool."""
        return await self.inner.ainvoke(arguments)

    def __repr__(self) -> str:
        return f"ApprovalRequiredTool({self.inner!r})"


class ToolRegistry:
    """The tools a loop runs, by exact name.

    Every tool's schema is checked when the registry is made (:func:`check_schema`); two
    tools of one name are an error (``ValueError``).
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, jsonschema.protocols.Validator] = {}
        for item in tools:
            if item.name in self._tools:
                raise ValueError(f"two tools are named {item.name!r}")
            self._add(item)

    def _add(self, item: Tool) -> None:
        own = getattr(item, "validator", None)
        self._validators[item.name] = (
            own if own is not None else check_schema(item.name, item.parameters)
        )
        self._tools[item.name] = item

    def get(self, name: str) -> Tool | None:
        """The tool named ``name`` exactly, or ``None``."""
        return self._tools.get(name)

    def validator(self, name: str) -> jsonschema.protocols.Validator:
        """The validator of the named tool's schema."""
        return self._validators[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self) -> tuple[ToolSpec, ...]:
        """The definitions sent to the model, in the registry's order."""
        return tuple(
            ToolSpec(name=t.name, description=t.description, parameters=dict(t.parameters))
            for t in self._tools.values()
        )

    def merged(self, provider_tools: Iterable[Tool]) -> ToolRegistry:
        """The registry of one call with the options' ``provider_tools`` (raf-spec 5.4): a
        provider tool of a new name is added; one whose name is taken replaces the registry's
        tool only if it requires approval (else the registry's tool stays). Two provider
        tools of one name are an error."""
        given = list(provider_tools)
        if not given:
            return self
        seen: set[str] = set()
        out = ToolRegistry()
        out._tools = dict(self._tools)
        out._validators = dict(self._validators)
        for item in given:
            if item.name in seen:
                raise ValueError(f"two provider tools are named {item.name!r}")
            seen.add(item.name)
            if item.name not in self._tools or item.requires_approval:
                out._add(item)
        return out
