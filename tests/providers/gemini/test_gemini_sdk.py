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

import json
from collections.abc import Iterator, Sequence
from typing import Any

import httpx2
import pytest
from google import genai
from google.genai import errors, types

import paths
from gemini_sdk import held, mine
from jsonsnap.gemini import GenerateContentAccumulator
from jsonsnap.streams import StreamError
from recordings import assert_same_json, byte_cuts, well_formed

FIXTURES = paths.FIXTURES / "gemini"
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
