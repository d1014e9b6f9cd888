"""The legacy Completions strategies, where the other formats' are found: they live in the
format's package, :mod:`raf.formats.openai_completions.strategies`."""

from raf.formats.openai_completions.strategies import (
    PROFILES,
    GeneratedStream,
    Profile,
    completion_chunks,
    render,
    responses,
    streams,
)

__all__ = [
    "PROFILES",
    "GeneratedStream",
    "Profile",
    "completion_chunks",
    "render",
    "responses",
    "streams",
]
