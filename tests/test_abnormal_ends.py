"""Every abnormal end of a stream leaves a complete partial response: a dropped connection, a
read timeout, cancellation, ``asyncio.timeout`` and ``KeyboardInterrupt``. The text, the
reasoning, the finished calls and each call still streaming (with its raw arguments and a
code) are recoverable the documented way, and cancellation still propagates as asyncio
expects."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from raf.collect import ResponseCollector, acollect_agent_response, collect_agent_response
from raf.errors import AgentResponseError
from raf.model import AgentResponse, contents
from raf.model.response import AgentResponseResult
from raf.pipeline import Pipeline, arespond, arun, cancelled_error, respond, run
from raf.transport import aiter_response, iter_response
from tests.loopback import serve


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return (
        b"data: " + json.dumps({"id": "r1", "model": "m", "choices": [choice]}).encode() + b"\n\n"
    )


def call(index: int, arguments: str, name: str | None = None) -> bytes:
    function: dict[str, Any] = {"arguments": arguments}
    entry: dict[str, Any] = {"index": index, "function": function}
    if name is not None:
        function["name"] = name
        entry["id"] = f"call_{index}"
    return chunk({"tool_calls": [entry]})


# Thinking, a sentence, one finished call, and a second call cut inside its arguments.
BEFORE_THE_DROP = [
    chunk({"role": "assistant", "reasoning_content": "Look it up."}),
    chunk({"content": "Checking "}),
    chunk({"content": "both."}),
    call(0, "", name="get_weather"),
    call(0, '{"city": "Paris"}'),
    call(1, '{"city": "Li', name="get_weather"),
]


def assert_partial(response: AgentResponse, *, first_error: str) -> None:
    assert response.text == "Checking both."
    assert response.reasoning_text == "Look it up."
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_0", "get_weather", {"city": "Paris"})
    ]
    assert [(e.error_code, e.call_id, e.raw) for e in response.errors] == [
        (first_error, None, None),
        ("tool_call_incomplete", "call_1", '{"city": "Li'),
    ]
    assert response.finish_reason is None


def dropping(pieces: list[bytes], exc: BaseException) -> Iterator[bytes]:
    yield from pieces
    raise exc


async def stalling(pieces: list[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece
    await asyncio.sleep(30)  # the server goes quiet
    yield b""  # pragma: no cover


# -- the chunk source raises ----------------------------------------------------------------


def test_respond_after_a_dropped_connection_has_text_finished_calls_and_the_streaming_call() -> (
    None
):
    with pytest.raises(AgentResponseError) as info:
        respond(dropping(BEFORE_THE_DROP, ConnectionResetError("peer reset")))
    assert_partial(info.value.response, first_error="transport_error")
    assert isinstance(info.value.__cause__, ConnectionResetError)
    assert "ConnectionResetError: peer reset" in info.value.response.errors[0].message


def test_run_yields_the_error_and_the_final_result_before_re_raising() -> None:
    seen: list[AgentResponseResult] = []
    with pytest.raises(ConnectionResetError):
        seen.extend(run(dropping(BEFORE_THE_DROP, ConnectionResetError())))
    final = seen[-1]
    assert final.id == "r1"
    assert [type(c) for c in final.contents] == [
        contents.ToolCallEnd,
        contents.ToolCallEnd,
        contents.ToolCalling,
        contents.Error,
    ]
    assert_partial(collect_agent_response(seen), first_error="transport_error")


def test_a_call_whose_arguments_never_came_is_incomplete_not_called_with_empty_arguments() -> None:
    pieces = [chunk({"content": "Hi"}), call(0, "", name="delete_everything")]
    with pytest.raises(AgentResponseError) as info:
        respond(dropping(pieces, TimeoutError()))
    response = info.value.response
    assert response.tool_calls == ()
    assert [(e.error_code, e.raw) for e in response.errors] == [
        ("transport_error", None),
        ("tool_call_incomplete", ""),
    ]


def test_after_the_finish_reason_a_drop_costs_nothing_but_the_report() -> None:
    pieces = [*BEFORE_THE_DROP[:5], chunk({}, finish="tool_calls")]
    with pytest.raises(AgentResponseError) as info:
        respond(dropping(pieces, ConnectionResetError()))
    response = info.value.response
    assert response.finish_reason == "tool_calls"
    assert [c.arguments for c in response.tool_calls] == [{"city": "Paris"}]
    assert [e.error_code for e in response.errors] == ["transport_error"]


def test_a_truncated_body_reports_the_call_that_was_streaming() -> None:
    response = respond([b"".join(BEFORE_THE_DROP)])  # the body just ends
    assert_partial(response, first_error="stream_truncated")


def test_keyboard_interrupt_propagates_and_the_collector_holds_the_partial_response() -> None:
    collector = ResponseCollector()
    with pytest.raises(KeyboardInterrupt):
        respond(dropping(BEFORE_THE_DROP, KeyboardInterrupt()), collector=collector)
    assert_partial(collector.response(), first_error="cancelled")


def test_a_caller_driving_the_pipeline_closes_an_interrupted_turn_with_fail() -> None:
    pipeline = Pipeline()
    collector = ResponseCollector()
    for piece in BEFORE_THE_DROP:
        for result in pipeline.feed(piece):
            collector.add(result)
    for result in pipeline.fail(cancelled_error(KeyboardInterrupt())):
        collector.add(result)
    assert_partial(collector.response(), first_error="cancelled")
    assert pipeline.fail(cancelled_error()) == []  # already closed
    assert pipeline.close() == []


# -- asyncio ----------------------------------------------------------------------------------


def test_asyncio_timeout_raises_timeout_error_and_the_collector_has_the_partial_response() -> None:
    async def main() -> tuple[ResponseCollector, int]:
        collector = ResponseCollector()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await arespond(stalling(BEFORE_THE_DROP), collector=collector)
        task = asyncio.current_task()
        assert task is not None
        return collector, task.cancelling()

    collector, cancelling = asyncio.run(main())
    assert cancelling == 0  # the timeout's cancellation was consumed by asyncio.timeout
    assert_partial(collector.response(), first_error="cancelled")


def test_task_cancel_propagates_and_the_collector_has_the_partial_response() -> None:
    async def main() -> ResponseCollector:
        collector = ResponseCollector()
        task = asyncio.create_task(arespond(stalling(BEFORE_THE_DROP), collector=collector))
        for _ in range(500):  # until everything before the stall has arrived
            if collector.response().text == "Checking both.":
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()
        return collector

    assert_partial(asyncio.run(main()).response(), first_error="cancelled")


def test_cancellation_inside_a_task_group_still_cancels_the_group() -> None:
    async def main() -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(arespond(stalling(BEFORE_THE_DROP)))
            await asyncio.sleep(0.05)
            raise RuntimeError("stop everything")

    with pytest.raises(ExceptionGroup) as info:
        asyncio.run(main())
    assert info.group_contains(RuntimeError)


def test_an_async_source_that_raises_gives_agent_response_error_with_everything() -> None:
    async def source() -> AsyncIterator[bytes]:
        for piece in BEFORE_THE_DROP:
            yield piece
        raise ConnectionResetError("gone")

    async def main() -> AgentResponse:
        with pytest.raises(AgentResponseError) as info:
            await arespond(source())
        response: AgentResponse = info.value.response
        return response

    assert_partial(asyncio.run(main()), first_error="transport_error")


def test_item_10_every_async_entry_point_keeps_the_partial_response_when_cancelled() -> None:
    # The pieces before the stall are yielded without a pause, so the timeout (and the
    # cancel) always lands at the stall, however loaded the machine.
    def client() -> httpx.AsyncClient:
        class Body(httpx.AsyncByteStream):
            def __aiter__(self) -> AsyncIterator[bytes]:
                return stalling(BEFORE_THE_DROP)

        return httpx.AsyncClient(
            transport=httpx.MockTransport(lambda request: httpx.Response(200, stream=Body()))
        )

    async def consume(entry: str, collector: ResponseCollector) -> None:
        async with client() as http, http.stream("POST", "http://raf.invalid/v1") as response:
            if entry == "aiter_response":
                async for _ in aiter_response(response, collector=collector):
                    pass
            elif entry == "acollect_agent_response(aiter_response)":
                await acollect_agent_response(aiter_response(response), collector=collector)
            elif entry == "both given the collector":  # added once, not twice
                results = aiter_response(response, collector=collector)
                await acollect_agent_response(results, collector=collector)
            elif entry == "acollect_agent_response(arun)":
                await acollect_agent_response(arun(stalling(BEFORE_THE_DROP)), collector=collector)
            else:
                await arespond(stalling(BEFORE_THE_DROP), collector=collector)

    entries = [
        "aiter_response",
        "acollect_agent_response(aiter_response)",
        "both given the collector",
        "acollect_agent_response(arun)",
        "arespond",
    ]

    async def by_timeout(entry: str) -> ResponseCollector:
        collector = ResponseCollector()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await consume(entry, collector)
        return collector

    async def by_cancel(entry: str) -> ResponseCollector:
        collector = ResponseCollector()
        task = asyncio.create_task(consume(entry, collector))
        while "Checking both." not in collector.response().text:  # progress, not time
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return collector

    for entry in entries:
        for interrupt in (by_timeout, by_cancel):
            collector = asyncio.run(interrupt(entry))
            try:
                assert_partial(collector.response(), first_error="cancelled")
            except AssertionError as exc:
                raise AssertionError(f"{entry} under {interrupt.__name__}") from exc

    # The sync twins: KeyboardInterrupt is closed into the collector the same way.
    collector = ResponseCollector()
    with pytest.raises(KeyboardInterrupt):
        collect_agent_response(
            run(dropping(BEFORE_THE_DROP, KeyboardInterrupt())), collector=collector
        )
    assert_partial(collector.response(), first_error="cancelled")


# -- a real socket ----------------------------------------------------------------------------


def test_a_connection_reset_mid_stream_over_a_real_socket() -> None:
    with serve(BEFORE_THE_DROP, finish=False) as url, httpx.Client() as client:
        results: list[AgentResponseResult] = []
        with (
            client.stream("POST", url + "/v1/chat/completions") as response,
            pytest.raises(httpx.TransportError),
        ):
            results.extend(iter_response(response))
    assert_partial(collect_agent_response(results), first_error="transport_error")


def test_a_read_timeout_over_a_real_socket() -> None:
    # The first piece comes with the headers and then the server goes quiet for as long as
    # the test lasts, so the read timeout can only fire at the stall. Waiting for the headers
    # is bounded by the same read timeout, which a loaded machine can pass before the server
    # thread answers: then the run is tried again with a longer one.
    for read in (0.3, 1.0, 3.0, 10.0, 30.0):
        timeout = httpx.Timeout(5.0, read=read)
        results: list[AgentResponseResult] = []
        try:
            with (
                serve(BEFORE_THE_DROP, stall_after_first=True) as url,
                httpx.Client(timeout=timeout) as client,
                client.stream("POST", url + "/v1/chat/completions") as response,
            ):
                with pytest.raises(httpx.ReadTimeout):
                    results.extend(iter_response(response))
                break
        except httpx.ReadTimeout:  # no headers within the read timeout: a busy machine
            continue
    collected = collect_agent_response(results)
    assert collected.text == ""  # only the first event (reasoning) arrived before the stall
    assert collected.reasoning_text == "Look it up."
    assert [e.error_code for e in collected.errors] == ["transport_error"]
    assert "ReadTimeout" in collected.errors[0].message


def test_asyncio_timeout_around_a_real_async_client() -> None:
    collector = ResponseCollector()

    async def consume(response: httpx.Response) -> None:
        # The first piece arrived with the headers: it is read without waiting, so the
        # timeout fires at the stall, on a loaded machine too.
        async with asyncio.timeout(0.3):
            async for result in aiter_response(response):
                collector.add(result)

    async def main() -> None:
        # No read timeout of its own: the headers may take long on a loaded machine (60 s is
        # the guard against a server that never answers).
        async with httpx.AsyncClient(timeout=60) as client:
            with serve(BEFORE_THE_DROP, stall_after_first=True) as url:
                async with client.stream("POST", url + "/v1/chat/completions") as response:
                    with pytest.raises(TimeoutError):
                        await consume(response)

    asyncio.run(main())
    assert collector.response().reasoning_text == "Look it up."


def test_an_error_status_body_is_read_only_up_to_its_limit() -> None:
    huge = [b"x" * 60_000] * 20  # 1.2 MB of error body
    with (
        serve(huge, status="500 Internal Server Error", content_type="text/plain") as url,
        httpx.Client() as client,
        client.stream("POST", url) as response,
    ):
        results = list(iter_response(response))
    (error,) = collect_agent_response(results).errors
    assert error.error_code == "http_error"
    assert error.message.startswith("HTTP 500 Internal Server Error: ")
    assert error.raw is not None
    assert len(error.raw) < 5000
