"""The layers of the package (docs/architecture.md), as an import contract.

Every module under ``raf/`` is parsed with :mod:`ast` and each of its imports of ``raf``
(at the top, inside functions, under ``TYPE_CHECKING``: all of them count) is checked
against :data:`LAYERS`: a package may import its own layer and the layers below it, never one
above; the packages of an independent layer (the shells) import none of each other. A failure
names the file, the line and the import. The docs table is checked against the same data.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "raf"
DOCS = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True)
class Layer:
    """One layer: its name, its top-level parts of ``raf`` (packages or modules; ``raf``
    is the package's own ``__init__``), and whether its parts are independent of each
    other."""

    name: str
    parts: frozenset[str]
    independent: bool = False


LAYERS: tuple[Layer, ...] = (
    Layer(
        "core",
        frozenset(
            {
                "raf",
                "_args_events",
                "_collects_into",
                "_mypyc",
                "args_parser",
                "chunking",
                "collect",
                "converter",
                "dialects",
                "errors",
                "formats",
                "framing",
                "interop",
                "limits",
                "model",
                "pipeline",
                "safe_json",
                "sse",
                "transport",
            }
        ),
    ),
    Layer("agent", frozenset({"agent"})),
    Layer("shared", frozenset({"shared"})),
    Layer("data", frozenset({"cassettes", "quirks"})),
    Layer(
        "shells", frozenset({"serve", "conformance", "clients", "kit", "record"}), independent=True
    ),
    Layer(
        "composition",
        frozenset({"__main__", "cli", "client_matrix", "testing", "schema", "examples", "fuzz"}),
    ),
)
"""From the bottom up."""

LAYER_OF = {part: index for index, layer in enumerate(LAYERS) for part in layer.parts}
TOP_LEVEL = {
    path.stem if path.is_file() else path.name
    for path in PACKAGE.iterdir()
    if (path.is_file() and path.suffix == ".py" and path.stem != "__init__")
    or (path.is_dir() and (path / "__init__.py").is_file())
}


def part_of(module: str) -> str:
    """The top-level part of ``raf`` that the dotted ``module`` belongs to."""
    names = module.split(".")
    if len(names) > 1 and names[1] in TOP_LEVEL:
        return names[1]
    return "raf"


def module_name(path: Path) -> str:
    """The dotted name of the module at ``path`` (a package is its ``__init__``)."""
    names = list(path.relative_to(ROOT).with_suffix("").parts)
    if names[-1] == "__init__":
        names.pop()
    return ".".join(names)


def imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every ``raf`` module ``tree`` imports, with its line: ``from raf import x`` imports
    ``raf.x``; relative imports are resolved against ``module``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "raf" or name.startswith("raf.")]


def violations(path: Path, source: str) -> list[str]:
    """Why the imports of ``source`` (the module at ``path``) break the layers, one line each."""
    module = module_name(path)
    importer = part_of(module)
    if importer not in LAYER_OF:
        return [f"{path.relative_to(ROOT)}: raf.{importer} is in no layer (add it to LAYERS)"]
    mine = LAYER_OF[importer]
    found: list[str] = []
    seen: set[tuple[int, str]] = set()
    for line, target in imported(ast.parse(source), module, path.name == "__init__.py"):
        part = part_of(target)
        if (line, part) in seen:  # one line per import statement and part it reaches
            continue
        seen.add((line, part))
        theirs = LAYER_OF.get(part)
        where = f"{path.relative_to(ROOT)}:{line} imports {target}"
        if theirs is None:
            found.append(f"{where}: raf.{part} is in no layer (add it to LAYERS)")
        elif theirs > mine:
            found.append(
                f"{where}: {LAYERS[mine].name} ({importer}) may not import "
                f"{LAYERS[theirs].name} ({part})"
            )
        elif theirs == mine and part != importer and LAYERS[mine].independent:
            found.append(f"{where}: the {LAYERS[mine].name} import none of each other")
    return found


def test_every_part_of_the_package_is_in_exactly_one_layer() -> None:
    placed = [part for layer in LAYERS for part in layer.parts]
    assert len(placed) == len(set(placed))
    assert TOP_LEVEL | {"raf"} == set(placed)


def test_no_module_imports_above_its_layer_nor_a_shell_another_shell() -> None:
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += violations(path, path.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("file", "source", "expected"),
    [
        ("serve/app.py", "from raf.conformance.cases import Case", "shells import none"),
        ("clients/base.py", "if X:\n    from raf.serve import routes", "shells import none"),
        ("conformance/http.py", "def f():\n    import raf.clients.base", "shells import none"),
        ("conformance/stdio.py", "from ..serve.server import ReplayServer", "shells import none"),
        ("model/usage.py", "from raf import cassettes", "core (model) may not import data"),
        ("pipeline.py", "from raf.serve import ReplayServer", "core (pipeline) may not"),
        ("shared/bundled.py", "from raf.cassettes import load", "shared (shared) may not"),
        ("cassettes/show.py", "from raf.conformance import run", "data (cassettes) may not"),
        ("serve/app.py", "from raf.cli import main", "shells (serve) may not import composition"),
    ],
)
def test_the_contract_names_each_kind_of_forbidden_import(
    file: str, source: str, expected: str
) -> None:
    found = violations(PACKAGE / file, source)
    assert len(found) == 1
    assert expected in found[0]
    assert found[0].startswith(f"raf/{file}:")


@pytest.mark.parametrize(
    ("file", "source"),
    [
        ("serve/app.py", "from raf.cassettes.format import Cassette"),
        ("clients/base.py", "from raf.shared.client_response import ClientResponse"),
        ("conformance/cases.py", "from raf.conformance import goldens"),
        ("conformance/stdio.py", "from . import protocol"),
        ("client_matrix/run.py", "from raf.serve.server import ReplayServer"),
        ("cli/conform.py", "from raf import dialects, __version__"),
    ],
)
def test_imports_down_or_within_a_part_are_allowed(file: str, source: str) -> None:
    assert violations(PACKAGE / file, source) == []


def test_the_docs_table_of_layers_is_the_contract() -> None:
    rows = re.findall(r"^\| \*\*(\w+)\*\* \| ([^|]+) \|", DOCS.read_text("utf-8"), re.M)
    documented = {name: set(re.findall(r"`raf(?:\.(\w+))?`", parts)) for name, parts in rows}
    documented = {name: {p or "raf" for p in parts} for name, parts in documented.items()}
    assert [name for name, _ in rows] == [layer.name for layer in LAYERS]
    for layer in LAYERS:
        assert documented[layer.name] == set(layer.parts), layer.name
