"""openai_chat dialect: chunk JSON -> updates, including the peers' bugs (peers.md Part 2).

Expected updates are written by hand from raf-spec 2.3 and the rules in the dialect's module
docstring; each stream is also checked under whole, 1-byte and random network chunking.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from raf.formats.openai_chat.dialect import OpenAIChatDialect, parse_usage
from raf.framing.sse import DataRun, SSEDecoder
from raf.model import Usage, updates
from raf.model.updates import AgentResponseUpdate, DeltaBatch
from raf.pipeline import UpdateDecoder
from raf.sse import ServerSentEvent
from tests.helpers import CHUNKINGS, feed_all, split

ID = "chatcmpl-AbC123"
MODEL = "gpt-4o-mini-2024-07-18"
RM = updates.ResponseMetadata(id=ID, model=MODEL)


def chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An OpenAI chat.completion.chunk as the API sends it."""
    body: dict[str, Any] = {
        "id": ID,
        "object": "chat.completion.chunk",
        "created": 1731000000,
        "model": MODEL,
        "system_fingerprint": "fp_0ba0d124f1",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    body.update(extra)
    return body


def sse(*payloads: dict[str, Any] | str, done: bool = True, eol: str = "\n") -> bytes:
    """Frame payloads as ``data:`` events (strings are sent verbatim)."""
    parts = []
    for p in payloads:
        text = p if isinstance(p, str) else json.dumps(p, separators=(",", ":"))
        parts.append(f"data: {text}{eol}{eol}")
    if done:
        parts.append(f"data: [DONE]{eol}{eol}")
    return "".join(parts).encode()


def run(body: bytes, how: str = "whole") -> list[AgentResponseUpdate]:
    decoder = UpdateDecoder("openai_chat")
    return feed_all(decoder.feed, decoder.close, split(body, how))


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
USAGE_PARSED = Usage(prompt_tokens=12, completion_tokens=5, total_tokens=17)

# (name, body, expected updates). Names cite the peers.md Part 2 row they pin down.
CASES: list[tuple[str, bytes, list[AgentResponseUpdate]]] = [
    (
        "text_then_stop",
        sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hi"}),
            chunk({"content": " there"}),
            chunk(finish="stop"),
        ),
        [
            RM,
            updates.TextDelta(delta="Hi"),
            updates.TextDelta(delta=" there"),
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "usage_only_chunk_with_empty_choices__peers27",
        sse(chunk({"content": "ok"}, finish="stop"), chunk(choices=[], usage=USAGE)),
        [
            RM,
            updates.TextDelta(delta="ok"),
            updates.Finish(finish_reason="stop"),
            updates.Usage(usage=USAGE_PARSED),
        ],
    ),
    (
        "usage_beside_finish_rides_on_finish",
        sse(chunk({"content": "ok"}), chunk(finish="stop", usage=USAGE)),
        [
            RM,
            updates.TextDelta(delta="ok"),
            updates.Finish(finish_reason="stop", usage=USAGE_PARSED),
        ],
    ),
    (
        "usage_and_content_in_one_chunk__peers29",
        sse(chunk({"content": "Gemini"}, usage=USAGE), chunk(finish="stop")),
        [
            RM,
            updates.TextDelta(delta="Gemini"),
            updates.Usage(usage=USAGE_PARSED),
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "later_usage_null_is_ignored",
        sse(chunk(finish="stop", usage=USAGE), chunk(choices=[], usage=None)),
        [RM, updates.Finish(finish_reason="stop", usage=USAGE_PARSED)],
    ),
    (
        "empty_finish_reason_is_no_finish_and_keeps_usage",
        sse(chunk({"content": "a"}), chunk(finish="", usage=USAGE), done=True),
        [RM, updates.TextDelta(delta="a"), updates.Usage(usage=USAGE_PARSED)],
    ),
    (
        "deepseek_reasoning_content_then_content__peers17",
        sse(
            chunk({"role": "assistant", "content": None, "reasoning_content": "Think"}),
            chunk({"content": None, "reasoning_content": "ing"}),
            chunk({"content": "Answer", "reasoning_content": None}),
            chunk(finish="stop"),
        ),
        [
            RM,
            updates.ReasoningDelta(delta="Think"),
            updates.ReasoningDelta(delta="ing"),
            updates.TextDelta(delta="Answer"),
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "openrouter_reasoning_field__peers35",
        sse(
            chunk(
                {
                    "content": "",
                    "reasoning": "We need",
                    "reasoning_details": [{"type": "reasoning.text", "text": "We need"}],
                }
            ),
            chunk(
                {"content": "Hello"}, finish="stop", native_finish_reason="stop", provider="Minimax"
            ),
        ),
        [
            RM,
            updates.ReasoningDelta(delta="We need"),
            updates.TextDelta(delta="Hello"),
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "reasoning_in_both_fields_is_emitted_once",
        sse(chunk({"reasoning_content": "same", "reasoning": "same"}), chunk(finish="stop")),
        [RM, updates.ReasoningDelta(delta="same"), updates.Finish(finish_reason="stop")],
    ),
    (
        "mistral_content_parts",
        sse(
            chunk(
                {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Okay"}]}]}
            ),
            chunk({"content": [{"type": "text", "text": "Hi"}]}),
            chunk(finish="stop"),
        ),
        [
            RM,
            updates.ReasoningDelta(delta="Okay"),
            updates.TextDelta(delta="Hi"),
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "one_tool_call",
        sse(
            chunk(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get", "arguments": ""},
                        }
                    ],
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"q":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
            chunk(finish="tool_calls"),
        ),
        [
            RM,
            updates.ToolCallDelta(index=0, id="call_a", name="get", arguments_delta=""),
            updates.ToolCallDelta(index=0, arguments_delta='{"q":'),
            updates.ToolCallDelta(index=0, arguments_delta="1}"),
            updates.Finish(finish_reason="tool_calls"),
        ],
    ),
    (
        "two_entries_for_one_index_in_one_chunk__peers1",
        sse(
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "call_x", "type": "function", "function": {"name": "f"}},
                        {"index": 0, "function": {"arguments": '{"a":'}},
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
            chunk(finish="tool_calls"),
        ),
        [
            RM,
            updates.ToolCallDelta(index=0, id="call_x", name="f"),
            updates.ToolCallDelta(index=0, arguments_delta='{"a":'),
            updates.ToolCallDelta(index=0, arguments_delta="1}"),
            updates.Finish(finish_reason="tool_calls"),
        ],
    ),
    (
        "missing_index_is_passed_on_as_none__peers2",
        sse(
            chunk(
                {
                    "tool_calls": [
                        {
                            "id": "function-call-1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ]
                }
            ),
            chunk(finish="tool_calls"),
        ),
        [
            RM,
            updates.ToolCallDelta(
                id="function-call-1", name="get_weather", arguments_delta='{"city":"Paris"}'
            ),
            updates.Finish(finish_reason="tool_calls"),
        ],
    ),
    (
        "null_index_and_finish_stop_with_tool_calls__peers39",
        sse(
            chunk(
                {
                    "tool_calls": [
                        {"index": None, "id": "c1", "function": {"name": "f", "arguments": "{}"}}
                    ],
                    "extra_content": {"google": {"thought_signature": "x"}},
                }
            ),
            chunk(finish="stop"),
        ),
        [
            RM,
            updates.ToolCallDelta(id="c1", name="f", arguments_delta="{}"),
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "empty_id_and_name_on_continuations_are_absent",
        sse(
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": ""}}
                    ]
                }
            ),
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "", "function": {"name": "", "arguments": "{}"}}
                    ]
                }
            ),
            chunk(finish="tool_calls"),
        ),
        [
            RM,
            updates.ToolCallDelta(index=0, id="c1", name="f"),
            updates.ToolCallDelta(index=0, arguments_delta="{}"),
            updates.Finish(finish_reason="tool_calls"),
        ],
    ),
    (
        "object_arguments_become_json_text",
        sse(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "function": {"name": "f", "arguments": {"a": [1, "x"]}},
                        }
                    ]
                }
            ),
            chunk(finish="tool_calls"),
        ),
        [
            RM,
            updates.ToolCallDelta(index=0, id="c1", name="f", arguments_delta='{"a":[1,"x"]}'),
            updates.Finish(finish_reason="tool_calls"),
        ],
    ),
    (
        "azure_filter_chunks__peers5_18_20",
        sse(
            {
                "choices": [],
                "created": 0,
                "id": "",
                "model": "",
                "object": "",
                "prompt_filter_results": [
                    {
                        "prompt_index": 0,
                        "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}},
                    }
                ],
            },
            chunk({"content": "Hi"}),
            {
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": None,
                        "delta": None,
                        "content_filter_offsets": {"check_offset": 0},
                        "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}},
                    }
                ],
                "created": 0,
                "id": "",
                "model": "",
                "object": "",
            },
            {
                "choices": [{"index": 0, "finish_reason": None, "content_filter_results": {}}],
                "id": ID,
            },
            chunk(finish="stop"),
        ),
        [RM, updates.TextDelta(delta="Hi"), updates.Finish(finish_reason="stop")],
    ),
    (
        "choices_null_still_reads_usage__peers19",
        sse(chunk({"content": "x"}, finish="stop"), chunk(choices=None, usage=USAGE)),
        [
            RM,
            updates.TextDelta(delta="x"),
            updates.Finish(finish_reason="stop"),
            updates.Usage(usage=USAGE_PARSED),
        ],
    ),
    (
        "missing_choices_and_unknown_extras__peers21_23",
        sse(
            {
                "id": ID,
                "model": MODEL,
                "object": "chat.completion.chunk",
                "native_finish_reason": None,
                "x_vendor": {"a": [1]},
            },
            chunk({"content": "y"}),
            chunk(finish="stop"),
        ),
        [RM, updates.TextDelta(delta="y"), updates.Finish(finish_reason="stop")],
    ),
    (
        "unknown_finish_reason_is_kept_verbatim",
        sse(chunk({"content": "x"}), chunk(finish="insufficient_system_resource")),
        [
            RM,
            updates.TextDelta(delta="x"),
            updates.Finish(finish_reason="insufficient_system_resource"),
        ],
    ),
    (
        "finish_length_inside_tool_arguments__peers44",
        sse(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "function": {"name": "write", "arguments": '{"text":"abc'},
                        }
                    ]
                }
            ),
            chunk(finish="length"),
        ),
        [
            RM,
            updates.ToolCallDelta(index=0, id="c1", name="write", arguments_delta='{"text":"abc'),
            updates.Finish(finish_reason="length"),
        ],
    ),
    (
        "done_inside_content_is_text__litellm_substring_bug",
        sse(chunk({"content": "say [DONE] now"}), chunk(finish="stop")),
        [RM, updates.TextDelta(delta="say [DONE] now"), updates.Finish(finish_reason="stop")],
    ),
    (
        "nothing_after_done_is_read",
        sse(chunk({"content": "a"}), chunk(finish="stop"), done=True)
        + sse(chunk({"content": "after"}), done=False),
        [RM, updates.TextDelta(delta="a"), updates.Finish(finish_reason="stop")],
    ),
    (
        "done_without_finish_reason_is_a_clean_end__peers43",
        sse(chunk({"content": "a"})),
        [RM, updates.TextDelta(delta="a")],
    ),
    (
        "finish_without_done_is_a_clean_end__peers43",
        sse(chunk({"content": "a"}), chunk(finish="stop"), done=False),
        [RM, updates.TextDelta(delta="a"), updates.Finish(finish_reason="stop")],
    ),
    (
        "response_id_and_model_emitted_when_they_change",
        sse(
            chunk({"content": "a"}),
            {**chunk({"content": "b"}), "model": "gpt-4o"},
            chunk(finish="stop"),
        ),
        [
            RM,
            updates.TextDelta(delta="a"),
            updates.ResponseMetadata(id=ID, model="gpt-4o"),
            updates.TextDelta(delta="b"),
            RM,
            updates.Finish(finish_reason="stop"),
        ],
    ),
    (
        "n_greater_than_one_keeps_choice_zero",
        sse(
            {
                "id": ID,
                "model": MODEL,
                "choices": [
                    {"index": 1, "delta": {"content": "other"}},
                    {"index": 0, "delta": {"content": "first"}},
                ],
            },
            {
                "id": ID,
                "model": MODEL,
                "choices": [
                    {"index": 0, "delta": {}, "finish_reason": "stop"},
                    {"index": 1, "delta": {}, "finish_reason": "length"},
                ],
            },
        ),
        [RM, updates.TextDelta(delta="first"), updates.Finish(finish_reason="stop")],
    ),
    (
        "groq_usage_in_x_groq",
        sse(
            chunk({"content": "x"}),
            chunk(
                finish="stop",
                x_groq={
                    "id": "req_01",
                    "usage": {
                        "prompt_tokens": 343,
                        "completion_tokens": 180,
                        "total_tokens": 523,
                        "completion_tokens_details": {"reasoning_tokens": 153},
                    },
                },
            ),
        ),
        [
            RM,
            updates.TextDelta(delta="x"),
            updates.Finish(
                finish_reason="stop",
                usage=Usage(
                    prompt_tokens=343, completion_tokens=180, total_tokens=523, reasoning_tokens=153
                ),
            ),
        ],
    ),
]


@pytest.mark.parametrize("how", CHUNKINGS)
@pytest.mark.parametrize(("name", "body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_stream_maps_to_updates(
    name: str, body: bytes, expected: list[AgentResponseUpdate], how: str
) -> None:
    assert run(body, how) == expected


# -- framing-level peers bugs seen through the dialect ----------------------------------------


def test_openrouter_processing_comments_are_ignored__peers12() -> None:
    body = b": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" + sse(
        chunk({"content": "a"}), chunk(finish="stop")
    )
    assert run(body) == [RM, updates.TextDelta(delta="a"), updates.Finish(finish_reason="stop")]


def test_data_colon_keepalive_is_data_not_a_comment__peers12() -> None:
    out = run(sse(": keepalive", chunk(finish="stop")))
    assert codes(out) == ["sse_parse_error"]
    assert out[-1] == updates.Finish(finish_reason="stop")


def test_retry_only_and_id_keepalive_blocks_dispatch_nothing__peers3() -> None:
    body = b"retry: 3000\n\nid: 7\n: keep-alive\n\n" + sse(chunk(finish="stop"))
    assert run(body) == [RM, updates.Finish(finish_reason="stop")]


@pytest.mark.parametrize("eol", ["\r\n", "\r"], ids=["crlf", "cr_only"])
def test_crlf_and_cr_only_framing__peers8_10(eol: str) -> None:
    body = sse(chunk({"content": "a"}), chunk(finish="stop"), eol=eol)
    for how in CHUNKINGS:
        assert run(body, how) == [
            RM,
            updates.TextDelta(delta="a"),
            updates.Finish(finish_reason="stop"),
        ]


def test_leading_bom_does_not_lose_the_first_event() -> None:
    body = b"\xef\xbb\xbf" + sse(chunk({"content": "first"}), chunk(finish="stop"))
    assert run(body)[1] == updates.TextDelta(delta="first")


def test_multibyte_characters_split_across_chunks__peers11() -> None:
    text = "héllo 世界 😀"
    body = sse(chunk({"content": text}), chunk(finish="stop"))
    for cut in range(len(body) + 1):
        decoder = UpdateDecoder()
        out = feed_all(decoder.feed, decoder.close, [body[:cut], body[cut:]])
        assert out[1] == updates.TextDelta(delta=text)


def test_unicode_line_separator_inside_json__peers7() -> None:
    body = sse(chunk({"content": "a\u2028b\u0085c"}), chunk(finish="stop"))
    assert run(body, "random")[1] == updates.TextDelta(delta="a\u2028b\u0085c")


def test_multi_line_data_is_joined_before_parsing() -> None:
    payload = json.dumps(chunk({"content": "multi"}), indent=1)
    body = ("data: " + payload.replace("\n", "\ndata: ") + "\n\n").encode() + sse(
        chunk(finish="stop")
    )
    assert run(body)[1] == updates.TextDelta(delta="multi")


# -- errors are reported, and nothing that arrived is lost ------------------------------------


def test_data_that_is_not_json_is_reported_and_the_stream_goes_on() -> None:
    out = run(
        sse(chunk({"content": "a"}), "{not json", chunk({"content": "b"}), chunk(finish="stop"))
    )
    assert [u for u in out if not isinstance(u, updates.Error)] == [
        RM,
        updates.TextDelta(delta="a"),
        updates.TextDelta(delta="b"),
        updates.Finish(finish_reason="stop"),
    ]
    (error,) = [u for u in out if isinstance(u, updates.Error)]
    assert error.error_code == "sse_parse_error"
    assert "{not json" in error.message
    assert error.raw == "{not json"


def test_json_that_is_not_a_chunk_is_reported() -> None:
    out = run(sse('["a"]', '{"choices":"nope"}', chunk(finish="stop")))
    assert codes(out) == ["invalid_chunk", "invalid_chunk"]
    assert "a JSON list, expected an object" in out[0].message  # type: ignore[union-attr]
    assert "choices is str" in out[1].message  # type: ignore[union-attr]


def test_wrongly_typed_field_costs_only_that_field() -> None:
    out = run(sse(chunk({"content": 5, "reasoning_content": "kept"}), chunk(finish="stop")))
    assert out[:2] == [RM, updates.ReasoningDelta(delta="kept")]
    assert codes(out) == ["invalid_chunk"]
    assert "content is int" in out[2].message  # type: ignore[union-attr]


def test_in_band_error_chunk__peers45() -> None:
    error_chunk = {
        "id": "gen-1762179802",
        "provider": "Minimax",
        "error": {"code": 400, "message": "Provider returned error"},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
    }
    out = run(sse(chunk({"content": "partial"}), error_chunk))
    assert out[1] == updates.TextDelta(delta="partial")
    errors = [u for u in out if isinstance(u, updates.Error)]
    assert [e.error_code for e in errors] == ["provider_error"]
    assert "Provider returned error" in errors[0].message
    assert out[-1] == updates.Finish(finish_reason="error")


def test_event_error_frame__peers4() -> None:
    body = (
        sse(chunk({"content": "partial"}), done=False)
        + b'event: error\ndata: {"error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    )
    out = run(body)
    assert out[1] == updates.TextDelta(delta="partial")
    assert codes(out) == ["provider_error"]  # the error explains the missing finish
    assert "Overloaded" in out[2].message  # type: ignore[union-attr]


def test_stream_cut_without_done_or_finish_is_truncated__peers28() -> None:
    out = run(sse(chunk({"content": "Hel"}), chunk({"content": "lo"}), done=False))
    assert out[:3] == [RM, updates.TextDelta(delta="Hel"), updates.TextDelta(delta="lo")]
    assert codes(out) == ["stream_truncated"]


def test_stream_cut_inside_an_event_is_truncated_even_after_finish() -> None:
    body = (
        sse(chunk({"content": "a"}), chunk(finish="stop"), done=False)
        + b'data: {"id":"x","choices":[],"usa'
    )
    out = run(body)
    assert out[:3] == [RM, updates.TextDelta(delta="a"), updates.Finish(finish_reason="stop")]
    assert codes(out) == ["stream_truncated"]
    assert "unfinished" in out[3].message  # type: ignore[union-attr]


def test_empty_body_is_truncated() -> None:
    assert codes(run(b"")) == ["stream_truncated"]


def test_size_limit_ends_the_stream_with_an_error_and_keeps_what_arrived() -> None:
    body = sse(chunk({"content": "kept"}), done=False) + b"data: " + b"x" * 5000
    decoder = UpdateDecoder(max_line_bytes=1000)
    out = feed_all(decoder.feed, decoder.close, split(body, "random"))
    assert out[1] == updates.TextDelta(delta="kept")
    assert codes(out) == ["sse_limit_exceeded"]
    assert decoder.done


def test_dialect_alone_is_sans_io() -> None:
    dialect = OpenAIChatDialect()
    assert dialect.feed(ServerSentEvent(data=json.dumps(chunk({"content": "x"})))) == [
        RM,
        updates.TextDelta(delta="x"),
    ]
    assert dialect.feed(ServerSentEvent(data="[DONE]")) == []
    assert dialect.done
    assert dialect.feed(ServerSentEvent(data=json.dumps(chunk({"content": "y"})))) == []
    assert dialect.close() == []


# -- usage parsing (raf-spec 7.2, newest rules) -----------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {
                "prompt_tokens": 1000,
                "completion_tokens": 10,
                "total_tokens": 1010,
                "prompt_cache_hit_tokens": 600,
                "prompt_cache_miss_tokens": 400,
            },
            (600, 400, None),
        ),
        (
            {
                "prompt_tokens": 1000,
                "completion_tokens": 10,
                "total_tokens": 1010,
                "prompt_tokens_details": {"cached_tokens": 800},
                "completion_tokens_details": {"reasoning_tokens": 120},
            },
            (800, 200, 120),
        ),
        ({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}, (None, None, None)),
        (
            {
                "prompt_tokens": 1000,
                "completion_tokens": 1,
                "total_tokens": 1001,
                "prompt_cache_hit_tokens": 700,
                "prompt_cache_miss_tokens": 300,
                "prompt_tokens_details": {"cached_tokens": 700},
            },
            (700, 300, None),
        ),
        (
            {
                "completion_tokens": 9,
                "completion_tokens_details": {"reasoning_tokens": 0},
                "prompt_tokens": 2689,
                "total_tokens": 2698,
            },
            (None, None, 0),
        ),
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "total_tokens": 15,
                "prompt_tokens_details": {"cached_tokens": 8},
            },
            (8, 2, None),
        ),
        (
            # NVIDIA NIM (SGLang): the count at the top level, the details null.
            {
                "prompt_tokens": 312,
                "total_tokens": 393,
                "completion_tokens": 81,
                "prompt_tokens_details": None,
                "reasoning_tokens": 42,
            },
            (None, None, 42),
        ),
        (
            {
                "prompt_tokens": 20,
                "completion_tokens": 30,
                "total_tokens": 50,
                "completion_tokens_details": {"reasoning_tokens": 12},
                "reasoning_tokens": 99,
            },
            (None, None, 12),
        ),
    ],
    ids=[
        "hybrid_top_level_cache",
        "cache_from_details",
        "no_details",
        "deepseek_top_level_wins",
        "agnes_tail",
        "spec_2_6_example",
        "sglang_top_level_reasoning",
        "details_win_over_top_level_reasoning",
    ],
)
def test_parse_usage(
    raw: dict[str, Any], expected: tuple[int | None, int | None, int | None]
) -> None:
    usage = parse_usage(raw)
    assert (
        usage.prompt_cache_hit_tokens,
        usage.prompt_cache_miss_tokens,
        usage.reasoning_tokens,
    ) == expected
    assert usage.total_tokens == raw["total_tokens"]


@pytest.mark.parametrize("how", CHUNKINGS)
def test_a_top_level_reasoning_count_reaches_the_usage_update(how: str) -> None:
    # NVIDIA NIM and other SGLang-based servers put reasoning_tokens at the top of usage
    # (cassettes/openai_chat/missing_id.yaml); it used to be dropped, as if never sent.
    usage = {
        "prompt_tokens": 312,
        "total_tokens": 393,
        "completion_tokens": 81,
        "prompt_tokens_details": None,
        "reasoning_tokens": 42,
    }
    out = run(sse(chunk(finish="tool_calls"), chunk(choices=[], usage=usage)), how)
    assert out[-1] == updates.Usage(
        usage=Usage(prompt_tokens=312, completion_tokens=81, total_tokens=393, reasoning_tokens=42)
    )


def test_parse_usage_fills_a_missing_total_and_ignores_bad_counts() -> None:
    usage = parse_usage({"prompt_tokens": 3, "completion_tokens": "7", "total_tokens": -1})
    assert usage == Usage(prompt_tokens=3, completion_tokens=0, total_tokens=3)


def test_large_event_in_tiny_chunks__peers6_9() -> None:
    # openai-python PR #3687, eventsource-parser#19: a large single-line event fed in small
    # pieces must arrive whole (the decoder's cost is measured in bench/sse_decoder.py).
    big = "x" * 200_000
    body = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c1", "function": {"name": "save", "arguments": big}}
                ]
            }
        ),
        chunk(finish="tool_calls"),
    )
    out = run(body, "bytewise")
    assert out[1] == updates.ToolCallDelta(index=0, id="c1", name="save", arguments_delta=big)


def test_salvage_keeps_the_good_fields_of_a_chunk_with_bad_ones() -> None:
    bad = {
        "id": 123,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "delta": {
                    "content": "kept",
                    "tool_calls": [
                        {
                            "index": "0",
                            "id": "c1",
                            "function": {"name": "f", "arguments": {"a": 1}},
                        },
                        "junk",
                    ],
                },
                "finish_reason": 7,
            },
            "not a choice",
        ],
        "usage": "lots",
    }
    out = run(sse(bad, done=False))
    assert out[:3] == [
        updates.ResponseMetadata(id=None, model=MODEL),
        updates.TextDelta(delta="kept"),
        updates.ToolCallDelta(index=None, id="c1", name="f", arguments_delta='{"a":1}'),
    ]
    (error,) = [u for u in out if isinstance(u, updates.Error) and u.error_code == "invalid_chunk"]
    for problem in [
        "id is int",
        "usage is str",
        "choices[0].delta.tool_calls[0].index is str",
        "choices[0].delta.tool_calls[1] is str",
        "choices[0].finish_reason is int",
        "choices[1] is str",
    ]:
        assert problem in error.message


def test_error_object_in_a_malformed_chunk_is_still_a_provider_error() -> None:
    out = run(sse({"error": {"message": "rate limited", "code": 429}, "choices": "x"}, done=False))
    assert [u.error_code for u in out if isinstance(u, updates.Error)] == [
        "provider_error",
        "invalid_chunk",
    ]


# -- runs of frames (feed_frames): straight from bytes, and batched for an aggregate ---------


def _run_body() -> bytes:
    start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    chunks = [
        {"id": "r", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {"id": "r", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hi"}}]},
        {"id": "r", "model": "m", "choices": [{"index": 0, "delta": {"content": " there"}}]},
        {"id": "r", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [start]}}]},
        *(
            {
                "id": "r",
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                    }
                ],
            }
            for piece in ['{"a"', ':"\\u00e9', '\\n"}']
        ),
        {"id": "r", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)


def test_a_run_maps_to_what_its_events_map_to() -> None:
    frames = SSEDecoder().feed_runs(_run_body())
    assert [type(f) for f in frames] == [DataRun]
    assert OpenAIChatDialect().feed_frames(frames) == OpenAIChatDialect().feed_events(
        frames[0].events()  # type: ignore[union-attr]
    )


def test_a_batch_holds_the_usual_deltas_between_the_other_updates() -> None:
    got = OpenAIChatDialect().feed_frames(SSEDecoder().feed_runs(_run_body()), batch=True)
    assert [type(u).__name__ for u in got] == [
        "ResponseMetadata",
        "DeltaBatch",
        "ToolCallDelta",
        "DeltaBatch",
        "Finish",
    ]
    first, second = got[1], got[3]
    assert isinstance(first, DeltaBatch)
    assert isinstance(second, DeltaBatch)
    assert first.text == ["Hi", " there"]
    # The third fragment is read through the template the second left.
    assert second.arguments == {0: ['{"a"', ':"\\u00e9', '\\n"}']}
    assert second.order == [0, 0, 0]
