"""``raf fuzz --client``: a library of the matrix fuzzed through its adapter, in this process.

raf's own column (httpx and raf's pipeline) must find nothing; a library with a planted bug
(raf's adapter dropping the last character of the text) is found, its failure saved as a
cassette titled by the library, and the matrix's own judging fails it on that cassette.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import msgspec
import pytest

from raf.cassettes.format import Cassette, ScenarioInfo
from raf.cassettes.persister import load
from raf.cli import main
from raf.client_matrix.run import run_case, run_client
from raf.clients import adapter
from raf.clients.base import Adapter, ClientCase
from raf.conformance.goldens import beside
from raf.conformance.levels import Mismatch
from raf.fuzz.campaign import fuzz
from raf.fuzz.check import LiveCases
from raf.fuzz.generate import streams
from raf.fuzz.libraries import Library, library_cassette, raised_mismatch
from raf.fuzz.save import save_cassette
from raf.serve.server import ReplayServer
from raf.shared.client_response import ClientResponse


def broken(raf: Adapter) -> Adapter:
    """raf's adapter, but the user gets the text without its last character."""

    def run(case: ClientCase) -> ClientResponse:
        response = raf.run(case)
        return msgspec.structs.replace(response, text=response.text[:-1])

    return dataclasses.replace(raf, name="raf-last-char-lost", run=run)


def test_raf_itself_is_fuzzed_as_a_column_and_finds_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    args = ["fuzz", "--client", "raf", "--format", "openai_chat", "--examples", "25"]
    args += ["--seed", "3", "--database", str(tmp_path / "db"), "--json", str(report)]
    assert main([*args, "-o", str(tmp_path / "found")]) == 0
    shown = capsys.readouterr()
    assert "0 distinct failure(s)" in shown.out
    (campaign,) = json.loads(report.read_text("utf-8"))["campaigns"]
    assert (campaign["library"], campaign["format"]) == ("raf", "openai_chat")
    assert campaign["examples"] == 25
    assert campaign["findings"] == []
    assert not (tmp_path / "found").exists()


def test_a_planted_library_bug_is_found_saved_and_failed_by_the_matrix(tmp_path: Path) -> None:
    planted = broken(adapter("raf"))
    found = tmp_path / "found"
    with LiveCases() as live:
        library = Library(
            planted.name,
            "1.0",
            "raf",
            ("openai_chat",),
            planted.capabilities,
            lambda case: run_case(planted, version="1.0", server=live.server, case=case),
            live,
        )
        campaign = fuzz(
            streams("openai_chat"),
            library.check,
            examples=20,
            seed=5,
        )
    assert campaign.generated == 20
    assert campaign.findings
    assert {f.signature.key for f in campaign.findings} == {"text"}
    for finding in campaign.findings:
        saved = save_cassette(library_cassette(library, finding), found)
        assert saved.written, saved.reason
        assert saved.golden is not None, saved.reason
        cassette = load(saved.path)
        assert cassette.info is not None
        assert cassette.info.title.startswith("raf-last-char-lost 1.0: text ")
        assert cassette.info.scenario.startswith("fuzz_openai_chat_raf_last_char_lost_")
        assert "raf fuzz --client raf-last-char-lost" in cassette.info.notes

    # What the matrix says on each saved cassette: the planted library fails, raf passes.
    with ReplayServer([found]) as server:
        for who, fails in ((planted, True), (adapter("raf"), False)):
            cells = run_client(
                who,
                server,
                cassettes=found,
                goldens=beside(found),
                chunkings=("recorded",),
            )
            assert len(cells) == len(campaign.findings)
            assert all((cell.status == "fail") == fails for cell in cells), [
                (c.scenario, c.status, c.reason) for c in cells
            ]


def test_a_library_raising_is_told_apart_by_its_exception() -> None:
    invented = Mismatch("errors", "no error", "1 error", kind="invented")
    lost = Mismatch("text", '"hi"', '""', kind="lost")
    raised = raised_mismatch("JSONDecodeError: Expecting value", [lost, invented])
    assert (raised.key, raised.kind) == ("raised JSONDecodeError", "invented")
    # The stream had an error: raising reported it, and the user lost the text by it.
    cut = raised_mismatch("APIError: cut", [lost])
    assert (cut.key, cut.kind) == ("raised APIError", "lost")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--client", "openai", "--impl", "python x.py"], "--client and --impl"),
        (["--client", "openai", "--transport", "http"], "no --transport"),
    ],
)
def test_bad_client_options_get_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["fuzz", "--database", str(tmp_path / "db"), *args]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "Traceback" not in err


def test_an_unknown_client_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["fuzz", "--client", "no-such-library"])
    assert exit_.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_finding_yaml_cannot_hold_is_not_written_and_said_so(tmp_path: Path) -> None:
    cassette = Cassette(
        interactions=[],
        info=ScenarioInfo(scenario="fuzz_x", dialect="openai_chat", title="lone \ud800"),
    )
    saved = save_cassette(cassette, tmp_path)
    assert saved.verdict == "not written"
    assert "cannot be written as YAML" in saved.reason
    assert not any(tmp_path.iterdir())
