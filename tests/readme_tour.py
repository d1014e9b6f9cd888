"""The README's tour as data: its shell commands with the output it shows, its Python
snippets with what they print, and the rule by which shown output matches real output.

tests/test_readme.py runs the Python snippets from the repository root; tests/
test_readme_installed.py runs every command and snippet from another folder after a plain
``pip install``. Every command of the tour is either run there or listed in :data:`NOT_RUN`
with the reason, so a new command cannot go unchecked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TOUR = README.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]


@dataclass(frozen=True)
class Command:
    """A shell command of the tour, and the output shown under it (``None``: none shown)."""

    text: str
    shown: tuple[str, ...] | None


def commands() -> list[Command]:
    """The tour's shell commands, in order: the ``$ `` lines of its plain code blocks with
    the lines under each, and the lines of blocks made only of ``raf`` commands."""
    found: list[Command] = []
    for language, lines in _blocks(TOUR):
        if language:
            continue
        if any(line.startswith("$ ") for line in lines):
            current: list[str] = []
            for line in lines:
                if line.startswith("$ "):
                    current = []
                    found.append(Command(line[2:].strip(), ()))
                else:
                    current.append(line)
                    found[-1] = Command(found[-1].text, tuple(current))
        elif all(line.startswith("raf ") for line in lines if line.strip()):
            found.extend(
                Command(re.split(r"\s+#", line, maxsplit=1)[0].strip(), None)  # no comment
                for line in lines
                if line.strip()
            )
    return found


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """The fenced code blocks of ``text``: (language, lines)."""
    blocks: list[tuple[str, list[str]]] = []
    inside: list[str] | None = None
    for line in text.split("\n"):
        if inside is None and line.startswith("```"):
            inside = []
            blocks.append((line[3:].strip(), inside))
        elif inside is not None and line.strip() == "```":
            inside = None
        elif inside is not None:
            inside.append(line)
    return blocks


def python_snippets() -> list[str]:
    """The README's Python snippets (all in the tour), in order."""
    return ["\n".join(lines) + "\n" for language, lines in _blocks(README) if language == "python"]


NOT_RUN = {
    "raf cassette show cassettes/openai_chat/index_always_zero_distinct_ids.yaml": (
        "names the clone's cassettes/ folder, as the README says"
    ),
    "raf cassette import ~/recordings -o mine": "the reader's own recordings",
    "raf cassette lint mine": "the reader's own cassettes",
    "raf cassette expect mine/openai_chat/refund.yaml --write": "the reader's own cassette",
    "raf conform --cassettes mine --update": "the reader's own cassettes",
    "raf conform --cassettes mine --impl 'python my_client.py'": "the reader's own client",
    "raf conform --impl 'python my_client.py' --write-baseline known.yaml": (
        "the reader's own client"
    ),
    "raf conform --impl 'python my_client.py' --baseline known.yaml": "the reader's own client",
    "raf conform --impl 'python my_client.py' --lf -x": "the reader's own client",
    "raf fuzz --impl 'python my_client.py' --time 60 -o fuzz_cassettes": "the reader's own client",
    "raf record --upstream https://api.openai.com -o cassettes --max-age 90d": (
        "the reader's own provider and key (tests/record runs it against a local provider)"
    ),
    "raf conform --impl 'python my_client.py' --cassettes fuzz_cassettes": (
        "the reader's own client"
    ),
}
"""Tour commands not run as written, and why; every ``curl`` line is also not run (it names
the port ``raf serve`` printed, which differs on every run)."""

EXIT_STATUS = {
    "raf cassette diff examples/drift/committed.yaml examples/drift/fresh.yaml": 1,
}
"""Tour commands whose exit status is not 0, as the README says."""

SAME_OUTPUT_AS = {
    "raf pipeline examples/openai_chat_parallel_tools.sse --chunk-size 1": (
        "raf pipeline examples/openai_chat_parallel_tools.sse"
    ),
}
"""Commands shown without output whose output the README says is another's."""

SERVERS = {"raf serve --port 0"}
"""Commands that run until stopped: their first line is compared, then they get Ctrl-C."""

PYTHON_PRINTS = (
    (
        "I'll check both cities.",
        "('get_weather', {'location': 'Paris, France'})",
        "call_FthC9qRpsL5kBpwwyw6c7j4k location Paris, Fr",
    ),
    ("tool_calls ['ToolCallEnd', 'ToolCallEnd', 'ToolCalling', 'ToolCalling']",),
    ("'The sky looks blue'\n['transport_error']\nmodel: expected \"gpt-4o-mini\", got null",),
    (),
    (
        "400 An assistant message with 'tool_calls' must be followed by tool messages",
        "chat.tool_calls_answered messages[1].tool_calls; "
        "chat.tool_call_answered_once messages[3].tool_call_id",
        "['chat.tool_calls_answered', 'chat.tool_call_answered_once']",
    ),
)
"""What each Python snippet of the tour prints (among other lines), in order; the fuzz test
prints nothing and passes."""

PYTHON_NEVER_PRINTS = (("call_RpEDoB8O0FTL9JoKTuCVFOyR unit c",), (), (), (), ())
"""What they never print: ``unit`` completes within one push, so no progress is shown."""


# -- shown output against real output ---------------------------------------------------------

_BOX = set("─━│┃┏┓┗┛┡┩╇┳┻┴┬┼└┘┌┐├┤╭╮╯╰═║")


def _normal(line: str) -> str:
    """Spaces collapsed, table columns as ``|``, durations (``2.4 s``) as ``N s``."""
    line = line.replace("│", "|").replace("┃", "|")
    line = re.sub(r"\b\d+(\.\d+)? s\b", "N s", line)
    return " ".join(line.split())


def _is_rule(line: str) -> bool:
    """A table border, or an empty line."""
    return all(c in _BOX or c.isspace() for c in line)


def _matches(pattern: str, line: str) -> bool:
    """``...`` in a shown line stands for anything, nothing included."""
    regex = ".*".join(re.escape(part) for part in pattern.split("..."))
    return re.fullmatch(regex, line) is not None


def mismatch(shown: tuple[str, ...], actual: str) -> str | None:
    """Why ``actual`` is not what ``shown`` shows, or ``None``.

    Shown lines match real lines one for one and in order, except where a line of ``...``
    alone (or a table row of ``...``) stands for any number of lines; ``...`` inside a line
    stands for any text. Table rows (lines with column bars) must each be a row of the real
    table, in any order; borders, blank lines, widths and durations do not count.
    """
    lines = [_normal(line) for line in actual.splitlines() if not _is_rule(line)]
    rows = [line for line in lines if "|" in line]
    rest = [line for line in lines if "|" not in line]
    at, gap = 0, False
    for raw in shown:
        if _is_rule(raw):
            continue
        pattern = _normal(raw)
        if pattern.replace("|", "").strip() == "...":
            gap = True
            continue
        if "|" in pattern:
            if not any(_matches(pattern, row) for row in rows):
                return f"no row of the table is {raw.strip()!r}"
            continue
        while gap and at < len(rest) and not _matches(pattern, rest[at]):
            at += 1
        if at == len(rest) or not _matches(pattern, rest[at]):
            where = repr(rest[at]) if at < len(rest) else "the end of the output"
            return f"shown {raw.strip()!r}, got {where}"
        at, gap = at + 1, False
    if at < len(rest) and not gap:
        return f"more output than shown: {rest[at]!r}"
    return None
