"""Secrets: saving scrubs them, lint finds them (file, line, place), structure checks."""

from __future__ import annotations

import gzip
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import brotli
import pytest

from raf.cassettes import (
    Cassette,
    Expectation,
    Interaction,
    Request,
    Response,
    ScenarioInfo,
    load,
    save,
)
from raf.cassettes.coding import BodyNotDecoded, decode
from raf.cassettes.lint import lint_file
from raf.cassettes.scrub import SecretNotScrubbed, find_secrets
from raf.cli import main

KEY = "sk-proj-" + "a1B2c3D4" * 6
GOOGLE = "AIza" + "S" * 35


def leaky() -> Cassette:
    return Cassette(
        info=ScenarioInfo(scenario="leaky", expect=Expectation()),
        interactions=[
            Interaction(
                request=Request(
                    uri=f"https://generativelanguage.googleapis.com/v1beta/openai/chat/completions?key={GOOGLE}&alt=sse",
                    headers={
                        "Authorization": [f"Bearer {KEY}"],
                        "x-api-key": ["secret"],
                        "Cookie": ["session=abc"],
                        "user-agent": ["raf"],
                    },
                    body=f'{{"api_key": "{KEY}"}}',
                ),
                response=Response(
                    headers={
                        "content-type": ["text/event-stream"],
                        "set-cookie": ["__cf_bm=xyz"],
                        "openai-organization": ["acme-corp"],
                    },
                    # A chunk raf reads (its dialect is openai_chat), the key in its text.
                    body=(
                        f'data: {{"choices": [{{"index": 0, "delta": {{"content": "{KEY}"}}}}]}}'
                        "\n\n"
                    ).encode(),
                ),
            )
        ],
    )


def test_save_scrubs_every_kind_of_secret(tmp_path: Path) -> None:
    text = save(leaky(), tmp_path / "c.yaml").read_text()
    for secret in (KEY, GOOGLE, "session=abc", "__cf_bm", "acme-corp", "secret"):
        assert secret not in text
    saved = load(tmp_path / "c.yaml").interactions[0]
    assert saved.request.headers["Authorization"] == ["REDACTED"]
    assert saved.request.headers["user-agent"] == ["raf"]
    assert "key=REDACTED" in saved.request.uri
    assert "alt=sse" in saved.request.uri
    assert lint_file(tmp_path / "c.yaml") == []


def test_lint_reports_each_secret_with_its_line(tmp_path: Path) -> None:
    path = save(leaky(), tmp_path / "c.yaml", scrub=False)
    findings = lint_file(path)
    text = path.read_text().splitlines()
    assert all(f.severity == "error" for f in findings)
    places = {f.where for f in findings}
    assert {
        "interactions[0].request.headers.Authorization[0]",
        "interactions[0].request.headers.x-api-key[0]",
        "interactions[0].request.headers.Cookie[0]",
        "interactions[0].request.uri",
        "interactions[0].request.body",
        "interactions[0].response.body.string",
        "interactions[0].response.headers.set-cookie[0]",
        "interactions[0].response.headers.openai-organization[0]",
    } <= places
    for finding in findings:  # the line points at the value
        key = finding.where.rsplit(".", 1)[-1].split("[")[0]
        assert (
            key in text[finding.line - 1]
            or KEY[:10] in text[finding.line - 1]
            or "- " in text[finding.line - 1]
        )
    assert all(KEY not in str(f) for f in findings)  # the report does not repeat the secret


def test_lint_cli_exits_nonzero_and_prints_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save(leaky(), tmp_path / "c.yaml", scrub=False)
    assert main(["cassette", "lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:" in out
    assert "secret header is not scrubbed" in out
    save(leaky(), path)
    assert main(["cassette", "lint", str(path)]) == 0


def test_lint_structure_checks(tmp_path: Path) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(
        "raf: {scenario: odd, dialect: smoke_signals}\n"
        "interactions:\n- request: {uri: 'https://x'}\n  response:\n    status: {code: 200}\n"
        "    headers: {content-type: [application/json]}\n    body: {string: 'data: {}'}\n"
        "version: 1\n"
    )
    findings = {(f.severity, f.message.split(" (")[0].split(":")[0]) for f in lint_file(path)}
    assert ("error", "unknown dialect 'smoke_signals'") in findings
    assert ("warning", "no 'expect' block") in findings
    assert any(s == "warning" and "looks like an event stream" in m for s, m in findings)


def test_lint_reports_invalid_yaml_with_a_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("version: 1\ninteractions:\n  - [\n")
    (finding,) = lint_file(path)
    assert finding.severity == "error"
    assert finding.line >= 3


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (KEY, "OpenAI-style API key"),
        ("sk-ant-api03-" + "x" * 30, "Anthropic API key"),
        (GOOGLE, "Google API key"),
        ("gsk_" + "a" * 40, "Groq API key"),
        ("hf_" + "b" * 34, "Hugging Face token"),
        ("AKIA" + "ABCDEFGHIJKLMNOP", "AWS access key id"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "bearer token"),
    ],
)
def test_key_shapes_are_recognised(text: str, kind: str) -> None:
    assert [k for k, _ in find_secrets(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "sk-short",
        "Bearer REDACTED",
        "the task-list of the risk-averse",
        '{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"}',
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert list(find_secrets(text)) == []


def test_item_9_lint_fails_a_key_in_a_duplicate_key_or_a_comment(tmp_path: Path) -> None:
    # PyYAML keeps the later of two equal keys and drops comments: the document every
    # reader gets holds no key, yet the file does (grep finds it).
    clean = save(leaky(), tmp_path / "clean.yaml").read_text()
    assert lint_file(tmp_path / "clean.yaml") == []
    duplicate = tmp_path / "dup.yaml"
    duplicate.write_text(
        clean.replace("    method: POST\n", f"    method: {KEY}\n    method: POST\n", 1)
    )
    comment = tmp_path / "comment.yaml"
    comment.write_text(f"# recorded with OPENAI_API_KEY={KEY}\n{clean}")
    assert KEY in duplicate.read_text()
    assert KEY not in str(load(duplicate).to_dict())  # what loading keeps
    findings = lint_file(duplicate)
    assert {f.severity for f in findings} == {"error"}
    lines = duplicate.read_text().splitlines()
    (dup,) = (f for f in findings if f.message.startswith("duplicate key"))
    assert dup.where == "interactions[0].request.method"
    assert lines[dup.line - 1].strip() == "method: POST"
    assert f"first at line {dup.line - 1}" in dup.message
    (secret,) = (f for f in findings if "OpenAI-style API key" in f.message)
    assert "the value of a duplicate key" in secret.message
    assert KEY in lines[secret.line - 1]
    assert KEY not in str(secret)
    (in_comment,) = lint_file(comment)
    assert in_comment.severity == "error"
    assert in_comment.line == 1
    assert "OpenAI-style API key in a comment" in in_comment.message
    assert main(["cassette", "lint", str(duplicate)]) == 1
    assert main(["cassette", "lint", str(comment)]) == 1


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-15)
    return packer.compress(data) + packer.flush()


def _stored_deflate(data: bytes) -> bytes:
    """Raw deflate in one stored block of 0xC341 bytes: its header 01 41 C3 BE 3C is valid
    UTF-8, so the whole body is text, and a cassette stores it as text, not !!binary."""
    size = 0xC341
    data = data.ljust(size, b" ")
    assert len(data) == size
    return b"\x01" + size.to_bytes(2, "little") + (size ^ 0xFFFF).to_bytes(2, "little") + data


CODINGS: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("gzip", lambda data: gzip.compress(data, mtime=0)),
    ("deflate", zlib.compress),
    ("deflate", _raw_deflate),
    ("deflate", _stored_deflate),
    ("br", brotli.compress),
    ("gzip, br", lambda data: brotli.compress(gzip.compress(data, mtime=0))),
]


def test_item_8_compressed_bodies_are_read_for_secrets_scrubbed_and_encoded_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = (
        f'{{"model": "gpt-4o-mini", "messages": [{{"role": "user", "content": "my key {KEY}"}}]}}'
    )
    stream = (
        'data: {"choices":[{"index":0,"delta":{"content":"your key is '
        + KEY
        + '"}}]}\n\ndata: [DONE]\n\n'
    )
    for n, (coding, pack) in enumerate(CODINGS):
        folder = tmp_path / str(n)
        headers = {"content-encoding": [coding]}
        source = save(
            Cassette(
                interactions=[
                    Interaction(
                        request=Request(
                            uri="https://api.openai.com/v1/chat/completions",
                            headers=headers,
                            body=pack(request.encode()),
                        ),
                        response=Response(
                            headers={"content-type": ["text/event-stream"], **headers},
                            body=pack(stream.encode()),
                        ),
                    )
                ]
            ),
            folder / "recorded.yaml",
            scrub=False,
        )
        written = source.read_text()
        assert ("!!binary" in written) is (pack is not _stored_deflate), coding
        if pack is not _stored_deflate:  # a scan of the file's bytes finds nothing
            assert KEY not in written
        found = {(f.where, f.severity) for f in lint_file(source) if KEY[:6] in f.message}
        assert found >= {
            ("interactions[0].request.body", "error"),
            ("interactions[0].response.body.string", "error"),
        }, coding
        errors = [f for f in lint_file(source) if f.severity == "error"]
        assert all(f"{coding}-decoded body" in f.message for f in errors), coding
        # Imported (scrubbed on the way), the key is gone and the coding is the same.
        assert main(["cassette", "import", str(source), "-o", str(folder / "out")]) == 0
        imported = folder / "out" / "openai_chat" / "recorded.yaml"
        assert [f for f in lint_file(imported) if f.severity == "error"] == [], coding
        interaction = load(imported).interactions[0]
        for body, plain in (
            (interaction.request.body, request),
            (interaction.response.body, stream),
        ):
            assert isinstance(body, bytes)
            decoded = decode(body, coding)
            assert [step.coding for step in decoded.steps] == [
                c.strip().replace("x-", "") for c in coding.split(",")
            ]
            assert decoded.body.decode().rstrip(" ") == plain.replace(KEY, "REDACTED")
            # The same coding, the same variant (a stored block is compressed when written).
            again = _raw_deflate if pack is _stored_deflate else pack
            assert body == again(decoded.body), coding

    # A body that does not decode is an error, named with its interaction, never skipped.
    good = Interaction(
        request=Request(uri="https://api.openai.com/v1/chat/completions"), response=Response()
    )
    broken = Interaction(
        request=Request(uri="https://api.openai.com/v1/chat/completions"),
        response=Response(
            headers={"content-encoding": ["gzip"]}, body=gzip.compress(KEY.encode())[:-9]
        ),
    )
    path = save(Cassette(interactions=[good, broken]), tmp_path / "broken.yaml", scrub=False)
    (error,) = (f for f in lint_file(path) if f.severity == "error")
    assert (error.severity, error.where) == ("error", "interactions[1].response.body.string")
    assert "content-encoding 'gzip': the gzip data is truncated" in error.message
    with pytest.raises(SecretNotScrubbed, match=r"interactions\[1\]\.response\.body"):
        save(load(path), tmp_path / "out.yaml")
    assert not (tmp_path / "out.yaml").exists()
    # Without the brotli package, a br body is an error that says what to install.
    br = tmp_path / "0" / "out" / "openai_chat" / "recorded.yaml"
    br_source = save(load(tmp_path / "4" / "recorded.yaml"), tmp_path / "br.yaml", scrub=False)
    monkeypatch.setitem(sys.modules, "brotli", None)
    messages = {f.message for f in lint_file(br_source) if f.severity == "error"}
    assert messages
    assert all("pip install 'raf[brotli]'" in m for m in messages)
    assert [f for f in lint_file(br) if f.severity == "error"] == []  # gzip needs no package


@pytest.mark.parametrize(
    ("coding", "body", "problem"),
    [
        ("gzip", gzip.compress(b"0" * 1_000_000, mtime=0), "decodes to more than 1,000 bytes"),
        ("deflate", zlib.compress(b"0" * 1_000_000), "decodes to more than 1,000 bytes"),
        ("br", brotli.compress(b"0" * 1_000_000), "decodes to more than 1,000 bytes"),
        ("gzip", gzip.compress(b"x", mtime=0) + KEY.encode(), f"{len(KEY)} bytes after the end"),
        ("deflate", zlib.compress(b"x") + b"!", "1 bytes follow the end of the deflate data"),
        ("br", brotli.compress(b"x" * 100)[:-2], "the br data is truncated"),
        ("zstd", b"(\xb5/\xfd", "raf does not read content-encoding 'zstd'"),
    ],
    ids=[
        "gzip bomb",
        "deflate bomb",
        "br bomb",
        "gzip trailing",
        "deflate trailing",
        "br cut",
        "zstd",
    ],
)
def test_a_body_that_does_not_decode_within_the_limit_is_refused(
    coding: str, body: bytes, problem: str
) -> None:
    with pytest.raises(BodyNotDecoded, match=re.escape(problem)):
        decode(body, coding, limit=1000)
