"""The fuzzer's check as a pytest property (raf.fuzz.properties), as HypoFuzz and pytest-xdist
workers run it."""

from __future__ import annotations

import pytest
from hypothesis import Phase, seed, settings

from raf.fuzz.properties import conformance_property
from tests.fuzz.test_cli import BROKEN


# Unshrunk, the failing stream is large, and hypothesis warns of the size of its repr.
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
def test_the_property_fails_on_a_broken_program_naming_the_signature() -> None:
    # Without the shrink phase: what is asserted is the failure and the signature it names,
    # which the first failing example shows; hypothesis's shrinking of it is hypothesis's own
    # (and the most of the time this test would take).
    options = settings(
        max_examples=300,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate],
    )
    prop = conformance_property(BROKEN, options=options)
    try:
        with pytest.raises(AssertionError, match="text lost"):
            seed(1)(prop)()
    finally:
        prop.close()  # type: ignore[attr-defined]


def test_the_property_holds_for_raf_itself() -> None:
    options = settings(max_examples=30, database=None, deadline=None)
    conformance_property(None, "gemini", options=options)()


def test_each_property_has_a_name_of_its_own() -> None:
    names = {
        conformance_property(command, format).__name__
        for command in (None, BROKEN)
        for format in ("openai_chat", "gemini")
    }
    assert len(names) == 4
    assert all(name.startswith("test_conformance_") for name in names)
