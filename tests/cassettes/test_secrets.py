"""Secret scrubbing a security review can sign off on (docs/secrets.md).

* a matrix of kinds x places: for every kind of secret, planted in every place it can occur,
  lint flags it at that place, saving removes it (the secret and its escaped forms appear
  nowhere in the written file, whose lint is then clean) and nothing else changes (the body
  still replays to the same answer except the redaction, with the same number of events);
* ``raf cassette import`` of a VCR file holding planted secrets;
* no false positives: the bundled cassettes and the real corpus are not flagged, and
  scrubbing leaves a bundled cassette byte-identical;
* a property: a key planted at any point of a generated stream's text, split at any point
  over two events, is removed by scrubbing and found by lint.

Every fake secret is built here, at run time, so that the repository holds nothing a secret
scanner would take for a real key.
"""

from __future__ import annotations

import base64
import gzip
import json
import string
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import brotli
import pytest
from hypothesis import given
from hypothesis import strategies as st

from raf.cassettes import (
    Cassette,
    Expectation,
    Interaction,
    Request,
    Response,
    ScenarioInfo,
    load,
    save,
    scrub_cassette,
)
from raf.cassettes.coding import decode
from raf.cassettes.importers import import_file
from raf.cassettes.lint import Finding, lint_file
from raf.cassettes.scrub import (
    SecretNotScrubbed,
    scrub_body,
    scrub_headers,
    scrub_text,
    scrub_uri,
)
from raf.cassettes.secrets import (
    is_placeholder,
    is_secret_header,
    is_secret_member,
    is_secret_query_parameter,
    stream_hits,
    text_hits,
)
from raf.cli import main
from raf.errors import CassetteError
from raf.pipeline import respond
from raf.sse import SSEDecoder
from raf.testing.strategies import sse_framing, streams
from tests import corpus
from tests.corpus import ROOT

BUNDLED = sorted(Path(__file__).resolve().parents[2].joinpath("cassettes").rglob("*.yaml"))
URI = "https://api.example.com/v1/chat/completions?alt=sse"
RESPONSE_ID = "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"


# -- the fake secrets -----------------------------------------------------------------------


def _b64url(data: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _pem() -> str:
    body = base64.b64encode(bytes(range(256)) * 3).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join(
        ["-----BEGIN RSA PRIVATE " + "KEY-----", *lines, "-----END RSA PRIVATE KEY-----"]
    )


@dataclass(frozen=True)
class Kind:
    """One kind of secret: the kind lint names, the text planted (``value``) and the part of
    it that is the secret (what must disappear; the rest of ``value`` stays)."""

    name: str
    value: str
    secret: str = ""
    token: bool = True  # one URL-safe word: can be a query value or a userinfo password

    @property
    def hidden(self) -> str:
        return self.secret or self.value

    @property
    def redacted(self) -> str:
        """``value`` as scrubbing leaves it."""
        return self.value.replace(self.hidden, "REDACTED")

    @property
    def one_line(self) -> bool:
        return "\n" not in self.value

    def __str__(self) -> str:
        return self.name


A = "Ab3dE"  # five characters of a key body
BASIC = base64.b64encode(b"alice:s3cr3t-pass").decode()
JWT = ".".join(
    [_b64url({"alg": "HS256", "typ": "JWT"}), _b64url({"sub": "1234567890", "n": "x"}), A * 8]
)

KINDS = [
    Kind("OpenAI-style API key", "sk-proj-" + A * 16),
    Kind("OpenAI-style API key", "sk-" + "T3BlbkFJ" + A * 8),
    Kind("OpenAI service account key", "sk-svcacct-" + A * 12),
    Kind("OpenAI admin key", "sk-admin-" + A * 12),
    Kind("Anthropic API key", "sk-ant-api03-" + (A + "_-x9Z") * 9 + "AA"),
    Kind("Anthropic admin key", "sk-ant-admin01-" + (A + "_-x9Z") * 9 + "AA"),
    Kind("OpenRouter API key", "sk-or-v1-" + "0a1b2c3d" * 8),
    Kind("Google API key", "AIza" + "Sy" + "A1b2C3d4e5" * 3 + "XyZ"),
    Kind("Google OAuth access token", "ya29." + "a0AfH6SM" + A * 8),
    Kind("AWS access key id", "AKIA" + "Q3ZX7P2M9KL4TR8V"),
    Kind("AWS access key id", "ASIA" + "Q3ZX7P2M9KL4TR8V"),
    Kind("GitHub token", "ghp_" + "A1b2" * 9),
    Kind("GitHub token", "gho_" + "A1b2" * 9),
    Kind("GitHub token", "github_pat_" + "11ABCDEFG0" + A * 6 + "_" + A * 10),
    Kind("GitLab token", "glpat-" + A * 4),
    Kind("Slack token", "xoxb-" + "123456789012-1234567890123-" + A * 5),
    Kind("Slack token", "xapp-1-" + "A0123456789-1234567890123-" + A * 5),
    Kind(
        "Slack webhook URL",
        "https://hooks.slack.com/services/" + "T00000000/B00000000/" + A * 5,
        secret="T00000000/B00000000/" + A * 5,
        token=False,
    ),
    Kind("Stripe key", "sk_live_" + A * 6),
    Kind("Stripe key", "rk_test_" + A * 6),
    Kind("JSON Web Token", JWT),
    Kind("Groq API key", "gsk_" + A * 10),
    Kind("Hugging Face token", "hf_" + A * 7),
    Kind("xAI API key", "xai-" + A * 16),
    Kind("Replicate API token", "r8_" + A * 8),
    Kind("Perplexity API key", "pplx-" + A * 10),
    Kind("npm token", "npm_" + A * 8),
    Kind("PyPI token", "pypi-AgEIcHlwaS5vcmc" + A * 12),
    Kind("private key (PEM)", _pem(), token=False),
    Kind("bearer token", "Bearer tok" + A * 6, secret="tok" + A * 6, token=False),
    Kind("Basic auth credentials", "Basic " + BASIC, secret=BASIC, token=False),
    Kind(
        "URL userinfo",
        "https://alice:s3cr3t-pass@db.example.com/v1",
        secret="alice:s3cr3t-pass",
        token=False,
    ),
]


def escaped(text: str) -> str:
    """``text`` as the content of a JSON string literal with every character escaped."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


def forms(secret: str) -> list[str]:
    """The secret and the forms it could be written in: JSON-escaped, YAML-quoted..."""
    out = [secret, escaped(secret), json.dumps(secret)[1:-1]]
    if "\n" in secret:  # a PEM block: its body lines
        out += [line for line in secret.splitlines() if len(line) > 20]
    return out


# -- building the cassette ----------------------------------------------------------------------


def data_line(delta: dict[str, object], *, finish: str | None = None) -> str:
    chunk = {
        "id": RESPONSE_ID,
        "object": "chat.completion.chunk",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return "data: " + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False) + "\n\n"


def call(index: int, arguments: str, *, first: bool = False) -> dict[str, object]:
    entry: dict[str, object] = {"index": index, "function": {"arguments": arguments}}
    if first:
        entry["id"] = f"call_{index}Fth7RtbjmQZ1j0ZSF9M3aG"
        entry["type"] = "function"
        entry["function"] = {"name": "get_weather", "arguments": arguments}
    return {"tool_calls": [entry]}


def stream(text_pieces: list[str], note_pieces: list[str], *, raw: str | None = None) -> bytes:
    """A Chat Completions stream: ``text_pieces`` as content deltas, then two interleaved
    calls, the first with arguments ``{"note": <note_pieces joined>, "city": "Paris"}``
    (one fragment per piece), the other ``{"city": "Rome"}``. ``raw`` replaces the
    content delta ``"@"`` by hand-written JSON string content."""
    lines = [data_line({"role": "assistant", "content": ""})]
    lines += (data_line({"content": piece}) for piece in text_pieces)
    first_args = (
        ['{"note": "'] + [json.dumps(p)[1:-1] for p in note_pieces] + ['", "city": "Paris"}']
    )
    second_args = ['{"city": ', '"Rome"}']
    lines.append(data_line(call(0, first_args[0], first=True)))
    lines.append(data_line(call(1, second_args[0], first=True)))
    for n, fragment in enumerate(first_args[1:]):
        lines.append(data_line(call(0, fragment)))
        if n == 0:
            lines.append(data_line(call(1, second_args[1])))
    lines.append(data_line({}, finish="tool_calls"))
    lines.append("data: [DONE]\n\n")
    body = "".join(lines)
    if raw is not None:
        body = body.replace('"content":"@"', f'"content":"{raw}"', 1)
    return body.encode()


def base(
    *,
    uri: str = URI,
    request_headers: dict[str, list[str]] | None = None,
    request_content: str = "What is the weather?",
    request_raw: str | None = None,
    response_headers: dict[str, list[str]] | None = None,
    body: bytes | None = None,
    notes: str = "",
) -> Cassette:
    request_body = json.dumps(
        {
            "model": "gpt-4o",
            "stream": True,
            "messages": [{"role": "user", "content": request_content}],
        },
        indent=2,
    )
    if request_raw is not None:
        request_body = request_body.replace('"@"', f'"{request_raw}"', 1)
    return Cassette(
        info=ScenarioInfo(scenario="planted", notes=notes, expect=Expectation()),
        interactions=[
            Interaction(
                request=Request(
                    uri=uri,
                    headers={
                        "content-type": ["application/json"],
                        "user-agent": ["raf-test/1"],
                        **(request_headers or {}),
                    },
                    body=request_body,
                ),
                response=Response(
                    headers={
                        "content-type": ["text/event-stream; charset=utf-8"],
                        "x-request-id": ["req_8a1b2c"],
                        **(response_headers or {}),
                    },
                    body=body if body is not None else stream(["Hello", " there."], ["sunny"]),
                ),
            )
        ],
    )


def events(body: bytes) -> int:
    decoder = SSEDecoder()
    return len(decoder.feed(body)) + len(decoder.close())


# -- the places ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a secret is planted: ``plant`` builds the cassette, ``where`` is the place lint
    must name, ``check`` asserts what scrubbing kept (given the kind and the saved cassette),
    and ``fits`` says whether a kind can occur there."""

    name: str
    where: str
    plant: Callable[[Kind], Cassette]
    check: Callable[[Kind, Cassette], None]
    fits: Callable[[Kind], bool] = lambda kind: True
    by_name: bool = False  # found by the name of its field, not by its shape

    def __str__(self) -> str:
        return self.name


SECRET_HEADER_NAMES = [
    "Ocp-Apim-Subscription-Key",
    "X-Amz-Security-Token",
    "X-Amz-Signature",
    "x-goog-api-key",
    "Authorization",
    "X-Service-Token",
    "x-acme-secret",
]


def header_name(kind: Kind) -> str:
    return SECRET_HEADER_NAMES[KINDS.index(kind) % len(SECRET_HEADER_NAMES)]


def reply(cassette: Cassette) -> tuple[str, object, int]:
    body = cassette.interactions[0].response.body
    response = respond([body])
    return response.text, [c.arguments for c in response.tool_calls], events(body)


ORIGINAL_REPLY = ("Hello there.", [{"note": "sunny", "city": "Paris"}, {"city": "Rome"}], 10)


def same_reply(kind: Kind, saved: Cassette) -> None:
    assert reply(saved) == ORIGINAL_REPLY


def request_content(saved: Cassette) -> str:
    body = saved.interactions[0].request.body
    assert isinstance(body, str)
    content = json.loads(body)["messages"][0]["content"]
    assert isinstance(content, str)
    return content


def check_query(kind: Kind, saved: Cassette) -> None:
    uri = saved.interactions[0].request.uri
    assert uri.startswith("https://api.example.com/v1/chat/completions?q=")
    assert uri.endswith("&alt=sse")
    same_reply(kind, saved)


def check_userinfo(kind: Kind, saved: Cassette) -> None:
    assert (
        saved.interactions[0].request.uri == "https://api.example.com/v1/chat/completions?alt=sse"
    )


def check_request_header(kind: Kind, saved: Cassette) -> None:
    headers = saved.interactions[0].request.headers
    assert headers[header_name(kind)] == ["REDACTED"]
    assert headers["user-agent"] == ["raf-test/1"]
    same_reply(kind, saved)


def check_request_body(kind: Kind, saved: Cassette) -> None:
    assert request_content(saved) == f"my key is {kind.redacted} thanks"
    same_reply(kind, saved)


def check_response_header(kind: Kind, saved: Cassette) -> None:
    assert saved.interactions[0].response.headers["x-echo"] == [f"note {kind.redacted}"]
    same_reply(kind, saved)


def check_text(kind: Kind, saved: Cassette) -> None:
    text, calls, count = reply(saved)
    assert text == f"Hello there. my key is {kind.redacted} thanks"
    assert calls == ORIGINAL_REPLY[1]
    assert count == ORIGINAL_REPLY[2] + 1


def check_escaped_text(kind: Kind, saved: Cassette) -> None:
    text, calls, count = reply(saved)
    assert text == f"Hello there.my key is {kind.redacted} thanks"
    assert calls == ORIGINAL_REPLY[1]
    assert count == ORIGINAL_REPLY[2] + 1


def check_split_text(kind: Kind, saved: Cassette) -> None:
    text, calls, count = reply(saved)
    assert text == f"Hello there. my key is {kind.redacted} thanks"
    assert calls == ORIGINAL_REPLY[1]
    assert count == ORIGINAL_REPLY[2] + 2


def check_split_arguments(kind: Kind, saved: Cassette) -> None:
    text, calls, count = reply(saved)
    assert text == "Hello there."
    assert calls == [{"note": f"key {kind.redacted} ok", "city": "Paris"}, {"city": "Rome"}]
    assert count == ORIGINAL_REPLY[2] + 1


def check_invalid_utf8(kind: Kind, saved: Cassette) -> None:
    body = saved.interactions[0].response.body
    assert body.startswith(b": \xff\xfe comment\n\n")
    check_text(kind, saved)


def check_notes(kind: Kind, saved: Cassette) -> None:
    assert saved.info is not None
    assert saved.info.notes == f"see {kind.redacted}"
    same_reply(kind, saved)


def halves(value: str) -> tuple[str, str]:
    middle = len(value) // 2
    return value[:middle], value[middle:]


PLACES = [
    Place(
        "request URI query",
        "interactions[0].request.uri",
        lambda k: base(uri=URI.replace("?", f"?q={k.value}&")),
        check_query,
        fits=lambda k: " " not in k.value and k.one_line,
    ),
    Place(
        "request URI userinfo",
        "interactions[0].request.uri",
        lambda k: base(uri=URI.replace("://", f"://user:{k.value}@")),
        check_userinfo,
        fits=lambda k: k.token,
        by_name=True,
    ),
    Place(
        "request header by name",
        "interactions[0].request.headers.{header}[0]",
        lambda k: base(request_headers={header_name(k): [k.value]}),
        check_request_header,
        fits=lambda k: k.one_line,
        by_name=True,
    ),
    Place(
        "request body",
        "interactions[0].request.body",
        lambda k: base(request_content=f"my key is {k.value} thanks"),
        check_request_body,
    ),
    Place(
        "request body, JSON-escaped",
        "interactions[0].request.body",
        lambda k: base(request_content="@", request_raw=escaped(f"my key is {k.value} thanks")),
        check_request_body,
    ),
    Place(
        "response header",
        "interactions[0].response.headers.x-echo[0]",
        lambda k: base(response_headers={"x-echo": [f"note {k.value}"]}),
        check_response_header,
        fits=lambda k: k.one_line,
    ),
    Place(
        "response body",
        "interactions[0].response.body.string",
        lambda k: base(
            body=stream(["Hello", " there.", f" my key is {k.value} thanks"], ["sunny"])
        ),
        check_text,
    ),
    Place(
        "response body with invalid UTF-8 elsewhere",
        "interactions[0].response.body.string",
        lambda k: base(
            body=b": \xff\xfe comment\n\n"
            + stream(["Hello", " there.", f" my key is {k.value} thanks"], ["sunny"])
        ),
        check_invalid_utf8,
    ),
    Place(
        "response body, JSON-escaped in one event",
        "interactions[0].response.body.string",
        lambda k: base(
            body=stream(
                ["Hello", " there.", "@"], ["sunny"], raw=escaped(f"my key is {k.value} thanks")
            )
        ),
        check_escaped_text,
    ),
    Place(
        "streamed text, split over two events",
        "interactions[0].response.body (streamed text)",
        lambda k: base(
            body=stream(
                [
                    "Hello",
                    " there.",
                    " my key is " + halves(k.value)[0],
                    halves(k.value)[1] + " thanks",
                ],
                ["sunny"],
            )
        ),
        check_split_text,
    ),
    Place(
        "streamed tool arguments, split over events",
        "interactions[0].response.body (streamed tool arguments)",
        lambda k: base(
            body=stream(
                ["Hello", " there."], ["key " + halves(k.value)[0], halves(k.value)[1] + " ok"]
            )
        ),
        check_split_arguments,
    ),
    Place("raf block notes", "raf.notes", lambda k: base(notes=f"see {k.value}"), check_notes),
]


def coded(place: Place, coding: str, pack: Callable[[bytes], bytes], side: str) -> Place:
    """``place`` with the body of ``side`` sent compressed (``content-encoding: coding``);
    what scrubbing kept is checked on the body decoded again."""

    def plant(kind: Kind) -> Cassette:
        cassette = place.plant(kind)
        message = getattr(cassette.interactions[0], side)
        body = message.body
        message.body = pack(body if isinstance(body, bytes) else body.encode())
        message.headers["content-encoding"] = [coding]
        return cassette

    def check(kind: Kind, saved: Cassette) -> None:
        message = getattr(saved.interactions[0], side)
        assert message.headers["content-encoding"] == [coding]
        decoded = decode(message.body, coding).body
        message.body = decoded if side == "response" else decoded.decode()
        place.check(kind, saved)

    return Place(f"{place.name}, {coding}", place.where, plant, check, place.fits, place.by_name)


def _by_name(name: str) -> Place:
    (place,) = (p for p in PLACES if p.name == name)
    return place


PLACES += [
    coded(_by_name("request body"), "deflate", zlib.compress, "request"),
    coded(_by_name("response body"), "gzip", lambda data: gzip.compress(data, mtime=0), "response"),
    coded(_by_name("streamed text, split over two events"), "br", brotli.compress, "response"),
]

CASES = [
    pytest.param(kind, place, id=f"{place.name}-{kind.name}-{n}")
    for place in PLACES
    for n, kind in enumerate(KINDS)
    if place.fits(kind)
]


def expected_where(kind: Kind, place: Place) -> str:
    return place.where.format(header=header_name(kind))


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "error"]


def secret_errors(findings: list[Finding]) -> list[Finding]:
    """The errors of the secret scan (not "unknown dialect": raf has no dialect yet for
    some recorded wire formats, and lint says so)."""
    return [f for f in errors(findings) if f.where != "raf.dialect"]


@pytest.mark.parametrize(("kind", "place"), CASES)
def test_lint_flags_the_secret_at_its_place(kind: Kind, place: Place, tmp_path: Path) -> None:
    path = save(place.plant(kind), tmp_path / "planted.yaml", scrub=False)
    found = errors(lint_file(path))
    at_place = [f for f in found if f.where == expected_where(kind, place)]
    assert at_place, [str(f) for f in found]
    if not place.by_name:
        assert any(kind.name in f.message for f in at_place), [str(f) for f in at_place]
    for finding in found:  # the report never repeats a secret whole
        assert kind.hidden not in str(finding)
    assert main(["cassette", "lint", str(path)]) == 1


@pytest.mark.parametrize(("kind", "place"), CASES)
def test_save_removes_the_secret_and_keeps_the_rest(
    kind: Kind, place: Place, tmp_path: Path
) -> None:
    path = save(place.plant(kind), tmp_path / "planted.yaml")
    text = path.read_text(encoding="utf-8")
    saved = load(path)
    body = saved.interactions[0].response.body.decode("utf-8", "replace")
    everything = "\n".join(
        [text, body, saved.interactions[0].request.uri, str(saved.interactions[0].request.body)]
    )
    for form in forms(kind.hidden):
        assert form not in everything
    if place.name.startswith("streamed"):
        for half in halves(kind.hidden):
            assert half not in everything
    assert errors(lint_file(path)) == []
    place.check(kind, saved)


def test_the_matrix_covers_every_kind_in_every_place() -> None:
    assert len({k.name for k in KINDS}) == 26
    for kind in KINDS:
        fitting = [p.name for p in PLACES if p.fits(kind)]
        # every kind fits every body and text place; one-line kinds the headers too, and
        # URL-safe words the URI (a PEM block fits only the 8 bodies and texts)
        assert len(fitting) >= (8 if not kind.one_line else 10 if " " in kind.value else 11)
    assert len(CASES) > 300


def test_recording_path_scrubs_before_writing(tmp_path: Path) -> None:
    import httpx  # noqa: PLC0415

    from raf.cassettes.recording import interaction_from_httpx  # noqa: PLC0415

    key = "sk-proj-" + A * 16
    body = stream(["Hello", " there.", " my key is " + key[:20], key[20:] + " thanks"], ["sunny"])

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream", "x-amz-security-token": "FwoGZX" + A * 8},
            content=body,
        )

    with (
        httpx.Client(transport=httpx.MockTransport(server)) as client,
        client.stream(
            "POST",
            "https://alice:s3cr3t-pass@api.example.com/v1/chat/completions?X-Amz-Signature=abc123",
            json={"model": "gpt-4o", "stream": True, "api_key": "hunter2-hunter2"},
            headers={"Ocp-Apim-Subscription-Key": "0123456789abcdef0123456789abcdef"},
        ) as response,
    ):
        received = b"".join(response.iter_bytes())
    interaction = interaction_from_httpx(response, received)
    path = save(
        Cassette(interactions=[interaction], info=ScenarioInfo(scenario="live")),
        tmp_path / "live.yaml",
    )
    text = path.read_text()
    for secret in (key[:20], key[20:], "s3cr3t", "abc123", "hunter2", "0123456789abcdef", "FwoGZX"):
        assert secret not in text
    assert errors(lint_file(path)) == []
    assert respond([load(path).interactions[0].response.body]).text == (
        "Hello there. my key is REDACTED thanks"
    )


# -- raf cassette import --------------------------------------------------------------------


def test_cli_import_scrubs_planted_secrets(tmp_path: Path) -> None:
    key = "sk-proj-" + A * 16
    github = "ghp_" + "A1b2" * 9
    body = stream(["Hello", " there. my key is " + key[:15], key[15:] + " thanks"], ["sunny"])
    source = {
        "interactions": [
            {
                "request": {
                    "body": json.dumps({"model": "gpt-4o", "token_for_ci": github}),
                    "headers": {
                        "Ocp-Apim-Subscription-Key": ["0123456789abcdef0123456789abcdef"],
                        "X-Amz-Security-Token": ["FwoGZX" + A * 8],
                        "accept": ["text/event-stream"],
                    },
                    "method": "POST",
                    "uri": "https://bob:pa55word@api.example.com/v1/chat/completions"
                    "?X-Amz-Signature=abcdef0123&alt=sse",
                },
                "response": {
                    "body": {"string": body.decode()},
                    "headers": {"content-type": ["text/event-stream"]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
        ],
        "version": 1,
    }
    src = tmp_path / "leaky.yaml"
    src.write_text(json.dumps(source))  # JSON is YAML
    assert main(["cassette", "lint", str(src)]) == 1
    out = tmp_path / "out"
    assert main(["cassette", "import", str(src), "-o", str(out)]) == 0
    (written,) = out.rglob("*.yaml")
    text = written.read_text()
    for secret in (
        key,
        key[:15],
        key[15:],
        github,
        "0123456789abcdef",
        "FwoGZX",
        "pa55word",
        "abcdef0123",
    ):
        assert secret not in text
    assert main(["cassette", "lint", str(written)]) == 0
    saved = load(written).interactions[0]
    assert (
        saved.request.uri
        == "https://api.example.com/v1/chat/completions?X-Amz-Signature=REDACTED&alt=sse"
    )
    assert respond([saved.response.body]).text == "Hello there. my key is REDACTED thanks"
    assert events(saved.response.body) == events(body)


# -- the rules, one by one ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("Authorization", True),
        ("Ocp-Apim-Subscription-Key", True),
        ("X-Amz-Security-Token", True),
        ("x-amz-signature", True),
        ("X-Amz-Credential", True),
        ("anthropic-organization-id", True),
        ("x-functions-key", True),
        ("PRIVATE-TOKEN", True),
        ("X-Custom-Token", True),
        ("x-webhook-secret", True),
        ("x-request-signature", True),
        ("db-password", True),
        ("x-my-apikey", True),
        ("idempotency-key", False),
        ("sec-websocket-key", False),
        ("x-ratelimit-remaining-tokens", False),
        ("anthropic-ratelimit-input-tokens-remaining", False),
        ("fireworks-server-time-to-first-token", False),
        ("access-control-allow-credentials", False),
        ("x-request-id", False),
        ("content-type", False),
    ],
)
def test_header_names(name: str, secret: bool) -> None:
    assert is_secret_header(name) is secret


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("key", True),
        ("X-Amz-Signature", True),
        ("x-amz-security-token", True),
        ("X-Amz-Credential", True),
        ("client_secret", True),
        ("code", True),
        ("sig", True),
        ("subscription-key", True),
        ("alt", False),
        ("api-version", False),
        ("page_token", False),
        ("max_tokens", False),
    ],
)
def test_query_parameter_names(name: str, secret: bool) -> None:
    assert is_secret_query_parameter(name) is secret


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("api_key", True),
        ("apiKey", True),
        ("openai_api_key", True),
        ("access_token", True),
        ("refreshToken", True),
        ("id_token", True),
        ("client_secret", True),
        ("aws_secret_access_key", True),
        ("password", True),
        ("private_key", True),
        ("token", False),
        ("key", False),
        ("prompt_cache_key", False),
        ("max_tokens", False),
        ("signature", False),
        ("thoughtSignature", False),
        ("progressToken", False),
        ("encrypted_content", False),
    ],
)
def test_member_names(name: str, secret: bool) -> None:
    assert is_secret_member(name) is secret


def test_unprefixed_shapes_count_only_under_a_credential_name() -> None:
    b64 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEX" + "AMPLEKEY"  # 40 characters of base64
    hexa = "0123456789abcdef" * 2
    assert text_hits(f'{{"id": "{b64}", "etag": "{hexa}"}}') == []
    scrubbed = scrub_text(f'{{"aws_secret_access_key": "{b64}", "apiKey": "{hexa}"}}')
    assert scrubbed == '{"aws_secret_access_key": "REDACTED", "apiKey": "REDACTED"}'
    assert scrub_headers({"x-goog-api-key": [hexa], "etag": [hexa]}) == {
        "x-goog-api-key": ["REDACTED"],
        "etag": [hexa],
    }


@pytest.mark.parametrize(
    "text",
    [
        '{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk"}',
        '{"tool_calls":[{"id":"call_Fth7RtbjmQZ1j0ZSF9M3aGhJ"}]}',
        '{"id":"toolu_01A09q90qw90lq917835lq9X","type":"tool_use"}',
        '{"id":"msg_01XFDUDYJgAACzvnptvVoYEL"}',
        '{"thoughtSignature":"CiQB0e2Kb7eyJObwx2NYZOkswgihAR/adFWcv9JSK8sf7GR2J0qOQF5Z"}',
        '{"signature":"ErUBCkYIBRgCIkAZx2ve8AKIA3eMSwfHy9+PGfsVlrtkBJeuBkXNhMvFOlxb+0oHZ=="}',
        '{"encrypted_content":"gAAAAABn' + "x7Kq2Lm9Zp4R" * 8 + '=="}',
        '{"logprobs":{"content":[{"token":"Hello","logprob":-0.1}]}}',
        '{"arguments":"{\\"key\\": \\"value\\", \\"token\\": \\"abc\\"}"}',
        "risk-averse task-list of sk-learn-and-friends-for-everyone",
        "Bearer authentication uses a token; Basic introduction to HTTP",
        "see https://example.com/a?b=c and mailto:bob@example.com",
        '{"usage":{"prompt_tokens":82,"completion_tokens":64}}',
        "data/sensors-2025-11-02.csv",
    ],
)
def test_ordinary_stream_content_is_not_a_secret(text: str) -> None:
    assert text_hits(text) == []


def test_json_escapes_are_read_at_two_levels() -> None:
    key = "sk-proj-" + A * 16
    once = escaped(key[:4]) + key[4:]
    twice = key[:2] + "\\\\u002d" + key[3:]
    text = '{"a": "' + once + '", "arguments": "{\\"b\\": \\"' + twice + '\\"}", "c": "x\\ny"}'
    scrubbed = scrub_text(text)
    assert json.loads(scrubbed) == {"a": "REDACTED", "arguments": '{"b": "REDACTED"}', "c": "x\ny"}
    assert scrubbed == text.replace(once, "REDACTED").replace(twice, "REDACTED")


def test_scrub_uri_changes_nothing_but_the_credentials() -> None:
    uri = "https://u%40x:p%3Aw@h.example.com:8443/v1/x?a=%2Fb&Key=k1&X-Amz-Signature=s&z=1#frag"
    assert (
        scrub_uri(uri)
        == "https://h.example.com:8443/v1/x?a=%2Fb&Key=REDACTED&X-Amz-Signature=REDACTED&z=1#frag"
    )
    assert scrub_uri("https://api.openai.com/v1/chat/completions") == (
        "https://api.openai.com/v1/chat/completions"
    )


def test_a_non_utf8_body_keeps_every_other_byte() -> None:
    key = "ghp_" + "A1b2" * 9
    body = b'data: {"x": "\xff\xfe ' + key.encode() + b' \xc3"}\n\n'
    scrubbed = scrub_body(body)
    assert scrubbed == body.replace(key.encode(), b"REDACTED")


def test_a_streamed_secret_that_cannot_be_located_is_not_written(tmp_path: Path) -> None:
    # The fragment holding the first half of the key also holds a cut UTF-8 sequence
    # (\xe2\x82: two invalid bytes that the SSE decoder reads as one U+FFFD), so positions in
    # the decoded fragment do not line up with the recorded bytes: rather than write a
    # cassette that may keep half a key, saving refuses, naming the interaction and kind.
    key = "sk-proj-" + A * 16
    body = stream([" my key is " + key[:20], key[20:] + " thanks"], ["sunny"])
    body = body.replace(b" my key is ", b"\xe2\x82 my key is ", 1)
    (hit,) = stream_hits(body.decode("utf-8", "surrogateescape"), "openai_chat")
    assert (hit.kind, hit.pieces, hit.mapped) == ("OpenAI-style API key", 2, False)
    path = save(base(body=body), tmp_path / "kept.yaml", scrub=False)
    assert any("streamed text" in f.where for f in errors(lint_file(path)))
    with pytest.raises(
        SecretNotScrubbed, match=r"interactions\[0\]\.response\.body: OpenAI-style API key"
    ) as refused:
        save(base(body=body), tmp_path / "refused.yaml")
    assert isinstance(refused.value, CassetteError)
    assert not (tmp_path / "refused.yaml").exists()
    # Elsewhere in the body, the same bytes are no obstacle.
    clean = stream([" my key is " + key[:20], key[20:] + " thanks", " \u20ac"], ["sunny"])
    clean = clean.replace("\u20ac".encode(), b"\xe2\x82", 1)
    saved = load(save(base(body=clean), tmp_path / "ok.yaml")).interactions[0].response.body
    assert key[20:].encode() not in saved
    assert b"\xe2\x82" in saved


def test_import_skips_a_recording_it_cannot_scrub_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "sk-proj-" + A * 16
    bad = stream([" my key is " + key[:20], key[20:] + " thanks"], ["sunny"])
    bad = bad.replace(b" my key is ", b"\xe2\x82 my key is ", 1)  # cannot be located
    sources = tmp_path / "in"
    save(base(body=bad), sources / "a_bad.yaml", scrub=False)
    save(base(body=stream(["fine"], ["sunny"])), sources / "b_good.yaml", scrub=False)
    assert main(["cassette", "import", str(sources), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "a_bad.yaml: not written" in err
    assert "imported 1 cassette(s)" in err
    written = sorted(p.name for p in (tmp_path / "out").rglob("*.yaml"))
    assert written == ["b_good.yaml"]


def test_a_split_secret_is_reported_once_with_its_events(tmp_path: Path) -> None:
    key = "ghp_" + "A1b2" * 9
    body = stream([" my key is " + key[:10], key[10:30], key[30:] + " thanks"], ["sunny"])
    path = save(base(body=body), tmp_path / "c.yaml", scrub=False)
    (finding,) = errors(lint_file(path))
    assert finding.where == "interactions[0].response.body (streamed text)"
    assert finding.message == "GitHub token in the streamed text, split over 3 events (ghp_A1...)"


def test_reasoning_and_its_duplicate_copy_are_scrubbed_together() -> None:
    key = "xai-" + A * 16

    def chunk(piece: str) -> str:
        delta: dict[str, object] = {
            "content": None,
            "reasoning": piece,
            "reasoning_details": [{"type": "reasoning.text", "text": piece, "index": 0}],
        }
        return data_line(delta)

    body = (chunk("use " + key[:12]) + chunk(key[12:] + " now") + "data: [DONE]\n\n").encode()
    scrubbed = scrub_body(body, dialect="openai_chat")
    assert isinstance(scrubbed, bytes)
    assert key[:12].encode() not in scrubbed
    assert key[12:].encode() not in scrubbed
    assert respond([scrubbed]).reasoning_text == "use REDACTED now"
    assert events(scrubbed) == events(body)


# -- no false positives ---------------------------------------------------------------------


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_cassettes_hold_no_secret_and_scrub_to_themselves(
    path: Path, tmp_path: Path
) -> None:
    assert errors(lint_file(path)) == []
    cassette = load(path)
    assert scrub_cassette(cassette) == cassette
    scrubbed = save(cassette, tmp_path / "scrubbed.yaml").read_bytes()
    assert scrubbed == save(cassette, tmp_path / "kept.yaml", scrub=False).read_bytes()


@pytest.mark.parametrize(
    "path", corpus.params(corpus.files()), ids=lambda p: str(p.relative_to(ROOT))
)
def test_real_recordings_are_not_flagged_beyond_their_credential_headers(
    path: Path, tmp_path: Path
) -> None:
    cassette = import_file(path)
    # Imported as they are, the recordings keep their cookies and organisation headers
    # (secrets by name): those, and only those, are flagged.
    raw = save(cassette, tmp_path / "raw.yaml", scrub=False)
    for finding in secret_errors(lint_file(raw)):
        assert ".headers." in finding.where, str(finding)
        assert finding.message.startswith("secret header is not scrubbed"), str(finding)
    # Scrubbed, they are clean, and nothing but those headers changed: every body, URI and
    # the rest of the headers are as recorded.
    scrubbed = scrub_cassette(cassette)
    for before, after in zip(cassette.interactions, scrubbed.interactions, strict=True):
        assert after.response.body == before.response.body
        assert after.request.body == before.request.body
        assert after.request.uri == before.request.uri
        for side, kept in (
            (before.request.headers, after.request.headers),
            (before.response.headers, after.response.headers),
        ):
            for name, values in side.items():
                expected = values
                if is_secret_header(name):  # placeholders ("XXXXXX") are kept as they are
                    expected = [v if is_placeholder(v) else "REDACTED" for v in values]
                assert kept[name] == expected
    assert secret_errors(lint_file(save(cassette, tmp_path / "scrubbed.yaml"))) == []


# -- a property --------------------------------------------------------------------------------

_PREFIXES = ["sk-proj-", "sk-", "ghp_", "gsk_", "xai-", "glpat-", "hf_", "r8_", "npm_"]


@st.composite
def planted_streams(draw: st.DrawFn) -> tuple[bytes, str]:
    """A generated stream with a key planted between two of its events, split over two
    content deltas at a random point; the body and the key."""
    generated = draw(streams())
    key = draw(st.sampled_from(_PREFIXES)) + draw(
        st.text(string.ascii_letters + string.digits, min_size=40, max_size=60)
    )
    key = key[:-1] + "7"  # a digit: generic sk- keys need one
    payloads = list(generated.payloads)
    role = next(n for n, p in enumerate(payloads) if '"role"' in p)

    def ends_the_answer(payload: str) -> bool:
        if payload == "[DONE]":
            return True
        chunk = json.loads(payload)
        choices = chunk.get("choices") or []
        return bool(chunk.get("usage")) or any(c.get("finish_reason") for c in choices)

    ends = [n for n, p in enumerate(payloads) if n > role and ends_the_answer(p)]
    at = draw(st.integers(role + 1, ends[0] if ends else len(payloads)))
    cut = draw(st.integers(1, len(key) - 1))
    template = json.loads(payloads[role])

    def content(piece: str) -> str:
        chunk = {
            **template,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
        }
        return json.dumps(chunk, separators=(",", ":"), ensure_ascii=draw(st.booleans()))

    payloads[at:at] = [content(" " + key[:cut]), content(key[cut:] + " ")]
    body = draw(sse_framing(payloads, generated.profile.comments))
    return body, key


@given(planted_streams())
def test_a_key_split_anywhere_in_a_generated_stream_is_scrubbed_and_flagged(
    planted: tuple[bytes, str],
) -> None:
    body, key = planted
    before = respond([body])
    assert key in before.text
    cassette = base(body=body)
    scrubbed_body = scrub_cassette(cassette).interactions[0].response.body
    after = respond([scrubbed_body])
    assert key not in after.text
    assert after.text == scrub_text(before.text)
    assert after.reasoning_text == before.reasoning_text
    assert [(c.id, c.name, c.arguments) for c in after.tool_calls] == [
        (c.id, c.name, c.arguments) for c in before.tool_calls
    ]
    assert (after.finish_reason, after.usage) == (before.finish_reason, before.usage)
    assert [e.error_code for e in after.errors] == [e.error_code for e in before.errors]
    assert events(scrubbed_body) == events(body)
    assert key.encode() not in scrubbed_body
    with tempfile.TemporaryDirectory() as folder:
        path = save(cassette, Path(folder) / "planted.yaml", scrub=False)
        found = errors(lint_file(path))
    assert any(f.where.startswith("interactions[0].response.body") for f in found), found
