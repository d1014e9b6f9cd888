"""Recorded SSE cassettes: the format, reading and writing, import, lint and replay.

A raf cassette is a vcrpy YAML cassette with a ``raf`` block that names the scenario and
states what the pipeline must make of it (docs/cassettes.md).
"""

from raf.cassettes.format import (
    Cassette,
    Expectation,
    ExpectedCall,
    ExpectedUsage,
    Interaction,
    Reading,
    Request,
    Response,
    ScenarioInfo,
)
from raf.cassettes.persister import load, save
from raf.cassettes.scrub import scrub_cassette

__all__ = [
    "Cassette",
    "Expectation",
    "ExpectedCall",
    "ExpectedUsage",
    "Interaction",
    "Reading",
    "Request",
    "Response",
    "ScenarioInfo",
    "load",
    "save",
    "scrub_cassette",
]
