"""A finding as a cassette (raf.fuzz.cassette), and the ``recorded`` case of a cassette's
reads (raf.conformance.cases)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import formats
from raf.cassettes.format import Cassette, is_file_name
from raf.cassettes.persister import save
from raf.conformance.cases import RECORDED, load_suite
from raf.conformance.goldens import beside
from raf.conformance.levels import Mismatch
from raf.conformance.reference import output_for
from raf.conformance.review import expectation_problems
from raf.conformance.update import update_goldens
from raf.fuzz.cassette import finding_cassette, scenario_name, signature
from raf.fuzz.generate import FuzzStream, streams
from raf.shared.bundled import bundled
from raf.testing.strategies import GeneratedStream

LOST_TEXT = Mismatch("text", '"a"', '""', kind="lost")


@pytest.mark.parametrize("format", formats.names())
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_cassette_of_a_finding_holds_the_stream_and_its_ground_truth(
    format: str, data: st.DataObject
) -> None:
    stream = data.draw(streams(format, max_tool_calls=2))
    cassette = finding_cassette(stream, [LOST_TEXT], seed=5)
    again = Cassette.from_dict(cassette.to_dict())
    assert again == cassette
    info = cassette.info
    assert info is not None
    assert is_file_name(info.scenario)
    assert info.scenario == scenario_name(format, signature(stream, [LOST_TEXT]))
    assert info.dialect == format
    assert info.quirks == stream.quirks
    assert "Seed 5." in info.notes
    (interaction,) = cassette.interactions
    assert interaction.response.body == stream.body
    assert interaction.timed_chunks() is not None
    assert interaction.timed_chunks()[0] == [r for r in stream.chunks if r]  # type: ignore[index]
    # the expectation is the ground truth, and raf's reference satisfies it
    assert info.expect is not None
    assert info.expect.reviewed
    assert info.expect.text == stream.response.text
    assert [c.name for c in info.expect.tool_calls] == [c.name for c in stream.response.tool_calls]
    reference = output_for(200, "OK", list(stream.chunks), format).response
    assert expectation_problems(info.expect, reference) == []
    # the request is one of the format's, to one of its URLs, that its reader reads back
    found = formats.get(format)
    request = interaction.request
    assert found.recorded_at(urlsplit(request.uri).path) is not None
    body = msgspec.json.decode(request.body or "{}")
    assert found.read_request is not None
    conversation = found.read_request(body)
    assert [t.name for t in conversation.tools] == list(
        dict.fromkeys(c.name for c in stream.response.tool_calls)
    )


def test_a_signature_is_the_first_difference_and_the_quirks() -> None:
    stream = FuzzStream("openai_chat", _stream(), ("leading_bom", "cr_line_ends"))
    other = Mismatch("usage", "1", "2", kind="wrong")
    first = signature(stream, [LOST_TEXT, other])
    assert (first.key, first.kind, first.quirks) == (
        "text",
        "lost",
        ("cr_line_ends", "leading_bom"),
    )
    assert first == signature(stream, [LOST_TEXT])
    assert first != signature(stream, [other, LOST_TEXT])
    assert first != signature(FuzzStream("openai_chat", _stream(), ()), [LOST_TEXT])
    assert len(first.digest) == 8
    assert first.text == "text lost [cr_line_ends, leading_bom]"


def test_the_recorded_reads_of_a_cassette_are_a_case_of_their_own(tmp_path: Path) -> None:
    stream = FuzzStream("openai_chat", _stream(), ())
    cassette = finding_cassette(stream, [LOST_TEXT])
    assert cassette.info is not None
    folder = tmp_path / "mine"
    save(cassette, folder / "openai_chat" / f"{cassette.info.scenario}.yaml")
    (written,) = update_goldens(folder, beside(folder))
    assert written.verdict == "new"
    suite = load_suite(folder, beside(folder), chunkings=("whole", "bytes"))
    assert [c.chunking for c in suite.cases] == ["whole", "bytes", RECORDED]
    recorded = suite.cases[-1]
    assert recorded.chunks() == [r for r in stream.chunks if r]
    assert suite.cases[1].chunks() == [bytes([b]) for b in stream.body]


def test_the_bundled_suite_has_no_recorded_case() -> None:
    """No bundled cassette records its reads: the suite's cases are as many as before (an
    event-stream body is also cut at its structure, ``eventstream``)."""
    suite = load_suite(bundled().cassettes, bundled().goldens, chunkings=("whole",))
    assert suite.cases
    assert all(c.chunking in ("whole", "eventstream") for c in suite.cases)


def _stream() -> GeneratedStream:
    out: list[GeneratedStream] = []

    @settings(max_examples=30, database=None, deadline=None)
    @given(streams("openai_chat", max_tool_calls=1))
    def draw(fuzzed: FuzzStream) -> None:
        if fuzzed.response.text and len(fuzzed.chunks) > 1 and not out:
            out.append(fuzzed.stream)

    draw()
    assert out
    return out[0]
