"""docs/agent.md, "Chat clients": its tables are rendered here from the data they describe
(the formats' ``HttpApi``, ``RetryPolicy()``'s defaults, ``DEFAULT_TIMEOUT``) and must appear
in the docs as rendered; docs/deviations.md has the section's rows."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from raf import formats
from raf.agent.http_client import DEFAULT_TIMEOUT
from raf.agent.retry import RetryPolicy

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _json(value: object) -> str:
    return json.dumps(value, separators=(", ", ": "))


def http_table() -> str:
    """One row per format: the URL a chat client POSTs to, its key, its headers, the fields
    that ask for usage, and where options go."""
    lines = [
        "| format | URL (base URL + path) | API key | other headers | usage request | options placed | token limit when none is set |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in formats.names():
        api = formats.get(name).http
        assert api is not None, name
        key = f"`{api.auth_header}: {api.auth_scheme}<key>`"
        headers = ", ".join(f"`{k}: {v}`" for k, v in api.headers.items()) or "-"
        usage = f"`{_json(dict(api.usage_request))}`" if api.usage_request else "-"
        placed = (
            ", ".join(
                f"`{option}` → " + (f"`{path}`" if path else "none")
                for option, path in api.options.items()
            )
            or "-"
        )
        limit = "-" if api.default_max_tokens is None else f"{api.default_max_tokens:,}"
        lines.append(
            f"| `{name}` | `{api.base_url}` + `{api.path}` | {key} | {headers} | {usage} | {placed} "
            f"| {limit} |"
        )
    return "\n".join(lines)


def defaults_table() -> str:
    """The retry policy's defaults and the timeouts."""
    policy = RetryPolicy()
    lines = ["| setting | default |", "|---|---|"]
    for field in dataclasses.fields(RetryPolicy):
        if field.name == "rng":
            continue
        value = getattr(policy, field.name)
        if isinstance(value, frozenset):
            value = ", ".join(str(v) for v in sorted(value))
        lines.append(f"| `RetryPolicy.{field.name}` | {value} |")
    lines.extend(
        f"| `timeout.{part}` (seconds) | {getattr(DEFAULT_TIMEOUT, part)} |"
        for part in ("connect", "read", "write", "pool")
    )
    return "\n".join(lines)


def section(path: Path, heading: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert heading in text, f"{path.name} has no {heading!r}"
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_docs_table_of_formats_is_the_descriptors() -> None:
    assert http_table() in section(DOCS / "agent.md", "## Chat clients")


def test_the_docs_table_of_defaults_is_the_code() -> None:
    assert defaults_table() in section(DOCS / "agent.md", "## Chat clients")


def test_the_deviations_of_chat_clients_are_listed() -> None:
    rows = section(DOCS / "deviations.md", "## Chat clients")
    for subject in ("total", "Bearer", "Content-Type", "retr", "extra_body", "stream_options"):
        assert subject in rows, subject
