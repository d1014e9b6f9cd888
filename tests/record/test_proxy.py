"""The recording proxy against a fake provider on 127.0.0.1: what a client sees through it,
what it writes, and each record mode. Timing is checked from below only (a recorded pause is
never shortened on replay); nothing is bounded by the clock."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

import raf
from raf.cassettes import load
from raf.cassettes.recorder import fingerprint
from raf.record import RecordingProxy
from raf.serve import ReplayServer
from tests.record.fake_provider import (
    ECHOED_KEY,
    GZIP_CONTENT,
    SECRET_COOKIE,
    FakeProvider,
    sse_chunks,
)

OPENAI_KEY = "sk-proj-" + "Abc123" * 8
ANTHROPIC_KEY = "sk-ant-api03-" + "x1Y2" * 22
GOOGLE_KEY = "AIza" + "SyD3" * 9
BODY = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "Say hello"}],
    "stream": True,
}
EPSILON = 0.02
"""Seconds a replayed read may come early against its recorded time (clock granularity)."""


def _reads(response: httpx.Response) -> tuple[list[bytes], list[float]]:
    """The raw reads of a streamed response and when each arrived, in seconds since the
    head."""
    start = time.perf_counter()
    reads, times = [], []
    for read in response.iter_raw():
        if read:
            reads.append(read)
            times.append(time.perf_counter() - start)
    return reads, times


@contextmanager
def _post(
    url: str, *, body: object = BODY, headers: dict[str, str] | None = None
) -> Iterator[httpx.Response]:
    """A streamed POST; the client is closed on the way out."""
    with (
        httpx.Client(timeout=60) as client,
        client.stream("POST", url, json=body, headers=headers or {}) as response,
    ):
        yield response


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


def _record(
    provider: FakeProvider, folder: Path, scenario: str = "hello", **options: Any
) -> RecordingProxy:
    with (
        RecordingProxy(provider.url, folder, **options) as proxy,
        _post(
            proxy.url(scenario) + "/v1/chat/completions",
            headers={"authorization": f"Bearer {OPENAI_KEY}", "x-api-key": ANTHROPIC_KEY},
        ) as response,
    ):
        assert response.status_code == 200
        response.read()
    return proxy


def test_a_stream_recorded_through_the_proxy_replays_byte_and_read_identical(
    provider: FakeProvider, tmp_path: Path
) -> None:
    proxy = _record(provider, tmp_path)
    assert proxy.saved == [tmp_path / "openai_chat" / "hello.yaml"]
    interaction = load(proxy.saved[0]).interactions[0]
    assert interaction.timing is not None
    assert [size for size, _ in interaction.timing] == [len(c) for c in provider.chunks]
    assert interaction.response.body == b"".join(provider.chunks)
    # raf serve replays it as it came: the same reads, never sooner than recorded
    with ReplayServer([tmp_path], rules="off") as server:
        url = server.case_url("openai_chat", "hello") + "/v1/chat/completions"
        with _post(url) as response:
            assert response.status_code == 200
            reads, times = _reads(response)
    assert reads == provider.chunks
    recorded = 0.0
    for (_, milliseconds), arrived in zip(interaction.timing, times, strict=True):
        recorded += milliseconds / 1000
        assert arrived >= recorded - EPSILON
    assert recorded >= provider.delay * (len(provider.chunks) - 1) - EPSILON


def test_the_client_sees_the_stream_live_not_after_its_end(tmp_path: Path) -> None:
    release = threading.Event()
    with FakeProvider(release=release) as fake, RecordingProxy(fake.url, tmp_path) as proxy:
        with _post(proxy.url("live") + "/v1/chat/completions") as response:
            reads = response.iter_raw()
            first = next(reads)  # the provider holds its last chunk until released
            assert first == fake.chunks[0]
            release.set()
            rest = b"".join(reads)
        assert first + rest == b"".join(fake.chunks)
    assert proxy.saved == [tmp_path / "openai_chat" / "live.yaml"]


def test_no_secret_the_request_or_the_response_carried_reaches_the_file(
    provider: FakeProvider, tmp_path: Path
) -> None:
    with RecordingProxy(provider.url, tmp_path) as proxy:
        headers = {"authorization": f"Bearer {OPENAI_KEY}", "x-api-key": ANTHROPIC_KEY}
        url = proxy.url("leaky")
        with _post(url + "/v1/chat/completions", headers=headers) as response:
            response.read()
        answer = httpx.post(url + f"/v1/echo?key={GOOGLE_KEY}", json=BODY, headers=headers)
        assert answer.json()["api_key"] == ECHOED_KEY  # the client gets it as it came
        failed = httpx.post(url + "/v1/fail", json=BODY, headers=headers)
        assert failed.status_code == 429
    # the provider got the real credentials
    assert provider.requests[0]["headers"]["Authorization"] == f"Bearer {OPENAI_KEY}"
    assert provider.requests[1]["path"].endswith(f"key={GOOGLE_KEY}")
    assert "x-raf-scenario" not in {k.lower() for k in provider.requests[0]["headers"]}
    written = {path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    assert written, "nothing written"
    cookie_value = SECRET_COOKIE.split("=", 1)[1]
    for text in written:
        for secret in (OPENAI_KEY, ANTHROPIC_KEY, GOOGLE_KEY, ECHOED_KEY, cookie_value):
            assert secret.encode() not in text
    [path] = proxy.saved  # one scenario, three interactions in order, the 429 included
    cassette = load(path)
    assert [i.response.status for i in cassette.interactions] == [200, 200, 429]


def test_the_header_says_when_from_where_what_and_by_which_raf(
    provider: FakeProvider, tmp_path: Path
) -> None:
    proxy = _record(provider, tmp_path, max_age="30d", on_expiry="fail")
    info = load(proxy.saved[0]).info
    assert info is not None
    assert info.recorded is not None
    recorded = info.recorded
    assert info.scenario == "hello"
    assert info.dialect == "openai_chat"
    assert recorded.date.endswith("Z")
    assert recorded.date[:2] == "20"
    assert recorded.provider == provider.url
    assert recorded.model == "gpt-4o-mini"
    assert recorded.raf_version == raf.__version__
    assert recorded.fingerprint == fingerprint(
        "POST", "/v1/chat/completions", provider.requests[0]["body"]
    )
    assert recorded.fingerprint.startswith("sha256:")
    assert (recorded.max_age, recorded.on_expiry) == ("30d", "fail")


def test_the_scenario_header_names_the_cassette_and_a_request_naming_none_is_refused(
    provider: FakeProvider, tmp_path: Path
) -> None:
    with RecordingProxy(provider.url, tmp_path) as proxy:
        url = proxy.base_url + "/v1/chat/completions"
        refused = httpx.post(url, json=BODY)
        assert refused.status_code == 400
        assert "x-raf-scenario" in refused.json()["error"]["message"]
        bad = httpx.post(url, json=BODY, headers={"x-raf-scenario": "../etc"})
        assert bad.status_code == 400
        assert "not a name" in bad.json()["error"]["message"]
        with _post(url, headers={"x-raf-scenario": "by_header"}) as response:
            response.read()
    assert proxy.saved == [tmp_path / "openai_chat" / "by_header.yaml"]
    assert len(provider.requests) == 1


def test_a_default_scenario_and_a_chosen_dialect(provider: FakeProvider, tmp_path: Path) -> None:
    proxy = RecordingProxy(provider.url, tmp_path, scenario="fallback", dialect="my_gateway")
    with proxy, _post(proxy.base_url + "/v1/chat/completions") as response:
        response.read()
    assert proxy.saved == [tmp_path / "my_gateway" / "fallback.yaml"]


def test_an_unreachable_provider_is_a_502_and_nothing_is_saved(tmp_path: Path) -> None:
    with FakeProvider() as fake:
        gone = fake.url  # closed on the way out
    with RecordingProxy(gone, tmp_path) as proxy:
        answer = httpx.post(proxy.url("nowhere") + "/v1/chat/completions", json=BODY)
    assert answer.status_code == 502
    assert "cannot reach" in answer.json()["error"]["message"]
    assert proxy.saved == []
    assert not any(tmp_path.iterdir())


# -- modes -------------------------------------------------------------------------------


def test_mode_once_replays_an_existing_cassette_without_asking_the_provider(
    provider: FakeProvider, tmp_path: Path
) -> None:
    _record(provider, tmp_path)
    assert len(provider.requests) == 1
    written = (tmp_path / "openai_chat" / "hello.yaml").read_bytes()
    with RecordingProxy(provider.url, tmp_path, mode="once") as proxy:
        with _post(proxy.url("hello") + "/v1/chat/completions") as response:
            reads, _ = _reads(response)
        assert reads == provider.chunks  # read by read, as recorded
        again = httpx.post(proxy.url("hello") + "/v1/chat/completions", json=BODY)
        assert again.status_code == 404
        assert "hello" in again.json()["error"]["message"]
        assert "once" in again.json()["error"]["message"]
        with _post(proxy.url("fresh") + "/v1/chat/completions") as response:
            response.read()  # a scenario without a cassette is recorded
    assert len(provider.requests) == 2
    assert proxy.saved == [tmp_path / "openai_chat" / "fresh.yaml"]
    assert (tmp_path / "openai_chat" / "hello.yaml").read_bytes() == written


def test_mode_none_only_replays_and_names_the_scenario_and_the_mode(
    provider: FakeProvider, tmp_path: Path
) -> None:
    _record(provider, tmp_path)
    with RecordingProxy(provider.url, tmp_path, mode="none") as proxy:
        with _post(proxy.url("hello") + "/v1/chat/completions") as response:
            assert response.read() == b"".join(provider.chunks)
        other = dict(BODY, messages=[{"role": "user", "content": "Something else"}])
        refused = httpx.post(proxy.url("hello") + "/v1/chat/completions", json=other)
        missing = httpx.post(proxy.url("absent") + "/v1/chat/completions", json=BODY)
    for answer in (refused, missing):
        assert answer.status_code == 404
        message = answer.json()["error"]["message"]
        assert "mode none" in message
    assert "openai_chat/hello" in refused.json()["error"]["message"]
    assert "openai_chat/absent has no cassette" in missing.json()["error"]["message"]
    assert len(provider.requests) == 1
    assert proxy.saved == []


def test_mode_new_episodes_replays_what_matches_and_appends_the_rest(
    provider: FakeProvider, tmp_path: Path
) -> None:
    _record(provider, tmp_path)
    other = dict(BODY, messages=[{"role": "user", "content": "Something else"}])
    with RecordingProxy(provider.url, tmp_path, mode="new_episodes") as proxy:
        url = proxy.url("hello") + "/v1/chat/completions"
        # the same request with another key and user id: the same fingerprint
        same = dict(BODY, user="someone-else")
        with _post(url, body=same, headers={"authorization": "Bearer sk-other"}) as response:
            response.read()
        assert len(provider.requests) == 1
        with _post(url, body=other) as response:
            response.read()
    assert len(provider.requests) == 2
    cassette = load(tmp_path / "openai_chat" / "hello.yaml")
    assert len(cassette.interactions) == 2
    assert "Something else" in str(cassette.interactions[1].request.body)


def test_an_upstream_with_a_path_records_and_replays_under_it(
    provider: FakeProvider, tmp_path: Path
) -> None:
    gateway = provider.url + "/gateway/"
    for mode in ("all", "none"):
        proxy = RecordingProxy(gateway, tmp_path, mode=mode)
        with proxy, _post(proxy.url("gw") + "/v1/chat/completions") as response:
            assert response.status_code == 200
            assert response.read() == b"".join(provider.chunks)
    assert len(provider.requests) == 1  # none replayed it
    assert provider.requests[0]["path"] == "/gateway/v1/chat/completions"
    [interaction] = load(tmp_path / "openai_chat" / "gw.yaml").interactions
    assert interaction.request.uri == provider.url + "/gateway/v1/chat/completions"


def test_mode_all_rewrites_a_scenario_and_keeps_its_rounds_in_order(
    provider: FakeProvider, tmp_path: Path
) -> None:
    _record(provider, tmp_path)
    _record(provider, tmp_path)  # a second session: the cassette holds its one exchange
    assert len(load(tmp_path / "openai_chat" / "hello.yaml").interactions) == 1
    with RecordingProxy(provider.url, tmp_path, mode="all") as proxy:
        for word in ("first", "second", "third"):
            body = dict(BODY, messages=[{"role": "user", "content": word}])
            with _post(proxy.url("rounds") + "/v1/chat/completions", body=body) as response:
                response.read()
    cassette = load(tmp_path / "openai_chat" / "rounds.yaml")
    asked = [
        json.loads(str(i.request.body))["messages"][0]["content"] for i in cassette.interactions
    ]
    assert asked == ["first", "second", "third"]


def test_a_gemini_path_gives_the_dialect_and_the_model(tmp_path: Path) -> None:
    with (
        FakeProvider(chunks=sse_chunks(["x"])) as fake,
        RecordingProxy(fake.url, tmp_path) as proxy,
    ):
        method = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
        with _post(f"{proxy.url('gem')}{method}?alt=sse&key={GOOGLE_KEY}", body={}) as response:
            response.read()
    [path] = proxy.saved
    assert path.parent.name == "gemini"
    info = load(path).info
    assert info is not None
    assert info.recorded is not None
    assert info.recorded.model == "gemini-2.5-flash"
    assert GOOGLE_KEY.encode() not in path.read_bytes()


def test_a_compressed_answer_is_recorded_as_it_came_and_the_client_reads_it(
    provider: FakeProvider, tmp_path: Path
) -> None:
    with RecordingProxy(provider.url, tmp_path) as proxy:
        answer = httpx.post(
            proxy.url("zipped") + "/v1/gzip", json=BODY, headers={"accept-encoding": "gzip"}
        )
    assert answer.content == GZIP_CONTENT  # httpx decoded the bytes the provider sent
    response = load(proxy.saved[0]).interactions[0].response
    assert response.body == gzip.compress(GZIP_CONTENT, mtime=0)
    assert response.header("content-encoding") == "gzip"
    assert response.content() == GZIP_CONTENT


def test_a_client_that_goes_away_mid_stream_does_not_stop_the_recording(
    tmp_path: Path,
) -> None:
    release = threading.Event()
    with FakeProvider(release=release) as fake:
        with RecordingProxy(fake.url, tmp_path) as proxy:
            with _post(proxy.url("left") + "/v1/chat/completions") as response:
                assert next(response.iter_raw()) == fake.chunks[0]
            release.set()  # the client has closed; the provider ends its stream
        # stopping the proxy let the exchange in progress end
        assert proxy.saved == [tmp_path / "openai_chat" / "left.yaml"]
    assert load(proxy.saved[0]).interactions[0].response.body == b"".join(fake.chunks)


def test_a_provider_that_breaks_off_mid_stream_is_not_saved_and_said(
    provider: FakeProvider, tmp_path: Path
) -> None:
    with RecordingProxy(provider.url, tmp_path) as proxy:
        with pytest.raises(httpx.HTTPError), _post(proxy.url("cut") + "/v1/broken") as response:
            response.read()
        alive = httpx.post(proxy.base_url + "/v1/fail", json=BODY, headers={"x-raf-scenario": "ok"})
        assert alive.status_code == 429  # the proxy goes on
    assert proxy.saved == [tmp_path / "unknown" / "ok.yaml"]
    assert any("cut" in line and "broke off" in line for line in proxy.problems)


def test_a_key_the_model_streams_over_two_reads_is_not_written(tmp_path: Path) -> None:
    key = "sk-proj-" + "Strm42" * 8
    chunks = sse_chunks(["my key is ", key[:15], key[15:], " ok"])
    with (
        FakeProvider(chunks=chunks) as fake,
        RecordingProxy(fake.url, tmp_path) as proxy,
        _post(proxy.url("streamed") + "/v1/chat/completions") as response,
    ):
        assert response.read() == b"".join(chunks)  # the client gets it as it came
    written = proxy.saved[0].read_bytes()
    assert key[:15].encode() not in written
    assert key[15:].encode() not in written
    interaction = load(proxy.saved[0]).interactions[0]
    assert interaction.timing is not None
    assert sum(size for size, _ in interaction.timing) == len(interaction.response.body)
