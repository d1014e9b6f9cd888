"""The recorder's bookkeeping, without a socket or a clock (raf.cassettes.recorder)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from raf.cassettes.format import NAME_RULE, Cassette, Interaction, Request, Response
from raf.cassettes.recorder import (
    Episodes,
    Forward,
    Recorder,
    Refuse,
    Replay,
    Route,
    dialect_of,
    fingerprint,
    model_of,
    recorded_header,
    replay_cuts,
    request_fingerprint,
    route,
    upstream_uri,
)
from raf.cassettes.scrub import scrub_cassette

BODY = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})


@pytest.mark.parametrize(
    ("target", "headers", "default", "expected"),
    [
        ("/s/case_1/v1/chat/completions", {}, None, Route("case_1", "/v1/chat/completions")),
        ("/s/case_1/v1/x?alt=sse", {}, None, Route("case_1", "/v1/x?alt=sse")),
        ("/s/case_1", {}, None, Route("case_1", "/")),
        ("/v1/messages", {"X-Raf-Scenario": "by-header"}, None, Route("by-header", "/v1/messages")),
        ("/s/same/v1/m", {"x-raf-scenario": "same"}, None, Route("same", "/v1/m")),
        ("/v1/messages", {}, "fallback", Route("fallback", "/v1/messages")),
    ],
)
def test_a_request_names_its_scenario_by_prefix_header_or_default(
    target: str, headers: dict[str, str], default: str | None, expected: Route
) -> None:
    assert route(target, headers, default) == expected


@pytest.mark.parametrize(
    ("target", "headers", "why"),
    [
        ("/v1/chat/completions", {}, "no scenario"),
        ("/s/Upper/v1/x", {}, NAME_RULE),
        ("/s/%2E%2E/v1/x", {}, NAME_RULE),
        ("/v1/x", {"x-raf-scenario": "a/b"}, NAME_RULE),
        ("/s/one/v1/x", {"x-raf-scenario": "two"}, "name one"),
    ],
)
def test_a_request_without_a_usable_name_is_a_400_that_says_why(
    target: str, headers: dict[str, str], why: str
) -> None:
    refused = route(target, headers)
    assert isinstance(refused, Refuse)
    assert refused.status == 400
    assert why in refused.message


def test_the_fingerprint_ignores_secrets_volatile_members_and_key_order() -> None:
    base = fingerprint("POST", "/v1/chat/completions", BODY)
    assert base.startswith("sha256:")
    assert len(base) == len("sha256:") + 64
    same = [
        fingerprint("post", "/v1/chat/completions", json.dumps(json.loads(BODY), indent=2)),
        fingerprint(
            "POST",
            "/v1/chat/completions?key=AIza" + "k" * 35,
            json.dumps({"messages": json.loads(BODY)["messages"], "model": "gpt-4o"}),
        ),
        fingerprint(
            "POST",
            "/v1/chat/completions",
            json.dumps(
                {**json.loads(BODY), "user": "u-1", "metadata": {"run": 7}, "api_key": "sk-x"}
            ),
        ),
    ]
    assert set(same) == {base}
    different = [
        fingerprint("GET", "/v1/chat/completions", BODY),
        fingerprint("POST", "/v1/completions", BODY),
        fingerprint("POST", "/v1/chat/completions?alt=sse", BODY),
        fingerprint("POST", "/v1/chat/completions", BODY.replace("hi", "ho")),
        fingerprint("POST", "/v1/chat/completions", None),
    ]
    assert len(set(different) | {base}) == len(different) + 1


def test_a_recorded_request_scrubbed_keeps_its_fingerprint() -> None:
    key = "sk-proj-" + "Abc123" * 8
    live = json.dumps({**json.loads(BODY), "api_key": key, "note": f"key {key}"})
    request = Request(uri=f"https://api.example.com/v1/chat/completions?key={key}", body=live)
    cassette = Cassette(interactions=[Interaction(request=request, response=Response())])
    scrubbed = scrub_cassette(cassette).interactions[0].request
    assert key not in str(scrubbed.body)
    assert request_fingerprint(scrubbed) == fingerprint(
        "POST", f"/v1/chat/completions?key={key}", live
    )


def test_the_model_comes_from_the_body_or_the_gemini_path() -> None:
    assert model_of("/v1/chat/completions", BODY) == "gpt-4o"
    assert model_of("/v1beta/models/gemini-2.5-pro:streamGenerateContent", "{}") == "gemini-2.5-pro"
    assert model_of("/v1/chat/completions", b"not json") == ""
    assert dialect_of("/v1/chat/completions") == "openai_chat"
    assert dialect_of("/v1/messages") == "anthropic_messages"
    assert dialect_of("/v1/messages", "mine") == "mine"
    assert dialect_of("/whatever") == "unknown"


def test_the_header_is_utc_to_the_second_with_the_provider_scrubbed() -> None:
    when = datetime(2026, 12, 3, 15, 0, 1, 999, tzinfo=timezone(timedelta(hours=1)))
    header = recorded_header(
        when=when,
        provider="https://user:pw@api.example.com",
        model="m",
        digest="sha256:0",
        version="9",
        max_age="2w",
        on_expiry="fail",
    )
    assert header.date == "2026-12-03T14:00:01Z"
    assert header.provider == "https://api.example.com"
    assert (header.model, header.fingerprint, header.raf_version) == ("m", "sha256:0", "9")
    assert (header.max_age, header.on_expiry) == ("2w", "fail")


def test_the_recorder_keeps_each_read_and_the_time_since_the_previous() -> None:
    recorder = Recorder(
        "post",
        "https://api.example.com/v1/chat/completions",
        [("Authorization", "Bearer x"), ("x-raf-scenario", "s"), ("Connection", "keep-alive")],
        BODY.encode(),
    )
    recorder.head(
        200,
        "OK",
        [("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked")],
        at=10.0,
    )
    recorder.read(b"data: a\n\n", at=10.25)
    recorder.read(b"", at=10.3)  # not a read
    recorder.read(b"data: b\n\n", at=10.75)
    interaction = recorder.interaction()
    assert interaction.timing == [(9, 250.0), (9, 500.0)]
    assert interaction.response.body == b"data: a\n\ndata: b\n\n"
    assert interaction.response.headers == {"Content-Type": ["text/event-stream"]}
    assert interaction.request.method == "POST"
    assert interaction.request.headers == {"Authorization": ["Bearer x"]}
    assert json.loads(str(interaction.request.body)) == json.loads(BODY)
    assert replay_cuts(interaction) == [(b"data: a\n\n", 0.25), (b"data: b\n\n", 0.5)]


def test_the_upstream_url_keeps_the_base_path_and_the_query() -> None:
    assert upstream_uri("https://h/openai/", "/v1/x?alt=sse") == "https://h/openai/v1/x?alt=sse"
    assert (
        upstream_uri("http://h:8", "/v1beta/models/g:stream") == "http://h:8/v1beta/models/g:stream"
    )


def _interaction(content: str) -> Interaction:
    body = json.dumps({"messages": [{"role": "user", "content": content}]})
    return Interaction(
        request=Request(uri="https://h/v1/chat/completions", body=body),
        response=Response(body=content.encode()),
    )


def _print(content: str) -> str:
    return request_fingerprint(_interaction(content).request)


def test_each_mode_decides_as_pytest_recording_does() -> None:
    found = [_interaction("a"), _interaction("b")]
    assert isinstance(Episodes("d", "s", "all", found).decide(_print("a")), Forward)
    assert isinstance(Episodes("d", "s", "once", None).decide(_print("a")), Forward)

    once = Episodes("d", "s", "once", found)
    decisions = [once.decide(_print("zzz")) for _ in range(3)]
    assert [d.index for d in decisions[:2] if isinstance(d, Replay)] == [0, 1]
    assert isinstance(decisions[2], Refuse)
    assert "d/s" in decisions[2].message
    assert "once" in decisions[2].message

    episodes = Episodes("d", "s", "new_episodes", found)
    first = episodes.decide(_print("b"))
    assert isinstance(first, Replay)
    assert first.index == 1
    assert isinstance(episodes.decide(_print("b")), Forward)  # b was used; a new episode
    assert isinstance(episodes.decide(_print("c")), Forward)
    assert episodes.recorded(_interaction("c")) == [*found, _interaction("c")]

    none = Episodes("d", "s", "none", found)
    replayed = none.decide(_print("a"))
    assert isinstance(replayed, Replay)
    assert replayed.index == 0
    refused = none.decide(_print("c"))
    assert isinstance(refused, Refuse)
    assert "mode none" in refused.message
    missing = Episodes("d", "s", "none", None).decide(_print("a"))
    assert isinstance(missing, Refuse)
    assert "has no cassette" in missing.message


def test_all_keeps_only_this_sessions_exchanges() -> None:
    episodes = Episodes("d", "s", "all", None)
    assert episodes.recorded(_interaction("x")) == [_interaction("x")]
    assert episodes.recorded(_interaction("y")) == [_interaction("x"), _interaction("y")]
