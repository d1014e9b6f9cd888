"""Cassette files: exact round trips, legible bodies, vcrpy compatibility, typed errors."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import vcr

from raf.cassettes import (
    Cassette,
    Expectation,
    Interaction,
    Request,
    Response,
    ScenarioInfo,
    load,
    save,
)
from raf.errors import CassetteFormatError, CassetteNotFound

SSE = b'data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Hi \xc3\xa9"}}]}\n\ndata: [DONE]\n\n'


def cassette(body: bytes, **info: object) -> Cassette:
    return Cassette(
        info=ScenarioInfo(scenario="s", **info),  # type: ignore[arg-type]
        interactions=[
            Interaction(
                request=Request(
                    uri="https://api.openai.com/v1/chat/completions",
                    headers={"content-type": ["application/json"]},
                    body='{\n  "model": "gpt-4o",\n  "stream": true\n}',
                ),
                response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
            )
        ],
    )


@pytest.mark.parametrize(
    "body",
    [
        SSE,
        b"data: a\r\n\r\ndata: b\r\n\r\n",  # CRLF framing
        b"data: a\r\rdata: b\r\r",  # CR-only framing
        b"\xef\xbb\xbfdata: bom\n\n",  # leading BOM
        b"data: trailing space \n\n",
        b"  data: leading spaces\n\n",
        b"data: \xff\xfe not utf-8\n\n",
        b"data: tab\there\n\n",
        b"data: nel\xc2\x85 ls\xe2\x80\xa8 ps\xe2\x80\xa9\n\n",
        b"",
        b"no final newline",
    ],
    ids=[
        "sse",
        "crlf",
        "cr",
        "bom",
        "trailing_space",
        "leading_spaces",
        "invalid_utf8",
        "tab",
        "unicode_separators",
        "empty",
        "no_final_newline",
    ],
)
def test_bodies_round_trip_byte_for_byte(body: bytes, tmp_path: Path) -> None:
    path = save(cassette(body), tmp_path / "c.yaml")
    assert load(path).interactions[0].response.body == body


def test_sse_body_is_a_legible_literal_block(tmp_path: Path) -> None:
    text = save(cassette(SSE), tmp_path / "c.yaml").read_text(encoding="utf-8")
    assert "string: |" in text
    assert (
        '      data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Hi é"}}]}\n'
        in text
    )
    assert "!!binary" not in text


def test_crlf_body_is_escaped_text_and_invalid_utf8_is_binary(tmp_path: Path) -> None:
    assert (
        'string: "data: a\\r\\n'
        in save(cassette(b"data: a\r\n\r\n"), tmp_path / "a.yaml").read_text()
    )
    assert "!!binary" in save(cassette(b"data: \xff\n\n"), tmp_path / "b.yaml").read_text()


def test_info_and_expectation_round_trip(tmp_path: Path) -> None:
    original = cassette(
        SSE,
        provider="OpenAI",
        reproduces=("peers #1",),
        expect=Expectation(text="Hi é", finish_reason="stop"),
    )
    assert load(save(original, tmp_path / "c.yaml")).info == original.info


def test_vcrpy_replays_a_raf_cassette(tmp_path: Path) -> None:
    path = save(cassette(SSE), tmp_path / "c.yaml")
    with vcr.use_cassette(str(path), record_mode="none"), httpx.Client() as client:
        response = client.post(
            "https://api.openai.com/v1/chat/completions", json={"model": "gpt-4o"}
        )
    assert response.status_code == 200
    assert response.content == SSE


def test_missing_file_is_cassette_not_found_and_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        load(tmp_path / "nope.yaml")
    assert isinstance(info.value, CassetteNotFound)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("interactions: [", "not valid YAML"),
        ("- 1\n- 2\n", "not a mapping"),
        ("version: 2\ninteractions: []\n", "format version 2"),
        ("version: 1\n", "'interactions' is missing"),
        ("version: 1\ninteractions:\n- request: {}\n  response: {}\n", "request.uri is missing"),
        (
            "raf: {scenario: s, expect: {text: 1}}\nversion: 1\ninteractions: []\n",
            "raf: Expected `str`",
        ),
        (
            "raf: {scenario: s, nonsense: 1}\nversion: 1\ninteractions: []\n",
            "raf: Object contains unknown field `nonsense`",
        ),
        ("!!python/object:os.system {}\n", "is not allowed"),
    ],
    ids=[
        "yaml",
        "not_mapping",
        "version",
        "no_interactions",
        "no_uri",
        "bad_expect",
        "unknown_field",
        "unsafe_tag",
    ],
)
def test_malformed_files_raise_a_format_error_naming_the_place(
    text: str, problem: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"bad\.yaml") as info:
        load(path)
    assert isinstance(info.value, CassetteFormatError)
    assert problem in str(info.value)


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    save(cassette(SSE), tmp_path / "c.yaml")
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]


def test_recording_a_live_exchange_and_saving_it_scrubs_the_key(tmp_path: Path) -> None:
    from raf.cassettes.recording import interaction_from_httpx  # noqa: PLC0415

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream", "set-cookie": "s=1"}, content=SSE
        )

    with (
        httpx.Client(transport=httpx.MockTransport(server)) as client,
        client.stream(
            "POST",
            "https://api.openai.com/v1/chat/completions",
            json={"model": "gpt-4o", "stream": True},
            headers={"Authorization": "Bearer sk-proj-" + "k" * 40},
        ) as response,
    ):
        body = b"".join(response.iter_bytes())
    interaction = interaction_from_httpx(response, body)
    path = save(
        Cassette(interactions=[interaction], info=ScenarioInfo(scenario="live")),
        tmp_path / "live.yaml",
    )
    text = path.read_text()
    assert "sk-proj" not in text
    assert "s=1" not in text
    loaded = load(path).interactions[0]
    assert loaded.response.body == SSE
    assert loaded.request.body == '{\n  "model": "gpt-4o",\n  "stream": true\n}'


def test_a_recorded_timing_is_kept_replayed_by_vcrpy_as_the_body_and_checked(
    tmp_path: Path,
) -> None:
    timed = cassette(SSE)
    timed.interactions[0].timing = [(10, 0.0), (len(SSE) - 10, 125.5)]
    path = save(timed, tmp_path / "timed.yaml")
    assert "timing:" in path.read_text()
    loaded = load(path).interactions[0]
    assert loaded.timing == [(10, 0.0), (len(SSE) - 10, 125.5)]
    assert loaded.timed_chunks() == ([SSE[:10], SSE[10:]], [0.0, 0.1255])
    with vcr.use_cassette(str(path), record_mode="none"), httpx.Client() as client:
        assert client.post("https://api.openai.com/v1/chat/completions").content == SSE
    for bad, says in [
        ("[[10, 0.0]]", "the reads add up to 10 bytes"),
        ("[[0, 1.0]]", "is not [bytes > 0"),
        ("[[10, -1]]", "is not [bytes > 0"),
        ("{a: 1}", "is not a list"),
    ]:
        text = path.read_text().replace(
            f"  timing:\n  - - 10\n    - 0.0\n  - - {len(SSE) - 10}\n    - 125.5\n",
            f"  timing: {bad}\n",
        )
        assert f"timing: {bad}" in text
        broken = tmp_path / "broken.yaml"
        broken.write_text(text)
        with pytest.raises(CassetteFormatError) as refused:
            load(broken)
        assert says in str(refused.value)


def test_timed_reads_record_each_read_and_scrubbing_keeps_the_timing_in_step(
    tmp_path: Path,
) -> None:
    from raf.cassettes.recording import TimedReads, interaction_from_httpx  # noqa: PLC0415

    secret = "sk-proj-" + "Q7w9" * 10
    body = f'data: {{"choices":[{{"index":0,"delta":{{"content":"key {secret}"}}}}]}}\n\n'.encode()

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    with (
        httpx.Client(transport=httpx.MockTransport(server)) as client,
        client.stream("POST", "https://api.openai.com/v1/chat/completions", json={}) as response,
    ):
        reads = TimedReads(response.iter_bytes())
        received = b"".join(reads)
    assert received == body
    assert sum(size for size, _ in reads.timing) == len(body)
    assert all(ms >= 0 for _, ms in reads.timing)
    interaction = interaction_from_httpx(response, received, timing=reads.timing)
    path = save(
        Cassette(interactions=[interaction], info=ScenarioInfo(scenario="t")), tmp_path / "t.yaml"
    )
    loaded = load(path).interactions[0]
    assert secret not in loaded.response.body.decode()
    assert loaded.timing is not None
    assert sum(size for size, _ in loaded.timing) == len(loaded.response.body)
