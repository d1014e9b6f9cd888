"""The HTML report of a conformance run (``raf conform --html FILE``): one self-contained page
a person reads after a run.

The page needs nothing but itself: the CSS and the little JavaScript are inline, and its
Content-Security-Policy forbids every external resource (and every script but its own). It
reads the same without JavaScript; the script only adds the filter controls (show only the
failures and errors, or filter by text; ``report.html?show=failures&q=TEXT`` opens the page so
filtered). It holds:

- a header: the implementation's name and version, the level, the protocol, when the run
  started and how long it took, and the verdict;
- a summary: the count of each status (``id="count-pass"``, ``count-fail``, ``count-skip``,
  ``count-error``, ``count-total``, each with ``data-count``) and the pass rate of the cases
  that ran (``id="pass-rate"``, ``data-rate`` a fraction, empty when nothing ran);
- a table of scenarios (``id="scenarios"``), one row per dialect and scenario
  (``tr[data-dialect][data-scenario][data-status]``): passed of those run, skipped, status;
- one ``<details class="case">`` per case that did not pass (``id="case-<n>"``, ``n`` its
  index in the run, with ``data-case-id``, ``data-status``, ``data-dialect``,
  ``data-scenario``), open for failures and errors, closed for skips: the reason, the diff
  (``pre.diff``, added and removed lines coloured) and the implementation's stderr
  (``pre.stderr``).

Everything that comes from the implementation under test or the files (names, ids, reasons,
diffs, stderr) is untrusted: it is escaped, its control characters are shown as escapes
(``\x1b``; colour sequences are dropped), and each diff and stderr is cut at 400 lines or
64 KiB with a note saying how much was cut (less once the page already holds 16 MiB of them),
so the page stays linear in the size of the run. The JSON report has everything in full.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from raf.conformance.reports.unread import noteworthy, unread_by_cassette
from raf.conformance.runner import CaseResult, RunReport

__all__ = ["escape", "render_html", "write_html"]

MAX_LINES = 400
MAX_BYTES = 64 * 1024
# Once the diffs and stderr shown add up to this, each further one is cut much shorter.
PAGE_BUDGET = 16 * 1024 * 1024
SPENT_LINES = 40
SPENT_BYTES = 4 * 1024
_REASON_IN_SUMMARY = 300

_STATUSES = ("pass", "fail", "known", "error", "skip")
_LABELS = {
    "pass": "passed",
    "fail": "failed",
    "known": "known",
    "error": "errors",
    "skip": "skipped",
}
# The order of the scenario table and of the case blocks: what needs a person first.
_RANK = {"fail": 0, "error": 0, "stale": 0, "known": 1, "notice": 2, "pass": 3, "skip": 4}

# Colour (SGR) escape sequences are dropped; every other character HTML may not hold, or that
# would move the text about, is shown as its Python escape (``\x07``), in any font.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_NONCHARACTERS = "".join(
    chr(plane * 0x10000 + 0xFFFE) + chr(plane * 0x10000 + 0xFFFF) for plane in range(1, 17)
)
_UNSHOWABLE = re.compile(
    "[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    + _NONCHARACTERS
    + "]"
)


def _symbol(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _clean(text: str) -> str:
    """``text`` with its line ends made LF, colour codes dropped, controls as escapes."""
    text = _SGR.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _UNSHOWABLE.sub(_symbol, text)


def escape(text: object) -> str:
    """Escaped for HTML text and for a quoted attribute value (what cannot be shown, such as
    control characters, as a visible symbol)."""
    return html.escape(_clean(str(text)), quote=True)


def _one_line(text: str, limit: int) -> str:
    line = _clean(text).strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


@dataclass
class _Budget:
    """What the page may still show of diffs and stderr."""

    left: int

    def limits(self) -> tuple[int, int]:
        if self.left <= 0:
            return SPENT_LINES, SPENT_BYTES
        return MAX_LINES, min(MAX_BYTES, max(self.left, SPENT_BYTES))


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "replace"))


def _clip(text: str, budget: _Budget) -> tuple[list[str], int, int]:
    """The lines of ``text`` shown (cleaned), and how many lines and bytes were cut.

    Only what can be shown is cleaned: the cost is linear in ``text`` with a small constant
    (a split and one encode), however long it is.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    max_lines, max_bytes = budget.limits()
    shown: list[str] = []
    used = 0  # bytes of the page
    kept = 0  # bytes of the text
    partial = False
    for raw in lines[:max_lines]:
        # A character is at least a byte: no more than max_bytes characters of a line can be
        # shown, so only those are cleaned.
        long = len(raw) > max_bytes
        line = _clean(raw[:max_bytes] if long else raw)
        size = _utf8_size(line) + 1
        if long or used + size > max_bytes:
            room = max_bytes - used
            if room > 0:
                part = line.encode("utf-8", "replace")[:room].decode("utf-8", "ignore")
                shown.append(part)
                used += _utf8_size(part) + 1
                kept += _utf8_size(part)
                partial = True
            break
        shown.append(line)
        used += size
        kept += _utf8_size(raw) + 1
    budget.left -= used
    cut_lines = len(lines) - len(shown) + (1 if partial else 0)
    if not cut_lines:
        return shown, 0, 0
    total = _utf8_size(text) + (0 if text.endswith(("\n", "\r")) else 1)
    return shown, cut_lines, max(total - kept, 0)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def _diff_lines(lines: list[str]) -> str:
    out: list[str] = []
    for i, line in enumerate(lines):
        if (line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")) or (
            line.startswith("+++ ") and i > 0 and lines[i - 1].startswith("--- ")
        ):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        elif line and not line[0].isspace():
            kind = "what"  # a mismatch's summary line: the field, expected and actual
        else:
            kind = ""
        out.append(
            f'<span class="{kind}">{html.escape(line)}</span>' if kind else html.escape(line)
        )
    return "\n".join(out)


def _pre(kind: str, text: str, budget: _Budget) -> str:
    lines, cut_lines, cut_bytes = _clip(text, budget)
    body = _diff_lines(lines) if kind == "diff" else "\n".join(html.escape(x) for x in lines)
    # The newline after <pre> is dropped by every HTML parser, so a first empty line stays.
    out = f'<pre class="{kind}">\n{body}</pre>'
    if cut_lines or cut_bytes:
        out += (
            f'<p class="cut" data-cut-lines="{cut_lines}" data-cut-bytes="{cut_bytes}">'
            f"\u2026 cut here: {cut_lines:,} more line{'s' if cut_lines != 1 else ''} "
            f"({_size(cut_bytes)}) not shown. The JSON report "
            "(<code>raf conform --json FILE</code>) has all of it.</p>"
        )
    return out


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _started(stamp: str) -> str:
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return escape(stamp) if stamp else "\u2014"
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
        machine = when.isoformat(timespec="seconds").replace("+00:00", "Z")
        shown = when.strftime("%Y-%m-%d %H:%M:%S UTC")
    else:
        machine = when.isoformat(timespec="seconds")
        shown = when.strftime("%Y-%m-%d %H:%M:%S")
    return f'<time datetime="{escape(machine)}">{escape(shown)}</time>'


def _badge(status: str) -> str:
    return f'<span class="badge st-{status}">{status}</span>'


@dataclass
class _Scenario:
    dialect: str
    scenario: str
    total: int = 0
    passed: int = 0
    skipped: int = 0
    failed: int = 0
    errors: int = 0
    known: int = 0
    notices: int = 0
    stale: int = 0
    first_problem: int | None = None
    kinds: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.errors:
            return "error"
        if self.failed:
            return "fail"
        if self.stale:
            return "stale"
        if self.known:
            return "known"
        if self.passed:
            return "notice" if self.notices else "pass"
        return "skip"


def _scenarios(report: RunReport) -> list[_Scenario]:
    rows: dict[tuple[str, str], _Scenario] = {}
    for index, result in enumerate(report.results):
        key = (result.dialect, result.scenario)
        row = rows.get(key)
        if row is None:
            row = rows[key] = _Scenario(result.dialect, result.scenario)
        row.total += 1
        row.stale += bool(result.stale)
        shown = [d for d in result.differences if d.failing] or result.notices
        for difference in shown:
            if difference.mismatch.kind not in row.kinds:
                row.kinds.append(difference.mismatch.kind)
        if result.status == "pass":
            row.passed += 1
            row.notices += bool(result.notices)
        elif result.status == "skip":
            row.skipped += 1
        else:
            row.failed += result.status == "fail"
            row.errors += result.status == "error"
            row.known += result.status == "known"
        if _needs_a_block(result) and row.first_problem is None:
            row.first_problem = index
    return sorted(rows.values(), key=lambda row: _RANK[row.status])


def _needs_a_block(result: CaseResult) -> bool:
    return result.status != "pass" or bool(result.notices) or bool(result.stale)


def _verdict(report: RunReport) -> tuple[str, str, str]:
    """``pass``, ``fail`` or ``none`` (nothing ran), its label and a few words."""
    counts = report.counts()
    total = len(report.results)
    ran = total - counts["skip"]
    if not report.ok:
        bad = counts["fail"] + counts["error"]
        stale = len(report.stale())
        words = f"{bad:,} of {total:,} cases did not pass"
        if stale:
            words += f", {stale:,} baseline entr{'y' if stale == 1 else 'ies'} no longer fail"
        if report.stopped in ("interrupted", "terminated"):
            words += f" ({report.stopped} after {total:,} of {report.planned:,})"
        return "fail", "FAILED", words
    if ran:
        skipped = f" ({counts['skip']:,} skipped)" if counts["skip"] else ""
        return "pass", "PASSED", f"every case that ran passed{skipped}"
    return "none", "NOTHING RAN", "every case was skipped" if total else "there were no cases"


def _header(report: RunReport) -> str:
    name = report.implementation or "?"
    title = escape(name) + (
        f' <span class="version">{escape(report.version)}</span>' if report.version else ""
    )
    verdict, label, words = _verdict(report)
    facts = [
        ("implementation", escape(name)),
        ("version", escape(report.version) if report.version else "\u2014"),
        ("level", escape(report.level)),
        ("protocol", escape(report.protocol)),
        ("started", _started(report.started)),
        ("duration", escape(_duration(report.seconds))),
    ]
    items = "".join(
        f'<div><dt>{label}</dt><dd id="run-{label}">{value}</dd></div>' for label, value in facts
    )
    return (
        "<header>"
        f'<p class="kicker">raf conform report</p><h1 id="title">{title}</h1>'
        f'<p id="verdict" class="verdict st-{verdict}" data-verdict="{verdict}">'
        f"{label}: {words}</p>"
        f'<dl class="facts">{items}</dl>'
        "</header>"
    )


def _summary(report: RunReport) -> str:
    counts = report.counts()
    total = len(report.results)
    ran = total - counts["skip"]
    cells = "".join(
        f'<div class="count st-{status}"><span class="n" id="count-{status}" '
        f'data-count="{counts[status]}">{counts[status]:,}</span>'
        f'<span class="label">{_LABELS[status]}</span></div>'
        for status in _STATUSES
    )
    cells += (
        f'<div class="count st-total"><span class="n" id="count-total" data-count="{total}">'
        f'{total:,}</span><span class="label">cases</span></div>'
    )
    if ran:
        rate = counts["pass"] / ran
        shown = f"{rate * 100:.1f}%" if counts["pass"] != ran else "100%"
        if shown == "100.0%":  # not all passed, but rounds up: never claim 100%
            shown = "99.9%"
        rate_html = (
            f'<p class="rate"><span id="pass-rate" data-rate="{rate:.6f}">{shown}</span> '
            f"of the {ran:,} cases run passed"
            + (f" ({counts['skip']:,} skipped)" if counts["skip"] else "")
            + "</p>"
        )
    else:
        rate_html = (
            '<p class="rate"><span id="pass-rate" data-rate="">\u2014</span> no case was run</p>'
        )
    segments = "".join(
        f'<span class="seg st-{status}" style="width:{counts[status] * 100 / total:.4f}%" '
        f'title="{counts[status]:,} {_LABELS[status]}"></span>'
        for status in _STATUSES
        if total and counts[status]
    )
    label = ", ".join(f"{counts[s]:,} {_LABELS[s]}" for s in _STATUSES)
    bar = f'<div class="bar" role="img" aria-label="{label}">{segments}</div>'
    return (
        '<section id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>'
        f'<div class="counts">{cells}</div>{rate_html}{bar}</section>'
    )


def _table(report: RunReport) -> str:
    rows = []
    for row in _scenarios(report):
        ran = row.total - row.skipped
        name = escape(row.scenario)
        if row.first_problem is not None:
            name = f'<a href="#case-{row.first_problem}">{name}</a>'
        rows.append(
            f'<tr class="st-{row.status}" data-dialect="{escape(row.dialect)}" '
            f'data-scenario="{escape(row.scenario)}" data-status="{row.status}" '
            f'data-kinds="{escape(" ".join(row.kinds))}" '
            f'data-passed="{row.passed}" data-run="{ran}" data-skipped="{row.skipped}">'
            f"<td>{escape(row.dialect)}</td><td>{name}</td>"
            f'<td class="num">{row.passed:,} / {ran:,}</td>'
            f'<td class="num">{row.skipped:,}</td><td>{_badge(row.status)}</td>'
            f'<td class="kinds">{escape(", ".join(row.kinds))}</td></tr>'
        )
    body = "".join(rows) or '<tr><td colspan="6">No cases.</td></tr>'
    return (
        '<section id="scenarios-section" aria-labelledby="scenarios-h">'
        '<h2 id="scenarios-h">Scenarios</h2>'
        '<div class="scroll"><table id="scenarios"><thead><tr><th scope="col">Format</th>'
        '<th scope="col">Scenario</th><th scope="col" class="num">Passed / run</th>'
        '<th scope="col" class="num">Skipped</th><th scope="col">Status</th>'
        '<th scope="col">Kinds</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div></section>"
    )


def _not_read(report: RunReport) -> str:
    """The cassettes with an event type raf does not recognise or a field it does not know,
    one row each (the JSON report has every cassette, with what raf leaves aside on purpose)."""
    entries = unread_by_cassette(report.results)
    found = noteworthy(entries)
    if not found:
        return ""
    rows = []
    for entry in found:
        seen = entry.unread
        events = ", ".join(f"{e.type} ({e.count:,})" for e in seen.unrecognised_events)
        fields = ", ".join(
            f"{f.path}"
            + (f" in {f.event_type}" if f.event_type is not None else "")
            + f" ({f.count:,})"
            for f in seen.unknown_fields
        )
        rows.append(
            f'<tr data-dialect="{escape(entry.dialect)}" data-scenario="{escape(entry.scenario)}"'
            f' data-unrecognised="{len(seen.unrecognised_events)}"'
            f' data-unknown="{len(seen.unknown_fields)}">'
            f"<td>{escape(entry.dialect)}</td><td>{escape(entry.scenario)}</td>"
            f"<td><code>{escape(events)}</code></td><td><code>{escape(fields)}</code></td></tr>"
        )
    return (
        '<section id="not-read" aria-labelledby="not-read-h">'
        f'<h2 id="not-read-h">Not read by raf ({len(found):,} of {len(entries):,} '
        "cassettes)</h2><p>Event types and fields of the recordings that raf does not know "
        "(<code>raf cassette show FILE</code> lists them, with the fields raf leaves aside on "
        "purpose).</p>"
        '<div class="scroll"><table id="not-read-table"><thead><tr><th scope="col">Format</th>'
        '<th scope="col">Scenario</th><th scope="col">Unrecognised event types</th>'
        '<th scope="col">Unknown fields</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _case(index: int, result: CaseResult, budget: _Budget) -> str:
    opened = " open" if result.status in ("fail", "error") or result.stale else ""
    reason = result.reason or "(no reason given)"
    facts = [
        ("scenario", result.scenario),
        ("dialect", result.dialect),
        ("interaction", "" if result.interaction is None else str(result.interaction)),
        ("chunking", result.chunking or ""),
        ("level", result.level),
        ("seconds", f"{result.seconds:.3f}" if result.seconds else ""),
        ("cassette", result.cassette),
    ]
    meta = "".join(
        f"<div><dt>{label}</dt><dd>{escape(value)}</dd></div>" for label, value in facts if value
    )
    parts = [
        f'<details class="case st-{result.status}" id="case-{index}" '
        f'data-case-id="{escape(result.id)}" data-status="{result.status}" '
        f'data-dialect="{escape(result.dialect)}" data-scenario="{escape(result.scenario)}"'
        f"{' data-stale' if result.stale else ''}{opened}>"
        f'<summary>{_badge(result.status)} <code class="case-id">{escape(result.id)}</code> '
        f'<span class="reason">{escape(_one_line(reason, _REASON_IN_SUMMARY))}</span></summary>'
        f'<div class="body"><dl class="meta">{meta}</dl>'
    ]
    full = _clean(reason).strip()
    if "\n" in full or len(full) > _REASON_IN_SUMMARY:
        parts.append(f'<h3>Reason</h3><pre class="reason-full">\n{escape(reason)}</pre>')
    if result.reading:
        parts.append(
            f'<p class="reading">Matched another correct reading: {escape(result.reading)}</p>'
        )
    if result.differences:
        parts.append(_differences(result))
    if result.stale:
        items = "".join(f"<li>{escape(e.label())}</li>" for e in result.stale)
        parts.append(
            f'<h3>Baseline entries that no longer fail here</h3><ul class="stale">{items}</ul>'
        )
    if result.diff:
        parts.append("<h3>Diff</h3>" + _pre("diff", result.diff, budget))
    if result.stderr.strip():
        parts.append("<h3>stderr</h3>" + _pre("stderr", result.stderr, budget))
    elif result.status == "fail":
        parts.append('<p class="quiet">Nothing on stderr.</p>')
    parts.append("</div></details>")
    return "".join(parts)


def _differences(result: CaseResult) -> str:
    rows = []
    for d in result.differences:
        m = d.mismatch
        state = "known" if d.known else ("fails" if d.fails else "notice")
        rows.append(
            f'<tr class="kind-{m.kind} {state}" data-kind="{m.kind}" '
            f'data-severity="{d.severity}" data-state="{state}" data-field="{escape(m.key)}" '
            f'data-level="{escape(m.level)}"><td>{m.kind}</td><td>{d.severity}'
            f"{' (known)' if d.known else ''}</td><td><code>{escape(m.where)}</code></td>"
            f'<td class="value">{escape(_one_line(m.expected, _REASON_IN_SUMMARY))}</td>'
            f'<td class="value">{escape(_one_line(m.actual, _REASON_IN_SUMMARY))}</td></tr>'
        )
    return (
        '<h3>Differences</h3><div class="scroll"><table class="differences"><thead><tr>'
        '<th scope="col">Kind</th><th scope="col">Severity</th><th scope="col">Where</th>'
        '<th scope="col">Expected</th><th scope="col">Got</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _stale_section(report: RunReport) -> str:
    stale = report.stale()
    if not stale or report.baseline is None:
        return ""
    items = "".join(
        f'<li data-entry="{escape(item.entry.label())}">{escape(item.entry.label())} '
        f'<span class="quiet">(passes under {escape(", ".join(item.chunkings))})</span></li>'
        for item in stale
    )
    return (
        '<section id="stale" aria-labelledby="stale-h">'
        f'<h2 id="stale-h">Stale baseline entries ({len(stale):,})</h2>'
        f"<p>These entries of <code>{escape(report.baseline.source)}</code> no longer fail: "
        "remove them (or write the file again with <code>--write-baseline</code>).</p>"
        f"<ul>{items}</ul></section>"
    )


def _cases(report: RunReport) -> str:
    budget = _Budget(PAGE_BUDGET)
    order = sorted(
        range(len(report.results)),
        key=lambda i: _RANK["stale" if report.results[i].stale else report.results[i].status],
    )
    results = report.results

    def blocks(keep: Callable[[CaseResult], bool]) -> list[str]:
        return [_case(i, results[i], budget) for i in order if keep(results[i])]

    problems = blocks(lambda r: r.status in ("fail", "error") or bool(r.stale))
    known = blocks(lambda r: r.status == "known" and not r.stale)
    notices = blocks(lambda r: r.status == "pass" and bool(r.notices) and not r.stale)
    skips = blocks(lambda r: r.status == "skip")
    return (
        _stale_section(report)
        + '<section id="problems" data-section="problems" aria-labelledby="problems-h">'
        f'<h2 id="problems-h">Failures and errors ({len(problems):,})</h2>'
        + ("".join(problems) or '<p class="quiet">None: every case that ran passed.</p>')
        + "</section>"
        + (
            '<section id="known" data-section="known" aria-labelledby="known-h">'
            f'<h2 id="known-h">Known failures ({len(known):,})</h2>' + "".join(known) + "</section>"
            if known
            else ""
        )
        + (
            '<section id="notices" data-section="notices" aria-labelledby="notices-h">'
            f'<h2 id="notices-h">Passed with notices ({len(notices):,})</h2>'
            + "".join(notices)
            + "</section>"
            if notices
            else ""
        )
        + '<section id="skips" data-section="skips" aria-labelledby="skips-h">'
        f'<h2 id="skips-h">Skipped ({len(skips):,})</h2>'
        + ("".join(skips) or '<p class="quiet">None.</p>')
        + "</section>"
    )


_CSS = """
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;
--line:#d1d9e0;--pass:#1a7f37;--fail:#cf222e;--error:#bc4c00;--skip:#6e7781;
--known:#9a6700;--notice:#0969da;
--add-bg:#dafbe1;--add-fg:#116329;--del-bg:#ffebe9;--del-fg:#a40e26;--hunk:#0550ae}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;
--panel:#151b23;--line:#3d444d;--pass:#3fb950;--fail:#f85149;--error:#db6d28;--skip:#9198a1;
--known:#d29922;--notice:#58a6ff;
--add-bg:#12261e;--add-fg:#7ee787;--del-bg:#2d1214;--del-fg:#ffa198;--hunk:#79c0ff}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:1.5rem;font:15px/1.45 system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
[hidden]{display:none!important}
h1{margin:.1rem 0 .4rem;font-size:1.7rem;overflow-wrap:anywhere}
h1 .version{color:var(--muted);font-weight:400}
h2{font-size:1.2rem;margin:1.8rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
h3{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);
margin:.9rem 0 .3rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:.85rem}
.kicker{margin:0;color:var(--muted);text-transform:uppercase;font-size:.75rem;letter-spacing:.08em}
.verdict{display:inline-block;margin:.2rem 0 .8rem;padding:.25rem .7rem;border-radius:6px;
font-weight:600;color:#fff}
.verdict.st-pass{background:var(--pass)}.verdict.st-fail{background:var(--fail)}
.verdict.st-none{background:var(--skip)}
.facts,.meta{display:flex;flex-wrap:wrap;gap:.4rem 1.6rem;margin:0}
.facts dt,.meta dt{font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;
color:var(--muted)}
.facts dd,.meta dd{margin:0;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:.8rem}
.count{min-width:7.5rem;padding:.6rem .9rem;border:1px solid var(--line);border-left-width:6px;
border-radius:6px;background:var(--panel)}
.count .n{display:block;font-size:1.8rem;font-weight:650;line-height:1.1}
.count .label{color:var(--muted)}
.st-pass{--c:var(--pass)}.st-fail{--c:var(--fail)}.st-error{--c:var(--error)}
.st-skip{--c:var(--skip)}.st-total{--c:var(--fg)}.st-known{--c:var(--known)}
.st-notice{--c:var(--notice)}.st-stale{--c:var(--fail)}
table.differences td.value{font-family:ui-monospace,monospace;font-size:.8rem}
table.differences tr.fails td:first-child{color:var(--fail);font-weight:650}
table.differences tr.known td:first-child{color:var(--known);font-weight:650}
table.differences tr.notice td:first-child{color:var(--notice)}
.reading{color:var(--muted)}
.count{border-left-color:var(--c)}.count .n{color:var(--c)}
.rate{margin:.8rem 0 .4rem}.rate #pass-rate{font-weight:650;font-size:1.1rem}
.bar{display:flex;height:12px;border-radius:6px;overflow:hidden;background:var(--line)}
.seg{display:block;background:var(--c)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
td{overflow-wrap:break-word}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr.st-fail,tbody tr.st-error{background:color-mix(in srgb,var(--c) 8%,transparent)}
.badge{display:inline-block;min-width:3.6rem;white-space:nowrap;text-align:center;
padding:0 .4rem;border-radius:999px;font-size:.75rem;font-weight:650;text-transform:uppercase;
color:#fff;background:var(--c)}
details.case{border:1px solid var(--line);border-left:5px solid var(--c);border-radius:6px;
margin:.6rem 0;background:var(--bg)}
details.case>summary{cursor:pointer;padding:.45rem .7rem;background:var(--panel);
overflow-wrap:anywhere}
details.case[open]>summary{border-bottom:1px solid var(--line)}
.case-id{font-weight:600}.reason{color:var(--muted)}
.case .body{padding:.4rem .8rem .8rem}
pre{margin:0;padding:.6rem .7rem;overflow:auto;max-height:40rem;background:var(--panel);
border:1px solid var(--line);border-radius:6px;white-space:pre}
pre.reason-full{white-space:pre-wrap;overflow-wrap:anywhere}
pre span{display:inline-block;min-width:100%}
pre .add{background:var(--add-bg);color:var(--add-fg)}
pre .del{background:var(--del-bg);color:var(--del-fg)}
pre .hunk{color:var(--hunk)}pre .file{font-weight:650;color:var(--muted)}
pre .what{font-weight:650}
.cut{margin:.3rem 0 0;font-size:.85rem;color:var(--error)}
.quiet{color:var(--muted);font-style:italic}
#filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1.2rem 0 0;
padding:.5rem .7rem;border:1px solid var(--line);border-radius:6px;background:var(--panel)}
#filters button{font:inherit;padding:.2rem .7rem;border:1px solid var(--line);border-radius:6px;
background:var(--bg);color:var(--fg);cursor:pointer}
#filters button[aria-pressed=true]{background:var(--fg);color:var(--bg)}
#filters input{font:inherit;padding:.2rem .5rem;min-width:16rem;border:1px solid var(--line);
border-radius:6px;background:var(--bg);color:var(--fg)}
#filter-shown{color:var(--muted);margin-left:auto}
footer{margin-top:2rem;color:var(--muted);font-size:.8rem}
@media print{#filters{display:none}pre{max-height:none}}
"""

# Adds the filter controls (the page is complete without them). Its hash is in the page's
# Content-Security-Policy, so no other script can run even if something were not escaped.
_SCRIPT = """
(function () {
  "use strict";
  var bar = document.getElementById("filters");
  if (!bar) { return; }
  var blocks = Array.prototype.slice.call(document.querySelectorAll("details[data-case-id]"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("#scenarios tr[data-status]"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("section[data-section]"));
  // ?show=failures and ?q=TEXT set the filters from the address (a link to a view).
  var params = new URLSearchParams(window.location.search);
  var mode = params.get("show") === "failures" ? "failures" : "all";
  var needle = (params.get("q") || "").trim().toLowerCase();
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) { node.textContent = text; }
    return node;
  }
  function problem(node) {
    var status = node.getAttribute("data-status");
    return status === "fail" || status === "error" || status === "stale" ||
      node.hasAttribute("data-stale");
  }
  function matches(node) {
    if (!needle) { return true; }
    var hay = [node.getAttribute("data-case-id") || "", node.getAttribute("data-dialect") || "",
               node.getAttribute("data-scenario") || ""].join(" ").toLowerCase();
    return hay.indexOf(needle) !== -1;
  }
  var shown = el("span", {id: "filter-shown", "aria-live": "polite"});
  var modes = {};
  function apply() {
    var only = mode === "failures";
    var visible = 0;
    blocks.forEach(function (node) {
      var hide = (only && !problem(node)) || !matches(node);
      node.hidden = hide;
      if (!hide) { visible += 1; }
    });
    rows.forEach(function (node) {
      node.hidden = (only && !problem(node)) || !matches(node);
    });
    sections.forEach(function (section) {
      var mine = section.querySelectorAll("details[data-case-id]");
      var hide = mine.length > 0 || !!needle ||
        (only && section.getAttribute("data-section") !== "problems");
      for (var i = 0; i < mine.length; i += 1) { if (!mine[i].hidden) { hide = false; } }
      section.hidden = hide;
    });
    Object.keys(modes).forEach(function (k) {
      modes[k].setAttribute("aria-pressed", String(k === mode));
    });
    shown.textContent = "showing " + visible + " of " + blocks.length + " cases that did not pass";
    document.body.setAttribute("data-filter", mode);
  }
  bar.appendChild(el("strong", {}, "Show:"));
  [["all", "All"], ["failures", "Only failures and errors"]].forEach(function (pair) {
    var button = el("button", {type: "button", id: "filter-" + pair[0],
                               "data-filter": pair[0], "aria-pressed": "false"}, pair[1]);
    button.addEventListener("click", function () { mode = pair[0]; apply(); });
    modes[pair[0]] = button;
    bar.appendChild(button);
  });
  var search = el("input", {type: "search", id: "filter-text",
                            placeholder: "filter by case id, dialect or scenario",
                            "aria-label": "filter by case id, dialect or scenario"});
  search.value = needle;
  search.addEventListener("input", function () {
    needle = search.value.trim().toLowerCase();
    apply();
  });
  bar.appendChild(search);
  [["expand", "Expand all", true], ["collapse", "Collapse all", false]].forEach(function (t) {
    var button = el("button", {type: "button", id: "filter-" + t[0]}, t[1]);
    button.addEventListener("click", function () {
      blocks.forEach(function (node) { if (!node.hidden) { node.open = t[2]; } });
    });
    bar.appendChild(button);
  });
  bar.appendChild(shown);
  bar.hidden = false;
  apply();
}());
"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)


def render_html(report: RunReport) -> str:
    """The report as one self-contained HTML page."""
    name = report.implementation or "?"
    version = f" {report.version}" if report.version else ""
    counts = report.counts()
    label = _verdict(report)[1].lower()
    title = f"raf conform: {name}{version}: {label} ({counts['pass']}/{len(report.results)})"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="raf conform">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + _header(report)
        + "\n<main>\n"
        + _summary(report)
        + '\n<div id="filters" role="toolbar" aria-label="filters" hidden></div>\n'
        + _table(report)
        + "\n"
        + _not_read(report)
        + _cases(report)
        + "\n</main>\n"
        f"<footer>Protocol {escape(report.protocol)}. Diffs and stderr are cut at {MAX_LINES} "
        f"lines or {MAX_BYTES // 1024} KiB each; the JSON report has them in full.</footer>\n"
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


def write_html(report: RunReport, path: str | os.PathLike[str]) -> None:
    """Write the HTML report to ``path``."""
    Path(path).write_text(render_html(report), encoding="utf-8")
