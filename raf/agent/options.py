"""What one call of a chat client asks for (RAF's ``ChatClientRunOptions``), and the flag that
cancels a run. Values only, no IO."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from raf.model._base import JSONValue
from raf.model.messages import ToolApprovalResponse
from raf.model.request import ToolSpec

if TYPE_CHECKING:
    from raf.agent.tools import Tool

__all__ = ["Cancellation", "ChatOptions"]


class Cancellation:
    """A flag a caller sets to cancel a run (RAF's shared ``cancelled`` flag): the tool loop
    checks it before each model call and between a round's updates, and is woken by it while
    tools run (docs/agent.md). Safe to set from any thread.
    """

    __slots__ = ("_callbacks", "_event", "_lock")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    def cancel(self) -> None:
        """Ask the run to stop (the callbacks run once, in the thread that cancels)."""
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or ``timeout`` seconds passed; whether it was cancelled."""
        return self._event.wait(timeout)

    def add_callback(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` once when the run is cancelled (at once if it already is); returns
        the function that removes it (what a waiter calls when it stops waiting)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._remove(callback)
        callback()
        return lambda: None

    def _remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


@dataclass(frozen=True, kw_only=True)
class ChatOptions:
    """The options of one call of a chat client (RAF's ``ChatClientRunOptions``).

    ``model``, ``max_tokens``, ``temperature``, ``top_p`` and ``stop`` override the client's
    defaults; ``tool_choice`` and ``parallel_tool_calls`` are sent as the format names them;
    ``extra_body`` is merged into the request's top level last: it overrides any field of the
    same name, those the format builds included (so it is no place for messages or tools).
    ``tools`` are the definitions sent to the model; ``provider_tools`` executable tools given
    for this call only (the tool loop runs them); ``tool_approval_responses`` answer the
    approval requests of the previous run (the loop resumes with them, raf-spec 5.7);
    ``cancellation`` cancels the run; ``properties`` are copied into every content's metadata.
    """

    model: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] | None = None
    tool_choice: JSONValue = None
    parallel_tool_calls: bool | None = None
    extra_body: Mapping[str, JSONValue] = field(default_factory=dict)
    tools: tuple[ToolSpec, ...] = ()
    provider_tools: tuple[Tool, ...] = ()
    tool_approval_responses: tuple[ToolApprovalResponse, ...] = ()
    cancellation: Cancellation | None = None
    properties: Mapping[str, JSONValue] = field(default_factory=dict)
