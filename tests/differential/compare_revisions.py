"""Run the pipeline of two source trees on the same inputs and compare every output.

The differential check of the performance work (docs/benchmarks.md, "Keeping outputs
identical"): a fast path must give exactly what the code before it gave. This script builds
one set of inputs, runs ``raf.pipeline.run`` and ``raf.pipeline.respond`` on each in a
subprocess per tree (so the two ``raf`` packages never meet in one interpreter), and reports
every input whose results or response differ, with the first difference.

The inputs:

* every interaction of the bundled cassettes under the standard chunkings, 4 KiB reads and
  three random cuttings;
* every stream of the shared corpus of real recordings (``../shared/corpus``), when present;
* ``--fuzz N`` streams of every wire format drawn from :mod:`raf.testing.strategies`, each
  as generated, corrupted (bytes flipped, a slice repeated, garbage inserted), truncated at
  a random point, and run with tight limits (lines, events, arguments, calls, depth), so
  that the error paths are compared as well as the happy ones.

Every content's timestamp comes from a fixed clock, so the outputs are comparable byte for
byte. Run from the repository root::

    python -m tests.differential.compare_revisions --old ../raf-before [--new .] [--fuzz 400]

where ``--old`` is a checkout of the revision to compare with (``git worktree add
../raf-before <rev>``). The exit status is 1 when any output differs.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, Phase, given, settings

from raf.cassettes import load
from raf.cassettes.lint import cassette_files
from raf.chunking import chunk
from raf.testing.strategies import anthropic_messages, gemini, openai_chat, openai_responses
from tests.corpus import recorded_streams

ROOT = Path(__file__).resolve().parents[2]

# Runs in each tree's interpreter: only APIs both revisions have.
_WORKER = r"""
import sys
from datetime import UTC, datetime

import msgspec

import raf
from raf.pipeline import respond, run

def clock():
    return datetime(2026, 1, 1, tzinfo=UTC)

inputs = msgspec.msgpack.decode(open(sys.argv[1], "rb").read())
out = []
for name, dialect, chunks, options in inputs:
    try:
        results = msgspec.json.encode(list(run(chunks, dialect, clock=clock, **options)))
    except Exception as exc:
        results = f"raised {type(exc).__name__}: {exc}".encode()
    try:
        response = msgspec.json.encode(respond(chunks, dialect, clock=clock, **options))
    except Exception as exc:
        response = f"raised {type(exc).__name__}: {exc}".encode()
    out.append((name, results, response))
open(sys.argv[2], "wb").write(msgspec.msgpack.encode([raf.__file__, out]))
"""

Input = tuple[str, str, list[bytes], dict[str, Any]]

CHUNKINGS = (
    "whole",
    "bytes",
    "fixed-7",
    "fixed-4096",
    "random",
    "random-1",
    "random-2",
    "utf8",
    "crlf",
)
TIGHT_LIMITS: dict[str, Any] = {
    "max_line_bytes": 300,
    "max_event_bytes": 600,
    "max_arguments_chars": 40,
    "max_total_arguments_chars": 70,
    "max_tool_calls": 2,
    "max_json_depth": 3,
}


def cassette_inputs() -> list[Input]:
    out: list[Input] = []
    for path in cassette_files([ROOT / "cassettes"]):
        cassette = load(path)
        assert cassette.info is not None
        for index, interaction in enumerate(cassette.interactions):
            body = interaction.response.body
            if not isinstance(body, bytes):
                body = (body or "").encode()
            for name in CHUNKINGS:
                ident = f"{path.parent.name}/{path.stem}#{index}/{name}"
                out.append((ident, cassette.info.dialect, chunk(body, name), {}))
    return out


def corpus_inputs() -> list[Input]:
    out: list[Input] = []
    for stream in recorded_streams():
        if stream.dialect is None:
            continue
        out.extend(
            (f"corpus {stream.name}/{name}", stream.dialect, chunk(stream.body, name), {})
            for name in ("whole", "bytes", "fixed-4096", "random")
        )
    return out


def _mutations(rng: random.Random, body: bytes) -> list[tuple[str, bytes]]:
    """The stream as generated, corrupted three ways, and truncated."""
    if not body:
        return [("as generated", body)]
    flipped = bytearray(body)
    for _ in range(max(1, len(body) // 200)):
        flipped[rng.randrange(len(body))] = rng.randrange(256)
    start = rng.randrange(len(body))
    piece = body[start : start + rng.randint(1, 80)]
    at = rng.randrange(len(body))
    garbage = rng.choice([b"\n\n", b"data: {\n\n", b"\r", b"data: [1,2\n", b"\xff\xfe", b": x\n"])
    return [
        ("as generated", body),
        ("bytes flipped", bytes(flipped)),
        ("a slice repeated", body[:at] + piece + body[at:]),
        ("garbage inserted", body[:at] + garbage + body[at:]),
        ("truncated", body[: rng.randrange(len(body))]),
    ]


def fuzz_inputs(count: int, seed: int) -> list[Input]:
    formats = {
        "openai_chat": openai_chat,
        "anthropic_messages": anthropic_messages,
        "openai_responses": openai_responses,
        "gemini": gemini,
    }
    bodies: list[tuple[str, bytes]] = []
    per_format = max(1, count // len(formats))
    for dialect, module in formats.items():
        drawn: list[bytes] = []

        @settings(
            max_examples=per_format,
            database=None,
            derandomize=True,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(module.streams())
        def draw(stream: Any) -> None:
            drawn.append(stream.body)  # noqa: B023 - drawn is read right after, in this loop

        draw()
        bodies.extend((dialect, body) for body in drawn)
    rng = random.Random(seed)
    out: list[Input] = []
    for number, (dialect, body) in enumerate(bodies):
        for what, mutated in _mutations(rng, body):
            cut = chunk(mutated, f"random-{rng.randrange(1000)}")
            reads = chunk(mutated, rng.choice(["whole", "fixed-4096", "fixed-3", "bytes"]))
            ident = f"fuzz {dialect} #{number} {what}"
            out.append((f"{ident}/random", dialect, cut, {}))
            out.append((f"{ident}/reads", dialect, reads, {}))
            out.append((f"{ident}/tight limits", dialect, cut, TIGHT_LIMITS))
    return out


def run_tree(tree: Path, inputs_file: Path, output: Path) -> dict[str, tuple[bytes, bytes]]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    subprocess.run(
        [sys.executable, "-c", _WORKER, str(inputs_file), str(output)],
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),  # never the repository: its raf must not shadow the tree's
    )
    source, rows = msgspec.msgpack.decode(output.read_bytes())
    if not Path(source).resolve().is_relative_to(tree.resolve()):
        # An installed raf would answer instead: the comparison would be of one tree with itself.
        raise SystemExit(f"compare_revisions: {tree} did not provide raf (it came from {source})")
    return {name: (results, response) for name, results, response in rows}


def first_difference(old: bytes, new: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    at = min(len(old), len(new)) if at is None else at
    lo = max(0, at - 120)
    return f"at byte {at}:\n    old ...{old[lo : at + 120]!r}\n    new ...{new[lo : at + 120]!r}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="checkout of the old revision")
    parser.add_argument("--new", type=Path, default=ROOT, help="checkout of the new (this one)")
    parser.add_argument("--fuzz", type=int, default=400, help="generated streams (400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-cassettes", action="store_true")
    args = parser.parse_args(argv)
    for tree in (args.old, args.new):
        if not (tree / "raf" / "__init__.py").is_file():
            parser.error(f"{tree} is not a checkout of raf (no raf/__init__.py)")
    if args.old.resolve() == args.new.resolve():
        # (Path("") is the current folder: an empty --old compared the tree with itself.)
        parser.error(f"--old and --new are the same folder ({args.new.resolve()})")

    started = time.perf_counter()
    inputs = [] if args.no_cassettes else cassette_inputs() + corpus_inputs()
    inputs += fuzz_inputs(args.fuzz, args.seed)
    print(f"{len(inputs):,} inputs built in {time.perf_counter() - started:.0f} s")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        inputs_file = work / "inputs.msgpack"
        inputs_file.write_bytes(msgspec.msgpack.encode(inputs))
        outputs = {}
        for label, tree in (("old", args.old), ("new", args.new)):
            began = time.perf_counter()
            outputs[label] = run_tree(tree, inputs_file, work / f"{label}.msgpack")
            print(f"{label} ({tree}): {time.perf_counter() - began:.0f} s")
    differ = 0
    for name, _, _, _ in inputs:
        old, new = outputs["old"][name], outputs["new"][name]
        for part, a, b in (("results", old[0], new[0]), ("response", old[1], new[1])):
            if a != b:
                differ += 1
                if differ <= 10:
                    print(f"DIFFERENT {part} of {name} {first_difference(a, b)}")
    same = len(inputs) * 2 - differ
    print(f"{len(inputs):,} inputs x (run, respond): {same:,} identical, {differ:,} different")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
