"""The path prefix that names a case on ``raf serve``. Pure, no IO.

``raf serve`` reads it (:func:`raf.serve.routes.parse`, which also documents the scheme);
the conformance ``http`` transport and the client matrix write it, to point a client at a
case. It lives below all three so that none imports another.
"""

from __future__ import annotations

__all__ = ["case_path"]


def case_path(
    dialect: str,
    scenario: str,
    *,
    chunking: str | None = None,
    faults: tuple[str, ...] | list[str] = (),
    interaction: int | None = None,
) -> str:
    """The path prefix of a case (what a client's base URL ends with, before ``/v1``)."""
    path = f"/s/{dialect}/{scenario}"
    if chunking is not None:
        path += f"/c/{chunking}"
    if faults:
        path += "/f/" + "+".join(faults)
    if interaction is not None:
        path += f"/i/{interaction}"
    return path
