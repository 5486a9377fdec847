"""The compatible profile against the official ``openai`` SDK, on the same bytes.

The SDK (``ChatCompletionStreamState`` fed the chunks ``chat.completions.create(...,
stream=True)`` yields, through a mock HTTP transport: see ``test_openai_sdk.py``, whose helpers
are used here) is the oracle where the stream is one it can read: the fixtures ``PARITY`` must
give the same completion (compared as there: ``None`` entries dropped, the SDK's tool-call
``index`` dropped; and the chunk fields a vendor adds at the top level, ``x_groq`` or
``provider``, which the SDK keeps and we do not, as for OpenAI's own ``obfuscation``). On every
other fixture the SDK gets the quirk wrong, and a test says what it does and what we do.
"""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

import paths
from chat_sdk import common, sdk_final, sdk_stream_final
from jsonsnap.openai import ChatCompletionAccumulator
from recordings import byte_cuts

FIXTURES: Final = paths.FIXTURES / "openai-compatible"
#: The fixtures the SDK reads as the server meant them.
PARITY: Final = [
    "deepseek_usage_empty_choices",
    "vllm_long_silence",
    "vllm_reasoning",
    "whole_arguments",
]
#: The completion's fields (what the SDK keeps beyond them is a vendor's top-level field).
FIELDS: Final = {
    "id",
    "object",
    "created",
    "model",
    "system_fingerprint",
    "service_tier",
    "choices",
    "usage",
}


def body(name: str) -> bytes:
    return (FIXTURES / f"{name}.sse").read_bytes()


def ours(name: str, chunks: Any = None) -> dict[str, Any]:
    acc = ChatCompletionAccumulator(compatible=True)
    acc.read([body(name)] if chunks is None else chunks)
    return common(acc.completion)


def theirs(name: str, chunks: Any = None) -> dict[str, Any]:
    sdk = common(sdk_final([body(name)] if chunks is None else chunks), sdk=True)
    return {k: v for k, v in sdk.items() if k in FIELDS}


def calls(completion: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in completion["choices"][0]["message"].get("tool_calls", [])
    ]


def test_every_fixture_is_compared() -> None:
    compared = set(PARITY) | {name.removeprefix("test_") for name in DIFFERENCES}
    assert compared == {p.stem for p in FIXTURES.glob("*.sse")}


@pytest.mark.parametrize("name", PARITY)
def test_the_fixtures_the_sdk_reads_give_its_completion(name: str) -> None:
    whole = body(name)
    for label, chunks in byte_cuts(whole, 2):
        assert ours(name, chunks) == theirs(name, [whole]), label
        assert ours(name, [whole]) == theirs(name, chunks), label
    stream = common(sdk_stream_final([whole]), sdk=True)
    assert ours(name) == {k: v for k, v in stream.items() if k in FIELDS}


# -- the deliberate differences: the SDK gets the quirk wrong ---------------------------------


def test_ollama_missing_index() -> None:
    """No ``index``: the SDK indexes its list with ``None`` and fails (``TypeError``); we tell
    the calls apart by their ids."""
    with pytest.raises(TypeError, match="list indices must be integers"):
        sdk_final([body("ollama_missing_index")])
    assert [name for _, name, _ in calls(ours("ollama_missing_index"))] == ["file_write"] * 2


@pytest.mark.parametrize("name", ["ollama_index_reused", "ollama_index_duplicated"])
def test_ollama_index_reused_and_duplicated(name: str) -> None:
    """Two calls at index 0: the SDK makes one call of them, its ids, names and arguments
    concatenated (``{..}{..}``), and repeats the ``role`` the server sends in every chunk
    (``"assistantassistant"``). We make two calls, and set the role once."""
    sdk, got = theirs(name), ours(name)
    ((sdk_id, sdk_name, sdk_arguments),) = calls(sdk)
    (id1, name1, arguments1), (id2, name2, arguments2) = calls(got)
    assert (sdk_id, sdk_name, sdk_arguments) == (id1 + id2, name1 + name2, arguments1 + arguments2)
    assert sdk["choices"][0]["message"]["role"].startswith("assistantassistant")
    assert got["choices"][0]["message"]["role"] == "assistant"


def test_unstable_ids() -> None:
    """A new id in every chunk of one call: the SDK joins them all into the call's id; we
    keep the first."""
    ((sdk_id, _, sdk_arguments),) = calls(theirs("unstable_ids"))
    ((our_id, _, our_arguments),) = calls(ours("unstable_ids"))
    assert sdk_id.startswith("call_first_a1call_next_00call_next_01") and our_id == "call_first_a1"
    assert sdk_arguments == our_arguments


def test_vllm_doubled_arguments() -> None:
    """The whole arguments sent again at the end: the SDK's arguments are the text twice
    (not JSON); ours are the text once."""
    ((_, _, sdk_arguments),) = calls(theirs("vllm_doubled_arguments"))
    ((_, _, our_arguments),) = calls(ours("vllm_doubled_arguments"))
    assert sdk_arguments == our_arguments * 2
    with pytest.raises(json.JSONDecodeError, match="Extra data"):
        json.loads(sdk_arguments)


def test_groq_glued_calls() -> None:
    """Three calls glued in one argument string: one call for the SDK (its arguments not
    JSON); three for us, the second and third with the ids ``<id>_1`` and ``<id>_2``."""
    ((sdk_id, _, sdk_arguments),) = calls(theirs("groq_glued_calls"))
    got = calls(ours("groq_glued_calls"))
    assert [call_id for call_id, _, _ in got] == [sdk_id, f"{sdk_id}_1", f"{sdk_id}_2"]
    assert "".join(arguments for _, _, arguments in got) == sdk_arguments


def test_ollama_arguments_object() -> None:
    """``arguments`` as an object: the SDK keeps the object where its type says a string
    (pydantic warns when it dumps it); we write it as the JSON text the API sends."""
    with pytest.warns(UserWarning, match="Expected `str`"):
        ((_, _, sdk_arguments),) = calls(theirs("ollama_arguments_object"))
    ((_, _, our_arguments),) = calls(ours("ollama_arguments_object"))
    assert isinstance(sdk_arguments, dict) and json.loads(our_arguments) == sdk_arguments


def test_openrouter_reasoning_details() -> None:
    """``reasoning_details`` pieces: the SDK merges them by ``index`` but joins every string,
    so ``format`` is repeated once per piece; it repeats the ``role`` too, and loses the
    choice's vendor field ``native_finish_reason``. We join the text fields only, keep the
    others as they came, and keep a choice's unknown fields (their latest value)."""
    sdk, got = theirs("openrouter_reasoning_details"), ours("openrouter_reasoning_details")
    (sdk_detail,) = sdk["choices"][0]["message"]["reasoning_details"]
    (our_detail,) = got["choices"][0]["message"]["reasoning_details"]
    assert sdk_detail["format"] == "anthropic-claude-v1" * 6
    assert our_detail["format"] == "anthropic-claude-v1"
    assert (
        sdk_detail["text"] == our_detail["text"]
        and sdk_detail["signature"] == our_detail["signature"]
    )
    assert "native_finish_reason" not in sdk["choices"][0]
    assert got["choices"][0]["native_finish_reason"] == "tool_use"
    sdk["choices"][0]["message"]["role"] = "assistant"
    sdk["choices"][0]["native_finish_reason"] = "tool_use"
    sdk_detail["format"] = "anthropic-claude-v1"
    assert sdk == got  # nothing else differs


def test_gateway_keepalive() -> None:
    """``data: : keepalive``: the SDK decodes it as JSON and fails; we skip it."""
    with pytest.raises(json.JSONDecodeError):
        sdk_final([body("gateway_keepalive")])
    assert calls(ours("gateway_keepalive"))[0][1] == "update_ticket"


def test_arguments_array() -> None:
    """``arguments`` as a list: the SDK keeps it (pydantic warns when it dumps it); we refuse
    the chunk with a StreamError that says so (see test_openai_compatible)."""
    with pytest.warns(UserWarning, match="Expected `str`"):
        sdk = theirs("arguments_array")
    (call,) = sdk["choices"][0]["message"]["tool_calls"]
    assert call["function"]["arguments"] == ["ls", "-la"]


DIFFERENCES: Final = [
    name
    for name in dir()
    if name.startswith("test_")
    and name
    not in {
        "test_every_fixture_is_compared",
        "test_the_fixtures_the_sdk_reads_give_its_completion",
        "test_ollama_index_reused_and_duplicated",
    }
] + ["test_ollama_index_reused", "test_ollama_index_duplicated"]
