"""``raf serve``: replay recorded cassettes over a real socket, with a chosen chunking,
the recorded timing and injected faults, and check what the client asked.

* :mod:`raf.serve.routes`: the URL scheme (``/s/<dialect>/<scenario>/c/<chunking>/f/<fault>``,
  ``/i/<n>``, ``/r/<run>``);
* :mod:`raf.serve.faults`: the faults and the plan of one response (pure);
* :mod:`raf.serve.request_check`: the received request against the recorded one (pure);
* :mod:`raf.serve.catalog`: the served cassettes and the order of their interactions;
* :mod:`raf.serve.rounds`: which recorded round a request asks for, by the calls it answers
  (pure);
* :mod:`raf.serve.verdicts`: the request rules a request breaks, and the provider's error
  for those it refuses (pure);
* :mod:`raf.serve.journal`: every request received, scrubbed;
* :mod:`raf.serve.connections`: which connections are served past ``--max-connections``;
* :mod:`raf.serve.shared_chunks`: the cut bodies shared by the responses that send them;
* :mod:`raf.serve.app`: the aiohttp application that executes a plan;
* :mod:`raf.serve.server`: :class:`ReplayServer` (a background thread) and the foreground
  server of the CLI.

docs/serve.md is the user's guide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["ReplayServer"]

if TYPE_CHECKING:  # pragma: no cover
    from raf.serve.server import ReplayServer


def __getattr__(name: str) -> Any:
    if name == "ReplayServer":  # aiohttp is imported only when a server is wanted
        from raf.serve.server import ReplayServer  # noqa: PLC0415

        return ReplayServer
    raise AttributeError(name)
