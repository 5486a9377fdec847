"""``jsonsnap.gemini`` against the official ``google-genai`` SDK, on the same SSE bytes.

The SDK is driven end to end without a network: ``genai.Client`` gets an ``httpx2.Client`` (the
HTTP client the other SDKs here are built on, which it takes too) whose
``httpx2.MockTransport`` answers ``streamGenerateContent`` with the fixture's bytes (in the
chunks the test chose), so the SDK's own SSE reader and its response conversion (the Gemini API
one, or Vertex AI's for the ``vertex_*`` fixtures) make its ``GenerateContentResponse`` objects.

Two comparisons on every well-formed fixture:

- what an SDK user holds at the end (the answer text and the thoughts joined, the whole
  function calls, the streamed ones rebuilt from the objects' ``partial_args``, the
  signatures, the finish reason, the usage of the last chunk) equals our response;
- the SDK's objects fed to our accumulator give the same response as the raw body.

The deliberate differences each have a test: the SDK's types hold ``numberValue`` as a float
(we keep the wire's integers), and the SDK takes wrong partial-argument paths and error
payloads as they come, where we raise.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest
from google import genai
from google.genai import errors, types

from jsonsnap.gemini import GenerateContentAccumulator, parse_json_path
from jsonsnap.streams import StreamError
from recordings import assert_same_json, byte_cuts, well_formed

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gemini"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.sse"))
GOOD = [name for name in NAMES if well_formed(FIXTURES / f"{name}.sse")]


def sdk_stream(name: str, chunks: Sequence[bytes]) -> Iterator[types.GenerateContentResponse]:
    """The SDK's responses for a body sent in ``chunks``; no network."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith(":streamGenerateContent")
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=iter(chunks)
        )

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    where: dict[str, Any] = {"vertexai": True} if name.startswith("vertex") else {}
    client = genai.Client(
        api_key="test-key", http_options=types.HttpOptions(httpx_client=http), **where
    )
    return client.models.generate_content_stream(model="gemini-test", contents="hi")


def ours(chunks: Sequence[bytes] | Sequence[Any]) -> GenerateContentAccumulator:
    return GenerateContentAccumulator().read(chunks)


def put(args: dict[str, Any], path: str, value: Any, join: bool) -> None:
    """An SDK user's rebuilding of streamed arguments: the value at the path, string pieces
    joined."""
    segments = parse_json_path(path)
    node: Any = args
    last: Any
    for key, nxt in itertools.pairwise(segments):
        if isinstance(node, list) and key == len(node):
            node.append([] if isinstance(nxt, int) else {})
        elif isinstance(node, dict) and key not in node:
            node[key] = [] if isinstance(nxt, int) else {}
        node = node[key]
    last = segments[-1]
    if isinstance(node, list) and last == len(node):
        node.append(value)
    elif join and isinstance(node.get(last) if isinstance(node, dict) else node[last], str):
        node[last] += value
    else:
        node[last] = value


def held(responses: list[types.GenerateContentResponse]) -> dict[str, Any]:
    """What an SDK user holds at the end of the stream, candidate 0."""
    text, thoughts, calls, signatures = "", "", [], []
    streamed: dict[str, Any] | None = None
    finish, usage = None, None
    for response in responses:
        if response.usage_metadata is not None:
            usage = response.usage_metadata.model_dump(
                mode="json", by_alias=True, exclude_none=True
            )
        if not response.candidates:
            continue
        candidate = response.candidates[0]
        finish = candidate.finish_reason or finish
        for part in (candidate.content and candidate.content.parts) or []:
            if part.thought_signature:
                signatures.append(base64.b64encode(part.thought_signature).decode())
            if part.text is not None:
                if part.thought:
                    thoughts += part.text
                else:
                    text += part.text
            call = part.function_call
            if call is None:
                continue
            if call.will_continue or call.partial_args or streamed is not None:
                if streamed is None:
                    streamed = {"name": call.name, "args": {}}
                for arg in call.partial_args or []:
                    value: Any = arg.string_value
                    if value is None:
                        value = arg.number_value if arg.number_value is not None else arg.bool_value
                    assert arg.json_path is not None
                    put(streamed["args"], arg.json_path, value, arg.string_value is not None)
                if not call.will_continue:
                    calls.append(streamed)
                    streamed = None
            else:
                calls.append({"name": call.name, "args": call.args or {}})
    return {
        "text": text,
        "thoughts": thoughts,
        "calls": calls,
        "signatures": signatures,
        "finish": None if finish is None else finish.value,
        "usage": usage,
    }


def mine(acc: GenerateContentAccumulator) -> dict[str, Any]:
    """The same, from our response."""
    response = acc.response or {}
    candidates = response.get("candidates") or [{}]
    parts = candidates[0].get("content", {}).get("parts", [])
    text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    thoughts = "".join(p["text"] for p in parts if "text" in p and p.get("thought"))
    calls = [
        {"name": p["functionCall"]["name"], "args": p["functionCall"]["args"]}
        for p in parts
        if "functionCall" in p
    ]
    return {
        "text": text,
        "thoughts": thoughts,
        "calls": calls,
        "signatures": [p["thoughtSignature"] for p in parts if "thoughtSignature" in p],
        "finish": candidates[0].get("finishReason"),
        "usage": response.get("usageMetadata"),
    }


@pytest.mark.parametrize("name", GOOD)
def test_we_hold_what_the_sdk_user_holds(name: str) -> None:
    data = (FIXTURES / f"{name}.sse").read_bytes()
    for way, chunks in byte_cuts(data, rounds=2):
        responses = list(sdk_stream(name, chunks))
        acc = ours(chunks)
        want, got = held(responses), mine(acc)
        usage_ours = got.pop("usage")
        usage_sdk = want.pop("usage")
        # Numbers: 3 == 3.0, and a pair of surrogates the SDK user joined is read as JSON
        # reads it (both differences have their tests below).
        assert got == json.loads(json.dumps(want)), f"{name} {way}"
        if usage_sdk is not None:  # the last chunk's counts are the totals we hold
            assert {k: usage_ours[k] for k in usage_sdk} == usage_sdk, name


@pytest.mark.parametrize("name", GOOD)
def test_the_sdk_objects_give_the_same_response(name: str) -> None:
    data = (FIXTURES / f"{name}.sse").read_bytes()
    from_sdk = ours(list(sdk_stream(name, [data])))
    from_body = ours([data])
    want = from_body.response
    assert want is not None
    assert_same_json(want, from_sdk.response, name)
    assert [t.status for t in from_sdk.tool_calls()] == [t.status for t in from_body.tool_calls()]


def test_the_sdk_holds_numbers_as_floats_we_keep_the_wire_integers() -> None:
    data = (FIXTURES / "vertex_partial_args.sse").read_bytes()
    responses = list(sdk_stream("vertex_partial_args", [data]))
    [call] = held(responses)["calls"]
    assert call["args"]["days"] == 3 and type(call["args"]["days"]) is float
    days = ours([data]).tool_calls()[0].final()["days"]
    assert days == 3 and type(days) is int
    # fed the SDK's objects, we write 3.0 as the API writes it: 3
    assert type(ours(responses).tool_calls()[0].final()["days"]) is int


def test_a_surrogate_pair_split_across_pieces_is_one_character_for_us() -> None:
    data = (FIXTURES / "vertex_partial_args.sse").read_bytes()
    responses = list(sdk_stream("vertex_partial_args", [data]))
    face = held(responses)["calls"][0]["args"]["face"]
    assert face == "smile \ud83d\ude00!"  # two halves, which UTF-8 cannot encode
    with pytest.raises(UnicodeEncodeError):
        face.encode()
    assert ours([data]).tool_calls()[0].final()["face"] == "smile \U0001f600!"


def test_a_wrong_path_is_taken_by_the_sdk_and_refused_by_us() -> None:
    data = (FIXTURES / "vertex_wrong_path.sse").read_bytes()
    responses = list(sdk_stream("vertex_wrong_path", [data]))  # no complaint
    rebuilt = held(responses)["calls"][0]["args"]
    assert rebuilt["operations"][0]["description"] == "Milk"  # written back, silently
    with pytest.raises(StreamError, match=r"goes back to \$\.operations\[0\]"):
        ours([data])


def test_an_error_payload() -> None:
    data = (FIXTURES / "error_mid_stream.sse").read_bytes()
    with pytest.raises((errors.APIError, StreamError, ValueError)):
        list(sdk_stream("error_mid_stream", [data]))
    with pytest.raises(StreamError, match="overloaded"):
        ours([data])


def test_sdk_objects_are_dumped_as_the_wire_writes_them() -> None:
    part = types.Part(text="x", thought_signature=b"\xfa\xfb\xfc")
    response = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[part]),
                finish_reason=types.FinishReason.STOP,
            )
        ]
    )
    acc = GenerateContentAccumulator()
    acc.feed(response)
    assert acc.response is not None
    [candidate] = acc.response["candidates"]
    assert candidate["finishReason"] == "STOP"
    assert candidate["content"]["parts"] == [{"text": "x", "thoughtSignature": "+vv8"}]
    assert json.dumps(acc.response)  # plain data
