"""Hostile files for the cassette and golden readers and the CLI, built in a temporary folder.

Each is small on disk (but one sparse file) and built in milliseconds: alias bombs, unsafe
tags, deep nesting, too many nodes, bytes that are not text, and paths that are not regular
files (a folder named ``x.yaml``, ``/dev/zero`` behind a link, a FIFO, a link loop).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

from raf.limits import MAX_CASSETTE_BYTES, MAX_GOLDEN_DEPTH, MAX_YAML_DEPTH, MAX_YAML_NODES

HEAD = "version: 1\ninteractions:\n- request:\n    uri: https://x/v1/chat/completions\n"
TAIL = "  response: {status: {code: 200}}\n"
DEEP = f"nested deeper than {MAX_YAML_DEPTH} levels"
DEEP_GOLDEN = f"nested deeper than {MAX_GOLDEN_DEPTH} levels"
PWNED = "pwned"

REGULAR = [
    "bomb_header",
    "bomb_body",
    "bomb_top",
    "anchor_alone",
    "alias_alone",
    "python_tag",
    "timestamp_tag",
    "set_tag",
    "custom_tag",
    "deep_1e5",
    "deep_1e6",
    "deep_block_1e5",
    "nodes_300k",
    "two_documents",
    "invalid_utf8",
    "binary_blob",
    "empty",
    "scenario_escapes",
    "wrong_types",
    "huge",
]
"""The hostile cassettes :func:`build_cassettes` makes that are regular files."""

SPECIAL = ["directory", "dev_zero", "link_loop", "fifo"]
"""The ones that are not (``fifo`` only where the platform has FIFOs)."""
"""The file ``!!python/object/apply:os.system`` would create next to the hostile files."""


def laughs(levels: int = 9, width: int = 9) -> str:
    """A "billion laughs" flow sequence: ``width ** levels`` strings from 650 bytes."""
    parts = ["&l0 [" + ", ".join(["lol"] * width) + "]"]
    parts += [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


@dataclass(frozen=True)
class Hostile:
    """One hostile cassette path and what a reader must say of it."""

    name: str
    path: Path
    problem: str  # a piece of the message every reader gives
    regular: bool = True  # a regular file (found when a folder is searched)


def fifo_supported() -> bool:
    return hasattr(os, "mkfifo")


def build_cassettes(folder: Path) -> dict[str, Hostile]:
    """Every hostile cassette, in ``folder`` (created), by name."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Hostile] = {}

    def text(name: str, content: str | bytes, problem: str) -> None:
        path = folder / f"{name}.yaml"
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        out[name] = Hostile(name, path, problem)

    text(
        "bomb_header",
        HEAD + f"    headers:\n      x-bomb: {laughs()}\n" + TAIL,
        "an anchor (&l0)",
    )
    text("bomb_body", HEAD + f"    body: {laughs()}\n" + TAIL, "an anchor (&l0)")
    text("bomb_top", f"lol: {laughs()}\n", "an anchor (&l0)")
    text("anchor_alone", HEAD + "    method: &m POST\n" + TAIL, "an anchor (&m)")
    text("alias_alone", HEAD + "    method: *m\n" + TAIL, "an alias (*m)")
    text(
        "python_tag",
        f"!!python/object/apply:os.system ['touch {folder / PWNED}']\n",
        "'tag:yaml.org,2002:python/object/apply:os.system' is not allowed",
    )
    text(
        "timestamp_tag",
        HEAD + "  response: {status: {code: 200, message: !!timestamp 2001-12-14}}\n",
        "'tag:yaml.org,2002:timestamp' is not allowed",
    )
    text("set_tag", HEAD + "    headers: !!set {a, b}\n" + TAIL, "'tag:yaml.org,2002:set'")
    text("custom_tag", HEAD + "  response: !foo {status: 200}\n", "'!foo' is not allowed")
    text(
        "deep_1e5",
        HEAD + "    body: " + "[" * 10**5 + "]" * 10**5 + "\n" + TAIL,
        DEEP,
    )
    text("deep_1e6", "[" * 10**6 + "]" * 10**6 + "\n", DEEP)
    text("deep_block_1e5", "- " * 10**5 + "x\n", DEEP)
    text(
        "nodes_300k",
        HEAD + "    headers:\n      x: [" + ",".join(["a"] * 300_000) + "]\n" + TAIL,
        f"more than {MAX_YAML_NODES:,} YAML nodes",
    )
    text("two_documents", "version: 1\n---\nversion: 1\n", "several YAML documents")
    text("invalid_utf8", b"version: 1\nx: \xff\xfe\n", "not valid YAML")
    text("binary_blob", random.Random(0).randbytes(4096), "not valid YAML")
    text("empty", b"", "not a mapping")
    text(
        "scenario_escapes",
        "raf: {scenario: ../x}\n" + HEAD + TAIL,
        "'../x' cannot name a file",
    )
    text(
        "wrong_types",
        "raf: {scenario: s}\n" + HEAD + "    headers: {x: {nested: map}}\n" + TAIL,
        "a header value is text or a list of text",
    )
    huge = folder / "huge.yaml"
    with huge.open("wb") as handle:  # sparse: no disk space used
        handle.truncate(MAX_CASSETTE_BYTES + 1)
    out["huge"] = Hostile("huge", huge, "more than the limit of 67,108,864")

    special = folder / "x.yaml"
    special.mkdir()
    out["directory"] = Hostile("directory", special, "not a regular file (a folder)", False)
    zero = folder / "z.yaml"
    zero.symlink_to("/dev/zero")
    out["dev_zero"] = Hostile("dev_zero", zero, "not a regular file (a character device)", False)
    loop = folder / "loop.yaml"
    loop.symlink_to(loop.name)
    out["link_loop"] = Hostile("link_loop", loop, "Too many levels of symbolic links", False)
    if fifo_supported():
        fifo = folder / "f.yaml"
        os.mkfifo(fifo)
        out["fifo"] = Hostile("fifo", fifo, "not a regular file (a FIFO)", False)
    return out


GOLDEN_CASSETTE = (
    "raf: {scenario: hello, dialect: openai_chat}\n"
    + HEAD
    + "  response:\n    status: {code: 200, message: OK}\n"
    + "    headers: {content-type: [text/event-stream]}\n"
    + '    body: {string: "data: [DONE]\\n\\n"}\n'
)


def build_goldens(folder: Path) -> dict[str, tuple[Path, str]]:
    """One goldens folder per hostile golden, each for the cassette ``GOLDEN_CASSETTE``
    (scenario ``hello``): name -> (goldens folder, a piece of the problem reported)."""
    out: dict[str, tuple[Path, str]] = {}

    def golden(name: str, problem: str) -> Path:
        path = folder / name / "openai_chat" / "hello.json"
        path.parent.mkdir(parents=True)
        out[name] = (folder / name, problem)
        return path

    golden("not_json", "not JSON").write_text("{not json")
    golden("wrong_shape", "'interactions' is missing").write_text(
        '{"scenario": "hello", "dialect": "openai_chat"}'
    )
    golden("wrong_item", "interactions[0].response is missing").write_text(
        '{"scenario": "hello", "dialect": "openai_chat", '
        '"interactions": [{"updates": [], "results": []}]}'
    )
    golden("deep_1e5", DEEP_GOLDEN).write_text("[" * 10**5 + "]" * 10**5)
    with golden("huge", "more than the limit").open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)
    golden("directory", "not a regular file (a folder)").mkdir()
    golden("dev_zero", "not a regular file (a character device)").symlink_to("/dev/zero")
    if fifo_supported():
        os.mkfifo(golden("fifo", "not a regular file (a FIFO)"))
    return out
