"""Invariants of the response plans and the URL scheme, for any body, chunking and fault."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from raf.chunking import chunk
from raf.serve.faults import Close, Plan, Truncate, Write, parse_faults, plan
from raf.serve.routes import Route, parse
from raf.shared.case_paths import case_path

CHUNKINGS = st.sampled_from(["whole", "bytes", "fixed-3", "random", "random-7", "utf8", "crlf"])
NAMES = st.from_regex(r"[a-z0-9][a-z0-9_\-]{0,30}", fullmatch=True)
BODIES = st.binary(max_size=400) | st.lists(
    st.sampled_from([b"data: {}\n\n", b"data: x\r\n\r\n", b": c\n", "é".encode(), b"\r\n"]),
    max_size=30,
).map(b"".join)


def _plan(body: bytes, chunking: str, faults: str = "", delays: bool = False) -> Plan:
    chunks = chunk(body, chunking)
    return plan(
        dialect="openai_chat",
        status=200,
        reason="OK",
        headers=[("content-type", "text/event-stream")],
        chunks=chunks,
        delays=[0.001] * len(chunks) if delays else None,
        faults=parse_faults(faults) if faults else (),
    )


@given(BODIES, CHUNKINGS, st.booleans())
def test_without_faults_the_client_gets_the_body_in_the_chunks_of_the_chunking(
    body: bytes, chunking: str, delays: bool
) -> None:
    p = _plan(body, chunking, delays=delays)
    writes = [s.data for s in p.steps if isinstance(s, Write)]
    assert writes == chunk(body, chunking)
    assert p.body() == body
    assert p.complete


@given(BODIES, CHUNKINGS, st.integers(0, 500), st.sampled_from(["cut", "reset"]))
def test_a_cut_sends_exactly_the_first_n_bytes_then_ends_the_connection(
    body: bytes, chunking: str, n: int, kind: str
) -> None:
    p = _plan(body, chunking, f"{kind}-{n}")
    assert p.body() == body[:n]
    assert p.steps[-1] == Close(reset=kind == "reset")
    assert not p.complete


@given(BODIES, CHUNKINGS)
def test_truncated_chunked_sends_a_prefix_and_promises_more_than_it_sends(
    body: bytes, chunking: str
) -> None:
    p = _plan(body, chunking, "truncated-chunked")
    last = p.steps[-1]
    assert isinstance(last, Truncate)
    assert last.promised > len(last.data)
    assert body.startswith(p.body())


@given(BODIES, CHUNKINGS, st.booleans())
def test_garbage_adds_one_event_and_removes_nothing(
    body: bytes, chunking: str, delays: bool
) -> None:
    sent = _plan(body, chunking, "garbage", delays=delays).body()
    added = len(sent) - len(body)
    assert added > 0
    at = next((i for i, (a, b) in enumerate(zip(sent, body, strict=False)) if a != b), len(body))
    assert sent[:at] + sent[at + added :] == body  # the body is all there, in order
    assert sent[at : at + added].count(b"raf injected garbage") == 1


@given(
    NAMES,
    NAMES,
    st.none() | CHUNKINGS,
    st.lists(st.sampled_from(["cut-5", "stall-9", "garbage", "drip"]), unique=True, max_size=3),
    st.none() | st.integers(0, 999),
)
def test_case_path_and_parse_agree(
    dialect: str, scenario: str, chunking: str | None, faults: list[str], interaction: int | None
) -> None:
    path = case_path(dialect, scenario, chunking=chunking, faults=faults, interaction=interaction)
    route = parse(path + "/v1/chat/completions")
    assert isinstance(route, Route)
    assert (route.dialect, route.scenario, route.chunking, route.interaction) == (
        dialect,
        scenario,
        chunking,
        interaction,
    )
    assert [f.name for f in route.faults] == faults
    assert route.prefix == path
    assert route.provider_path == "/v1/chat/completions"
