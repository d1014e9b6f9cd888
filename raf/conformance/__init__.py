"""The conformance suite: cassettes, their goldens, and a runner that compares an
implementation's output with them (docs/conformance.md)."""

from raf.conformance.goldens import Golden, InteractionOutput
from raf.conformance.reference import Implementation, run_cassette, run_interaction
from raf.conformance.review import expectation_problems

__all__ = [
    "Golden",
    "Implementation",
    "InteractionOutput",
    "expectation_problems",
    "run_cassette",
    "run_interaction",
]
