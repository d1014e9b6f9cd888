"""Hostile files never crash, hang or exhaust the readers: the YAML safety scan, bounded file
reads, ``Cassette.from_dict`` on any document, and golden files."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from raf import formats
from raf.cassettes import load, save, serializer
from raf.cassettes.files import find_files, read_limited
from raf.cassettes.format import Cassette, is_file_name
from raf.cassettes.importers import dialect_choices, guess_dialect, import_file, wire_formats
from raf.cassettes.lint import cassette_files, lint_file
from raf.cassettes.serializer import dumps, loads, loads_with_lines
from raf.conformance import goldens
from raf.conformance.cases import load_suite
from raf.errors import (
    CassetteFormatError,
    CassetteNotFound,
    DialectError,
    FileRefused,
    GoldenFormatError,
)
from raf.limits import MAX_GOLDEN_DEPTH, MAX_YAML_DEPTH, MAX_YAML_NODES
from tests.hostile import (
    GOLDEN_CASSETTE,
    HEAD,
    PWNED,
    REGULAR,
    SPECIAL,
    TAIL,
    build_cassettes,
    build_goldens,
)

# -- the YAML safety scan ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return build_cassettes(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("name", REGULAR + SPECIAL)
def test_load_refuses_every_hostile_file_with_a_clear_error(
    name: str, hostile: dict[str, Any]
) -> None:
    if name not in hostile:
        pytest.skip("this platform has no FIFOs")
    case = hostile[name]
    with pytest.raises(CassetteFormatError) as info:
        load(case.path)
    assert case.problem in str(info.value)
    assert str(case.path) in str(info.value)
    assert not (case.path.parent / PWNED).exists()


@pytest.mark.parametrize("name", ["bomb_header", "bomb_body", "bomb_top"])
def test_an_alias_bomb_is_refused_before_anything_is_built(
    name: str, hostile: dict[str, Any]
) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(CassetteFormatError, match="an anchor"):
            load(hostile[name].path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024  # a 1 MiB read buffer; a billion strings: gigabytes


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("version: 1\nx: &a [1]\n", 2, "an anchor (&a)"),
        ("version: 1\nx: [1]\ny: *a\n", 3, "an alias (*a)"),
        ("version: 1\n\nx: !!python/name:os.system x\n", 3, "python/name:os.system"),
        ("version: 1\nx: !!omap [a: 1]\n", 2, "omap"),
        ("version: 1\nx: !<tag:example.com,2000:x> 1\n", 2, "tag:example.com,2000:x"),
        ("a: 1\n...\n---\nb: 2\n", 3, "several YAML documents"),
        ("x: [\n", 2, "not valid YAML"),
    ],
)
def test_the_scan_names_the_line_and_the_reason(text: str, line: int, problem: str) -> None:
    with pytest.raises(CassetteFormatError) as info:
        loads(text, source="c.yaml")
    assert info.value.line == line
    assert problem in info.value.problem
    assert str(info.value).startswith(f"c.yaml:{line}: ")


def test_depth_and_node_limits_are_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    assert loads("[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH) is not None
    with pytest.raises(CassetteFormatError, match="nested deeper than"):
        loads("[" * (MAX_YAML_DEPTH + 1) + "]" * (MAX_YAML_DEPTH + 1))
    block = "".join("  " * i + "k:\n" for i in range(MAX_YAML_DEPTH)) + "  " * MAX_YAML_DEPTH + "v"
    assert loads(block) is not None  # as many mappings, as deep, in block style
    with pytest.raises(CassetteFormatError, match=f"more than {MAX_YAML_NODES:,} YAML nodes"):
        loads("[" + ",".join(["1"] * MAX_YAML_NODES) + "]")  # and the list itself
    monkeypatch.setattr(serializer, "MAX_YAML_NODES", 100)
    assert len(loads("[" + ",".join(["1"] * 99) + "]")) == 99
    with pytest.raises(CassetteFormatError, match="more than 100 YAML nodes"):
        loads("[" + ",".join(["1"] * 100) + "]")


def test_allowed_tags_load_and_plain_scalars_resolve_to_allowed_types_only() -> None:
    document = loads(
        "a: !!str 1\nb: !!binary aGk=\nc: ! 12\nd: 2001-12-14\n<<: {e: 1}\nf: =\n"
        "g: !!int 3\nh: !!float 1.5\ni: !!bool true\nj: !!null ''\nk: !!seq [1]\nl: !!map {}\n"
    )
    assert document == {
        "a": "1",
        "b": b"hi",
        "c": 12,  # "!" (non-specific) resolves as a plain scalar would
        "d": "2001-12-14",  # no implicit timestamp
        "<<": {"e": 1},  # no implicit merge key
        "f": "=",  # no implicit value key
        "g": 3,
        "h": 1.5,
        "i": True,
        "j": None,
        "k": [1],
        "l": {},
    }


@pytest.mark.parametrize(
    "text",
    [
        "x: !!int abc\n",
        "x: !!int ''\n",
        "x: !!bool maybe\n",
        "x: !!float zz\n",
        "x: " + "9" * 5000 + "\n",
    ],
)
def test_values_their_tag_cannot_read_are_format_errors(text: str) -> None:
    with pytest.raises(CassetteFormatError, match="cannot be read"):
        loads(text)


def test_dumps_never_writes_anchors_for_shared_values(tmp_path: Path) -> None:
    shared = ["text/event-stream"]
    text = dumps({"a": {"h": shared}, "b": {"h": shared}, "version": 1})
    assert "&" not in text
    assert "*" not in text
    assert loads(text) == {"a": {"h": shared}, "b": {"h": shared}, "version": 1}


def test_the_line_index_comes_from_the_scan() -> None:
    text = (
        "raf:\n  scenario: s\nversion: 1\ninteractions:\n- request:\n    uri: u\n"
        "    headers:\n      x: [a,\n        b]\n    ? complex\n    : v\n"
    )
    _, lines = loads_with_lines(text)
    assert lines[""] == 1
    assert lines["raf.scenario"] == 2
    assert lines["interactions[0].request.uri"] == 6
    assert lines["interactions[0].request.headers.x[1]"] == 9
    assert lines["interactions[0].request.complex"] == 11
    with pytest.raises(CassetteFormatError, match="unhashable key"):  # a key that is a list
        loads_with_lines("? [a, b]\n: v\n")


def test_a_cassette_at_the_depth_limit_loads_lints_and_saves(tmp_path: Path) -> None:
    arguments: Any = 1
    for _ in range(MAX_YAML_DEPTH - 6):  # raf.expect.tool_calls[0].arguments is 5 deep
        arguments = [arguments]
    document = {
        "raf": {
            "scenario": "deep",
            "expect": {"tool_calls": [{"name": "f", "arguments": arguments}]},
        },
        "interactions": [],
        "version": 1,
    }
    path = tmp_path / "deep.yaml"
    path.write_text(dumps(document))
    cassette = load(path)
    assert [f.severity for f in lint_file(path)] == ["error"]  # no interactions; nothing else
    save(cassette, tmp_path / "again.yaml")
    assert load(tmp_path / "again.yaml").info == cassette.info


# -- bounded file reads ------------------------------------------------------------------------


def test_read_limited_reads_regular_files_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_limited(path, 10) == b"x" * 10
    with pytest.raises(FileRefused, match="10 bytes, more than the limit of 9"):
        read_limited(path, 9)
    with pytest.raises(FileNotFoundError):
        read_limited(tmp_path / "missing", 10)
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    with pytest.raises(FileNotFoundError):
        read_limited(tmp_path / "dangling", 10)
    with pytest.raises(FileRefused, match="cannot read"):
        read_limited(path / "below_a_file", 10)


@pytest.mark.parametrize("name", [*SPECIAL, "huge"])
def test_read_limited_refuses_what_is_not_a_small_regular_file(
    name: str, hostile: dict[str, Any]
) -> None:
    if name not in hostile:
        pytest.skip("this platform has no FIFOs")
    with pytest.raises(FileRefused) as info:
        read_limited(hostile[name].path, 1024)
    assert hostile[name].problem.split(" (")[0].split(":")[0] in str(info.value) or (
        name == "huge" and "more than the limit of 1,024" in str(info.value)
    )


def test_read_limited_refuses_a_file_that_grows_while_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing"
    path.write_bytes(b"x" * 5)
    real_read = os.read

    def grown(fd: int, size: int) -> bytes:  # the file grows between fstat and read
        return real_read(fd, size) + b"y" * 100

    monkeypatch.setattr(os, "read", grown)
    with pytest.raises(FileRefused, match="grew past the limit of 10"):
        read_limited(path, 10)


def test_folders_yield_regular_files_only(hostile: dict[str, Any]) -> None:
    folder = next(iter(hostile.values())).path.parent
    (folder / "x.yaml" / "inner.yaml").write_text("version: 1\ninteractions: []\n")
    try:
        found = cassette_files([folder])
        assert folder / "x.yaml" / "inner.yaml" in found  # a folder named x.yaml is searched
        special = {hostile[n].path for n in SPECIAL if n in hostile}
        assert not special & set(found)
        assert {hostile[n].path for n in REGULAR} <= set(found)
        # Given by name, anything is returned, for its reader to report.
        assert cassette_files([hostile["dev_zero"].path]) == [hostile["dev_zero"].path]
        assert find_files([folder / "missing.sse"], [".sse"]) == [folder / "missing.sse"]
    finally:
        (folder / "x.yaml" / "inner.yaml").unlink()
    with pytest.raises(CassetteNotFound, match=r"missing\.yaml"):
        cassette_files([folder / "missing.yaml"])


# -- Cassette.from_dict on any document ----------------------------------------------------------


def document(**changes: Any) -> dict[str, Any]:
    interaction: dict[str, Any] = {
        "request": {"uri": "https://x", "method": "POST", "headers": {"a": ["b"]}},
        "response": {"status": {"code": 200, "message": "OK"}, "body": {"string": "data: x"}},
    }
    out: dict[str, Any] = {"raf": {"scenario": "s"}, "interactions": [interaction], "version": 1}
    for path, value in changes.items():
        target: Any = out
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[last] = value
    return out


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"version": True}, "format version True"),
        ({"version": 1.0}, "format version 1.0"),
        ({"interactions__0__response__status__code": "200"}, "status.code is not an HTTP"),
        ({"interactions__0__response__status__code": True}, "status.code is not an HTTP"),
        ({"interactions__0__response__status__code": 10**30}, "status.code is not an HTTP"),
        ({"interactions__0__response__status": [200]}, "status is not a mapping"),
        ({"interactions__0__response__status__message": 7}, "message is not text"),
        ({"interactions__0__request__headers": {"a": {"b": "c"}}}, "not dict"),
        ({"interactions__0__request__headers": {"a": [["b"]]}}, "not list"),
        ({"interactions__0__request__headers": {"a": None}}, "not NoneType"),
        ({"interactions__0__request__headers": {1: ["b"]}}, "header name 1 is not text"),
        ({"interactions__0__request__headers": ["a"]}, "headers is not a mapping"),
        ({"interactions__0__request__method": ["POST"]}, "method is not text"),
        ({"interactions__0__request__uri": 5}, "uri is missing or not text"),
        ({"interactions__0__response__body": ["data: x"]}, "not text or bytes"),
        ({"interactions__0__response__body": {"string": "\ud800"}}, "not valid Unicode"),
        ({"interactions__0__request__parsed_body": {None: 1}}, "cannot be written as JSON"),
        ({"raf": ["s"]}, "raf: Expected `object`"),
        ({"raf": {"scenario": 5}}, "raf: Expected `str`"),
        ({"raf": {"scenario": "../x"}}, "raf.scenario: '../x' cannot name a file"),
        ({"raf": {"scenario": "x\n"}}, "raf.scenario: 'x\\n' cannot name a file"),
        ({"raf": {"scenario": "S"}}, "cannot name a file"),
        ({"raf": {"scenario": "s", "dialect": "a/b"}}, "raf.dialect: 'a/b'"),
        ({"raf": {"scenario": "s", "expect": {"usage": {"prompt_tokens": True}}}}, "raf:"),
        ({"interactions": [["x"]]}, "interactions[0] is not a mapping"),
    ],
)
def test_from_dict_reports_every_wrong_type_as_a_format_error(
    changes: dict[str, Any], problem: str
) -> None:
    with pytest.raises(CassetteFormatError) as info:
        Cassette.from_dict(document(**changes), source="c.yaml")
    assert problem in str(info.value)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.binary(max_size=5),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.one_of(st.text(max_size=4), st.integers(), st.none()), inner, max_size=3
        )
    ),
    max_leaves=12,
)
_places = st.sampled_from(
    [
        "version",
        "raf",
        "raf__expect",
        "raf__dialect",
        "raf__reproduces",
        "interactions",
        "interactions__0",
        "interactions__0__request",
        "interactions__0__request__body",
        "interactions__0__request__parsed_body",
        "interactions__0__request__headers",
        "interactions__0__request__headers__a",
        "interactions__0__response",
        "interactions__0__response__status",
        "interactions__0__response__status__code",
        "interactions__0__response__headers",
        "interactions__0__response__body",
        "interactions__0__response__body__string",
    ]
)


@given(
    st.one_of(
        st.tuples(
            st.just("changes"), st.lists(st.tuples(_places, _values), min_size=1, max_size=3)
        ),
        st.tuples(st.just("document"), _values),
    )
)
def test_from_dict_raises_nothing_but_format_errors(case: tuple[str, Any]) -> None:
    kind, changes = case
    value: Any = changes
    if kind == "changes":
        value = document()
        for place, item in changes:
            try:
                _set(value, place, item)
            except (KeyError, IndexError, TypeError, ValueError):
                continue  # a parent was replaced by an earlier change
    try:
        cassette = Cassette.from_dict(value)
    except CassetteFormatError:
        return
    assert all(isinstance(i.response.body, bytes) for i in cassette.interactions)
    assert all(
        isinstance(v, str)
        for i in cassette.interactions
        for h in (i.request.headers, i.response.headers)
        for values in h.values()
        for v in values
    )


def _set(document: Any, place: str, value: Any) -> Any:
    target = document
    *parents, last = place.split("__")
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return document


# -- names, dialects ---------------------------------------------------------------------------


def test_names_that_can_name_a_file() -> None:
    assert is_file_name("plain_text")
    assert is_file_name("a" * 200)
    for bad in ("", "../x", "x/y", "X", "_x", "-x", "x\n", "a" * 201, "x.y", 5, None):
        assert not is_file_name(bad)
    with pytest.raises(ValueError, match="cannot name a golden file"):
        goldens.golden_path("g", "openai_chat", "x\n")


def test_import_dialects_are_the_registered_ones_and_the_wire_formats(tmp_path: Path) -> None:
    uris = [formats.get(name).placeholder_uri for name in formats.names()] + ["https://x/mcp"]
    assert {guess_dialect(uri) for uri in uris} == wire_formats()
    assert set(dialect_choices()) >= wire_formats() | {"openai_chat"}
    (tmp_path / "a.sse").write_bytes(b"data: [DONE]\n\n")
    with pytest.raises(DialectError, match="cannot name a dialect folder"):
        import_file(tmp_path / "a.sse", dialect="../../x")


# -- goldens -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def golden_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    return build_goldens(tmp_path_factory.mktemp("goldens"))


@pytest.fixture
def golden_cassette(tmp_path: Path) -> Path:
    path = tmp_path / "openai_chat" / "hello.yaml"
    path.parent.mkdir()
    path.write_text(GOLDEN_CASSETTE)
    return path


def the_problem(cassette: Path, golden_folder: Path) -> str:
    """The one problem the suite reports for ``cassette`` (which then gives no case)."""
    suite = load_suite([cassette], golden_folder, chunkings=["whole"])
    assert suite.cases == []
    (problem,) = suite.problems
    return problem.message


@pytest.mark.parametrize(
    "name",
    ["not_json", "wrong_shape", "wrong_item", "deep_1e5", "huge", "directory", "dev_zero", "fifo"],
)
def test_a_hostile_golden_is_a_problem_of_its_case(
    name: str, golden_folders: dict[str, tuple[Path, str]], golden_cassette: Path
) -> None:
    if name not in golden_folders:
        pytest.skip("this platform has no FIFOs")
    folder, problem = golden_folders[name]
    with pytest.raises(GoldenFormatError, match=r"hello\.json"):
        goldens.load(folder / "openai_chat" / "hello.json")
    message = the_problem(golden_cassette, folder)
    assert message.startswith("golden is not valid: ")
    assert problem in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[1, 2]", "not an object"),
        ('{"scenario": 1, "dialect": "d", "interactions": []}', "'scenario'"),
        ('{"scenario": "s", "dialect": "d", "interactions": [1]}', "interactions[0] is not"),
        ('{"scenario": "s", "dialect": "d", "interactions": [{"updates": 1}]}', "updates"),
        ("\ufeff{}", "not JSON"),
        ('["\\"[[[[[[", "\\\\"]', "not an object"),  # brackets in strings do not count
    ],
)
def test_golden_shapes(text: str, problem: str) -> None:
    with pytest.raises(GoldenFormatError, match=problem.replace("[", r"\[")):
        goldens.loads(text)


def test_golden_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    def golden(depth: int) -> str:
        nested = "[" * depth + "]" * depth
        return f'{{"scenario": "s", "dialect": "d", "interactions": [], "x": {nested}}}'

    with pytest.raises(GoldenFormatError, match=f"nested deeper than {MAX_GOLDEN_DEPTH}"):
        goldens.loads(golden(MAX_GOLDEN_DEPTH))  # the document itself is one level
    assert goldens.loads(golden(MAX_GOLDEN_DEPTH - 1)).scenario == "s"
    monkeypatch.setattr(goldens, "MAX_GOLDEN_VALUES", 10)
    with pytest.raises(GoldenFormatError, match="more than 10 values"):
        goldens.loads("[" + ",".join(["0"] * 11) + "]")
    with pytest.raises(GoldenFormatError, match="not UTF-8"):
        goldens.loads(b'{"\xff": 1}')


def test_a_scenario_that_cannot_name_a_golden_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "Not A Name.yaml"
    path.write_text(HEAD + TAIL)  # no raf block: the scenario is the file's stem
    assert "cannot name a golden file" in the_problem(path, tmp_path)
    (tmp_path / "escape.yaml").write_text("raf: {scenario: ../x}\n" + HEAD + TAIL)
    assert "'../x' cannot name a file" in the_problem(tmp_path / "escape.yaml", tmp_path)


def test_yaml_is_the_c_loader_when_present() -> None:
    assert getattr(yaml, "__with_libyaml__", False), "the scan relies on libyaml's speed"
