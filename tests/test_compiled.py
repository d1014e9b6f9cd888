"""The build in use, compiled (mypyc) or pure Python, and ``raf --version`` saying which.

With ``RAF_REQUIRE_COMPILED=1`` (``tox -e compiled``, the py313 run in CI) the suite fails
unless every hot module is loaded compiled: a compiled wheel that is broken, or tests that
import the source tree instead of the installed wheel, cannot pass as a compiled run while
testing pure Python. See docs/compiled.md.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import tomllib
import typing
from pathlib import Path

import msgspec

import raf
from raf import _mypyc
from raf.cli import version_text

ROOT = Path(__file__).resolve().parents[1]


def _loaded_compiled() -> tuple[str, ...]:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return tuple(
        name for name in _mypyc.HOT_MODULES if (sys.modules[name].__file__ or "").endswith(suffixes)
    )


def test_version_text_names_the_build_actually_loaded() -> None:
    loaded = _loaded_compiled()
    assert loaded == raf.COMPILED_MODULES
    assert raf.COMPILED is bool(loaded)
    build = "compiled" if loaded else "pure Python"
    assert version_text().startswith(f"raf {raf.__version__} ({build}; ")


def test_a_build_compiles_all_the_hot_modules_or_none() -> None:
    assert raf.COMPILED_MODULES in ((), _mypyc.HOT_MODULES)


def test_the_compiled_build_is_in_use_when_required() -> None:
    if os.environ.get("RAF_REQUIRE_COMPILED") == "1":
        assert raf.COMPILED_MODULES == _mypyc.HOT_MODULES, (
            f"RAF_REQUIRE_COMPILED=1 but {version_text()}: compiled "
            f"{list(raf.COMPILED_MODULES)} of {list(_mypyc.HOT_MODULES)}, raf from {raf.__file__}"
        )


def test_the_build_hook_compiles_the_hot_modules() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    hook = project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]
    assert hook["enable-by-default"] is False  # the default wheel is pure Python
    paths = [name.replace(".", "/") + ".py" for name in _mypyc.HOT_MODULES]
    assert hook["include"] == paths
    assert all((ROOT / path).is_file() for path in paths)


def test_the_structs_of_the_hot_modules_keep_their_field_types() -> None:
    # mypyc replaces the annotations of a class it compiles (``int | None`` becomes ``type``,
    # ``list[bytes]`` becomes ``list``), so a msgspec.Struct defined in a compiled module has
    # wrong field types: the hot modules import theirs from modules that are never compiled
    # (a dialect's from ``_wire.py`` beside it).
    for name in _mypyc.HOT_MODULES:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and issubclass(value, msgspec.Struct):
                assert value.__module__ not in _mypyc.HOT_MODULES, (
                    f"{value.__qualname__} is defined in {value.__module__}, which is compiled"
                )
                # A field mypyc rewrote has the annotation ``type``.
                hints = typing.get_type_hints(value)
                assert type not in hints.values(), f"{value.__qualname__}: {hints}"


def test_the_hot_modules_define_no_runtime_checkable_protocol() -> None:
    # mypyc compiles a protocol into a native trait, which ``typing.runtime_checkable``
    # refuses at import: such protocols live in modules that are never compiled.
    for name in _mypyc.HOT_MODULES:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and value.__module__ == name:
                assert not getattr(value, "_is_runtime_protocol", False), value.__qualname__


def test_every_format_s_dialect_is_compiled() -> None:
    # respond() spends most of its time in the dialect: a new format's is compiled too.
    dialects = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "raf" / "formats").glob("*/dialect.py")
    )
    assert dialects
    assert set(dialects) <= set(_mypyc.HOT_MODULES)


def test_the_hot_dialect_classes_can_be_subclassed() -> None:
    # Interpreted code (a user's dialect, the tests' watchers) subclasses the dialects and
    # the collector; a compiled class allows it only when marked so.
    from raf import dialects  # noqa: PLC0415
    from raf.collect import ResponseCollector  # noqa: PLC0415

    for name in dialects.names():
        cls = type(dialects.create(name))

        class Sub(cls):  # type: ignore[misc,valid-type]
            pass

        assert isinstance(Sub(), cls)

    class Collector(ResponseCollector):
        pass

    assert Collector().response().text == ""
