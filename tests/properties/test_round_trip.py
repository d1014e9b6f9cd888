"""For any generated response, provider profile, SSE framing and network chunking, raf's
pipeline ends with exactly the ground truth; and its output does not depend on chunking."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from raf.model.canonical import to_canonical
from raf.pipeline import iter_updates, respond, run
from raf.testing.strategies import PROFILES, GeneratedStream, network_chunkings, streams
from tests.properties.support import summary


@given(streams())
def test_round_trip_any_profile(stream: GeneratedStream) -> None:
    assert summary(respond(stream.chunks)) == summary(stream.response)


@pytest.mark.parametrize("profile", sorted(PROFILES))
@given(data=st.data())
def test_round_trip_each_profile(profile: str, data: st.DataObject) -> None:
    stream = data.draw(streams(profile))
    assert summary(respond(stream.chunks)) == summary(stream.response)


@given(streams(), st.data())
def test_output_does_not_depend_on_network_chunking(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    other = data.draw(network_chunkings(stream.body), label="other chunking")
    assert to_canonical(list(iter_updates(stream.chunks))) == to_canonical(
        list(iter_updates(other))
    )
    assert to_canonical(list(run(stream.chunks))) == to_canonical(list(run(other)))
    assert to_canonical(respond(stream.chunks)) == to_canonical(respond(other))
