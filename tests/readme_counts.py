"""The counts of the bundled suite that the README, docs/conformance.md and docs/agent.md give
in their prose (scenarios per format, cases, tool loops, request rules, the cassettes the chat
clients replay), written from the suite itself.

    python -m tests.readme_counts README.md docs/*.md          # rewrites them
    python -m tests.readme_counts --check README.md docs/*.md  # exit 1 when stale

(Only the documents it knows are taken from ``docs/*.md``.)

Each count is a number in a known phrase ("replays 163 recorded scenarios of the nine
formats"); only the number (or the number word) is rewritten, where it stands, so the wrapping
of the prose is kept. A phrase a document no longer has, or has twice, is an error that names
it: reword the phrase here and in the document together. tests/test_readme.py checks that both
documents are what this writes.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from raf import formats
from raf.conformance.cases import load_suite
from raf.formats.request_rules import rules
from raf.shared.bundled import bundled
from raf.shared.doc_block import rewrite_files

# The cassettes whose first request no chat client sends (that test's data, docs/agent.md).
from tests.agent.test_http_replay import NOT_SENT

MODULE: Final = "tests.readme_counts"
DOCUMENTS: Final = ("README.md", "docs/conformance.md", "docs/agent.md")
"""The documents this rewrites, relative to the repository."""

WORDS: Final = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]

# How the README names each format in its list of scenarios per format.
README_LABELS: Final = {
    "Chat Completions": "openai_chat",
    "Anthropic": "anthropic_messages",
    "Responses": "openai_responses",
    "Gemini": "gemini",
    "Bedrock": "bedrock_converse",
    "Interactions": "gemini_interactions",
    "Ollama": "ollama_chat",
    "Cohere": "cohere_v2",
    "legacy Completions": "openai_completions",
}


@dataclass(frozen=True)
class Facts:
    """The counts of the bundled suite."""

    scenarios: dict[str, int]  # cassettes per format
    interactions: int  # of every cassette
    cases: int  # every case raf conform runs
    eventstream_cases: int  # the cases under the chunking `eventstream`
    chat_cases: int  # those of openai_chat (what the tour's Node.js client reads)
    tool_loops: int  # the tool-loop recordings
    tool_loop_cassettes: int  # the cassettes of more than one interaction
    rules: int  # the request rules
    rule_formats: int  # the formats they are about
    not_sent: dict[str, int]  # per format, the cassettes a chat client cannot replay

    @property
    def total(self) -> int:
        return sum(self.scenarios.values())

    @property
    def formats(self) -> int:
        return len(self.scenarios)


def facts() -> Facts:
    """The counts of the bundled suite, as ``raf conform`` and ``raf serve`` find it."""
    suite = bundled()
    cases = load_suite(suite.cassettes, suite.goldens).cases
    cassettes = {(case.dialect, case.cassette) for case in cases}
    per_cassette = Counter(
        (case.dialect, case.cassette) for case in cases if case.chunking == "whole"
    )
    every = rules()
    return Facts(
        scenarios=dict(Counter(dialect for dialect, _ in cassettes)),
        interactions=sum(per_cassette.values()),
        cases=len(cases),
        eventstream_cases=sum(case.chunking == "eventstream" for case in cases),
        chat_cases=sum(case.dialect == "openai_chat" for case in cases),
        tool_loops=sum(1 for _ in suite.tool_loops.rglob("*.yaml")),
        tool_loop_cassettes=sum(n > 1 for n in per_cassette.values()),
        rules=len(every),
        rule_formats=len({name for rule in every for name in rule.formats}),
        not_sent=dict(Counter(name for name, _ in NOT_SENT)),
    )


def word(n: int) -> str:
    return WORDS[n] if n < len(WORDS) else str(n)


def _per_format(listed: str, counts: dict[str, str]) -> str:
    """``listed`` ("45 Chat Completions, 25 Anthropic, ..." or "45 `openai_chat`, ...") with
    each number replaced by its format's count (``counts`` by label)."""
    seen: set[str] = set()

    def number(match: re.Match[str]) -> str:
        label = " ".join(match["label"].split())
        if label not in counts:
            raise ValueError(f"{label!r} names no format (tests/readme_counts.py's labels)")
        seen.add(label)
        return counts[label] + match["rest"]

    out = re.sub(r"\d+(?P<rest>\s+(?P<label>`?[A-Za-z_0-9]+(?: [A-Za-z]+)?`?))", number, listed)
    missing = set(counts) - seen
    if missing:
        raise ValueError(f"the list of scenarios per format has no count for {sorted(missing)}")
    return out


Fill = Callable[[Facts], dict[str, str]]


def _readme_labels(f: Facts) -> dict[str, str]:
    labels = {label: str(f.scenarios[name]) for label, name in README_LABELS.items()}
    unlabelled = set(f.scenarios) - set(README_LABELS.values())
    if unlabelled:
        raise ValueError(f"no README label for {sorted(unlabelled)} (tests/readme_counts.py)")
    return labels


# Per document: each phrase (a regular expression whose whitespace may be any whitespace) and
# what its named groups become. A group named ``listed`` is a list of counts per format.
PHRASES: Final[dict[str, tuple[tuple[str, Fill], ...]]] = {
    "README.md": (
        (
            r"replays (?P<total>\d+) recorded scenarios of the (?P<formats>\w+) formats",
            lambda f: {"total": str(f.total), "formats": word(f.formats)},
        ),
        (
            r"over (?P<loops>\d+) recorded tool loops, against (?P<rules>\d+) request rules",
            lambda f: {"loops": str(f.tool_loops), "rules": str(f.rules)},
        ),
        (
            r"`cassettes/` holds (?P<total>\d+) recorded scenarios \((?P<listed>[^)]*)\)",
            lambda f: {"total": str(f.total)},
        ),
        (
            r"(?P<cases>\d+) cases: (?P<passed>\d+) passed, 0 failed, (?P<skipped>\d+) skipped",
            lambda f: {
                "cases": str(f.cases),
                "passed": str(f.chat_cases),
                "skipped": str(f.cases - f.chat_cases),
            },
        ),
        (
            r"each of the (?P<loops>\d+) tool-loop recordings",
            lambda f: {"loops": str(f.tool_loops)},
        ),
        (
            r"each of the (?P<formats>\w+) dialects",
            lambda f: {"formats": word(f.formats)},
        ),
        (
            r"the cases of the other (?P<others>\w+) formats are skipped",
            lambda f: {"others": word(f.formats - 1)},
        ),
        (
            r"\((?P<total>\d+) cassettes; Ctrl-C stops\)",
            lambda f: {"total": str(f.total)},
        ),
        (
            r"(?P<rules>\d+) request rules over (?P<formats>\w+) formats",
            lambda f: {"rules": str(f.rules), "formats": word(f.rule_formats)},
        ),
    ),
    "docs/conformance.md": (
        (
            r"(?P<total>\d+) cassettes \((?P<listed>[^)]*)\) of (?P<interactions>\d+) "
            r"interactions \((?P<loops>\w+) cassettes are tool loops",
            lambda f: {
                "total": str(f.total),
                "interactions": str(f.interactions),
                "loops": word(f.tool_loop_cassettes),
            },
        ),
        (
            r"x (?P<chunkings>\d+) chunkings = (?P<chunked>\d+) cases, and (?P<more>\d+) more "
            r"under `eventstream`",
            lambda f: {
                "chunkings": str((f.cases - f.eventstream_cases) // f.interactions),
                "chunked": str(f.cases - f.eventstream_cases),
                "more": str(f.eventstream_cases),
            },
        ),
        (
            r"an error answered as JSON\) = (?P<cases>\d+)\.",
            lambda f: {"cases": str(f.cases)},
        ),
    ),
}


def _replayed(name: str) -> tuple[str, Fill]:
    """docs/agent.md's count of the cassettes of format ``name`` that a chat client replays."""
    return (
        rf"{name} (?P<passing>\d+)/(?P<total>\d+)",
        lambda f: {
            "passing": str(f.scenarios[name] - f.not_sent.get(name, 0)),
            "total": str(f.scenarios[name]),
        },
    )


PHRASES["docs/agent.md"] = (
    (
        r"(?P<passing>\d+) of the (?P<total>\d+) cassettes pass both",
        lambda f: {"passing": str(f.total - sum(f.not_sent.values())), "total": str(f.total)},
    ),
    *(_replayed(name) for name in formats.names()),
)


def render(text: str, document: str, found: Facts | None = None) -> str:
    """``text`` (the document ``document``, one of :data:`DOCUMENTS`) with its counts written
    from the bundled suite (or ``found``).

    Raises:
        ValueError: a phrase is not in ``text`` exactly once, or a list of counts per format
            names a format it should not or misses one.
    """
    f = found or facts()
    for phrase, fill in PHRASES[document]:
        pattern = re.compile(r"\s+".join(phrase.split(" ")))
        matches = list(pattern.finditer(text))
        if len(matches) != 1:
            raise ValueError(
                f"{document}: the phrase {phrase!r} is there {len(matches)} times, not once "
                f"(reword it in {MODULE.replace('.', '/')}.py and the document together)"
            )
        match = matches[0]
        values = fill(f)
        if "listed" in match.groupdict():
            counts = (
                _readme_labels(f)
                if document == "README.md"
                else {f"`{name}`": str(n) for name, n in f.scenarios.items()}
            )
            values["listed"] = _per_format(match["listed"], counts)
        pieces, at = [], match.start()
        for name, start in sorted(
            ((name, match.start(name)) for name in values), key=lambda item: item[1]
        ):
            pieces += [text[at:start], values[name]]
            at = match.end(name)
        text = text[: match.start()] + "".join(pieces) + text[at:]
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the counts of each document in ``argv`` (``--check``: only say whether they are
    current). Exit 0 when done (or current), 1 when ``--check`` found stale counts, 2 for a
    usage error or a document whose phrases are not found (left as it was)."""
    args = [
        arg
        for arg in (sys.argv[1:] if argv is None else argv)
        if arg.startswith("-") or _document(arg) is not None or not arg.startswith("docs/")
    ]
    for arg in args:
        if not arg.startswith("-") and _document(arg) is None:
            print(f"error: {arg}: not one of {', '.join(DOCUMENTS)}", file=sys.stderr)
            return 2
    found = facts()
    documents = iter([_document(arg) for arg in args if not arg.startswith("-")])

    def one(text: str) -> str:
        return render(text, next(documents) or "", found)

    return rewrite_files(args, module=MODULE, what="a count of the bundled suite", render=one)


def _document(arg: str) -> str | None:
    """Which of :data:`DOCUMENTS` the path ``arg`` is."""
    path = Path(arg).resolve().as_posix()
    return next((name for name in DOCUMENTS if path.endswith("/" + name)), None)


if __name__ == "__main__":
    raise SystemExit(main())
