"""Programs as columns of the matrix (raf/client_matrix/outside.py, ``raf clients --impl CMD
--name NAME``): a team's own stack beside the libraries, and the Node.js adapters when their
npm libraries are not installed. Nothing here needs Node.js or the npm libraries: the program
is raf's reference (``python -m raf.conformance.stdio_reference``: raf's pipeline, making its
requests itself with httpx), which must pass every cell it is given."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from raf.cli import main
from raf.cli.clients import LOOPS_BEGIN, LOOPS_END, MATRIX_BEGIN, MATRIX_END
from raf.client_matrix.outside import OutsideClient, Session, node_clients, run_outside
from raf.client_matrix.run import merge
from raf.serve import ReplayServer
from raf.shared.bundled import bundled

PLAIN = sorted(
    path.parent.name
    for path in (Path(__file__).resolve().parents[2] / "cassettes").glob("*/plain_text.yaml")
)
"""The formats with a bundled ``plain_text`` scenario: the cells of ``-k plain_text``."""

TOOL_LOOPS = bundled().tool_loops
"""The bundled multi-round recordings, a folder per format with tools."""

REFERENCE = f"{shlex.quote(sys.executable)} -m raf.conformance.stdio_reference"

# raf's reference with another hello: no tool loops, and a library and how of its own.
NO_LOOPS = """
import functools, sys
from raf.conformance import stdio_reference as ref
ref.CAPABILITIES = [c for c in ref.CAPABILITIES if c != "tool_loop"]
ref.ImplementationHello = functools.partial(
    ref.ImplementationHello, library="our-stack", how="Our gateway reads the stream itself."
)
sys.exit(ref.main())
"""


@pytest.fixture
def no_loops(tmp_path: Path) -> str:
    script = tmp_path / "no_loops.py"
    script.write_text(NO_LOOPS, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _clients(*args: str) -> int:
    return main(["clients", "--chunking", "whole", *args])


def test_a_program_is_judged_like_a_library_and_a_correct_one_passes_every_cell(
    server: ReplayServer,
) -> None:
    folders = bundled()
    program = OutsideClient("mine", tuple(shlex.split(REFERENCE)))
    with Session.open(program, server) as session:
        assert session.missing is None
        assert session.streams
        assert session.loops
        assert "http" in session.capabilities
        cells = run_outside(
            session,
            cassettes=folders.cassettes,
            goldens=folders.goldens,
            chunkings=("whole", "bytes"),
            select=("plain_text", "parallel_tool_calls", "thinking", "json_array", "cut", "429"),
        )
    merged = merge(cells)
    judged = [c for c in merged if c.status != "skip"]
    assert len(judged) >= 20
    assert {c.dialect for c in judged} == set(session.dialects)
    assert [(c.dialect, c.scenario, c.mark) for c in merged if c.status != "pass"] == []
    assert all(c.client == "mine" and c.request == [] for c in merged)


def test_raf_clients_impl_adds_the_program_as_a_column_of_every_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, doc, page = tmp_path / "m.json", tmp_path / "m.md", tmp_path / "m.html"
    status = _clients(
        "--impl",
        REFERENCE,
        "--name",
        "mine",
        "-k",
        "plain_text",
        "--no-tool-loops",
        "--json",
        str(report),
        "--markdown",
        str(doc),
        "--html",
        str(page),
    )
    assert status == 0
    assert f"mine 0.1.0: {len(PLAIN)}/{len(PLAIN)} pass" in capsys.readouterr().out
    document = json.loads(report.read_text(encoding="utf-8"))
    (column,) = document["clients"]
    assert column["name"] == "mine"
    assert column["language"] == ""  # a program, not a library raf drives
    assert column["library"] == ""
    assert "missing" not in column
    assert "tool_loops" not in document
    cells = {(c["dialect"], c["scenario"]): c["status"] for c in document["cells"]}
    assert cells == {(dialect, "plain_text"): "pass" for dialect in PLAIN}
    text = doc.read_text(encoding="utf-8")
    assert "| scenario | mine 0.1.0 |" in text
    assert "| plain_text | ✓ |" in text
    # Formats with no selected scenario get no empty table.
    assert "### gemini" not in text
    html = page.read_text(encoding="utf-8")
    assert 'data-client="mine"' in html
    assert "programs (--impl)" in html


def test_a_hello_with_tool_loop_gets_the_tool_loop_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "m.json"
    doc = tmp_path / "m.md"
    doc.write_text(f"{MATRIX_BEGIN}\n{MATRIX_END}\n{LOOPS_BEGIN}\n{LOOPS_END}\n")
    args = ["--impl", REFERENCE, "--name", "mine", "-k", "two_tools", "--tool-loops-only"]
    assert _clients(*args, "--json", str(report), "--markdown", str(doc)) == 0
    # Every format with tools has its two_tools recording (conformance/tool_loops/).
    with_tools = sorted(p.parent.name for p in TOOL_LOOPS.glob("*/two_tools.yaml"))
    assert len(with_tools) >= 8
    n = len(with_tools)
    assert f"mine 0.1.0: {n}/{n} tool loops pass" in capsys.readouterr().out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert "clients" not in document  # only the tool loops were asked for
    loops = document["tool_loops"]
    assert [(c["name"], c["language"]) for c in loops["clients"]] == [("mine", "")]
    assert {(c["dialect"], c["status"]) for c in loops["cells"]} == {
        (dialect, "pass") for dialect in with_tools
    }
    assert all(c["sent"] >= 2 for c in loops["cells"])
    assert "| two_tools | ✓ / ✓ |" in doc.read_text(encoding="utf-8")


def test_a_hello_without_tool_loop_is_only_a_stream_column_with_its_library_and_how(
    tmp_path: Path, no_loops: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report, doc = tmp_path / "m.json", tmp_path / "m.md"
    args = ["--impl", no_loops, "--name", "ours", "-k", "plain_text"]
    assert _clients(*args, "--json", str(report), "--markdown", str(doc)) == 0
    out = capsys.readouterr().out
    assert f"ours 0.1.0: {len(PLAIN)}/{len(PLAIN)} pass" in out
    assert "tool loops" not in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [(c["name"], c["library"]) for c in document["clients"]] == [("ours", "our-stack")]
    assert "tool_loops" not in document
    text = doc.read_text(encoding="utf-8")
    assert "| ours 0.1.0 | program | our-stack | Our gateway reads the stream itself. |" in text


def test_a_program_that_cannot_start_is_a_missing_column_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, doc = tmp_path / "m.json", tmp_path / "m.md"
    args = ["--client", "raf", "--impl", "no-such-program-of-raf --x", "--name", "mine"]
    status = _clients(*args, "-k", "plain_text", "--json", str(report), "--markdown", str(doc))
    assert status == 0
    captured = capsys.readouterr()
    assert f"raf 0.1.0: {len(PLAIN)}/{len(PLAIN)} pass" in captured.out
    assert "raf clients: mine: cannot start 'no-such-program-of-raf --x'" in captured.err
    assert "Traceback" not in captured.err + captured.out
    document = json.loads(report.read_text(encoding="utf-8"))
    columns = {c["name"]: c for c in document["clients"]}
    assert columns["mine"]["missing"].startswith("cannot start 'no-such-program-of-raf --x'")
    assert columns["mine"]["dialects"] == []
    assert "missing" not in columns["raf"]
    assert [c for c in document["cells"] if c["client"] == "mine"] == []
    assert "Not run: mine (cannot start 'no-such-program-of-raf --x'" in doc.read_text()


def test_a_run_where_no_program_given_can_start_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "m.json"
    args = ["--impl", "no-such-program-of-raf", "--name", "mine", "--json", str(report)]
    assert _clients(*args, "-k", "plain_text") == 2
    captured = capsys.readouterr()
    assert "none of the clients asked for could run (mine: cannot start" in captured.err
    assert "Traceback" not in captured.err
    assert not report.exists()


def test_tool_loops_only_still_names_a_program_that_cannot_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--impl", "no-such-program-of-raf", "--name", "mine", "--tool-loops-only"]
    assert _clients(*args, "-k", "two_tools") == 2
    assert "mine: cannot start" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "mine"], "--name names the --impl of the same position"),
        (["--impl", "a", "--name", "raf"], "--name raf: a column of that name exists"),
        (
            ["--impl", "a", "--impl", "b", "--name", "mine", "--name", "mine"],
            "--name mine: a column of that name exists",
        ),
        (["--impl", "a", "--name", "openai-loop"], "a column of that name exists"),
        (["--impl", "'unclosed", "--name", "x"], '--impl "\'unclosed"'),
        (["--impl", "   ", "--name", "x"], "--impl: an empty command"),
        (["--impl", "a", "--history", "h"], "--impl does not go with --history"),
        (["--html", "m.html", "--history", "h"], "--html does not go with --history"),
    ],
)
def test_impl_and_name_misused_are_input_errors(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _clients(*args, "-k", "plain_text") == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_an_impl_without_a_name_is_named_by_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "m.json"
    args = ["--impl", REFERENCE, "-k", "plain_text", "--no-tool-loops", "--json", str(report)]
    assert _clients(*args) == 0
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [c["name"] for c in document["clients"]] == ["impl-1"]


@pytest.fixture
def bare_node_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of Node.js adapters with one module and no node_modules, as raf's; Node.js
    counts as installed, so what is missing is the npm libraries."""
    folder = tmp_path / "node"
    folder.mkdir()
    (folder / "some-sdk-node.mjs").write_text('import "./raf-kit.mjs";\n', encoding="utf-8")
    monkeypatch.setattr("raf.clients.NODE_FOLDER", folder)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")  # as outside sees it
    return folder


def test_a_node_adapter_without_its_npm_libraries_is_missing_with_the_npm_ci_hint(
    bare_node_folder: Path, server: ReplayServer
) -> None:
    found = node_clients()
    assert list(found) == ["some-sdk-node"]
    client = found["some-sdk-node"]
    assert client.language == "Node.js"
    assert (
        client.missing == f"the npm libraries are not installed: (cd {bare_node_folder} && npm ci)"
    )
    session = Session.open(client, server)
    assert (session.missing, session.implementation, session.hello) == (client.missing, None, None)


def test_raf_clients_names_a_node_column_whose_libraries_are_missing(
    bare_node_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "m.json"
    args = ["--client", "raf", "--client", "some-sdk-node", "-k", "plain_text"]
    assert _clients(*args, "--no-tool-loops", "--json", str(report)) == 0
    hint = f"(cd {bare_node_folder} && npm ci)"
    assert f"raf clients: some-sdk-node: the npm libraries are not installed: {hint}" in (
        capsys.readouterr().err
    )
    document = json.loads(report.read_text(encoding="utf-8"))
    columns = {c["name"]: c for c in document["clients"]}
    assert columns["some-sdk-node"]["language"] == "Node.js"
    assert hint in columns["some-sdk-node"]["missing"]
    assert (columns["raf"]["language"], columns["raf"]["library"]) == ("Python", "raf")
    # Alone, nothing could run: an input error that says what to install.
    assert _clients("--client", "some-sdk-node", "-k", "plain_text") == 2
    assert hint in capsys.readouterr().err
