"""raf's Node kit (``raf kit node``, raf/kit/node/raf-kit.mjs): written where a team wants it,
never over a file; its stdout guard keeps the protocol clean whatever an adapter prints; a
case that throws anything, or a line that is no message, never ends the conversation; its
tables are raf's; the openai adapter of docs/protocol.md works as printed; the Node example
client runs on it."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import raf.formats
from raf import examples, kit
from raf.cli import main as raf_main
from tests import processes
from tests.conformance.test_example_clients import node

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "raf" / "kit" / "node" / "raf-kit.mjs"
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"


# -- raf kit node ------------------------------------------------------------------------


def test_the_kit_is_package_data_and_is_the_repository_s() -> None:
    shipped = resources.files("raf.kit").joinpath("node", "raf-kit.mjs")
    assert shipped.is_file()
    assert shipped.read_text(encoding="utf-8") == KIT.read_text(encoding="utf-8")
    assert kit.text("node") == KIT.read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["raf"]' in pyproject  # the wheel holds raf/, the kit with it
    assert "raf/kit" not in pyproject  # and nothing leaves it out


def test_raf_kit_node_writes_the_kit_and_never_over_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert raf_main(["kit", "node"]) == 0
    assert (tmp_path / "raf-kit.mjs").read_text(encoding="utf-8") == kit.text("node")
    assert capsys.readouterr().err == "raf: wrote raf-kit.mjs\n"

    (tmp_path / "raf-kit.mjs").write_text("// my edits\n")
    assert raf_main(["kit", "node"]) == 2
    err = capsys.readouterr().err
    assert err == "raf: raf-kit.mjs exists (it is not overwritten; --force replaces it)\n"
    assert (tmp_path / "raf-kit.mjs").read_text() == "// my edits\n"

    assert raf_main(["kit", "node", "--force"]) == 0
    assert (tmp_path / "raf-kit.mjs").read_text(encoding="utf-8") == kit.text("node")
    assert capsys.readouterr().err == "raf: wrote raf-kit.mjs\n"

    assert raf_main(["kit", "node", "--output", "test/kit.mjs"]) == 2
    assert capsys.readouterr().err == "raf: cannot write test/kit.mjs: No such file or directory\n"
    (tmp_path / "test").mkdir()
    assert raf_main(["kit", "node", "-o", "test/kit.mjs"]) == 0
    assert (tmp_path / "test" / "kit.mjs").read_text(encoding="utf-8") == kit.text("node")
    assert raf_main(["kit", "node", "-o", "test", "--force"]) == 2
    assert capsys.readouterr().err.endswith("raf: test is a folder\n")


def test_raf_kit_node_prints_the_kit_with_output_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert raf_main(["kit", "node", "--output", "-"]) == 0
    assert capsys.readouterr().out == kit.text("node")
    assert list(tmp_path.iterdir()) == []


def test_python_m_raf_kit_is_the_same_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert kit.main(["node", "-o", "-"]) == 0
    assert capsys.readouterr().out == kit.text("node")
    assert kit.main(["node"]) == 0
    assert kit.main(["node"]) == 2
    assert "exists (it is not overwritten" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        kit.main(["python"])
    assert usage.value.code == 2
    assert "invalid choice: 'python'" in capsys.readouterr().err


def test_an_unknown_kit_is_refused_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert kit.run("cobol", None, False, sys.stdout) == 2
    assert capsys.readouterr().err == "raf: no kit 'cobol': node\n"


# -- the kit in Node.js ------------------------------------------------------------------


def write_adapter(folder: Path, source: str, name: str = "adapter.mjs") -> Path:
    """``source`` as a module in ``folder``, beside a copy of the kit as `raf kit node`
    writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "raf-kit.mjs").exists():
        kit.write("node", folder / "raf-kit.mjs")
    script = folder / name
    script.write_text(source, encoding="utf-8")
    return script


def node_json(tmp_path: Path, source: str) -> Any:
    """What a script importing the kit sends (with the kit's `send`: console.log is guarded)."""
    script = write_adapter(tmp_path, source, "script.mjs")
    finished = processes.run([node(), str(script)], text=True)
    assert finished.returncode == 0, finished.stderr
    return json.loads(finished.stdout)


def test_the_finish_reasons_are_raf_s() -> None:
    finished = processes.run(
        [
            node(),
            "--input-type=module",
            "-e",
            f"import {{ send, FINISH_REASONS }} from {json.dumps(KIT.as_uri())};"
            "send(FINISH_REASONS);",
        ],
        text=True,
    )
    assert finished.returncode == 0, finished.stderr
    table = json.loads(finished.stdout)
    assert table == {
        name: dict(raf.formats.get(name).finish_reasons) for name in raf.formats.names()
    }


def test_tool_results_answer_calls_in_turn(tmp_path: Path) -> None:
    results = [
        {"name": "weather", "arguments": {"city": "Rome", "unit": "c"}, "content": "first"},
        {"name": "weather", "arguments": {"unit": "c", "city": "Rome"}, "content": "second"},
        {"name": "weather", "arguments": {"city": "Oslo"}, "content": "down", "is_error": True},
        {"name": "now", "arguments": {}, "content": "noon"},
    ]
    message = {"id": "x", "dialect": "openai_chat", "tool_loop": {"results": results}}
    answers = node_json(
        tmp_path,
        'import { Case, send } from "./raf-kit.mjs";\n'
        f"const c = new Case({json.dumps(message)});\n"
        "send([\n"
        '  c.toolResult("weather", \'{"city": "Rome", "unit": "c"}\'),\n'
        '  c.toolResult("now", ""),\n'
        '  c.toolResult("weather", { unit: "c", city: "Rome" }),\n'
        '  c.toolResult("weather", { city: "Rome", unit: "c" }),\n'
        '  c.toolResult("weather", { city: "Oslo" }),\n'
        '  c.toolResult("weather", { city: "Paris" }),\n'
        '  c.toolResult("now", undefined),\n'
        '  c.toolResult("now", "{}"),\n'
        "]);\n",
    )
    assert answers[:5] == [
        {"content": "first", "isError": False},
        {"content": "noon", "isError": False},  # no arguments: {}
        {"content": "second", "isError": False},  # the same call again: the next result
        {"content": "second", "isError": False},  # none left: the last one again
        {"content": "down", "isError": True},
    ]
    assert answers[5]["isError"] is True
    assert answers[5]["content"] == 'raf: the recording has no result for weather({"city":"Paris"})'
    assert answers[6:] == [{"content": "noon", "isError": False}] * 2


SDK_BASES = {
    # recorded path -> {sdk: what comes after base_url}
    "/v1/chat/completions": {"openai": "/v1", "@ai-sdk/openai": "/v1"},
    "/api/v1/chat/completions": {"openai": "/api/v1", "@ai-sdk/openai": "/api/v1"},
    "/chat/completions": {"openai": "", "@ai-sdk/openai-compatible": ""},
    "/v1/responses": {"openai": "/v1", "@ai-sdk/openai": "/v1"},
    "/v1/responses/resp_1?stream=true": {"openai": "/v1"},
    "/v1/messages": {"@anthropic-ai/sdk": "", "@ai-sdk/anthropic": "/v1"},
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse": {
        "@google/genai": "",
        "@ai-sdk/google": "/v1beta",
    },
    "/v1/models/gemini-2.5-flash:streamGenerateContent": {
        "@google/genai": "",
        "@ai-sdk/google": "/v1",
    },
    "/api/chat": {"ollama": ""},
    "/v1/projects/p/locations/l/publishers/anthropic/models/m:streamRawPredict": {
        "@anthropic-ai/sdk": "",
        "@ai-sdk/anthropic": "/v1",
    },
}


def test_each_sdk_gets_the_base_url_it_appends_its_path_to(tmp_path: Path) -> None:
    base = "http://127.0.0.1:1/s/d/s/c/whole/i/0"
    wanted = [(path, sdk) for path, bases in SDK_BASES.items() for sdk in bases]
    got = node_json(
        tmp_path,
        'import { Case, baseURL, geminiApiVersion, send } from "./raf-kit.mjs";\n'
        f"const wanted = {json.dumps(wanted)};\n"
        "const out = [];\n"
        "for (const [path, sdk] of wanted) {\n"
        f"  const c = new Case({{ id: 'x', request: {{ base_url: {json.dumps(base)}, path }} }});\n"
        "  out.push([baseURL(c, sdk), geminiApiVersion(c)]);\n"
        "}\n"
        "const errors = [];\n"
        "for (const [message, sdk] of [[{ id: 'x' }, 'openai'], [{ id: 'x', request: {} }, 'x']]) {\n"
        "  try { baseURL(new Case(message), sdk); } catch (e) { errors.push(e.message); }\n"
        "}\n"
        "send({ out, errors });\n",
    )
    assert [url for url, _ in got["out"]] == [base + SDK_BASES[path][sdk] for path, sdk in wanted]
    versions = dict(zip([path for path, _ in wanted], [v for _, v in got["out"]], strict=True))
    assert versions["/v1/models/gemini-2.5-flash:streamGenerateContent"] == "v1"
    assert versions["/v1/messages"] == "v1beta"  # the default
    assert got["errors"][0] == "raf-kit: not an http case: run raf conform with --transport http"
    assert got["errors"][1].startswith("raf-kit: no base-URL rule for x: openai, ")


# An adapter that answers each case the way its id says, to go through the error paths.
CONVERSATION = """\
import { serve, send } from "./raf-kit.mjs";

serve({
  name: "errors",
  version: "1",
  dialects: ["openai_chat"],
  async stream(c, seen) {
    seen.text = "partial";
    if (c.id === "string") throw "a plain string";
    if (c.id === "object") return Promise.reject({ status: 500, body: "overloaded" });
    if (c.id === "null") throw null;
    if (c.id === "error") throw new TypeError("bad", { cause: 1 });
    if (c.id === "bigint") return { text: 10n };
    if (c.id === "floating") Promise.reject(new RangeError("later"));
    if (c.id === "this") return { text: this.name };
    setInterval(() => {}, 1000); // a library's timer: it must not keep the adapter alive
  },
});
"""


def converse(tmp_path: Path, lines: list[str]) -> tuple[list[dict[str, Any]], str, int]:
    script = write_adapter(tmp_path, CONVERSATION)
    finished = processes.run([node(), str(script)], input="".join(lines), text=True)
    answers = [json.loads(line) for line in finished.stdout.splitlines()]
    return answers, finished.stderr, finished.returncode


def case(case_id: str) -> str:
    return json.dumps({"type": "case", "id": case_id, "dialect": "openai_chat", "chunks": []})


def test_a_case_that_throws_anything_is_answered_and_the_conversation_goes_on(
    tmp_path: Path,
) -> None:
    ids = ["string", "object", "null", "error", "bigint", "floating", "this", "ok"]
    lines = [
        '{"type": "hello", "protocol": "raf-conformance/1"}\n',
        "not JSON\n",
        "null\n",
        "[1, 2]\n",
        '{"type": "something new"}\n',
        "\n",
        *(case(i) + "\n" for i in ids),
    ]
    answers, stderr, status = converse(tmp_path, lines)  # no bye: stdin closes
    assert status == 0
    hello, *results = answers
    assert hello["type"] == "hello"
    assert hello["capabilities"] == ["http"]
    assert hello["levels"] == ["response"]
    assert [r["id"] for r in results] == ids
    raised = {r["id"]: r.get("raised") for r in results}
    assert raised == {
        "string": "thrown string: a plain string",
        "object": "thrown object: { status: 500, body: 'overloaded' }",
        "null": "thrown null: null",
        "error": "TypeError: bad",
        "bigint": "raf-kit: the result is not JSON: TypeError: Do not know how to serialize a "
        "BigInt",
        "floating": None,
        "this": None,
        "ok": None,
    }
    by_id = {r["id"]: r for r in results}
    for thrown in ("string", "object", "null", "error"):
        assert by_id[thrown]["response"]["text"] == "partial"  # what it had seen
    assert by_id["bigint"]["response"] is None
    assert by_id["this"]["response"] == {"text": "errors"}
    assert by_id["ok"]["response"]["text"] == "partial"
    assert stderr.count("raf-kit: not a message of the protocol, ignored") == 3
    assert "raf-kit: a promise was rejected and nothing handled it: RangeError: later" in stderr


def test_the_adapter_exits_at_bye(tmp_path: Path) -> None:
    lines = [
        '{"type": "hello", "protocol": "raf-conformance/1"}\n',
        case("ok") + "\n",
        '{"type": "bye"}\n',
        case("never") + "\n",
    ]
    answers, _, status = converse(tmp_path, lines)
    assert status == 0
    assert [a.get("id") for a in answers] == [None, "ok"]


NOISY = """\
import { serve, finishReason, openaiUsage } from "./raf-kit.mjs";

console.log("noise when imported");
process.stdout.write("noise written when imported\\n");

serve({
  name: "noisy",
  version: "1",
  dialects: ["openai_chat"],
  capabilities: ["usage"],
  async stream(c, seen) {
    console.log("log %s", c.id);
    console.info("info");
    console.debug("debug");
    console.table([{ a: 1 }]);
    console.dir({ deep: { er: 1 } });
    console.group("group");
    console.log("inside");
    console.groupEnd();
    process.stdout.write("written\\n");
    process.stdout.write(Buffer.from("bytes\\n"), () => {});
    const response = await fetch(c.request.url, {
      method: c.request.method,
      headers: c.request.headers,
      body: JSON.stringify(c.body),
    });
    for (const line of (await response.text()).split(/\\r\\n|\\r|\\n/)) {
      if (!line.startsWith("data:") || line.includes("[DONE]")) continue;
      const chunk = JSON.parse(line.slice(5));
      if (chunk.usage) seen.usage = openaiUsage(chunk.usage);
      seen.text += chunk.choices?.[0]?.delta?.content ?? "";
      const reason = chunk.choices?.[0]?.finish_reason;
      if (reason) seen.finish = finishReason(c.dialect, reason);
      console.log("chunk", chunk.id);
    }
  },
});
"""


def conform(impl: str, tmp_path: Path, *select: str) -> dict[str, Any]:
    report_file = tmp_path / "report.json"
    status = raf_main(
        ["conform", "--impl", impl, "--transport", "http", "--json", str(report_file), *select]
    )
    report: dict[str, Any] = json.loads(report_file.read_text("utf-8"))
    report["status"] = status
    return report


def test_an_adapter_that_prints_on_stdout_still_speaks_the_protocol(tmp_path: Path) -> None:
    script = write_adapter(tmp_path / "noisy", NOISY)
    report = conform(shlex.join([node(), str(script)]), tmp_path, "-k", "openai_chat/plain_text#*")
    assert {c["id"]: c["reason"] for c in report["cases"] if not c["ok"]} == {}
    assert report["summary"]["pass"] == len(report["cases"]) >= 6
    assert report["status"] == 0
    stderr = report["cases"][0]["stderr"]
    for printed in ("log openai_chat/plain_text#0@", "info", "debug", "written", "bytes", "chunk"):
        assert printed in stderr
    assert re.search(r"│ *a *│", stderr)  # console.table's table, formatted
    assert "  inside" in stderr  # console.group's indentation


# -- docs/protocol.md's adapter ----------------------------------------------------------


def doc_adapter() -> str:
    section = PROTOCOL_DOC.read_text("utf-8").split("## Node.js: the kit", 1)[1]
    blocks = re.findall(r"```js\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    block: str = blocks[0]
    return block


def test_the_documented_openai_adapter_is_short_and_in_the_house_style() -> None:
    lines = doc_adapter().splitlines()
    assert len(lines) < 40
    assert max(len(line) for line in lines) <= 100
    assert lines[1].startswith("import { serve, ")
    assert lines[1].endswith('"./raf-kit.mjs"; // first')


# -- the Node example client on the kit --------------------------------------------------


def test_the_node_example_client_runs_on_the_kit_beside_it(tmp_path: Path) -> None:
    """As `python -m raf.examples` writes it after `pip install raf`: the kit is beside it."""
    assert examples.main([str(tmp_path / "examples")]) == 0
    client = tmp_path / "examples" / "clients" / "node" / "client.js"
    assert (client.parent / "raf-kit.mjs").read_text("utf-8") == kit.text("node")
    report = conform(shlex.join([node(), str(client)]), tmp_path, "-k", "openai_chat/plain_text#*")
    assert report["implementation"]["name"] == "example-node"
    assert {c["id"]: c["reason"] for c in report["cases"] if not c["ok"]} == {}
    assert report["summary"]["pass"] == len(report["cases"]) >= 6


def test_the_node_example_client_says_where_the_kit_should_be(tmp_path: Path) -> None:
    alone = tmp_path / "client.js"
    shutil.copy(ROOT / "examples" / "clients" / "node" / "client.js", alone)
    finished = processes.run([node(), str(alone)], input='{"type": "hello"}\n', text=True)
    assert finished.returncode == 2
    assert finished.stdout == ""
    assert finished.stderr == (
        "client.js: raf-kit.mjs not found; write it beside this file: "
        f"raf kit node --output {tmp_path / 'raf-kit.mjs'}\n"
    )


def test_the_installed_node_example_client_finds_the_installed_kit(tmp_path: Path) -> None:
    """The wheel's layout (pyproject.toml): the client as raf/_bundled/examples/..., the kit as
    raf/kit/node/raf-kit.mjs."""
    package = tmp_path / "site-packages" / "raf"
    client = package / "_bundled" / "examples" / "clients" / "node" / "client.js"
    client.parent.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "clients" / "node" / "client.js", client)
    (package / "kit" / "node").mkdir(parents=True)
    kit.write("node", package / "kit" / "node" / "raf-kit.mjs")
    hello = '{"type": "hello", "protocol": "raf-conformance/1"}\n{"type": "bye"}\n'
    finished = processes.run([node(), str(client)], input=hello, text=True)
    assert finished.returncode == 0, finished.stderr
    answer = json.loads(finished.stdout)
    assert (answer["type"], answer["name"], answer["version"]) == ("hello", "example-node", "1.0")
    assert answer["levels"] == ["response", "requests"]
