"""The official ``openai`` SDK's side of the Chat Completions comparisons (never the network).

The SDK reads the same bytes through a mock transport; :func:`common` keeps the fields both sides
produce: ``None`` entries dropped, and from the SDK's side the ``index`` of each tool call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx2
import openai
from openai.lib.streaming.chat import (
    ChatCompletionStreamState,
)
from openai.types.chat import ChatCompletionChunk, ChatCompletionToolUnionParam

MODEL = "gpt-test"
MESSAGES: list[Any] = [{"role": "user", "content": "hi"}]


def function_tool(name: str, *, strict: bool = False) -> ChatCompletionToolUnionParam:
    parameters = {"type": "object", "properties": {}, "additionalProperties": not strict}
    return {
        "type": "function",
        "function": {"name": name, "parameters": parameters, "strict": strict},
    }


#: Plain (non-strict) tools for ``chat.completions.stream(...)``, by the names used below.
PLAIN_TOOLS = [function_tool(name) for name in ("write_file", "search", "f", "g", "get_weather")]

# --------------------------------------------------------------------------- the two sides


def sdk_client(chunks: Sequence[bytes], path: str = "/v1/chat/completions") -> openai.OpenAI:
    """A client whose every request gets ``chunks`` back as an event stream; no network."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == path
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=iter(chunks))

    http_client = openai.DefaultHttpxClient(transport=httpx2.MockTransport(handler))
    return openai.OpenAI(api_key="test", http_client=http_client, max_retries=0)


def sdk_chunks(chunks: Sequence[bytes]) -> list[ChatCompletionChunk]:
    """The chunk objects that ``chat.completions.create(..., stream=True)`` yields."""
    stream = sdk_client(chunks).chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    return list(stream)


def sdk_state(
    chunks: Sequence[bytes], tools: Sequence[ChatCompletionToolUnionParam] = ()
) -> ChatCompletionStreamState[object]:
    """A ``ChatCompletionStreamState`` fed every chunk object of the stream."""
    state: ChatCompletionStreamState[object] = ChatCompletionStreamState(input_tools=tools)
    for chunk in sdk_chunks(chunks):
        state.handle_chunk(chunk)
    return state


def sdk_final(chunks: Sequence[bytes]) -> dict[str, Any]:
    """``get_final_completion()`` of the state, as a dict."""
    return sdk_state(chunks).get_final_completion().to_dict()


def sdk_stream_final(chunks: Sequence[bytes]) -> dict[str, Any]:
    """``chat.completions.stream(...).get_final_completion()``, as a dict."""
    with sdk_client(chunks).chat.completions.stream(
        model=MODEL, messages=MESSAGES, tools=PLAIN_TOOLS
    ) as stream:
        return stream.get_final_completion().to_dict()


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def common(completion: dict[str, Any], *, sdk: bool = False) -> dict[str, Any]:
    """The fields both sides produce (see the module docstring): ``None`` entries dropped, and
    from the SDK's side the ``index`` of each tool call."""
    normalised: dict[str, Any] = _without_none(completion)
    if sdk:
        for choice in normalised.get("choices", []):
            for call in choice.get("message", {}).get("tool_calls", []):
                call.pop("index", None)
    return normalised
