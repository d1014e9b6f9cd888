"""The real-client matrix as one page across languages (raf/client_matrix/html_report.py,
``raf clients --html``) and the language grouping of its Markdown and JSON forms: built from
columns and cells made here (no library runs), read with Python's ``html.parser`` and as a
person sees it, rendered by headless Chromium (the helpers of the conformance HTML report's
test: without ``/usr/bin/chromium`` the browser tests skip, unless ``RAF_REQUIRE_CHROMIUM=1``).
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from raf.client_matrix.html_report import render_matrix_html, write_matrix_html
from raf.client_matrix.report import Column, matrix_json, matrix_markdown
from raf.client_matrix.run import Cell
from raf.client_matrix.tool_loop_report import tool_loops_json, tool_loops_markdown
from raf.client_matrix.tool_loops import LoopCell, Verdict
from raf.conformance.severity import KINDS
from tests.conformance import test_html_report
from tests.conformance.test_html_report import (
    INJECTION,
    Node,
    dump_dom,
    parse,
    run_chromium,
)

chromium = test_html_report.chromium
"""The fixture of the conformance report's test: Debian's chromium, or the skip (the failure,
with RAF_REQUIRE_CHROMIUM=1) that says it is missing."""

CHUNKINGS = ("whole", "random")
HOW_NODE = "for await (const chunk of stream): text is choices[0].delta.content joined."

# Given out of order on purpose: the page groups them Python, Node.js, programs.
COLUMNS = [
    Column("mine", "0.3.0", ("openai_chat",), how="Our gateway reads the stream.", language=""),
    Column(
        "openai-node",
        "6.49.0",
        ("openai_chat",),
        how=HOW_NODE,
        language="Node.js",
        library="openai",
    ),
    Column(
        "openai",
        "3.57.0",
        ("openai_chat",),
        how="The README loop.",
        language="Python",
        library="openai",
    ),
    Column(
        "anthropic-node",
        "1.16.0",
        ("anthropic_messages",),
        how="messages.stream() and finalMessage().",
        language="Node.js",
        library="@anthropic-ai/sdk",
    ),
    Column(
        "absent-node",
        "",
        (),
        missing="the npm libraries are not installed: (cd X && npm ci)",
        language="Node.js",
    ),
]
LOST_CALLS = "lost: 0 of 2 calls"
CELLS = [
    Cell("openai", "3.57.0", "plain_text", "openai_chat", "pass"),
    Cell("openai-node", "6.49.0", "plain_text", "openai_chat", "pass"),
    Cell("mine", "0.3.0", "plain_text", "openai_chat", "pass"),
    Cell("openai", "3.57.0", "missing_tool_index", "openai_chat", "pass"),
    Cell(
        "openai-node",
        "6.49.0",
        "missing_tool_index",
        "openai_chat",
        "fail",
        reason=LOST_CALLS,
        kinds=["lost"],
        details=["lost: tool_calls: expected 2 calls, got 0 calls"],
    ),
    Cell(
        "mine",
        "0.3.0",
        "missing_tool_index",
        "openai_chat",
        "notice",
        reason="detail: call id",
        kinds=["detail"],
        details=["detail: tool_calls[0].id: expected none, got call_0"],
    ),
    Cell("openai", "3.57.0", "reasoning_only", "openai_chat", "skip", reason="does not report X"),
    Cell("openai-node", "6.49.0", "reasoning_only", "openai_chat", "pass"),
    Cell(
        "mine",
        "0.3.0",
        "reasoning_only",
        "openai_chat",
        "fail",
        reason="raised KeyError; lost: reasoning",
        raised="KeyError: 'reasoning'",
        kinds=["lost"],
        details=["lost: reasoning_text: expected 'Let me think', got ''"],
    ),
    Cell("anthropic-node", "1.16.0", "plain_text", "anthropic_messages", "pass"),
    Cell(
        "anthropic-node",
        "1.16.0",
        "two_message_starts" + INJECTION,
        "anthropic_messages",
        "fail",
        reason="raised AnthropicError; " + INJECTION,
        kinds=["invented"],
        details=[INJECTION],
    ),
]
LOOP_COLUMNS = [
    Column("openai-node-tools", "6.49.0", ("openai_chat",), how="runTools", language="Node.js"),
    Column("openai-loop", "3.57.0", ("openai_chat",), how="the hand loop", library="openai"),
]
RULE = "wrong: rule chat.tool_call_id_matches"
LOOP_CELLS = [
    LoopCell("openai-loop", "3.57.0", "two_tools", "openai_chat", sent=3),
    LoopCell(
        "openai-node-tools",
        "6.49.0",
        "two_tools",
        "openai_chat",
        requests=Verdict("fail", RULE, ["wrong"], ["request 2: tool_call_id differs"]),
        rules=["chat.tool_call_id_matches"],
        sent=3,
    ),
]


@pytest.fixture(scope="module")
def page() -> str:
    return render_matrix_html(
        COLUMNS, CELLS, loop_columns=LOOP_COLUMNS, loop_cells=LOOP_CELLS, chunkings=CHUNKINGS
    )


def _clients(table: Node) -> list[str]:
    return [str(th.attrs["data-client"]) for th in table.all("th", "client")]


def _languages(table: Node) -> list[tuple[str, str]]:
    return [
        (str(th.attrs["data-language"]), th.attrs["colspan"] or "")
        for th in table.all("th", "language")
    ]


def _cell(table: Node, scenario: str, client: str) -> Node:
    (row,) = [r for r in table.all("tr") if r.attrs.get("data-scenario") == scenario]
    (cell,) = [c for c in row.all("td") if c.attrs.get("data-client") == client]
    return cell


# --- structure ---------------------------------------------------------------------------------


def test_a_self_contained_page_with_no_script(page: str) -> None:
    root, builder = parse(page)
    assert builder.problems == []
    assert page.startswith("<!DOCTYPE html>\n")
    policies = [
        m.attrs["content"]
        for m in root.all("meta")
        if m.attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    assert len(policies) == 1
    assert "default-src 'none'" in str(policies[0])
    assert "script-src" not in str(policies[0])  # so no script may run at all
    for tag in ("script", "link", "img", "iframe", "object", "embed", "base", "form", "svg"):
        assert root.all(tag) == [], tag
    for node in root.iter():
        for name in node.attrs:
            assert not name.startswith("on"), (node.tag, name)
            assert name not in ("src", "srcset", "href", "action"), (node.tag, name)
    assert "http://" not in page
    assert "https://" not in page
    ids = [n.attrs["id"] for n in root.iter() if "id" in n.attrs]
    assert len(ids) == len(set(ids))


def test_each_format_is_a_table_with_the_columns_grouped_by_language(page: str) -> None:
    root, _ = parse(page)
    chat = root.by_id("streams-openai_chat")
    assert _languages(chat) == [("Python", "1"), ("Node.js", "1"), ("", "1")]
    assert _clients(chat) == ["openai", "openai-node", "mine"]
    headings = {str(th.attrs["data-client"]): th.text() for th in chat.all("th", "client")}
    assert headings == {
        "openai": "openai 3.57.0",
        "openai-node": "openai-node 6.49.0",
        "mine": "mine 0.3.0",
    }
    rows = [r.attrs["data-scenario"] for r in chat.all("tbody")[0].all("tr")]
    assert rows == ["missing_tool_index", "plain_text", "reasoning_only"]
    anthropic = root.by_id("streams-anthropic_messages")
    assert _clients(anthropic) == ["anthropic-node"]
    # The column that did not run has no cells; it is named, with why.
    assert "absent-node" not in page.split('id="not-run"', maxsplit=1)[0].split('id="streams"')[1]
    (missing,) = root.by_id("not-run").all("li")
    assert missing.attrs["data-client"] == "absent-node"
    assert "(cd X && npm ci)" in missing.text()


def test_cells_are_marked_by_the_severity_vocabulary_with_their_reason(page: str) -> None:
    root, _ = parse(page)
    chat = root.by_id("streams-openai_chat")
    failing = _cell(chat, "missing_tool_index", "openai-node")
    assert (failing.attrs["data-status"], failing.attrs["data-kinds"]) == ("fail", "lost")
    assert failing.all("span", "mark")[0].text() == "✗"
    assert failing.all("span", "reason")[0].text() == LOST_CALLS
    assert "lost: tool_calls: expected 2 calls, got 0 calls" in str(failing.attrs["title"])
    assert failing.all("details")[0].all("li")[0].text() == (
        "lost: tool_calls: expected 2 calls, got 0 calls"
    )
    noticed = _cell(chat, "missing_tool_index", "mine")
    assert noticed.all("span", "mark")[0].text() == "◐"
    assert noticed.attrs["data-kinds"] == "detail"
    passed = _cell(chat, "plain_text", "openai")
    assert (passed.attrs["data-status"], passed.text()) == ("pass", "✓")
    assert passed.all("details") == []
    skipped = _cell(chat, "reasoning_only", "openai")
    assert (skipped.attrs["data-status"], skipped.text()) == ("skip", "-")
    raised = _cell(chat, "reasoning_only", "mine")
    assert "raised: KeyError: 'reasoning'" in str(raised.attrs["title"])


def test_the_totals_per_format_and_per_column(page: str) -> None:
    root, _ = parse(page)
    chat = root.by_id("streams-openai_chat")
    (footer,) = chat.all("tr", "totals")
    totals = {
        str(td.attrs["data-client"]): (td.attrs["data-passed"], td.attrs["data-judged"], td.text())
        for td in footer.all("td")
    }
    assert totals == {
        "openai": ("2", "2", "2/2"),
        "openai-node": ("2", "3", "2/3"),
        "mine": ("2", "3", "2/3 (1 ◐)"),
    }
    rows = root.by_id("totals").all("tbody")[0].all("tr")
    assert [r.attrs["data-client"] for r in rows] == [
        "openai",
        "openai-loop",
        "openai-node",
        "anthropic-node",
        "openai-node-tools",
        "mine",
    ]
    node = next(r for r in rows if r.attrs["data-client"] == "anthropic-node")
    assert [td.text() for td in node.all("td")] == [
        "Node.js",
        "@anthropic-ai/sdk",
        "1.16.0",
        "1/2",
        "",
    ]


def test_tool_loop_cells_show_both_levels(page: str) -> None:
    root, _ = parse(page)
    loops = root.by_id("loops-openai_chat")
    assert _clients(loops) == ["openai-loop", "openai-node-tools"]
    cell = _cell(loops, "two_tools", "openai-node-tools")
    levels = {str(s.attrs["data-level"]): s for s in cell.all("span", "level")}
    assert levels["response"].attrs["data-status"] == "pass"
    assert levels["requests"].attrs["data-status"] == "fail"
    assert levels["requests"].all("span", "reason")[0].text() == RULE
    assert "rules broken: chat.tool_call_id_matches" in str(cell.attrs["title"])
    assert cell.attrs["data-kinds"] == "wrong"


def test_how_each_client_is_read_says_its_language_and_library(page: str) -> None:
    root, _ = parse(page)
    rows = root.by_id("how").all("tbody")[0].all("tr")
    assert [r.attrs["data-client"] for r in rows] == [
        "openai",
        "openai-node",
        "anthropic-node",
        "mine",
    ]
    node = rows[1]
    assert [td.text() for td in node.all("td")] == ["Node.js", "openai", HOW_NODE]
    assert [td.text() for td in rows[3].all("td")][:2] == ["program", ""]
    assert [r.attrs["data-client"] for r in root.by_id("how-loops").all("tr")[1:]] == [
        "openai-loop",
        "openai-node-tools",
    ]
    kinds = [r.attrs["data-kind"] for r in root.by_id("kinds").all("tr")[1:]]
    assert kinds == list(KINDS)


def test_untrusted_text_is_escaped(page: str) -> None:
    assert "<script>document" not in page
    assert "<img" not in page
    root, _ = parse(page)
    table = root.by_id("streams-anthropic_messages")
    cell = _cell(table, "two_message_starts" + INJECTION, "anthropic-node")
    assert cell.all("span", "reason")[0].text() == "raised AnthropicError; " + INJECTION
    assert cell.all("details")[0].all("li")[0].text() == INJECTION


def test_only_the_stream_section_and_written_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "m.html"
    write_matrix_html(path, COLUMNS[:1], CELLS[2:3], chunkings=("whole",))
    root, builder = parse(path.read_text(encoding="utf-8"))
    assert builder.problems == []
    assert [n for n in root.iter() if n.attrs.get("id") == "loops"] == []
    assert _clients(root.by_id("streams-openai_chat")) == ["mine"]


# --- the Markdown and JSON forms ---------------------------------------------------------------


def test_markdown_groups_columns_by_language_and_says_each_language() -> None:
    text = matrix_markdown(COLUMNS, CELLS, CHUNKINGS)
    assert "| scenario | openai 3.57.0 | openai-node 6.49.0 | mine 0.3.0 |" in text
    assert "| missing_tool_index | ✓ | **✗ lost: 0 of 2 calls** | ◐ detail: call id |" in text
    assert "| client | language | library | what its user reads (what is compared) |" in text
    how = re.findall(
        r"^\| (\S+) \S+ \| (\S+) \|", text.split("### How each client is read")[1], re.M
    )
    assert how == [
        ("openai", "Python"),
        ("openai-node", "Node.js"),
        ("anthropic-node", "Node.js"),
        ("mine", "program"),
    ]
    assert "Not run: absent-node (the npm libraries are not installed: (cd X && npm ci))." in text
    loops = tool_loops_markdown(LOOP_COLUMNS, LOOP_CELLS, CHUNKINGS)
    assert "| recording | openai-loop 3.57.0 | openai-node-tools 6.49.0 |" in loops
    assert "| openai-node-tools 6.49.0 | Node.js |  | runTools |" in loops


def test_json_names_each_columns_language_and_library() -> None:
    document = matrix_json(COLUMNS, CELLS, CHUNKINGS)
    by_name = {c["name"]: c for c in document["clients"]}
    assert by_name["openai-node"] == {
        "name": "openai-node",
        "version": "6.49.0",
        "dialects": ["openai_chat"],
        "language": "Node.js",
        "library": "openai",
    }
    assert (by_name["mine"]["language"], by_name["openai"]["language"]) == ("", "Python")
    assert by_name["absent-node"]["missing"].startswith("the npm libraries")
    loops = tool_loops_json(LOOP_COLUMNS, LOOP_CELLS, CHUNKINGS)
    assert [(c["name"], c["language"], c["library"]) for c in loops["clients"]] == [
        ("openai-node-tools", "Node.js", ""),
        ("openai-loop", "Python", "openai"),
    ]


# --- in a browser ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("matrix-html")


@pytest.fixture(scope="module")
def page_file(work: Path, page: str) -> Path:
    path = work / "matrix.html"
    path.write_text(page, encoding="utf-8")
    return path


def test_the_browser_shows_both_languages_and_a_failing_cells_reason(
    chromium: str, work: Path, page_file: Path
) -> None:
    root, rendered = dump_dom(chromium, work, page_file.as_uri())
    assert rendered.console == []  # nothing blocked, nothing failed
    (html,) = root.all("html")
    assert "data-pwned" not in html.attrs
    assert root.all("img") == []
    assert root.all("svg") == []
    chat = root.by_id("streams-openai_chat")
    languages = [th.text() for th in chat.all("th", "language")]
    assert languages == ["Python", "Node.js", "programs (--impl)"]
    assert [th.text() for th in chat.all("th", "client")] == [
        "openai 3.57.0",
        "openai-node 6.49.0",
        "mine 0.3.0",
    ]
    failing = _cell(chat, "missing_tool_index", "openai-node")
    assert failing.text().startswith("✗ " + LOST_CALLS)
    loops = root.by_id("loops-openai_chat")
    assert RULE in _cell(loops, "two_tools", "openai-node-tools").text()


def test_a_screenshot_of_the_page(chromium: str, work: Path, page_file: Path) -> None:
    shot = work / "matrix.png"
    run_chromium(
        chromium, work, f"--screenshot={shot}", "--window-size=1280,1600", page_file.as_uri()
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 1600)
    assert len(data) > 20_000  # tables of text and colour, not a blank page
