"""The HTML report (raf.conformance.reports.html_report): its structure, read with Python's
``html.parser``, and the page as a person sees it, rendered by headless Chromium.

The browser tests use Debian's ``chromium`` (``/usr/bin/chromium``). Without it they skip,
saying so, unless ``RAF_REQUIRE_CHROMIUM=1`` (CI sets it): then a missing browser fails.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import struct
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

import pytest

from raf.conformance.reports import html_report
from raf.conformance.reports.html_report import render_html, write_html
from raf.conformance.runner import CaseResult, RunReport
from tests import processes

Status = Literal["pass", "fail", "skip", "error"]

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

# Every way out of the text this tries sets data-pwned on <html> if it ever runs.
INJECTION = (
    "</pre></code></summary></details></section></title>"
    '<script>document.documentElement.setAttribute("data-pwned", "script")</script>'
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned', 'img')\">"
    "\"><svg onload=\"document.documentElement.setAttribute('data-pwned', 'svg')\"></svg>"
    "<!-- ]]> &amp; &lt;b&gt;"
)
UNICODE = "Zürich, naïve café, 日本語, emoji 🎉, RTL שלום"

DIFF = """text: expected "Hello, world", got "Hello, wrld"
--- expected text
+++ actual text
@@ -1,3 +1,3 @@
 Hello
-world
+wrld
 done
finish_reason: expected "stop", got "length\""""


def sample_report() -> RunReport:
    """A run with every status, a diff, stderr, injection attempts and non-ASCII text."""
    report = RunReport(
        implementation="example-node" + INJECTION,
        version="1.2.0" + INJECTION,
        level="response",
        started="2026-12-01T09:00:00Z",
        seconds=3.21,
    )
    report.results = [
        CaseResult(
            "openai_chat/plain_text#0@bytes",
            "plain_text",
            "openai_chat",
            "response",
            "pass",
            0,
            "bytes",
            seconds=0.004,
        ),
        CaseResult(
            "openai_chat/plain_text#0@whole",
            "plain_text",
            "openai_chat",
            "response",
            "pass",
            0,
            "whole",
            seconds=0.003,
        ),
        CaseResult(
            "openai_chat/wrong_text#0@bytes",
            "wrong_text",
            "openai_chat",
            "response",
            "fail",
            0,
            "bytes",
            reason='text: expected "Hello, world", got "Hello, wrld" (+1 more)',
            diff=DIFF,
            stderr="debug: 12 chunks read\n",
            seconds=0.01,
        ),
        CaseResult(
            "openai_chat/wrong_text#0@whole",
            "wrong_text",
            "openai_chat",
            "response",
            "pass",
            0,
            "whole",
        ),
        CaseResult(
            "anthropic/broken",
            "broken",
            "anthropic",
            "response",
            "error",
            reason="no golden for scenario broken",
            cassette="cassettes/anthropic/broken.yaml",
        ),
        CaseResult(
            "anthropic/reasoning#0@bytes",
            "reasoning",
            "anthropic",
            "response",
            "skip",
            0,
            "bytes",
            reason="dialect anthropic not declared",
        ),
        CaseResult(
            "openai_chat/evil" + INJECTION + "#0@bytes",
            "evil" + INJECTION,
            "openai_chat",
            "response",
            "fail",
            0,
            "bytes",
            reason="text: expected " + INJECTION,
            diff="--- expected text\n+++ actual text\n@@ -1 +1 @@\n-" + INJECTION + "\n+" + UNICODE,
            stderr=INJECTION,
            cassette="cassettes/" + INJECTION + ".yaml",
        ),
        CaseResult(
            "openai_chat/unicode#0@utf8_split",
            "unicode",
            "openai_chat",
            "response",
            "fail",
            0,
            "utf8_split",
            reason="text: expected " + UNICODE,
            stderr="Traceback (most recent call last):\n  KeyError: 'x'\n" + UNICODE + "\n",
        ),
    ]
    return report


REASON_IN_SUMMARY = 300


def shortened(reason: str) -> str:
    """The reason as a case's summary line shows it."""
    return reason if len(reason) <= REASON_IN_SUMMARY else reason[: REASON_IN_SUMMARY - 1] + "…"


# --- a small DOM from html.parser ------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None]
    children: list[Node | str] = field(default_factory=list)

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def pre_text(self) -> str:
        """The text of a <pre>, without the newline HTML drops after its start tag."""
        text = self.text()
        return text[1:] if text.startswith("\n") else text

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
        ]

    def by_id(self, id_: str) -> Node:
        found = [n for n in self.iter() if n.attrs.get("id") == id_]
        assert len(found) == 1, f"{len(found)} elements with id {id_!r}"
        return found[0]


class TreeBuilder(HTMLParser):
    """Builds a :class:`Node` tree and records what is not well formed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.doctype: str | None = None
        self.problems: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [name for name, _ in attrs]
        if len(names) != len(set(names)):
            self.problems.append(f"<{tag}> repeats an attribute: {names}")
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.stack[-1].tag != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1].tag}>")
            if any(n.tag == tag for n in self.stack):
                while self.stack[-1].tag != tag:
                    self.stack.pop()
            else:
                return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)

    def handle_comment(self, data: str) -> None:
        self.problems.append(f"a comment: {data[:80]!r}")


def parse(page: str) -> tuple[Node, TreeBuilder]:
    builder = TreeBuilder()
    builder.feed(page)
    builder.close()
    if len(builder.stack) != 1:
        builder.problems.append(f"unclosed: {[n.tag for n in builder.stack[1:]]}")
    return builder.root, builder


@pytest.fixture(scope="module")
def report() -> RunReport:
    return sample_report()


@pytest.fixture(scope="module")
def page(report: RunReport) -> str:
    return render_html(report)


@pytest.fixture(scope="module")
def dom(page: str) -> Node:
    root, builder = parse(page)
    assert builder.problems == []
    return root


def case_blocks(root: Node) -> dict[str, Node]:
    blocks = [n for n in root.all("details") if "data-case-id" in n.attrs]
    return {str(n.attrs["data-case-id"]): n for n in blocks}


# --- structure ---------------------------------------------------------------------------------


def test_a_well_formed_self_contained_page(page: str, dom: Node) -> None:
    assert page.startswith("<!DOCTYPE html>\n")
    _, builder = parse(page)
    assert builder.doctype == "DOCTYPE html"
    (html,) = dom.all("html")
    assert html.attrs.get("lang") == "en"
    head = dom.all("head")[0]
    assert head.all("meta")[0].attrs == {"charset": "utf-8"}
    policies = [
        m.attrs["content"]
        for m in dom.all("meta")
        if m.attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    assert len(policies) == 1
    assert "default-src 'none'" in str(policies[0])
    assert len(dom.all("title")) == 1
    # Nothing is loaded from anywhere: no element that loads, no URL but the page's own anchors.
    for tag in ("link", "img", "iframe", "object", "embed", "base", "form", "svg", "video"):
        assert dom.all(tag) == [], tag
    for node in dom.iter():
        for name, value in node.attrs.items():
            assert not name.startswith("on"), (node.tag, name)
            assert name not in ("src", "srcset", "action", "formaction"), (node.tag, name)
            if name == "href":
                assert str(value).startswith("#case-"), value
    assert "http://" not in page
    assert "https://" not in page
    # Exactly one script, the page's own, with no src.
    scripts = dom.all("script")
    assert len(scripts) == 1
    assert scripts[0].attrs == {}
    ids = [n.attrs["id"] for n in dom.iter() if "id" in n.attrs]
    assert len(ids) == len(set(ids))


def test_the_header_names_the_run(report: RunReport, dom: Node) -> None:
    assert dom.by_id("title").text() == f"{report.implementation} {report.version}"
    assert dom.by_id("run-implementation").text() == report.implementation
    assert dom.by_id("run-version").text() == report.version
    assert dom.by_id("run-level").text() == "response"
    assert dom.by_id("run-protocol").text() == report.protocol
    started = dom.by_id("run-started").all("time")[0]
    assert started.attrs["datetime"] == "2026-12-01T09:00:00Z"
    assert started.text() == "2026-12-01 09:00:00 UTC"
    assert dom.by_id("run-duration").text() == "3.21 s"
    assert dom.by_id("verdict").attrs["data-verdict"] == "fail"
    assert dom.all("title")[0].text().startswith("raf conform: example-node</pre>")


def test_the_summary_counts(report: RunReport, dom: Node) -> None:
    assert report.counts() == {"pass": 3, "fail": 3, "skip": 1, "error": 1, "known": 0}
    for status, count in {**report.counts(), "total": 8}.items():
        node = dom.by_id(f"count-{status}")
        assert node.attrs["data-count"] == str(count)
        assert node.text() == str(count)
    rate = dom.by_id("pass-rate")
    assert float(str(rate.attrs["data-rate"])) == pytest.approx(3 / 7, abs=1e-6)
    assert rate.text() == "42.9%"


def test_one_row_per_scenario(dom: Node) -> None:
    rows = dom.by_id("scenarios").all("tr")[1:]
    got = {
        (r.attrs["data-dialect"], r.attrs["data-scenario"]): (
            r.attrs["data-passed"],
            r.attrs["data-run"],
            r.attrs["data-skipped"],
            r.attrs["data-status"],
        )
        for r in rows
    }
    assert got == {
        ("openai_chat", "plain_text"): ("2", "2", "0", "pass"),
        ("openai_chat", "wrong_text"): ("1", "2", "0", "fail"),
        ("anthropic", "broken"): ("0", "1", "0", "error"),
        ("anthropic", "reasoning"): ("0", "0", "1", "skip"),
        ("openai_chat", "evil" + INJECTION): ("0", "1", "0", "fail"),
        ("openai_chat", "unicode"): ("0", "1", "0", "fail"),
    }
    wrong = next(r for r in rows if r.attrs["data-scenario"] == "wrong_text")
    cells = [td.text() for td in wrong.all("td")]
    assert cells == ["openai_chat", "wrong_text", "1 / 2", "0", "fail", ""]
    # A scenario with a problem links to its first case block.
    assert wrong.all("a")[0].attrs["href"] == "#case-2"


def test_a_block_for_every_case_that_did_not_pass(report: RunReport, dom: Node) -> None:
    blocks = case_blocks(dom)
    assert set(blocks) == {r.id for r in report.results if r.status != "pass"}
    for index, result in enumerate(report.results):
        if result.status == "pass":
            continue
        block = blocks[result.id]
        assert block.attrs["id"] == f"case-{index}"
        assert block.attrs["data-status"] == result.status
        assert block.attrs["data-dialect"] == result.dialect
        assert block.attrs["data-scenario"] == result.scenario
        # Open for failures and errors, closed for skips.
        assert ("open" in block.attrs) == (result.status in ("fail", "error"))
        summary = block.children[0]
        assert isinstance(summary, Node)
        assert summary.tag == "summary"
        assert summary.all("code", "case-id")[0].text() == result.id
        assert summary.all("span", "reason")[0].text() == shortened(result.reason)
        full = block.all("pre", "reason-full")
        if len(result.reason) > REASON_IN_SUMMARY:
            assert full[0].pre_text() == result.reason
        else:
            assert full == []
        stderr = block.all("pre", "stderr")
        if result.stderr:
            assert stderr[0].pre_text() == result.stderr.rstrip("\n")
        else:
            assert stderr == []
    problems = dom.by_id("problems")
    skips = dom.by_id("skips")
    assert {str(n.attrs["data-status"]) for n in case_blocks(problems).values()} == {
        "fail",
        "error",
    }
    assert {str(n.attrs["data-status"]) for n in case_blocks(skips).values()} == {"skip"}


def test_the_diff_is_coloured(dom: Node) -> None:
    block = case_blocks(dom)["openai_chat/wrong_text#0@bytes"]
    (pre,) = block.all("pre", "diff")
    assert pre.pre_text() == DIFF
    kinds = {
        kind: [n.text() for n in pre.all("span", kind)] for kind in ("add", "del", "hunk", "file")
    }
    assert kinds == {
        "add": ["+wrld"],
        "del": ["-world"],
        "hunk": ["@@ -1,3 +1,3 @@"],
        "file": ["--- expected text", "+++ actual text"],
    }


def test_untrusted_text_is_escaped(report: RunReport, page: str, dom: Node) -> None:
    # The raw page never holds the markup, only its escaped text.
    assert "<script>document" not in page
    assert "<img" not in page
    assert "<svg" not in page
    assert "<!--" not in page
    assert page.count("<script>") == 1
    assert page.count("</script>") == 1
    evil = next(r for r in report.results if r.scenario.startswith("evil"))
    block = case_blocks(dom)[evil.id]
    assert block.all("pre", "stderr")[0].pre_text() == INJECTION
    assert block.all("pre", "diff")[0].pre_text() == evil.diff
    assert block.all("pre", "reason-full")[0].pre_text() == evil.reason
    cassette = next(d for d in block.all("dd") if d.text().startswith("cassettes/"))
    assert cassette.text() == evil.cassette
    assert dom.by_id("title").text() == f"{report.implementation} {report.version}"


def test_non_ascii_text_is_kept(tmp_path: Path, report: RunReport) -> None:
    path = tmp_path / "report.html"
    write_html(report, path)
    page = path.read_bytes().decode("utf-8")
    assert page == render_html(report)
    root, _ = parse(page)
    block = case_blocks(root)["openai_chat/unicode#0@utf8_split"]
    assert UNICODE in block.all("pre", "stderr")[0].text()
    assert block.all("span", "reason")[0].text() == "text: expected " + UNICODE


def test_controls_are_shown_and_unencodable_text_is_written(tmp_path: Path) -> None:
    report = RunReport(implementation="x\ud800", version="1\x00", level="response")
    report.results = [
        CaseResult(
            "d/s",
            "s",
            "d",
            "response",
            "fail",
            reason="bell\x07",
            stderr="\x1b[31mred\x1b[0m clear\x1b[2K nul\x00 lone\udcff c1\x85 crlf\r\nend\rx",
        )
    ]
    path = tmp_path / "report.html"
    write_html(report, path)  # a lone surrogate does not make it raise
    page = path.read_text(encoding="utf-8")
    assert re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\r]", page) is None
    root, builder = parse(page)
    assert builder.problems == []
    block = case_blocks(root)["d/s"]
    stderr = block.all("pre", "stderr")[0].pre_text()
    assert stderr == "red clear\\x1b[2K nul\\x00 lone\\udcff c1\\x85 crlf\nend\nx"
    assert block.all("p", "cut") == []  # dropping the colour codes cuts nothing
    assert root.by_id("title").text() == "x\\ud800 1\\x00"


def test_long_diffs_and_stderr_are_cut_with_a_note() -> None:
    diff = "\n".join(f"+line {i}" for i in range(5000))
    one_line = "-" + "y" * (1024 * 1024)
    report = RunReport(implementation="x", version="1", level="response")
    report.results = [
        CaseResult("d/long", "long", "d", "response", "fail", reason="r", diff=diff, stderr=diff),
        CaseResult("d/wide", "wide", "d", "response", "fail", reason="r", diff=one_line),
    ]
    root, builder = parse(render_html(report))
    assert builder.problems == []
    blocks = case_blocks(root)
    long = blocks["d/long"]
    for kind in ("diff", "stderr"):
        lines = long.all("pre", kind)[0].pre_text().split("\n")
        assert lines == [f"+line {i}" for i in range(html_report.MAX_LINES)]
    notes = long.all("p", "cut")
    assert [n.attrs["data-cut-lines"] for n in notes] == ["4600", "4600"]
    assert "4,600 more lines" in notes[0].text()
    wide = blocks["d/wide"]
    shown = wide.all("pre", "diff")[0].pre_text()
    assert len(shown.encode()) <= html_report.MAX_BYTES
    assert shown.startswith("-yyy")
    (note,) = wide.all("p", "cut")
    assert note.attrs["data-cut-lines"] == "1"
    assert int(str(note.attrs["data-cut-bytes"])) > 1024 * 1024 - html_report.MAX_BYTES


def test_once_the_page_is_full_diffs_are_cut_shorter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_report, "PAGE_BUDGET", 200 * 1024)
    diff = "\n".join(f"-line {i:04d} " + "z" * 40 for i in range(1000))
    report = RunReport(implementation="x", version="1", level="response")
    report.results = [
        CaseResult(f"d/s{i}", f"s{i}", "d", "response", "fail", reason="r", diff=diff)
        for i in range(20)
    ]
    root, _ = parse(render_html(report))
    shown = [
        len(b.all("pre", "diff")[0].pre_text().split("\n")) for b in case_blocks(root).values()
    ]
    assert shown[0] == html_report.MAX_LINES
    assert shown[-1] <= html_report.SPENT_LINES
    assert sum(shown) < 20 * html_report.MAX_LINES * 0.6


def big_report(cases: int) -> RunReport:
    diff = "\n".join(f"{'+-'[i % 2]}line {i}" for i in range(2000))
    report = RunReport(implementation="x", version="1", level="updates")
    statuses: tuple[Status, ...] = ("pass", "fail", "skip", "error")
    report.results = [
        CaseResult(
            f"d{i % 7}/s{i // 6}#0@c{i % 6}",
            f"s{i // 6}",
            f"d{i % 7}",
            "updates",
            statuses[i % 4],
            reason="r" if i % 4 else "",
            diff=diff if i % 4 == 1 else "",
            stderr="e\n" * 50 if i % 4 == 1 else "",
        )
        for i in range(cases)
    ]
    return report


def test_thousands_of_cases_keep_the_page_linear() -> None:
    small, large = big_report(1000), big_report(4000)
    small_page = render_html(small)
    large_page = render_html(large)
    assert 3.5 < len(large_page) / len(small_page) < 4.5
    # Each failure shows at most MAX_LINES of its 2000-line diff.
    assert len(large_page) < 1000 * (html_report.MAX_LINES * 40 + 50 * 3 + 2000) + 3000 * 2000
    assert large_page.count('<details class="case') == 3000
    assert large_page.count('<p class="cut" data-cut-lines="1600"') == 1000
    assert 'id="count-fail" data-count="1000"' in large_page


def test_a_run_with_no_cases() -> None:
    root, builder = parse(render_html(RunReport(implementation="", version="", level="response")))
    assert builder.problems == []
    assert root.by_id("count-total").attrs["data-count"] == "0"
    assert root.by_id("pass-rate").attrs["data-rate"] == ""
    assert root.by_id("verdict").attrs["data-verdict"] == "none"
    assert case_blocks(root) == {}


# --- in a browser ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium() -> str:
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return str(CHROMIUM)
    if os.environ.get("RAF_REQUIRE_CHROMIUM") == "1":
        pytest.fail(
            f"RAF_REQUIRE_CHROMIUM=1 but {CHROMIUM} is missing: install Debian's chromium "
            "(apt-get install chromium)"
        )
    pytest.skip(
        f"{CHROMIUM} is missing (Debian's chromium package): the HTML report is not rendered "
        "in a browser; set RAF_REQUIRE_CHROMIUM=1 to make this a failure"
    )


@dataclass
class Rendered:
    out: bytes
    stderr: str
    seconds: float

    @property
    def console(self) -> list[str]:
        """What the page wrote to the console (script errors and blocked resources too)."""
        return [line for line in self.stderr.splitlines() if ":CONSOLE" in line]


def run_chromium(chromium: str, work: Path, *args: str) -> Rendered:
    profile = tempfile.mkdtemp(prefix="profile-", dir=work)
    command = [
        chromium,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    began = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        # Waited for while it makes progress, not by the clock (tests/processes.py).
        out, err = processes.communicate(process, what="chromium")
    except processes.Hang as hang:
        pytest.fail(f"{hang}\n{command}")
    finally:
        # Whatever it left behind in its own process group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    stderr = err.decode("utf-8", "replace")
    if process.returncode != 0:
        pytest.fail(f"chromium exited with {process.returncode}: {command}\n{stderr[-3000:]}")
    return Rendered(out, stderr, time.perf_counter() - began)


def dump_dom(chromium: str, work: Path, url: str) -> tuple[Node, Rendered]:
    rendered = run_chromium(chromium, work, "--dump-dom", url)
    root, _ = parse(rendered.out.decode("utf-8"))
    assert root.all("body"), rendered.stderr[-3000:]
    return root, rendered


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("html-report")


@pytest.fixture(scope="module")
def page_file(work: Path, page: str) -> Path:
    path = work / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser_dom(chromium: str, work: Path, page_file: Path) -> tuple[Node, Rendered]:
    return dump_dom(chromium, work, page_file.as_uri())


def test_the_browser_shows_the_summary_and_the_filters(
    report: RunReport, browser_dom: tuple[Node, Rendered]
) -> None:
    root, rendered = browser_dom
    # The page's script ran and broke no rule: nothing on the console, no resource blocked.
    assert rendered.console == []
    assert root.all("body")[0].attrs.get("data-filter") == "all"
    filters = root.by_id("filters")
    assert "hidden" not in filters.attrs
    assert root.by_id("filter-all").attrs["aria-pressed"] == "true"
    assert root.by_id("filter-failures").attrs["aria-pressed"] == "false"
    assert root.by_id("filter-failures").tag == "button"
    assert root.by_id("filter-text").tag == "input"
    assert root.by_id("filter-shown").text() == "showing 5 of 5 cases that did not pass"
    for status, count in {**report.counts(), "total": len(report.results)}.items():
        assert root.by_id(f"count-{status}").text() == str(count)
    assert root.by_id("pass-rate").text() == "42.9%"
    blocks = case_blocks(root)
    assert set(blocks) == {r.id for r in report.results if r.status != "pass"}
    assert all("hidden" not in b.attrs for b in blocks.values())


def test_the_injected_markup_never_runs(
    chromium: str, work: Path, page: str, browser_dom: tuple[Node, Rendered]
) -> None:
    root, _ = browser_dom
    pages = {"as written": root}
    # Not even without the page's Content-Security-Policy: the escaping alone is enough.
    policy = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n')
    assert policy.search(page)
    bare = work / "no-policy.html"
    bare.write_text(policy.sub("", page, count=1), encoding="utf-8")
    pages["without its policy"], rendered = dump_dom(chromium, work, bare.as_uri())
    assert rendered.console == []
    for how, dom in pages.items():
        (html,) = dom.all("html")
        assert "data-pwned" not in html.attrs, how
        assert len(dom.all("script")) == 1, how
        assert dom.all("img") == [], how
        assert dom.all("svg") == [], how
        evil = next(b for i, b in case_blocks(dom).items() if "evil" in i)
        assert evil.all("pre", "stderr")[0].pre_text() == INJECTION, how


def test_the_address_can_ask_for_only_the_failures(
    report: RunReport, chromium: str, work: Path, page_file: Path
) -> None:
    root, rendered = dump_dom(chromium, work, page_file.as_uri() + "?show=failures")
    assert rendered.console == []
    assert root.by_id("filter-failures").attrs["aria-pressed"] == "true"
    for case_id, block in case_blocks(root).items():
        status = block.attrs["data-status"]
        assert ("hidden" in block.attrs) == (status == "skip"), case_id
    assert "hidden" in root.by_id("skips").attrs
    for row in root.by_id("scenarios").all("tr")[1:]:
        hidden = "hidden" in row.attrs
        assert hidden == (row.attrs["data-status"] in ("pass", "skip")), row.attrs
    assert root.by_id("filter-shown").text() == "showing 4 of 5 cases that did not pass"

    root, _ = dump_dom(chromium, work, page_file.as_uri() + "?q=UNICODE")
    shown = [i for i, b in case_blocks(root).items() if "hidden" not in b.attrs]
    assert shown == ["openai_chat/unicode#0@utf8_split"]


def test_a_screenshot_of_the_page(chromium: str, work: Path, page_file: Path) -> None:
    shot = work / "report.png"
    run_chromium(
        chromium, work, f"--screenshot={shot}", "--window-size=1280,2000", page_file.as_uri()
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 2000)
    assert len(data) > 20_000  # a page of text and colour, not a blank image
