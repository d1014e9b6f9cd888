"""Every model of raf.interop: its table accounts for the whole response, and raf -> model ->
raf keeps exactly what the table says, for every bundled stream under every chunking and for
every agent run."""

from __future__ import annotations

from typing import Any

import pytest

from raf.collect import collect_agent_response
from raf.interop import (
    comparable,
    encode_all,
    get,
    names,
    native_paths,
    native_roundtrip,
    project,
    roundtrip,
)
from raf.interop.base import RESPONSE_FIELDS
from raf.model.canonical import to_canonical
from raf.model.response import AgentResponseResult
from tests.interop.support import (
    Stream,
    agent_runs,
    bundled_streams,
    distinct_results,
    stream_id,
)

MODELS = names()


@pytest.mark.parametrize("name", MODELS)
def test_the_table_accounts_for_every_field_of_the_response(name: str) -> None:
    model = get(name)
    tops = {row.raf.split(".")[0].removesuffix("[]") for row in model.rows}
    assert set(RESPONSE_FIELDS) <= tops, f"{name} says nothing of {set(RESPONSE_FIELDS) - tops}"
    assert tops <= set(RESPONSE_FIELDS), (
        f"{name} has rows for no field: {tops - set(RESPONSE_FIELDS)}"
    )


def _assert_round_trip(name: str, results: tuple[AgentResponseResult, ...]) -> None:
    model = get(name)
    original = collect_agent_response(results)
    back = roundtrip(model, results)
    assert comparable(model, back) == comparable(model, original)


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("stream", bundled_streams(), ids=stream_id)
def test_a_bundled_stream_under_every_chunking_goes_to_the_model_and_back(
    name: str, stream: Stream
) -> None:
    for results in distinct_results(stream):
        _assert_round_trip(name, results)


@pytest.mark.parametrize("name", MODELS)
def test_every_agent_run_goes_to_the_model_and_back(name: str) -> None:
    for _, results in agent_runs():
        _assert_round_trip(name, results)


@pytest.mark.parametrize("name", MODELS)
def test_an_empty_run_still_makes_a_valid_start_and_end(name: str) -> None:
    items = list(encode_all(get(name), []))
    back = roundtrip(get(name), [])
    assert comparable(get(name), back) == comparable(get(name), collect_agent_response([]))
    assert isinstance(items, list)


def _without_raw_items(response: Any) -> Any:
    """``response`` (canonical JSON) without its raw items' blocks."""
    for message in response.get("turn_transcript") or ():
        if message.get("blocks"):
            message["blocks"] = [b for b in message["blocks"] if b.get("type") != "raw"]
    return response


def _assert_native_round_trip(name: str, results: tuple[AgentResponseResult, ...]) -> None:
    model = get(name)
    paths = native_paths(model)
    original = to_canonical(collect_agent_response(results))
    value = next((row for row in model.rows if row.raf == "turn_transcript[].blocks[].value"), None)
    if value is not None and value.extension:
        # A raw item (a provider's item raf does not model: Cohere's citations, the
        # Interactions API's annotations) is all extension data: a plain consumer has no block.
        original = _without_raw_items(original)
    back = to_canonical(native_roundtrip(model, results))
    assert project(back, paths) == project(original, paths)


@pytest.mark.parametrize("name", MODELS)
def test_without_raf_s_extension_the_model_s_own_fields_keep_their_rows(name: str) -> None:
    """A consumer that knows only the model (and none of raf's extension data) still gets
    every row not marked ``extension``, for every bundled stream and agent run."""
    model = get(name)
    if model.native is None:
        assert not any(row.extension for row in model.rows), f"{name} has no native()"
    for stream in bundled_streams():
        for results in distinct_results(stream):
            _assert_native_round_trip(name, results)
    for _, results in agent_runs():
        _assert_native_round_trip(name, results)
