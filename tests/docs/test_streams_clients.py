"""The docs' examples with the official ``anthropic`` and ``openai`` clients, run as written.

They are the blocks under "With the official client" in docs/anthropic.md and docs/openai.md
(marked ``not run`` there: they run here).

No network: as in ``test_anthropic_sdk.py`` and ``test_openai_sdk.py``, each client class the
examples construct is replaced by one whose HTTP client (``DefaultHttpxClient`` or
``DefaultAsyncHttpxClient``, both ``httpx2``) has an ``httpx2.MockTransport`` that answers every
request with ``200``, ``content-type: text/event-stream`` and a recorded body: the Messages API,
Chat Completions or Responses API fixture that the request's path asks for.

Also here: ``acc.events`` counts the events on the wire, not the SDKs' helper events, and
``acc.done`` is set under the SDKs (which keep ``[DONE]`` to themselves).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import SSEDecoder
from recordings import README, ROOT, chunks_of, readme_blocks

BODIES = {
    "/v1/messages": ROOT / "anthropic" / "text_then_write_file.sse",
    "/v1/chat/completions": ROOT / "openai" / "chat_tool_call.sse",
    "/v1/responses": ROOT / "openai" / "responses_function_call.sse",
}


def handler(request: httpx2.Request) -> httpx2.Response:
    body = BODIES[request.url.path].read_bytes()
    headers = {"content-type": "text/event-stream"}
    return httpx2.Response(200, headers=headers, content=body)


def sync_http(module: Any) -> Any:
    return module.DefaultHttpxClient(transport=httpx2.MockTransport(handler))


def async_http(module: Any) -> Any:
    return module.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(handler))


@pytest.fixture
def mocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The four client classes, made to answer from the fixtures."""
    real = {
        (anthropic, "Anthropic"): sync_http,
        (anthropic, "AsyncAnthropic"): async_http,
        (openai, "OpenAI"): sync_http,
        (openai, "AsyncOpenAI"): async_http,
    }
    for (module, name), http in real.items():
        cls = getattr(module, name)

        def make(cls: Any = cls, module: Any = module, http: Any = http) -> Any:
            return cls(api_key="test", http_client=http(module), max_retries=0)

        monkeypatch.setattr(module, name, make)


def client_examples() -> list[str]:
    """The examples with the official clients: Anthropic's, then OpenAI's."""
    pages = [README.parent / "docs" / f"{name}.md" for name in ("anthropic", "openai")]
    return [b for p in pages for b in readme_blocks("With the official client", p, not_run=True)]


def run_example(number: int) -> tuple[dict[str, Any], str]:
    """The ``number``-th example with the official clients; its names and output."""
    namespace: dict[str, Any] = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(client_examples()[number], namespace)
    return namespace, out.getvalue()


def expected(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.with_suffix(".json").read_text("utf-8"))
    return result


def wire_events(path: Path, *, pings: bool = True) -> int:
    """How many events the recorded body has (the Anthropic SDK drops its pings)."""
    decoder = SSEDecoder()
    events = [*decoder.feed(path.read_bytes()), *decoder.close()]
    return len([e for e in events if pings or e.event != "ping"])


@pytest.mark.usefixtures("mocked")
def test_the_anthropic_example() -> None:
    namespace, out = run_example(0)
    path = BODIES["/v1/messages"]
    lines = out.splitlines()
    # The SDK's event objects: the path of the file written, the events on the wire, done.
    assert lines[0] == f"tools/stations.py {wire_events(path, pings=False)} True"
    # The raw body, typed out: the text block, then the stop reason.
    text = expected(path)["message"]["content"][0]["text"]
    assert text in out and lines[-2] == "stop reason: tool_use" and lines[-1] == "complete"
    acc = namespace["acc"]
    assert isinstance(acc, MessageAccumulator) and acc.closed
    assert acc.message == expected(path)["message"]


@pytest.mark.usefixtures("mocked")
def test_the_openai_example() -> None:
    namespace, out = run_example(1)
    chat, responses = BODIES["/v1/chat/completions"], BODIES["/v1/responses"]
    path = json.loads(expected(chat)["tools"]["0:0"]["raw"])["path"]
    final = json.loads(expected(responses)["tools"]["2"]["raw"])
    assert out.splitlines() == [f"{path} True", "tool_calls", f"{final} completed"]
    acc = namespace["acc"]
    assert isinstance(acc, ResponseAccumulator) and acc.closed
    assert acc.response == expected(responses)["response"]


def test_the_examples_are_there() -> None:
    blocks = client_examples()
    assert len(blocks) == 2
    for block, client in zip(blocks, ("anthropic", "openai"), strict=True):
        for needle in ("with_streaming_response", "iter_bytes()", "aupdates", "asyncio.run"):
            assert needle in block, (client, needle)


# --------------------------------------------------------------------------- under the SDKs


def anthropic_client() -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="t", http_client=sync_http(anthropic), max_retries=0)


def openai_client() -> openai.OpenAI:
    return openai.OpenAI(api_key="t", http_client=sync_http(openai), max_retries=0)


def test_events_count_the_wire_not_the_sdks_helper_events() -> None:
    """``messages.stream()`` yields the wire's events (but its pings: the SDK drops them)
    and, after each delta, a helper event (``text``, ``input_json``...): 865 for this stream's
    437. They are skipped, not counted."""
    path = BODIES["/v1/messages"]
    request: Any = {"model": "m", "max_tokens": 1, "messages": []}
    with anthropic_client().messages.stream(**request) as stream:
        objects = list(stream)
    assert len(objects) > 1.9 * wire_events(path)
    acc = MessageAccumulator()
    updates = [update for event in objects for update in acc.feed(event)]
    assert acc.events == wire_events(path, pings=False) == len(updates) and acc.done
    assert acc.message == MessageAccumulator().read(path.read_bytes()).message


def test_chat_done_and_events_under_the_sdk() -> None:
    """The SDK keeps ``[DONE]`` to itself: ``done`` comes with the ``finish_reason``. Its
    ``.stream()`` wraps each chunk in a ``chunk`` event, and adds helper events."""
    path = BODIES["/v1/chat/completions"]
    request: Any = {"model": "m", "messages": []}
    chunks = list(openai_client().chat.completions.create(**request, stream=True))
    acc = ChatCompletionAccumulator().read(chunks)
    assert acc.done and acc.events == wire_events(path) - 1 == len(chunks)  # all but [DONE]
    with openai_client().chat.completions.stream(**request) as stream:
        events = list(stream)
    assert len(events) > len(chunks)
    wrapped = ChatCompletionAccumulator().read(events)
    assert wrapped.done and wrapped.events == len(chunks)
    assert (
        wrapped.completion
        == acc.completion
        == ChatCompletionAccumulator().read(chunks_of(path.read_bytes(), 100)).completion
    )


def test_responses_done_and_events_under_the_sdk() -> None:
    path = BODIES["/v1/responses"]
    request: Any = {"model": "m", "input": "x"}
    with openai_client().responses.stream(**request) as stream:
        acc = ResponseAccumulator().read(stream)
    assert acc.done and acc.events == wire_events(path)
    assert (
        acc.tool_calls()[0].final()
        == ResponseAccumulator().read(path.read_bytes()).tool_calls()[0].final()
    )
