"""The conformance suite: the recorded cases, their reviewed goldens, the levels they are
judged at, and the implementations they are run through (docs/conformance.md,
docs/protocol.md).

    from raf.conformance import StdioImplementation, bundled, load_suite, run_suite

    suite = load_suite(bundled().cassettes, bundled().goldens, select=["parallel"])
    report = run_suite(suite, StdioImplementation("node my_client.js"), level="response")
"""

from raf.conformance.bundled import BundledSuite, bundled
from raf.conformance.cases import Case, Problem, Suite, load_suite
from raf.conformance.goldens import Golden, InteractionOutput
from raf.conformance.implementation import (
    FunctionImplementation,
    Implementation,
    Outcome,
    ReferenceImplementation,
)
from raf.conformance.levels import Mismatch, check_lifecycle, compare_response, compare_updates
from raf.conformance.protocol import CAPABILITIES, LEVELS, PROTOCOL
from raf.conformance.reference import run_cassette, run_interaction
from raf.conformance.review import expectation_problems
from raf.conformance.runner import CaseResult, RunReport, run_suite
from raf.conformance.stdio import ImplementationFailed, StdioImplementation

__all__ = [
    "CAPABILITIES",
    "LEVELS",
    "PROTOCOL",
    "BundledSuite",
    "Case",
    "CaseResult",
    "FunctionImplementation",
    "Golden",
    "Implementation",
    "ImplementationFailed",
    "InteractionOutput",
    "Mismatch",
    "Outcome",
    "Problem",
    "ReferenceImplementation",
    "RunReport",
    "StdioImplementation",
    "Suite",
    "bundled",
    "check_lifecycle",
    "compare_response",
    "compare_updates",
    "expectation_problems",
    "load_suite",
    "run_cassette",
    "run_interaction",
    "run_suite",
]
