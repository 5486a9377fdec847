"""Gemini ``streamGenerateContent`` streams: fixtures replayed every way, Vertex's streamed
function-call arguments against the same JSON text, bad paths, hostile chunks, the CLI.

- Each ``fixtures/gemini/X.sse`` is a body as ``alt=sse`` sends it (``data:`` lines, CRLF);
  ``X.json`` the expected end state, written from the intended final content. Replayed whole,
  in 1-, 3-, 7- and 64-byte chunks, at seeded random splits and as text.
- Partial arguments (``partialArgs``) are the same value as the whole ``args``: for random
  argument objects, streamed as entries cut at random places, every event's snapshot is the
  value the entries so far describe, the final value is the object, and the change records
  are those of the object's JSON text (pieces of one string joined).
- Each way a path can be wrong is a StreamError that names it, and the refused chunk changes
  nothing; hostile chunks (reusing test_stream_errors' checks) raise nothing but StreamError.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import paths
from effort import examples
from gemini_args import ARGS, leaves, path_text, pieces_of
from hostile_events import INDEX, TEXT, VALUE, WRONG, check, shaped
from jsonsnap import Appended, Change, Parser
from jsonsnap import __main__ as cli
from jsonsnap.gemini import GenerateContentAccumulator, accumulate, parse_json_path
from jsonsnap.sse import ServerSentEvent
from jsonsnap.streams import PROTOCOLS, StreamError, detect
from recordings import assert_same_json, cut, error_state, ways

FIXTURES: Final = paths.FIXTURES / "gemini"
NAMES: Final = sorted(p.stem for p in FIXTURES.glob("*.sse"))
CASES: Final = frozenset(
    {
        "text",
        "thinking_signature",
        "function_call",
        "parallel_calls",
        "vertex_partial_args",
        "vertex_parallel_streamed_calls",
        "vertex_max_tokens_in_args",
        "vertex_wrong_path",
        "blocked_prompt",
        "safety_finish",
        "error_mid_stream",
    }
)
WAYS: Final = ways(random_rounds=4, text_rounds=2)


def body(name: str) -> bytes:
    return (FIXTURES / f"{name}.sse").read_bytes()


def expected(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


def end_state(acc: GenerateContentAccumulator, error: StreamError | None) -> dict[str, Any]:
    """The accumulator's end state in the shape of the expected files."""
    tools = {}
    for candidate in range(3):
        for tool in acc.tool_calls(candidate):
            value = tool.final() if tool.complete else tool.snapshot
            tools[f"{candidate}:{tool.index}"] = {"status": tool.status, "value": value}
    return {
        "response": acc.response,
        "done": acc.done,
        "error": error_state(error),
        "tools": tools,
    }


def replay(chunks: Iterable[bytes | str]) -> tuple[GenerateContentAccumulator, StreamError | None]:
    acc = GenerateContentAccumulator()
    try:
        for _ in acc.updates(chunks):
            pass
    except StreamError as exc:
        return acc, exc
    return acc, None


# --------------------------------------------------------------------------- the fixtures


def test_every_case_is_there_with_its_expected_file() -> None:
    missing = CASES - set(NAMES)
    assert not missing, sorted(missing)
    assert {p.stem for p in FIXTURES.glob("*.json")} == set(NAMES)
    assert "*.sse -text" in (FIXTURES / ".gitattributes").read_text().splitlines()


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_the_wire_format(name: str) -> None:
    """``data: <compact JSON>`` and a blank line, CRLF line ends, no event names."""
    data = body(name)
    assert data.endswith(b"\r\n\r\n") and b"\n" not in data.replace(b"\r\n", b"")
    for event in data.split(b"\r\n\r\n")[:-1]:
        assert event.startswith(b"data: {") and b"\r\n" not in event
        assert json.loads(event[6:])


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", NAMES)
def test_fixture_replays_to_its_expected_state(name: str, way: str) -> None:
    acc, error = replay(cut(body(name), way))
    assert_same_json(expected(name), end_state(acc, error), f"{name} {way}")


def test_the_partial_arguments_are_the_whole_call() -> None:
    """The Vertex fixture's arguments, sent whole instead, end the same: value and records."""
    streamed = accumulate([body("vertex_partial_args")])
    [tool] = streamed.tool_calls()
    records = tool.changes()  # the whole feed, from its start
    args = expected("vertex_partial_args")["tools"]["0:0"]["value"]
    whole = GenerateContentAccumulator()
    whole.feed(
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": args}}]}}]}
    )
    [other] = whole.tool_calls()
    assert tool.final() == other.final() == args
    assert joined(records) == joined(other.changes())
    assert json.loads(tool.raw) == args


def test_detected_among_the_protocols() -> None:
    assert PROTOCOLS["gemini"] is GenerateContentAccumulator
    for name in NAMES:
        first = body(name).split(b"\r\n\r\n")[0][6:].decode()
        assert detect(ServerSentEvent("message", first, "", None)) == "gemini", name
    assert not GenerateContentAccumulator.looks_like({"choices": [], "candidates": []})
    assert not GenerateContentAccumulator.looks_like({"type": "message_start"})


# --------------------------------------------------------------------------- what is rebuilt


def feed_all(chunks: list[dict[str, Any]], **options: Any) -> GenerateContentAccumulator:
    acc = GenerateContentAccumulator(**options)
    for chunk in chunks:
        acc.feed(chunk)
    return acc


def parts(*items: dict[str, Any], **candidate: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": list(items)}, **candidate}]}


def test_text_parts_join_by_kind_and_keep_every_signature() -> None:
    acc = feed_all(
        [
            parts({"text": "a", "thought": True}, {"text": "b", "thought": True}),
            parts({"text": "c", "thoughtSignature": "S1"}, {"text": "d"}),
            parts({"text": "e", "thoughtSignature": "S1"}),
            parts({"text": "f", "thoughtSignature": "S2"}),
            parts({"functionCall": {"name": "t", "args": {}}}, {"text": "g"}),
        ]
    )
    assert acc.response is not None
    assert acc.response["candidates"][0]["content"]["parts"] == [
        {"text": "ab", "thought": True},
        {"text": "cde", "thoughtSignature": "S1"},
        {"text": "f", "thoughtSignature": "S2"},
        {"functionCall": {"name": "t", "args": {}}},
        {"text": "g"},
    ]


def test_candidates_usage_citations_and_the_end() -> None:
    acc = GenerateContentAccumulator()
    acc.feed(
        {
            "candidates": [
                {"index": 1, "content": {"parts": [{"text": "B"}]}},
                {
                    "content": {"parts": [{"text": "A"}], "role": "model"},
                    "citationMetadata": {"citations": [{"uri": "u1"}]},
                },
            ],
            "usageMetadata": {"promptTokenCount": 3, "billablePromptUsage": {"textCount": 9}},
        }
    )
    updates = acc.feed(
        {
            "candidates": [
                {
                    "index": 0,
                    "finishReason": "STOP",
                    "citationMetadata": {"citations": [{"uri": "u2"}]},
                },
                {"index": 1, "finishReason": "MAX_TOKENS"},
            ],
            "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 8},
        }
    )
    assert [u.event for u in updates] == ["finish", "finish", "usage"]
    assert acc.done and acc.response is not None
    first, second = acc.response["candidates"]
    assert (first["index"], second["index"]) == (0, 1)
    assert first["citationMetadata"] == {"citations": [{"uri": "u1"}, {"uri": "u2"}]}
    assert acc.response["usageMetadata"] == {
        "promptTokenCount": 3,
        "billablePromptUsage": {"textCount": 9},
        "totalTokenCount": 8,
    }
    with pytest.raises(StreamError, match="after the end"):
        acc.feed({"usageMetadata": {"totalTokenCount": 9}})


def test_a_blocked_prompt_ends_the_stream() -> None:
    acc = accumulate([body("blocked_prompt")])
    assert acc.done and acc.response is not None and acc.response["candidates"] == []
    assert acc.response["promptFeedback"]["blockReason"] == "PROHIBITED_CONTENT"


def test_a_cut_call_is_incomplete_and_final_says_so() -> None:
    acc = accumulate([body("vertex_max_tokens_in_args")])
    [tool] = acc.tool_calls()
    assert tool.status == "incomplete"
    with pytest.raises(ValueError, match="cut off"):
        tool.final()


def test_schemas_from_the_request_check_the_streamed_arguments() -> None:
    request = {
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"unit": {"type": "STRING", "enum": ["C", "F"]}},
                            "required": ["unit"],
                        },
                    }
                ]
            }
        ]
    }
    acc = GenerateContentAccumulator(tools=request["tools"])
    acc.feed(parts({"functionCall": {"name": "get_weather", "willContinue": True}}))
    entry = {"jsonPath": "$.unit", "stringValue": "K", "willContinue": True}
    [update] = acc.feed(parts({"functionCall": {"partialArgs": [entry], "willContinue": True}}))
    assert update.violations and update.violations[0].keyword == "enum"
    assert acc.tool_calls()[0].status == "invalid"


def test_structured_output_from_the_generation_config() -> None:
    config = {
        "responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    acc = GenerateContentAccumulator(output_schema={"generationConfig": config})
    acc.feed(parts({"text": '{"n": '}))
    acc.feed(parts({"text": "4}"}, finishReason="STOP"))
    assert acc.structured is not None and acc.structured.final() == {"n": 4}


def test_a_stream_error_payload() -> None:
    acc = GenerateContentAccumulator()
    with pytest.raises(StreamError) as caught:
        acc.feed({"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}})
    assert (caught.value.error_type, caught.value.message) == ("RESOURCE_EXHAUSTED", "Quota")


# --------------------------------------------------------------------------- JSON paths


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("$.a", ("a",)),
        ("$.foo.bar[0].data", ("foo", "bar", 0, "data")),
        ("$['a b'][12]", ("a b", 12)),
        ('$["q\\"\\u00e9\\ud83d\\ude00"]', ('q"é😀',)),
        ("$[ 3 ].x-y", (3, "x-y")),
        ("$.é_1", ("é_1",)),
    ],
)
def test_json_paths(path: str, segments: tuple[Any, ...]) -> None:
    assert parse_json_path(path) == segments


@pytest.mark.parametrize(
    "path",
    [
        "a",
        "$",
        "$.",
        "$..a",
        "$.*",
        "$[*]",
        "$[-1]",
        "$[01]",
        "$[1:2]",
        "$.1a",
        "$['a]",
        "$[?@.a]",
        "$.a b",
        "$[" + "9" * 19 + "]",
        "$['\x01']",
    ],
)
def test_bad_json_paths(path: str) -> None:
    with pytest.raises(ValueError):
        parse_json_path(path)


def start(name: str = "f") -> dict[str, Any]:
    return parts({"functionCall": {"name": name, "willContinue": True}})


def more(*entries: dict[str, Any], go_on: bool = True) -> dict[str, Any]:
    call: dict[str, Any] = {"partialArgs": list(entries)}
    if go_on:
        call["willContinue"] = True
    return parts({"functionCall": call})


def s(path: str, text: str, go_on: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {"jsonPath": path, "stringValue": text}
    if go_on:
        entry["willContinue"] = True
    return entry


def n(path: str, value: Any) -> dict[str, Any]:
    return {"jsonPath": path, "numberValue": value}


@pytest.mark.parametrize(
    ("before", "bad", "message"),
    [
        ([], more(s("$.a", "x"), s("$.a", "y")), r"'\$\.a' goes back to \$\.a, which is finished"),
        ([more(s("$.a.b", "x"), s("$.c", "y"))], more(s("$.a.d", "z")), r"goes back to \$\.a,"),
        (
            [more(s("$.a[0]", "x"))],
            more(s("$.a[2]", "z")),
            r"skips to \$\.a\[2\]: the next element is \[1\]",
        ),
        (
            [more(s("$.a[0]", "x"), s("$.a[1]", "y"))],
            more(s("$.a[0]", "z")),
            r"goes back to \$\.a\[0\]",
        ),
        ([more(s("$.a.b", "x"))], more(s("$.a[0]", "z")), r"indexes \$\.a, which is an object"),
        (
            [more(s("$.a[0]", "x"))],
            more(s("$.a.k", "z")),
            r"names a member of \$\.a, which is an array",
        ),
        (
            [more(s("$.a.b", "x"))],
            more(n("$.a", 1)),
            r"a number for '\$\.a', which is an object so far",
        ),
        (
            [more(s("$.a", "x", go_on=True))],
            more(n("$.a", 1)),
            r"a number for '\$\.a', which is a string",
        ),
        (
            [more(s("$.a", "x", go_on=True))],
            more(s("$.b", "y")),
            r"'\$\.b' while the string at \$\.a was to go on",
        ),
        ([more(s("$.a", "x", go_on=True))], more(go_on=False), r"ended while the string at \$\.a"),
        (
            [],
            more({"jsonPath": "$.a", "numberValue": 1, "willContinue": True}),
            r"willContinue on a number at '\$\.a'",
        ),
        ([], more(s("$..a", "x")), r"bad jsonPath '\$\.\.a': no name or index at char 1"),
        ([], more(s("$[0]", "x")), r"'\$\[0\]' indexes \$, which is an object"),
        ([], more({"jsonPath": "$.a"}), r"'\$\.a' has no value"),
        (
            [],
            more({"jsonPath": "$.a", "stringValue": "x", "boolValue": True}),
            r"stringValue and boolValue",
        ),
        ([], more(n("$.a", float("nan"))), r"numberValue of '\$\.a' is nan"),
        ([], more({"jsonPath": 5, "stringValue": "x"}), r"jsonPath is 5"),
        (
            [],
            parts({"functionCall": {"name": "g", "args": {}}}),
            r"a call to 'g' while the arguments of the call to 'f' stream",
        ),
        ([], parts({"text": "x"}), r"a part of another kind while"),
    ],
)
def test_inconsistent_partial_arguments(
    before: list[dict[str, Any]], bad: dict[str, Any], message: str
) -> None:
    acc = feed_all([start(), *before])
    result = json.dumps(acc.response)
    [tool] = acc.tool_calls()
    raw, snapshot = tool.raw, json.dumps(tool.snapshot)
    with pytest.raises(StreamError, match=message):
        acc.feed(bad)
    assert json.dumps(acc.response) == result  # the refused chunk changed nothing
    assert (tool.raw, json.dumps(tool.snapshot), tool.status) == (raw, snapshot, "streaming")


def test_partial_arguments_with_no_call() -> None:
    with pytest.raises(StreamError, match="partialArgs with no function call open"):
        GenerateContentAccumulator().feed(more(s("$.a", "x")))
    with pytest.raises(StreamError, match="no name"):
        GenerateContentAccumulator().feed(parts({"functionCall": {}}))


def test_a_rejected_chunk_undoes_the_paths_it_wrote() -> None:
    """The first candidate's entries are written, the second candidate is refused: the first
    one's path state is rolled back too, so the same entries pass again."""
    acc = feed_all([start()])
    chunk = more(s("$.a", "x"), s("$.b", "y"))
    chunk["candidates"].append({"index": 1, "content": {"parts": 5}})
    with pytest.raises(StreamError):
        acc.feed(chunk)
    acc.feed(more(s("$.a", "x"), s("$.b", "y"), go_on=False))
    assert acc.tool_calls()[0].final() == {"a": "x", "b": "y"}


# --------------------------------------------------------------------------- property: same value


def put(model: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    """The reference: set ``value`` at ``path``, making containers as the path says."""
    node: Any = model
    for key, nxt in itertools.pairwise(path):
        child: Any = [] if isinstance(nxt, int) else {}
        if isinstance(node, list) and key == len(node):
            node.append(child)
        elif isinstance(node, dict) and key not in node:
            node[key] = child
        node = node[key]
    last = path[-1]
    if isinstance(node, list) and last == len(node):
        node.append(value)
    else:
        node[last] = value


def joined(records: list[Change]) -> list[Any]:
    """Change records with the appends to one string joined (a string in pieces)."""
    out: list[Any] = []
    for record in records:
        if (
            isinstance(record, Appended)
            and out
            and isinstance(out[-1], Appended)
            and out[-1].path == record.path
        ):
            out[-1] = Appended(record.path, out[-1].text + record.text)
        else:
            out.append(record)
    return out


def same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(args=ARGS, data=st.data())
def test_partial_arguments_build_the_same_value_as_the_json_text(
    args: dict[str, Any], data: Any
) -> None:
    draw = data.draw
    entries: list[dict[str, Any]] = []
    models: list[Any] = []  # the value after each entry, by the reference
    model: dict[str, Any] = {}
    for path, leaf in leaves(args):
        where = path_text(path)
        if isinstance(leaf, str):
            pieces = pieces_of(leaf, draw)
            for i, piece in enumerate(pieces):
                entries.append(s(where, piece, go_on=i < len(pieces) - 1))
                put(model, path, "".join(pieces[: i + 1]))
                models.append(json.loads(json.dumps(model)))
            continue
        if leaf is None:
            entries.append({"jsonPath": where, "nullValue": "NULL_VALUE"})
        elif isinstance(leaf, bool):
            entries.append({"jsonPath": where, "boolValue": leaf})
        else:
            entries.append(n(where, leaf))
        put(model, path, leaf)
        models.append(json.loads(json.dumps(model)))
    acc = GenerateContentAccumulator()
    acc.feed(start())
    [tool] = acc.tool_calls()
    records: list[Change] = tool.changes()
    # Entries grouped into chunks at random; the snapshot after each chunk is the reference's.
    position = 0
    while position < len(entries):
        size = draw(st.integers(1, 4))
        acc.feed(more(*entries[position : position + size]))
        position = min(position + size, len(entries))
        records += tool.changes()
        shown = tool.snapshot
        assert same(shown, models[position - 1])
    acc.feed(more(go_on=False))
    records += tool.changes()
    assert tool.final() == args and json.loads(tool.raw) == args
    whole = Parser(track_changes=True)
    whole.feed(json.dumps(args, ensure_ascii=False))
    whole.close()
    assert joined(records) == joined(whole.changes())


def test_numbers_show_at_once_and_keep_their_type() -> None:
    acc = feed_all([start()])
    [tool] = acc.tool_calls()
    acc.feed(more(n("$.i", 5), n("$.f", 5.0), n("$.x", 0.5), n("$.e", 1e300)))
    assert same(tool.snapshot, {"i": 5, "f": 5, "x": 0.5, "e": 1e300})
    acc.feed(more(go_on=False))
    assert type(tool.final()["f"]) is int and math.isclose(tool.final()["e"], 1e300)


# --------------------------------------------------------------------------- hostile chunks

ENTRY = shaped(
    {
        "jsonPath": st.sampled_from(["$.a", "$.a.b", "$.a[0]", "$.a[1]", "$[0]", "$..x", "$.b"]),
        "stringValue": TEXT,
        "numberValue": st.one_of(st.integers(-3, 3), st.floats()),
        "boolValue": st.booleans(),
        "nullValue": st.sampled_from(["NULL_VALUE", None]),
        "willContinue": st.booleans(),
    }
)
CALL = shaped(
    {
        "name": st.sampled_from(["f", "g", ""]),
        "id": TEXT,
        "args": st.one_of(VALUE, st.just({"x": [1, {"y": "z"}]})),
        "partialArgs": st.lists(ENTRY, max_size=3),
        "willContinue": st.booleans(),
    }
)
PART = shaped(
    {
        "text": TEXT,
        "thought": st.one_of(st.booleans(), WRONG),
        "thoughtSignature": TEXT,
        "functionCall": CALL,
        "inlineData": VALUE,
    }
)
CANDIDATE = shaped(
    {
        "index": st.one_of(st.integers(0, 2), INDEX),
        "content": shaped({"role": st.just("model"), "parts": st.lists(PART, max_size=3)}),
        "finishReason": st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY"]),
        "safetyRatings": VALUE,
        "citationMetadata": shaped({"citations": st.lists(VALUE, max_size=2)}),
    }
)
CHUNKS = st.one_of(
    shaped(
        {
            "candidates": st.lists(CANDIDATE, max_size=2),
            "usageMetadata": VALUE,
            "promptFeedback": shaped({"blockReason": st.sampled_from(["SAFETY", ""])}),
            "modelVersion": TEXT,
        }
    ),
    st.builds(lambda e: {"error": e}, VALUE),
)


@settings(max_examples=examples(150, default=70), suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(CHUNKS, max_size=6))
@example(
    chunks=[
        start(),
        more(s("$.a", "x", go_on=True)),
        {
            "candidates": [
                {"content": {"parts": [{"functionCall": {"partialArgs": [s("$.a", "y")]}}]}},
                {"index": 1, "content": {"parts": [{"text": 5}]}},
            ]
        },
    ]
)
@example(  # a call ends and another to the same function opens in one chunk (AttributeError)
    chunks=[
        start(),
        parts(
            {"functionCall": {"partialArgs": [s("$.a", "x")]}},
            {"functionCall": {"name": "f", "willContinue": True, "partialArgs": [s("$.b", "y")]}},
        ),
    ]
)
def test_hostile_chunks(chunks: list[Any]) -> None:
    check(GenerateContentAccumulator, None, chunks)


@pytest.mark.parametrize("data", ["{not json", "[1]", '"x"', "[" * 100_000, "NaN"])
def test_data_that_is_not_a_json_object(data: str) -> None:
    acc = GenerateContentAccumulator()
    with pytest.raises(StreamError, match="not"):
        acc.feed(ServerSentEvent("message", data, "", None))
    assert acc.events == 0 and acc.response is None


def test_deep_args_are_no_recursion() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"k": [deep]}
    acc = feed_all([parts({"functionCall": {"name": "f", "args": deep}})])
    assert acc.tool_calls()[0].complete


# --------------------------------------------------------------------------- the command line


@pytest.mark.parametrize("name", NAMES)
def test_replay_detects_and_plays_a_gemini_body(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(FIXTURES / f"{name}.sse")
    status = cli.main(["replay", path])
    out, err = capsys.readouterr()
    error = expected(name)["error"]
    unfit = any(tool["status"] != "complete" for tool in expected(name)["tools"].values())
    assert status == (1 if error or unfit else 0), err  # a call not fit to run fails too
    assert "\x1b" not in out and ("stream error" in err) == (error is not None)
    assert "no protocol" not in err
    assert out.count("╭─") == out.count("╰─") == len(expected(name)["tools"])
    status = cli.main(["replay", path, "--json"])
    out, _ = capsys.readouterr()
    assert_same_json(expected(name)["response"], json.loads(out), name)
