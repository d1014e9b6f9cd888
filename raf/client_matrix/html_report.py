"""The real-client matrix as one self-contained HTML page (``raf clients --html FILE``).

The page needs nothing but itself: its CSS is inline, it has no script, and its
Content-Security-Policy forbids every external resource and every script. It holds:

- a header: the chunkings and how many columns of each language;
- the legend: the marks (:data:`raf.conformance.severity.MARKS`) and the kinds of difference
  with their default severity (:data:`raf.conformance.severity.KINDS`);
- the totals (``table#totals``): one row per column (``tr[data-client]``), its language,
  library and version, and how many cells of the stream matrix and of the tool loops passed
  of those judged (``data-passed``, ``data-judged``);
- the stream matrix: per format a table (``table#streams-<format>``) whose rows are the
  scenarios (``tr[data-scenario]``) and whose columns are the clients, grouped by language
  (Python, then Node.js, then the programs given with ``--impl``; a first header row names
  each group, ``th.language[data-language]``), each ``th[data-client]`` saying the name and
  the version; each cell (``td.cell[data-client][data-status][data-kinds]``) shows ``✓``,
  ``◐``, ``✗`` or ``-`` with the reason, every difference in its ``title`` (the tooltip) and,
  for a cell that did not simply pass, in a ``<details>`` under it; the table's footer
  (``tr.totals``) has each column's total for the format;
- the tool loops, the same way (``table#loops-<format>``): each cell the verdict on the final
  answer and on the requests the loop sent (``response / requests``);
- how each client is read (``table#how``) and how each tool loop is driven
  (``table#how-loops``): language, library and the adapter's paragraph;
- the columns that did not run, and why (``ul#not-run``).

Everything that comes from a library or a program (names, versions, reasons, details) is
escaped and its control characters shown as escapes, as in raf conform's HTML report
(:mod:`raf.conformance.reports.html_report`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from raf.client_matrix.report import LANGUAGES, Column, by_language, language_label
from raf.client_matrix.run import DEFAULT_CHUNKINGS, Cell
from raf.client_matrix.tool_loops import LoopCell, Verdict
from raf.conformance.reports.html_report import escape as _e
from raf.conformance.severity import KINDS, MARKS

__all__ = ["render_matrix_html", "write_matrix_html"]

_SKIP = "-"
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
_STATUS_WORDS = {
    "pass": "passed",
    "notice": "passed with notices only",
    "fail": "failed",
    "skip": "not judged",
}


def _groups(columns: Sequence[Column]) -> list[tuple[str, list[Column]]]:
    """``columns`` by language, in the matrix's order (:func:`by_language`)."""
    groups: dict[str, list[Column]] = {}
    for column in by_language(columns):
        groups.setdefault(column.language, []).append(column)
    return list(groups.items())


def _language_heading(language: str) -> str:
    if language in LANGUAGES:
        return language
    return language or "programs (--impl)"


def _head(first: str, groups: list[tuple[str, list[Column]]]) -> str:
    top = "".join(
        f'<th scope="colgroup" class="language" colspan="{len(group)}" '
        f'data-language="{_e(language)}">{_e(_language_heading(language))}</th>'
        for language, group in groups
    )
    names = "".join(
        f'<th scope="col" class="client" data-client="{_e(c.name)}" '
        f'data-language="{_e(c.language)}">{_e(c.name)}'
        + (f' <span class="version">{_e(c.version)}</span>' if c.version else "")
        + "</th>"
        for _, group in groups
        for c in group
    )
    return (
        f'<thead><tr><th scope="col" rowspan="2" class="scenario">{first}</th>{top}</tr>'
        f"<tr>{names}</tr></thead>"
    )


def _details(lines: Sequence[str]) -> str:
    if not lines:
        return ""
    items = "".join(f"<li>{_e(line)}</li>" for line in lines)
    return f'<details><summary>details</summary><ul class="details">{items}</ul></details>'


def _title(words: str, lines: Sequence[str]) -> str:
    return "\n".join([words, *lines]) if lines else words


def _stream_cell(column: Column, cell: Cell | None) -> str:
    if cell is None:
        return f'<td class="cell empty" data-client="{_e(column.name)}"></td>'
    status = cell.status
    symbol = _SKIP if status == "skip" else MARKS[status]
    lines = list(cell.details)
    if cell.raised:
        lines.append(f"raised: {cell.raised}")
    words = f"{column.name}: {_STATUS_WORDS[status]}" + (f": {cell.reason}" if cell.reason else "")
    # A cell not judged shows only its mark (as the Markdown does); why is in its tooltip.
    shown = cell.reason if status != "skip" else ""
    reason = f' <span class="reason">{_e(shown)}</span>' if shown else ""
    more = _details(lines) if status in ("fail", "notice") else ""
    return (
        f'<td class="cell st-{status}" data-client="{_e(column.name)}" data-status="{status}" '
        f'data-kinds="{_e(" ".join(cell.kinds))}" title="{_e(_title(words, lines))}">'
        f'<span class="mark">{symbol}</span>{reason}{more}</td>'
    )


def _verdict(level: str, verdict: Verdict) -> str:
    symbol = MARKS[verdict.status]
    reason = f' <span class="reason">{_e(verdict.reason)}</span>' if verdict.reason else ""
    return (
        f'<span class="level st-{verdict.status}" data-level="{level}" '
        f'data-status="{verdict.status}"><span class="mark">{symbol}</span>{reason}</span>'
    )


def _loop_cell(column: Column, cell: LoopCell | None) -> str:
    if cell is None:
        return f'<td class="cell empty" data-client="{_e(column.name)}"></td>'
    status = cell.status
    if status == "skip":
        return (
            f'<td class="cell st-skip" data-client="{_e(column.name)}" data-status="skip" '
            f'data-kinds="" title="{_e(f"{column.name}: {cell.skip}")}">'
            f'<span class="mark">{_SKIP}</span></td>'
        )
    lines = [f"response: {d}" for d in cell.response.details]
    lines += [f"requests: {d}" for d in cell.requests.details]
    if cell.rules:
        lines.append("rules broken: " + ", ".join(cell.rules))
    lines.append(f"requests sent: {cell.sent}")
    if cell.raised:
        lines.append(f"raised: {cell.raised}")
    kinds = list(dict.fromkeys(cell.response.kinds + cell.requests.kinds))
    words = f"{column.name}: {_STATUS_WORDS[status]}: {cell.mark}"
    more = _details(lines) if status in ("fail", "notice") else ""
    return (
        f'<td class="cell st-{status}" data-client="{_e(column.name)}" data-status="{status}" '
        f'data-kinds="{_e(" ".join(kinds))}" title="{_e(_title(words, lines))}">'
        f'{_verdict("response", cell.response)}<span class="slash"> / </span>'
        f"{_verdict('requests', cell.requests)}{more}</td>"
    )


def _counts(cells: Sequence[Cell | LoopCell]) -> tuple[int, int, int]:
    """Passed (with notices or not), judged, and passed with notices only."""
    passed = sum(c.status in ("pass", "notice") for c in cells)
    judged = sum(c.status != "skip" for c in cells)
    noticed = sum(c.status == "notice" for c in cells)
    return passed, judged, noticed


def _total_cell(column: Column, cells: Sequence[Cell | LoopCell]) -> str:
    passed, judged, noticed = _counts(cells)
    notices = f' <span class="notices">({noticed} {MARKS["notice"]})</span>' if noticed else ""
    return (
        f'<td class="num" data-client="{_e(column.name)}" data-passed="{passed}" '
        f'data-judged="{judged}">{passed}/{judged}{notices}</td>'
    )


def _tables(
    kind: str,
    columns: Sequence[Column],
    cells: Sequence[Cell | LoopCell],
) -> str:
    """One table per format: ``kind`` is ``streams`` or ``loops``."""
    by_key: dict[tuple[str, str, str], Cell | LoopCell] = {
        (c.client, c.dialect, c.scenario): c for c in cells
    }
    ran = [c for c in columns if c.missing is None]
    dialects = sorted({d for c in ran for d in c.dialects})
    out = []
    for dialect in dialects:
        present = [c for c in ran if dialect in c.dialects]
        groups = _groups(present)
        present = [c for _, group in groups for c in group]
        scenarios = sorted({c.scenario for c in cells if c.dialect == dialect})
        if not present or not scenarios:
            continue
        rows = []
        for scenario in scenarios:
            shown = []
            for column in present:
                cell = by_key.get((column.name, dialect, scenario))
                if kind == "streams":
                    shown.append(_stream_cell(column, cell if isinstance(cell, Cell) else None))
                else:
                    shown.append(_loop_cell(column, cell if isinstance(cell, LoopCell) else None))
            rows.append(
                f'<tr data-scenario="{_e(scenario)}"><th scope="row">{_e(scenario)}</th>'
                + "".join(shown)
                + "</tr>"
            )
        totals = "".join(
            _total_cell(
                column, [c for c in cells if c.client == column.name and c.dialect == dialect]
            )
            for column in present
        )
        label = "passed" if kind == "streams" else "passed (both levels)"
        first = "scenario" if kind == "streams" else "recording"
        heading = dialect if kind == "streams" else f"{dialect} tool loops"
        out.append(
            f'<section class="format" id="{kind}-{_e(dialect)}-section" '
            f'data-format="{_e(dialect)}"><h3>{_e(heading)}</h3>'
            f'<div class="scroll"><table class="matrix" id="{kind}-{_e(dialect)}" '
            f'data-format="{_e(dialect)}">{_head(first, groups)}<tbody>{"".join(rows)}</tbody>'
            f'<tfoot><tr class="totals"><th scope="row">{label}</th>{totals}</tr></tfoot>'
            "</table></div></section>"
        )
    return "".join(out)


def _legend(chunkings: Sequence[str]) -> str:
    marks = (
        f'<li><span class="mark st-pass">{MARKS["pass"]}</span> passed: what the library '
        "hands its user is the reviewed expectation, or another correct reading of the "
        "recording</li>"
        f'<li><span class="mark st-notice">{MARKS["notice"]}</span> passed with notices '
        "only: a form correct clients legitimately differ in</li>"
        f'<li><span class="mark st-fail">{MARKS["fail"]}</span> failed, with the kinds of '
        "what differs</li>"
        f'<li><span class="mark st-skip">{_SKIP}</span> not judged: the library does not '
        "report what the case needs, never receives such a response, or the recording is not "
        "of its format</li>"
    )
    kinds = "".join(
        f'<tr data-kind="{info.name}"><td><code>{info.name}</code></td>'
        f"<td>{info.severity}</td><td>{_e(info.meaning)}</td></tr>"
        for info in KINDS.values()
    )
    return (
        '<section id="legend" aria-labelledby="legend-h"><h2 id="legend-h">How to read it</h2>'
        f"<p>Every scenario is served under each chunking ({_e(', '.join(chunkings))}); a "
        "cell fails when any chunking fails. Hover a cell for every difference, or open its "
        "details.</p>"
        f'<ul class="marks">{marks}</ul>'
        '<table id="kinds"><thead><tr><th scope="col">kind</th><th scope="col">severity</th>'
        f'<th scope="col">what differs</th></tr></thead><tbody>{kinds}</tbody></table>'
        "</section>"
    )


def _totals(
    columns: Sequence[Column],
    cells: Sequence[Cell],
    loop_columns: Sequence[Column],
    loop_cells: Sequence[LoopCell],
) -> str:
    rows = []
    streams = {c.name: c for c in columns if c.missing is None}
    loops = {c.name: c for c in loop_columns if c.missing is None}
    names = list(dict.fromkeys(c.name for c in by_language([*columns, *loop_columns])))
    every = {c.name: c for c in [*loop_columns, *columns]}
    for name in names:
        column = every[name]
        if column.missing is not None:
            continue

        def total(present: bool, mine: Sequence[Cell | LoopCell], what: str) -> str:
            if not present:
                return f'<td class="num" data-section="{what}"></td>'
            passed, judged, noticed = _counts(mine)
            notices = f" ({noticed} {MARKS['notice']})" if noticed else ""
            return (
                f'<td class="num" data-section="{what}" data-passed="{passed}" '
                f'data-judged="{judged}">{passed}/{judged}{notices}</td>'
            )

        rows.append(
            f'<tr data-client="{_e(name)}" data-language="{_e(column.language)}">'
            f'<th scope="row">{_e(name)}</th><td>{_e(language_label(column.language))}</td>'
            f"<td>{_e(column.library)}</td><td>{_e(column.version)}</td>"
            + total(name in streams, [c for c in cells if c.client == name], "streams")
            + total(name in loops, [c for c in loop_cells if c.client == name], "loops")
            + "</tr>"
        )
    body = "".join(rows) or '<tr><td colspan="6">No column ran.</td></tr>'
    return (
        '<section id="totals-section" aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2>'
        '<div class="scroll"><table id="totals"><thead><tr><th scope="col">client</th>'
        '<th scope="col">language</th><th scope="col">library</th><th scope="col">version</th>'
        '<th scope="col" class="num">streams passed</th>'
        '<th scope="col" class="num">tool loops passed</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div></section>"
    )


def _how(table_id: str, heading: str, what: str, columns: Sequence[Column]) -> str:
    described = [c for c in by_language(columns) if c.how and c.missing is None]
    if not described:
        return ""
    rows = "".join(
        f'<tr data-client="{_e(c.name)}" data-language="{_e(c.language)}">'
        f'<th scope="row">{_e(c.name)} <span class="version">{_e(c.version)}</span></th>'
        f"<td>{_e(language_label(c.language))}</td><td>{_e(c.library)}</td>"
        f'<td class="how">{_e(c.how)}</td></tr>'
        for c in described
    )
    return (
        f'<section id="{table_id}-section"><h2>{heading}</h2><div class="scroll">'
        f'<table id="{table_id}"><thead><tr><th scope="col">client</th>'
        '<th scope="col">language</th><th scope="col">library</th>'
        f'<th scope="col">{what}</th></tr></thead><tbody>{rows}</tbody></table></div></section>'
    )


def _not_run(columns: Sequence[Column]) -> str:
    missing = {c.name: c for c in columns if c.missing}
    if not missing:
        return ""
    items = "".join(
        f'<li data-client="{_e(c.name)}"><strong>{_e(c.name)}</strong> '
        f"({_e(language_label(c.language))}): {_e(c.missing or '')}</li>"
        for c in by_language(list(missing.values()))
    )
    return f'<section id="not-run-section"><h2>Not run</h2><ul id="not-run">{items}</ul></section>'


_CSS = """
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;
--line:#d1d9e0;--pass:#1a7f37;--fail:#cf222e;--skip:#6e7781;--notice:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;
--panel:#151b23;--line:#3d444d;--pass:#3fb950;--fail:#f85149;--skip:#9198a1;--notice:#58a6ff}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1600px;padding:1.5rem;font:14px/1.45 system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
h1{margin:.1rem 0 .4rem;font-size:1.7rem}
h2{font-size:1.25rem;margin:1.8rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:.85rem}
.kicker{margin:0;color:var(--muted);text-transform:uppercase;font-size:.75rem;letter-spacing:.08em}
.facts{display:flex;flex-wrap:wrap;gap:.4rem 1.6rem;margin:0}
.facts dt{font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.facts dd{margin:0}
.scroll{overflow-x:auto}
table{border-collapse:collapse}
th,td{text-align:left;padding:.3rem .5rem;border:1px solid var(--line);vertical-align:top}
thead th{background:var(--panel);font-size:.8rem}
th.language{text-align:center;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
th.client{white-space:nowrap}
.version{color:var(--muted);font-weight:400}
tbody th{font-weight:500;max-width:20rem;overflow-wrap:anywhere}
td.cell{min-width:3rem;max-width:22rem;font-size:.85rem;overflow-wrap:anywhere}
.st-pass{--c:var(--pass)}.st-fail{--c:var(--fail)}.st-skip{--c:var(--skip)}
.st-notice{--c:var(--notice)}
td.st-fail{background:color-mix(in srgb,var(--fail) 9%,transparent)}
td.st-notice{background:color-mix(in srgb,var(--notice) 7%,transparent)}
.mark{font-weight:700;color:var(--c)}
.level{display:inline}.slash{color:var(--muted)}
.reason{color:var(--fg)}
details{margin-top:.2rem}
details summary{cursor:pointer;color:var(--muted);font-size:.75rem}
ul.details{margin:.2rem 0;padding-left:1.1rem;font-size:.78rem;color:var(--muted)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tfoot th,tfoot td{background:var(--panel);font-weight:600}
ul.marks{list-style:none;padding:0}
ul.marks .mark{display:inline-block;min-width:1.4rem}
td.how{max-width:60rem}
footer{margin-top:2rem;color:var(--muted);font-size:.8rem}
"""


def render_matrix_html(
    columns: Sequence[Column],
    cells: Sequence[Cell],
    *,
    loop_columns: Sequence[Column] = (),
    loop_cells: Sequence[LoopCell] = (),
    chunkings: Sequence[str] = DEFAULT_CHUNKINGS,
) -> str:
    """The matrix (the stream section ``columns`` and ``cells``, the tool loops
    ``loop_columns`` and ``loop_cells``; either may be empty) as one HTML page."""
    every = {c.name: c for c in [*columns, *loop_columns]}
    languages = _groups(list(every.values()))
    counted = ", ".join(f"{len(group)} {language_label(language)}" for language, group in languages)
    facts = [("chunkings", ", ".join(chunkings)), ("columns", counted or "none")]
    items = "".join(f"<div><dt>{k}</dt><dd>{_e(v)}</dd></div>" for k, v in facts)
    streams = _tables("streams", columns, cells) if columns else ""
    loops = _tables("loops", loop_columns, loop_cells) if loop_columns else ""
    body = (
        '<header><p class="kicker">raf clients</p><h1>The real-client matrix</h1>'
        f'<dl class="facts">{items}</dl></header>\n<main>\n'
        + _legend(chunkings)
        + _totals(columns, cells, loop_columns, loop_cells)
        + (
            '<section id="streams"><h2>Streams</h2><p>What each library hands its user, '
            "judged as raf conform judges a case at level response.</p>" + streams + "</section>"
            if streams
            else ""
        )
        + (
            '<section id="loops"><h2>Tool loops</h2><p>Each cell: the verdict on the final '
            "answer / the verdict on every request the loop sent (the request rules broken, by "
            "id).</p>" + loops + "</section>"
            if loops
            else ""
        )
        + _how("how", "How each client is read", "what its user reads", columns)
        + _how(
            "how-loops",
            "How each tool loop is driven",
            "the library's loop, as its documentation shows it",
            loop_columns,
        )
        + _not_run(list(every.values()))
        + "\n</main>\n"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="raf clients">\n'
        "<title>raf clients: the real-client matrix</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n"
        + body
        + "<footer>Written by raf clients; docs/clients.md explains each failing cell.</footer>\n"
        "</body>\n</html>\n"
    )


def write_matrix_html(
    path: str | os.PathLike[str],
    columns: Sequence[Column],
    cells: Sequence[Cell],
    *,
    loop_columns: Sequence[Column] = (),
    loop_cells: Sequence[LoopCell] = (),
    chunkings: Sequence[str] = DEFAULT_CHUNKINGS,
) -> None:
    """Write :func:`render_matrix_html` to ``path``."""
    page = render_matrix_html(
        columns, cells, loop_columns=loop_columns, loop_cells=loop_cells, chunkings=chunkings
    )
    Path(path).write_text(page, encoding="utf-8")
