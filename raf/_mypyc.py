"""The optional compiled build (docs/compiled.md): which modules it compiles, which of them are
loaded compiled, and the one mypyc decorator the sources use, without a dependency at run time.

The compiled build compiles :data:`HOT_MODULES` with mypyc into C extensions that sit next to
the same ``.py`` files in the wheel; Python imports an extension before a source file of the
same name, so a module is compiled exactly when its ``__file__`` is an extension.
"""

from __future__ import annotations

import importlib
import importlib.machinery
from typing import TYPE_CHECKING

__all__ = ["HOT_MODULES", "compiled_modules", "mypyc_attr"]

# What pyproject.toml's mypyc build hook compiles (its ``include``; tests/test_compiled.py
# checks that the two lists agree).
HOT_MODULES = (
    "raf.args_parser",
    "raf.collect",
    "raf.converter",
    "raf.dialects.base",
    "raf.dialects.tables",
    "raf.dialects.templates",
    "raf.formats.anthropic_messages.dialect",
    "raf.formats.bedrock_converse.dialect",
    "raf.formats.cohere_v2.dialect",
    "raf.formats.gemini.dialect",
    "raf.formats.gemini_interactions.dialect",
    "raf.formats.ollama_chat.dialect",
    "raf.formats.openai_chat.dialect",
    "raf.formats.openai_completions.dialect",
    "raf.formats.openai_responses.dialect",
    "raf.framing.json_values",
    "raf.framing.sse",
    "raf.pipeline",
)

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:

    def mypyc_attr(*_flags: str, **_attrs: object) -> object:
        """mypyc reads ``@mypyc_attr(...)`` when it compiles a class and never calls it; run
        interpreted, the decorator does nothing."""
        return lambda cls: cls


def compiled_modules() -> tuple[str, ...]:
    """The modules of :data:`HOT_MODULES` that are loaded as extension modules."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return tuple(
        name
        for name in HOT_MODULES
        if (getattr(importlib.import_module(name), "__file__", None) or "").endswith(suffixes)
    )
