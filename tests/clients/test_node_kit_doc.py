"""The openai adapter that docs/protocol.md prints ("Node.js: the kit") works as printed,
against the pinned openai npm SDK: a team that copies it passes ``plain_text``, and the same
module dropped into the Node.js columns' folder is a column of the matrix."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

import raf.clients
from raf.cli import main as raf_main
from raf.clients import NODE_FOLDER
from tests.conformance.test_example_clients import node
from tests.test_kit import conform, doc_adapter, write_adapter

NODE_MODULES = NODE_FOLDER / "node_modules"


def test_the_documented_openai_adapter_works(tmp_path: Path) -> None:
    node()
    if not (NODE_MODULES / "openai" / "package.json").is_file():
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"the npm libraries are required (RAF_REQUIRE_CLIENTS=1): {NODE_MODULES}")
        pytest.skip("the npm libraries are not installed (npm ci in raf/clients/node)")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "node_modules").symlink_to(NODE_MODULES)  # `import OpenAI from "openai"`
    script = write_adapter(folder, doc_adapter(), "my-openai.mjs")
    report = conform(shlex.join([node(), str(script)]), tmp_path, "-k", "openai_chat/plain_text#*")
    assert report["implementation"]["name"] == "my-openai"
    version = json.loads((NODE_MODULES / "openai" / "package.json").read_text("utf-8"))["version"]
    assert report["implementation"]["version"] == version  # the installed SDK's
    assert {c["id"]: c["reason"] for c in report["cases"] if not c["ok"]} == {}
    assert report["summary"]["pass"] == len(report["cases"]) >= 6
    assert report["status"] == 0


def test_a_new_module_in_the_node_folder_is_a_new_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One module, written with the kit, and nothing else: `raf clients` finds it, its hello
    names it, and its cells are judged like any library's."""
    node()
    if not (NODE_MODULES / "openai" / "package.json").is_file():
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"the npm libraries are required (RAF_REQUIRE_CLIENTS=1): {NODE_MODULES}")
        pytest.skip("the npm libraries are not installed (npm ci in raf/clients/node)")
    folder = tmp_path / "node"
    (folder / "lib").mkdir(parents=True)
    (folder / "node_modules").symlink_to(NODE_MODULES)
    write_adapter(folder / "lib", "", "unused.mjs")  # the kit, where no column is looked for
    source = doc_adapter().replace('"./raf-kit.mjs"', '"./lib/raf-kit.mjs"')
    (folder / "my-openai.mjs").write_text(source, encoding="utf-8")
    monkeypatch.setattr(raf.clients, "NODE_FOLDER", folder)
    out = tmp_path / "matrix.json"
    argv = ["clients", "--client", "my-openai", "-k", "plain_text", "--json", str(out)]
    assert raf_main([*argv, "--no-tool-loops", "--chunking", "whole"]) == 0
    matrix = json.loads(out.read_text("utf-8"))
    version = json.loads((NODE_MODULES / "openai" / "package.json").read_text("utf-8"))["version"]
    (column,) = matrix["clients"]
    assert (column["name"], column["language"], column["version"]) == (
        "my-openai",
        "Node.js",
        version,
    )
    assert [(c["scenario"], c["status"]) for c in matrix["cells"]] == [("plain_text", "pass")]
