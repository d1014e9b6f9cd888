"""Named network chunkings: each is a partition of the input, cut where its name says."""

from __future__ import annotations

import pytest

from raf.chunking import STANDARD_CHUNKINGS, check_chunking, chunk

DATA = "data: héllo 😀\r\n\r\ndata: x\r\n\r\n".encode()


@pytest.mark.parametrize("name", [*STANDARD_CHUNKINGS, "fixed-1", "fixed-4096", "random-42"])
def test_every_chunking_is_a_partition(name: str) -> None:
    pieces = chunk(DATA, name)
    assert b"".join(pieces) == DATA
    assert all(pieces)


def test_shapes() -> None:
    assert chunk(DATA, "whole") == [DATA]
    assert len(chunk(DATA, "bytes")) == len(DATA)
    assert {len(p) for p in chunk(DATA, "fixed-7")[:-1]} == {7}
    assert chunk(DATA, "random-5") == chunk(DATA, "random-5") != chunk(DATA, "random-6")
    # utf8: every cut falls inside a character
    for piece in chunk(DATA, "utf8")[1:]:
        assert piece[0] & 0xC0 == 0x80
    # crlf: every cut falls between CR and LF
    for left, right in zip(chunk(DATA, "crlf"), chunk(DATA, "crlf")[1:], strict=False):
        assert left.endswith(b"\r")
        assert right.startswith(b"\n")


@pytest.mark.parametrize("name", ["fixed-0", "fixed-x", "random-x", "halves", "whole-2"])
def test_unknown_names_are_refused_with_the_choices(name: str) -> None:
    with pytest.raises(ValueError, match="fixed-N"):
        check_chunking(name)
