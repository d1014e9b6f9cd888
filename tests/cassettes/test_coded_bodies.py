"""A cassette recorded with a ``content-encoding: gzip|deflate|br`` body reads as its decoded
twin everywhere a client's view of the body counts: ``raf serve`` (over 127.0.0.1), the
conformance cases and goldens, ``raf cassette show`` and ``expect``, lint's event-stream
warning. A body that does not decode is a named problem in each, never a traceback."""

from __future__ import annotations

import gzip
import logging
import zlib
from collections.abc import Callable
from pathlib import Path

import brotli
import httpx
import msgspec
import pytest
from rich.console import Console

from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.format import Cassette, Interaction, Request, Response
from raf.cassettes.lint import lint_file
from raf.cassettes.persister import load, save
from raf.cassettes.show import render
from raf.cli import main
from raf.collect import collect_agent_response
from raf.conformance import goldens
from raf.conformance.bundled import bundled
from raf.conformance.cases import load_suite
from raf.conformance.draft import draft_expectation
from raf.conformance.implementation import ReferenceImplementation
from raf.conformance.reference import compared_response, run_cassette
from raf.conformance.runner import run_suite
from raf.conformance.update import update_goldens
from raf.serve.server import ReplayServer
from raf.testing.replay import replay_respx
from raf.transport import iter_response

SUITE = bundled()


def _raw_deflate(body: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-15)
    return packer.compress(body) + packer.flush()


CODERS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "gzip": ("gzip", lambda body: gzip.compress(body, mtime=0)),
    "deflate": ("deflate", zlib.compress),
    "raw-deflate": ("deflate", _raw_deflate),
    "br": ("br", brotli.compress),
    "gzip-then-br": ("gzip, br", lambda body: brotli.compress(gzip.compress(body, mtime=0))),
}

TWINS = [  # (dialect, scenario, provider path)
    ("openai_chat", "parallel_tool_calls_interleaved", "/v1/chat/completions"),
    ("anthropic_messages", "thinking_with_signature", "/v1/messages"),
]


def _coded(cassette: Cassette, coding: str) -> Cassette:
    """``cassette`` with every response body coded (the header spelled as servers do)."""
    header, coder = CODERS[coding]
    out = msgspec.structs.replace(cassette, interactions=[])
    for interaction in cassette.interactions:
        response = msgspec.structs.replace(
            interaction.response,
            body=coder(interaction.response.body),
            headers={**interaction.response.headers, "Content-Encoding": [header]},
        )
        out.interactions.append(msgspec.structs.replace(interaction, response=response))
    return out


def _twin(root: Path, dialect: str, scenario: str, coding: str) -> tuple[Cassette, Path]:
    """The bundled cassette (decoded) and its coded twin's file under ``root/cassettes``,
    with the bundled golden under ``root/goldens``."""
    plain = load(SUITE.cassettes / dialect / f"{scenario}.yaml")
    path = save(_coded(plain, coding), root / "cassettes" / dialect / f"{scenario}.yaml")
    golden = goldens.golden_path(root / "goldens", dialect, scenario)
    golden.parent.mkdir(parents=True, exist_ok=True)
    golden.write_bytes(goldens.golden_path(SUITE.goldens, dialect, scenario).read_bytes())
    return plain, path


def _broken(root: Path, name: str = "broken") -> Path:
    """A cassette whose gzip body is cut short (it does not decode)."""
    body = b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
    cassette = Cassette(
        info=load(SUITE.cassettes / "openai_chat" / "plain_text.yaml").info,
        interactions=[
            Interaction(
                request=Request(uri="https://api.openai.com/v1/chat/completions"),
                response=Response(
                    headers={
                        "content-type": ["text/event-stream"],
                        "content-encoding": ["gzip"],
                    },
                    body=gzip.compress(body, mtime=0)[:-12],
                ),
            )
        ],
    )
    assert cassette.info is not None
    cassette.info = msgspec.structs.replace(cassette.info, scenario=name)
    return save(cassette, root / "cassettes" / "openai_chat" / f"{name}.yaml", scrub=False)


# -- the accessor and the recorded timing ---------------------------------------------------


@pytest.mark.parametrize("coding", list(CODERS))
def test_item_8_content_is_the_body_a_client_reads(coding: str) -> None:
    plain = load(SUITE.cassettes / "openai_chat" / "plain_text.yaml").interactions[0].response
    coded = _coded(
        Cassette(interactions=[Interaction(request=Request(uri="x"), response=plain)]), coding
    )
    response = coded.interactions[0].response
    assert response.body != plain.body
    assert response.coded
    assert not plain.coded
    assert response.content() == plain.body
    assert plain.content() is plain.body


def test_item_8_content_of_a_body_that_does_not_decode_names_the_coding_and_why() -> None:
    response = Response(headers={"content-encoding": ["gzip"]}, body=b"\x1f\x8b not gzip")
    with pytest.raises(BodyNotDecoded, match=r"content-encoding 'gzip': not valid gzip data"):
        response.content()


def test_item_8_recorded_reads_of_a_coded_body_keep_their_delays_over_the_decoded_body() -> None:
    decoded = b"data: " + b"x" * 3000 + b"\n\n"
    body = gzip.compress(decoded, mtime=0)
    interaction = Interaction(
        request=Request(uri="x"),
        response=Response(headers={"content-encoding": ["gzip"]}, body=body),
        timing=[(10, 0.0), (len(body) - 30, 40.0), (20, 80.0)],
    )
    timed = interaction.timed_chunks()
    assert timed is not None
    chunks, delays = timed
    assert b"".join(chunks) == decoded
    assert delays == [0.0, 0.04, 0.08]
    # each read ends at the fraction of the decoded body its recorded read did of the coded one
    assert [len(c) for c in chunks[:2]] == [
        len(decoded) * 10 // len(body),
        len(decoded) * (len(body) - 20) // len(body) - len(decoded) * 10 // len(body),
    ]


# -- raf serve ------------------------------------------------------------------------------


@pytest.mark.parametrize("coding", list(CODERS))
def test_item_8_serve_sends_a_coded_body_decoded_and_without_its_coding(
    tmp_path: Path, coding: str
) -> None:
    twins = [(_twin(tmp_path, d, s, coding)[0], d, s, p) for d, s, p in TWINS]
    with ReplayServer([tmp_path / "cassettes"], speed=0) as running:
        for plain, dialect, scenario, path in twins:
            for chunking in ("whole", "fixed-7", None):  # None: recorded (whole: no timing)
                url = running.case_url(dialect, scenario, chunking=chunking) + path
                with httpx.stream("POST", url, content=b"{}") as response:
                    assert response.status_code == 200
                    assert "content-encoding" not in response.headers
                    assert b"".join(response.iter_raw()) == plain.interactions[0].response.body
                with httpx.stream("POST", url, content=b"{}") as response:
                    results = list(iter_response(response, dialect))
                golden = goldens.load(goldens.golden_path(SUITE.goldens, dialect, scenario))
                assert golden is not None
                assert (
                    compared_response(collect_agent_response(results))
                    == golden.interactions[0].response
                )


def test_item_8_serve_replays_the_recorded_reads_of_a_coded_body_decoded(tmp_path: Path) -> None:
    plain = load(SUITE.cassettes / "openai_chat" / "plain_text.yaml")
    coded = _coded(plain, "gzip")
    size = len(coded.interactions[0].response.body)
    coded.interactions[0].timing = [(size // 2, 0.0), (size - size // 2, 30.0)]
    save(coded, tmp_path / "openai_chat" / "plain_text.yaml")
    with ReplayServer([tmp_path], speed=1.0) as running:
        url = running.case_url("openai_chat", "plain_text") + "/v1/chat/completions"
        with httpx.stream("POST", url, content=b"{}") as response:
            assert "content-encoding" not in response.headers
            reads = list(response.iter_raw())
    assert b"".join(reads) == plain.interactions[0].response.body
    assert len(reads) == 2  # the 30 ms pause keeps the two recorded reads apart


def test_item_8_serve_answers_a_body_that_does_not_decode_with_a_json_500(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _broken(tmp_path)
    journal = tmp_path / "journal.jsonl"
    with (
        caplog.at_level(logging.ERROR, logger="raf.serve"),
        ReplayServer([tmp_path / "cassettes"], journal_file=journal) as running,
    ):
        url = running.case_url("openai_chat", "broken") + "/v1/chat/completions"
        answer = httpx.post(url, content=b"{}")
        assert httpx.get(running.url + "/_raf/health").status_code == 200  # still serving
        injected = httpx.post(  # an injected error sends no recorded body: it is answered
            running.case_url("openai_chat", "broken", faults=["http-429"]) + "/v1/chat/completions",
            content=b"{}",
        )
    assert injected.status_code == 429
    assert answer.status_code == 500
    assert answer.headers["content-type"].startswith("application/json")
    error = answer.json()["error"]
    assert error["type"] == "raf_serve"
    assert error["message"] == (
        "the cassette of openai_chat/broken cannot be replayed: interactions[0].response: the "
        "body does not decode as content-encoding 'gzip': the gzip data is truncated"
    )
    entry = msgspec.json.decode(journal.read_bytes().splitlines()[0])
    assert entry["status"] == 500
    assert "the gzip data is truncated" in entry["outcome"]
    assert [r.exc_info for r in caplog.records] == [None]  # one line, no traceback


# -- conformance ----------------------------------------------------------------------------


@pytest.mark.parametrize("coding", list(CODERS))
def test_item_8_a_coded_cassette_conforms_like_its_decoded_twin(
    tmp_path: Path, coding: str
) -> None:
    for dialect, scenario, _ in TWINS:
        plain, path = _twin(tmp_path, dialect, scenario, coding)
        assert run_cassette(load(path)) == run_cassette(plain)
        assert draft_expectation(load(path)) == draft_expectation(plain)
    suite = load_suite(tmp_path / "cassettes", tmp_path / "goldens")
    assert not suite.problems
    assert all("content-encoding" not in case.headers for case in suite.cases)
    report = run_suite(suite, ReferenceImplementation(), level="updates")
    assert report.ok, [r.reason for r in report.results if r.status != "pass"]
    assert report.counts()["pass"] == len(suite.cases) > 0
    assert [u.verdict for u in update_goldens(tmp_path / "cassettes", tmp_path / "goldens")] == [
        "unchanged",
        "unchanged",
    ]


def test_item_8_conform_reports_a_body_that_does_not_decode_as_an_error(tmp_path: Path) -> None:
    path = _broken(tmp_path)
    golden = goldens.golden_path(tmp_path / "goldens", "openai_chat", "broken")
    golden.parent.mkdir(parents=True)
    golden.write_bytes(goldens.golden_path(SUITE.goldens, "openai_chat", "plain_text").read_bytes())
    suite = load_suite(tmp_path / "cassettes", tmp_path / "goldens")
    assert suite.cases == []
    [problem] = suite.problems
    assert problem.cassette == path
    assert problem.message.startswith("interactions[0].response: the body does not decode")
    report = run_suite(suite, ReferenceImplementation())
    [result] = report.results
    assert result.status == "error"
    assert "the gzip data is truncated" in result.reason
    [update] = update_goldens(tmp_path / "cassettes", tmp_path / "goldens")
    assert update.verdict == "not blessed"
    assert "the gzip data is truncated" in update.reason


def test_item_8_respx_replay_of_a_coded_cassette_is_its_decoded_twins(tmp_path: Path) -> None:
    plain, path = _twin(tmp_path, "openai_chat", "parallel_tool_calls_interleaved", "gzip")
    coded = load(path).interactions[0]
    assert replay_respx(coded, "openai_chat", "fixed-7") == replay_respx(
        plain.interactions[0], "openai_chat", "fixed-7"
    )


# -- show, expect, lint ---------------------------------------------------------------------


def _shown(cassette: Cassette) -> str:
    console = Console(record=True, width=400, color_system=None)
    render(console, cassette)
    return console.export_text()


@pytest.mark.parametrize("coding", list(CODERS))
def test_item_8_show_of_a_coded_cassette_is_its_decoded_twins(tmp_path: Path, coding: str) -> None:
    for dialect, scenario, _ in TWINS:
        plain, path = _twin(tmp_path, dialect, scenario, coding)
        shown = _shown(load(path))
        assert shown == _shown(plain)
        assert "tool call" in shown or "reasoning" in shown


def test_item_8_show_and_expect_say_a_body_does_not_decode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _broken(tmp_path)
    assert main(["cassette", "show", "--no-color", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (
        "not read: interactions[0].response: the body does not decode as content-encoding "
        "'gzip': the gzip data is truncated"
    ) in out
    assert err == (
        f"raf: {path}: 1 interaction(s) not shown: the body does not decode from its "
        "content-encoding\n"
    )
    assert main(["cassette", "expect", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert err.startswith(f"raf: {path}: nothing to draft from: the body does not decode")


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br"])
def test_item_8_lint_warns_of_an_event_stream_inside_a_coded_body(
    tmp_path: Path, coding: str
) -> None:
    plain = load(SUITE.cassettes / "openai_chat" / "plain_text.yaml")
    plain.interactions[0].response.headers["content-type"] = ["application/json"]
    path = save(_coded(plain, coding), tmp_path / "plain_text.yaml")
    warnings = [f for f in lint_file(path) if f.severity == "warning"]
    assert [f.where for f in warnings] == ["interactions[0].response.headers"]
    assert "looks like an event stream" in warnings[0].message
