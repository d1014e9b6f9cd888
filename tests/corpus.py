"""Access to the shared corpus of real recorded streams (``../shared/corpus``), read-only.

The corpus is not part of the repository; tests that use it skip cleanly when it is absent.
Set ``RAF_CORPUS`` to point elsewhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(
    os.environ.get("RAF_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)


@dataclass(frozen=True)
class RecordedStream:
    """One streamed response of a recorded cassette."""

    path: Path
    index: int
    uri: str
    body: bytes

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}#{self.index}"

    @property
    def dialect(self) -> str | None:
        """The wire format, judged from the request URI (None: not implemented in raf yet)."""
        if "/chat/completions" in self.uri:
            return "openai_chat"
        return None

    @property
    def wire_format(self) -> str:
        uri = self.uri.split("?")[0]
        if "/chat/completions" in uri:
            return "openai_chat"
        if uri.endswith("/responses") or "/responses/" in uri:
            return "openai_responses"
        if uri.endswith("/messages"):
            return "anthropic_messages"
        if "streamGenerateContent" in uri:
            return "gemini"
        return "other (" + uri.rsplit("/", 1)[-1] + ")"


def _header(headers: dict[str, Any], name: str) -> str:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return " ".join(value) if isinstance(value, list) else str(value)
    return ""


def recorded_streams() -> list[RecordedStream]:
    """Every ``text/event-stream`` response in the corpus, in path order."""
    if not ROOT.is_dir():
        return []
    out = []
    for path in sorted(ROOT.rglob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for index, interaction in enumerate(document.get("interactions") or []):
            response = interaction.get("response") or {}
            if "event-stream" not in _header(response.get("headers"), "content-type"):
                continue
            body = (response.get("body") or {}).get("string")
            if body is None:
                continue
            data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
            out.append(RecordedStream(path, index, interaction["request"]["uri"], data))
    return out
