"""Tools: the JSON Schema a function's signature and docstring give, what a function tool
returns, the registry's rules (raf-spec 1.8 and 5.4)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Literal

import jsonschema
import msgspec
import pytest

from raf.agent.tools import (
    ApprovalRequiredTool,
    FunctionTool,
    ToolRegistry,
    ToolResult,
    ToolSchemaError,
    parse_docstring,
    tool,
)
from raf.model.request import ToolSpec


class Point(msgspec.Struct):
    x: int
    y: int = 0


class Node(msgspec.Struct):
    value: int
    children: list[Node] = []


def test_the_schema_comes_from_the_signature_and_the_docstring() -> None:
    @tool
    def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int | None = None) -> str:
        """Get the weather of a city.

        Longer text that is not the summary.

        Args:
            city: The city's name,
                in full.
            unit (str): Celsius or Fahrenheit.

        Returns:
            The forecast.
        """
        return city

    assert get_weather.name == "get_weather"
    assert get_weather.description == "Get the weather of a city."
    assert get_weather.requires_approval is False
    assert get_weather.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city's name, in full."},
            "unit": {"enum": ["c", "f"], "default": "c", "description": "Celsius or Fahrenheit."},
            "days": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        },
        "required": ["city"],
    }


def test_nested_types_are_inlined_and_recursive_ones_kept_in_defs() -> None:
    @tool
    def move(to: Point, tree: Node | None = None) -> str:
        return "ok"

    props = move.parameters["properties"]
    assert isinstance(props, dict)
    assert props["to"] == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
        "required": ["x"],
    }
    assert "$defs" in move.parameters
    assert "Node" in move.parameters["$defs"]
    # The function receives its arguments converted to the annotated types.
    seen: list[Any] = []

    @tool
    def place(to: Point) -> None:
        seen.append(to)

    assert place.invoke({"to": {"x": 2}}) == ToolResult.success(None)
    assert seen == [Point(x=2, y=0)]


def test_the_decorator_takes_a_name_a_description_and_approval() -> None:
    @tool(name="lookup", description="Look it up.", requires_approval=True)
    def f(q: str) -> str:
        """Ignored."""
        return q

    assert (f.name, f.description, f.requires_approval) == ("lookup", "Look it up.", True)
    assert f("x") == "x"  # still callable as the function


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        ("plain text", "plain text"),
        (ToolResult.failure("no such city"), ToolResult.failure("no such city")),
        ({"t": 21}, ToolResult.success({"t": 21})),
        (None, ToolResult.success(None)),
        (Point(x=1), ToolResult.success({"x": 1, "y": 0})),
    ],
)
def test_what_a_function_returns_is_what_the_loop_sends(returned: Any, expected: Any) -> None:
    made = FunctionTool(lambda: returned, name="f")
    assert made.invoke({}) == expected
    assert asyncio.run(made.ainvoke({})) == expected


def test_a_result_that_is_not_json_is_raf_specs_serialize_failure() -> None:
    made = FunctionTool(object, name="f")
    result = made.invoke({})
    assert isinstance(result, ToolResult)
    assert result.ok is False
    assert result.error is not None
    assert result.error.startswith("serialize: ")


def test_a_sync_tool_runs_in_a_thread_and_an_async_one_in_its_own_loop() -> None:
    threads: list[int] = []

    @tool
    def sync_tool() -> str:
        threads.append(threading.get_ident())
        return "s"

    @tool
    async def async_tool() -> str:
        threads.append(threading.get_ident())
        await asyncio.sleep(0)
        return "a"

    async def main() -> tuple[Any, Any]:
        return await sync_tool.ainvoke({}), await async_tool.ainvoke({})

    assert asyncio.run(main()) == ("s", "a")
    assert threads[0] != threading.get_ident()  # asyncio.to_thread
    assert async_tool.invoke({}) == "a"  # the sync loop: an event loop of its own


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"type": "objekt"}, "invalid JSON Schema at type"),
        ({"type": "object", "properties": {"a": {"minLength": -1}}}, "properties/a/minLength"),
        ({"type": "object", "required": "a"}, "at required"),
    ],
)
def test_an_invalid_schema_is_an_error_when_the_tool_is_made(
    parameters: dict[str, Any], message: str
) -> None:
    class Raw:
        name = "raw"
        description = ""
        requires_approval = False

        def __init__(self) -> None:
            self.parameters = parameters

        def invoke(self, arguments: Any) -> str:
            return ""

        async def ainvoke(self, arguments: Any) -> str:
            return ""

    with pytest.raises(ToolSchemaError, match=message):
        ToolRegistry([Raw()])


def test_a_signature_without_a_schema_is_an_error_when_the_tool_is_made() -> None:
    def star(*args: int) -> None: ...

    def unknown(x: threading.Lock) -> None: ...

    with pytest.raises(ToolSchemaError, match="named parameter"):
        tool(star)
    with pytest.raises(ToolSchemaError, match="no JSON Schema"):
        tool(unknown)


def test_docstring_sections() -> None:
    summary, params = parse_docstring(
        """Summary line
        continued.

        Args:
            a: first.
            b (int, optional): second,
                more.
        Raises:
            ValueError: never.
        """
    )
    assert summary == "Summary line continued."
    assert params == {"a": "first.", "b": "second, more."}
    assert parse_docstring(None) == ("", {})


def make(name: str, *, approval: bool = False) -> FunctionTool:
    return FunctionTool(lambda: name, name=name, requires_approval=approval)


def test_the_registry_finds_tools_by_exact_name_and_refuses_duplicates() -> None:
    registry = ToolRegistry([make("a"), make("b")])
    assert registry.get("a") is not None
    assert registry.get("A") is None
    assert [spec.name for spec in registry.specs()] == ["a", "b"]
    assert registry.specs()[0] == ToolSpec(
        name="a", description="", parameters={"type": "object", "properties": {}, "required": []}
    )
    with pytest.raises(ValueError, match="two tools are named 'a'"):
        ToolRegistry([make("a"), make("a")])


def test_provider_tools_merge_by_raf_spec_5_4() -> None:
    static = make("a")
    registry = ToolRegistry([static])
    plain, approving, new = make("a"), make("a", approval=True), make("n")
    assert registry.merged([plain]).get("a") is static  # a taken name: the static one stays
    assert registry.merged([approving]).get("a") is approving  # ...unless it requires approval
    assert registry.merged([new]).get("n") is new
    assert registry.merged([]) is registry
    assert registry.get("n") is None  # the registry itself is unchanged
    with pytest.raises(ValueError, match="two provider tools"):
        registry.merged([new, make("n")])


def test_approval_required_tool_delegates_everything_else() -> None:
    inner = make("a")
    wrapped = ApprovalRequiredTool(inner)
    assert wrapped.requires_approval is True
    assert (wrapped.name, wrapped.description, wrapped.parameters) == (
        inner.name,
        inner.description,
        inner.parameters,
    )
    assert wrapped.invoke({}) == "a"
    assert asyncio.run(wrapped.ainvoke({})) == "a"


def test_an_integral_number_reaches_an_int_parameter_as_json_schema_allows() -> None:
    """JSON Schema counts ``2.0`` as an integer, so the loop's check lets it through: the
    function gets ``2``, not a framework error."""

    @tool
    def repeat(word: str, times: int) -> str:
        """Repeat a word."""
        return " ".join([word] * times)

    jsonschema.validate({"word": "hi", "times": 2.0}, dict(repeat.parameters))
    assert repeat.invoke({"word": "hi", "times": 2.0}) == "hi hi"
