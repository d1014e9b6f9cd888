"""The independent reader of ``openai_chat`` under the name every format's reader has
(``tests/conformance/reader_<format>.py``): it is :mod:`tests.conformance.independent_reader`,
which also holds what the other formats' readers share."""

from __future__ import annotations

from tests.conformance.independent_reader import read_updates

__all__ = ["read_updates"]
