"""``raf cost --client``: the matrix's libraries read the probe's streams over ``raf serve`` (in
its own process, 4-byte HTTP chunks), whole, and a client whose framing rescans its buffer is
reported over HTTP too. Ratios measured in one run; small sizes."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from raf import clients
from raf.clients.base import ClientCase
from raf.fuzz import cost
from raf.fuzz.cost_run import client_runner, serve_process, served_cassettes, warm
from raf.shared.client_response import ClientResponse
from tests.clients.support import library

KiB = 1024
QUADRATIC = Path(__file__).parents[1] / "fuzz" / "broken" / "quadratic_client.py"


def probe(adapter: Any, format: str, sizes: tuple[int, ...], **options: Any) -> cost.Probe:
    plans = [d for size in sizes for d in cost.deliveries(format, size).values()]
    with served_cassettes(plans) as folder, serve_process(folder) as server:
        warm(server.url, plans)
        return cost.measure(
            format,
            client_runner(adapter, server, "fixed-4"),
            time.perf_counter,
            sizes=sizes,
            **options,
        )


@pytest.mark.parametrize(
    ("name", "format", "module"),
    [("openai", "openai_chat", "openai"), ("anthropic", "anthropic_messages", "anthropic")],
)
def test_a_library_reads_the_long_event_whole_and_is_not_reported(
    name: str, format: str, module: str
) -> None:
    library(module)
    result = probe(clients.adapter(name), format, (64 * KiB,), repeats=2, budget=30.0)
    verdict = cost.judge(result)
    assert verdict.findings == (), verdict
    assert verdict.ratio is not None
    assert verdict.ratio < cost.DEFAULT_FACTOR


class QuadraticOverHttp:
    """A client of raf serve whose SSE framing rescans its buffer on every read (the broken
    stdio client's, fed httpx's reads)."""

    def __init__(self) -> None:
        spec = importlib.util.spec_from_file_location("quadratic_client", QUADRATIC)
        assert spec is not None
        assert spec.loader is not None
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    def run(self, case: ClientCase) -> ClientResponse:
        with httpx.stream(
            "POST", case.base_url + case.path, json=case.request, timeout=case.timeout
        ) as response:
            answer = self.module.answer(list(response.iter_bytes()))
        return ClientResponse(text=answer["text"])


def test_a_quadratic_client_is_reported_over_http() -> None:
    result = probe(QuadraticOverHttp(), "openai_chat", (128 * KiB,), repeats=1, budget=20.0)
    verdict = cost.judge(result)
    assert verdict.performance, verdict
