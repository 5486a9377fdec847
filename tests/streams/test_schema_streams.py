"""Tool calls and structured outputs checked against the request's schemas, in every accumulator.

The schema fixtures (``fixtures/anthropic/schema_*``, ``fixtures/openai/*_schema_*``, with the
request beside each in ``schemas/X.request.json`` and the checked end state in
``schemas/X.checked.json``; see ``fixtures/README.md``) are replayed whole, byte by byte, in
3-, 7- and 64-byte chunks, at seeded random splits and as text, with the request's ``tools`` or
output format given to the accumulator. A wrong enum value in a tool call is reported by the
event that brings its first offending character, before the call ends, at that character; a
structured output ends as the dataclass it was asked for, and its typed view is never of the
wrong type on the way. Property tests: valid arguments never give a violation, and a wrong
enum value always gives exactly one, where it becomes certain.
"""

from __future__ import annotations

import itertools
import json
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Final, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from effort import examples
from jsonsnap import NOT_YET, FieldState, Schema, SchemaDefinitionError, SchemaError
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import (
    PROTOCOLS,
    Accumulator,
    StructuredOutput,
    StructuredOutputError,
    ToolInput,
    ToolInputError,
    Update,
    tool_schemas,
)
from recordings import ROOT, assert_same_json, cut, ways

# --------------------------------------------------------------------------- the fixtures

#: The schema fixtures: protocol, folder, name.
CASES: Final = [
    ("anthropic", "anthropic", "schema_tool_enum"),
    ("anthropic", "anthropic", "schema_structured"),
    ("chat", "openai", "chat_schema_tool_enum"),
    ("chat", "openai", "chat_schema_structured"),
    ("responses", "openai", "responses_schema_tool_enum"),
    ("responses", "openai", "responses_schema_structured"),
]
TOOL_CASES: Final = [case for case in CASES if "tool_enum" in case[2]]
STRUCTURED_CASES: Final = [case for case in CASES if "structured" in case[2]]
WAYS: Final = ways(random_rounds=3, text_rounds=1)
#: The wrong value of each tool fixture, and the event type that ends its call.
WRONG: Final = {
    "schema_tool_enum": ("kelvin", "content_block_stop"),
    "chat_schema_tool_enum": ("urgent", "chunk with finish_reason"),
    "responses_schema_tool_enum": ("patio", "response.function_call_arguments.done"),
}


def ids(case: tuple[str, str, str]) -> str:
    return case[2]


def body(case: tuple[str, str, str]) -> bytes:
    return (ROOT / case[1] / f"{case[2]}.sse").read_bytes()


def beside(case: tuple[str, str, str], kind: str) -> dict[str, Any]:
    """``schemas/X.request.json`` or ``schemas/X.checked.json``, or ``X.json`` (kind "")."""
    folder = ROOT / case[1]
    path = folder / f"{case[2]}.json" if not kind else folder / "schemas" / f"{case[2]}.{kind}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def output_format(request: dict[str, Any]) -> Any:
    """The structured output format of a request body, as each API puts it."""
    return request.get("response_format") or request.get("text") or request.get("output_format")


def make(case: tuple[str, str, str], output_schema: Any = None) -> Accumulator:
    """The fixture's accumulator, given its request's tools and output format."""
    request = beside(case, "request")
    return PROTOCOLS[case[0]](
        tools=request.get("tools"), output_schema=output_schema or output_format(request)
    )


def tools_of(acc: Accumulator) -> dict[str, ToolInput]:
    """The tool inputs under the expected files' keys (``"<choice>:<index>"`` for Chat)."""
    if isinstance(acc, ChatCompletionAccumulator):
        return {
            f"{choice['index']}:{tool.index}": tool
            for choice in acc.completion["choices"]
            for tool in acc.tool_calls(choice["index"])
        }
    return {str(index): tool for index, tool in acc.tools.items()}


def outputs_of(acc: Accumulator) -> dict[str, StructuredOutput]:
    if isinstance(acc, ChatCompletionAccumulator):
        found = {
            str(c["index"]): acc.structured_output(c["index"]) for c in acc.completion["choices"]
        }
    else:
        found = {"0": acc.structured}
    return {key: output for key, output in found.items() if output is not None}


def violations(found: Sequence[SchemaError]) -> list[dict[str, Any]]:
    return [
        {"pointer": v.pointer, "keyword": v.keyword, "pos": v.pos, "start": v.start} for v in found
    ]


def checked_state(acc: Accumulator) -> dict[str, Any]:
    """The accumulator's checked end state in the shape of ``X.checked.json``."""
    return {
        "tools": {
            key: {
                "status": tool.status,
                "violations": violations(tool.violations),
                "missing": tool.missing(),
            }
            for key, tool in tools_of(acc).items()
        },
        "structured": {
            key: {
                "status": output.status,
                "value": output.snapshot,
                "violations": violations(output.violations),
            }
            for key, output in outputs_of(acc).items()
        },
    }


def test_every_schema_fixture_has_its_files() -> None:
    for case in CASES:
        folder = ROOT / case[1]
        for path in (
            folder / f"{case[2]}.sse",
            folder / f"{case[2]}.json",
            folder / "schemas" / f"{case[2]}.request.json",
            folder / "schemas" / f"{case[2]}.checked.json",
        ):
            assert path.is_file(), path
    found = {
        p.name for folder in ("anthropic", "openai") for p in (ROOT / folder / "schemas").iterdir()
    }
    assert found == {f"{c[2]}.{kind}.json" for c in CASES for kind in ("request", "checked")}


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_each_request_is_in_its_apis_shape(case: tuple[str, str, str]) -> None:
    request = beside(case, "request")
    protocol = case[0]
    for tool in request.get("tools", []):
        if protocol == "anthropic":
            assert set(tool) == {"name", "description", "input_schema"}
        elif protocol == "chat":
            assert tool["type"] == "function" and {"name", "parameters"} <= set(tool["function"])
        else:
            assert tool["type"] == "function" and {"name", "parameters", "strict"} <= set(tool)
    if "structured" in case[2]:
        fmt = output_format(request)
        shape = {"anthropic": "output_format", "chat": "response_format", "responses": "text"}
        assert fmt is request[shape[protocol]]
        if protocol == "chat":
            assert {"name", "schema", "strict"} <= set(fmt["json_schema"])
        elif protocol == "responses":
            assert fmt["format"]["type"] == "json_schema" and "schema" in fmt["format"]
        else:
            assert fmt["type"] == "json_schema" and "schema" in fmt
    if protocol == "responses":  # the response repeats the request's tools and format
        created = next(
            json.loads(e.data)
            for e in SSEDecoder().feed(body(case))
            if e.event == "response.created"
        )
        assert created["response"]["tools"] == request.get("tools", [])
        if "text" in request:
            assert created["response"]["text"] == request["text"]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("case", CASES, ids=ids)
def test_replay_gives_the_checked_state(case: tuple[str, str, str], way: str) -> None:
    acc = make(case)
    found = [update for update in acc.updates(cut(body(case), way)) if update.violations]
    assert_same_json(beside(case, "checked"), checked_state(acc), f"{case[2]} {way}")
    # The schemas change nothing in the result: it is the fixture's expected one.
    want = beside(case, "")
    result = (
        "message" if case[0] == "anthropic" else "completion" if case[0] == "chat" else "response"
    )
    assert_same_json(want[result], acc.result, case[2])
    assert {key: tool.raw for key, tool in tools_of(acc).items()} == {
        key: tool["raw"] for key, tool in want["tools"].items()
    }
    # Each violation is reported once, by one update.
    reported = [v for update in found for v in update.violations]
    everything = [v for tool in tools_of(acc).values() for v in tool.violations]
    everything += [v for output in outputs_of(acc).values() for v in output.violations]
    assert reported == everything


# --------------------------------------------------------------------------- tool calls


def decoded_events(case: tuple[str, str, str]) -> list[Any]:
    decoder = SSEDecoder(errors="strict")
    return [
        e.data if e.data == "[DONE]" else json.loads(e.data)
        for e in [*decoder.feed(body(case)), *decoder.close()]
    ]


def end_kind(event: Any) -> str:
    if isinstance(event, dict) and "choices" in event:
        finished = any(c.get("finish_reason") for c in event["choices"])
        return "chunk with finish_reason" if finished else "chunk"
    return event["type"] if isinstance(event, dict) else str(event)


@pytest.mark.parametrize("case", TOOL_CASES, ids=ids)
def test_a_wrong_enum_value_is_reported_before_the_call_ends(case: tuple[str, str, str]) -> None:
    """Event by event: the feed of the event whose fragment brings the wrong value's first
    character returns an update carrying the violation, the call still streaming; the call's
    end event comes later. The violation's ``pos`` is that character in ``raw``."""
    wrong, end = WRONG[case[2]]
    acc = make(case)
    reported_at = ended_at = None
    for number, event in enumerate(decoded_events(case)):
        before = {key: len(tool.raw) for key, tool in tools_of(acc).items()}
        for update in acc.feed(event):
            if update.violations:
                assert reported_at is None and update.tool is not None
                tool = update.tool
                assert not tool.ended and tool.status == "invalid"
                (found,) = update.violations
                assert found.keyword == "enum" and found is tool.schema_error
                assert tool.raw[found.pos] == wrong[0] and tool.raw[found.start] == '"'
                key = next(k for k, t in tools_of(acc).items() if t is tool)
                assert before.get(key, 0) <= found.pos < len(tool.raw)  # this event brought it
                assert update.fragment and found.pos >= len(tool.raw) - len(update.fragment)
                reported_at = number
        if ended_at is None and any(t.ended and t.violations for t in tools_of(acc).values()):
            ended_at = number
            assert end_kind(event) == end
    assert reported_at is not None and ended_at is not None
    assert reported_at < ended_at
    (tool,) = [tool for tool in tools_of(acc).values() if tool.violations]
    found = tool.violations[0]
    assert json.loads(tool.raw[found.start : found.pos + len(wrong) + 1]) == wrong


@pytest.mark.parametrize("way", ["1-byte", "random#0", "random#2", "text-random#0"])
@pytest.mark.parametrize("case", TOOL_CASES, ids=ids)
def test_the_violation_comes_while_the_call_streams_however_cut(
    case: tuple[str, str, str], way: str
) -> None:
    wrong, _ = WRONG[case[2]]
    acc = make(case)
    seen: list[tuple[str, bool]] = []
    for update in acc.updates(cut(body(case), way)):
        if update.tool is not None and update.tool.schema is not None:
            if update.violations:
                found = update.violations[0]
                assert update.tool.raw[found.pos] == wrong[0]
                assert len(update.tool.raw) - len(update.fragment) <= found.pos
            seen.append(("violation" if update.violations else "update", update.tool.ended))
    flagged = [i for i, (kind, _) in enumerate(seen) if kind == "violation"]
    first_end = next(i for i, (_, ended) in enumerate(seen) if ended)
    assert len(flagged) == 1 and flagged[0] < first_end and not seen[flagged[0]][1]


@pytest.mark.parametrize("case", TOOL_CASES, ids=ids)
def test_final_refuses_an_invalid_call_and_names_the_violation(case: tuple[str, str, str]) -> None:
    acc = make(case)
    acc.read(body(case))
    invalid = [tool for tool in tools_of(acc).values() if tool.violations]
    assert len(invalid) == 1
    tool = invalid[0]
    assert tool.error is None and tool.ended and not tool.complete
    with pytest.raises(ToolInputError) as caught:
        tool.final()
    assert caught.value.__cause__ is tool.violations[0]
    assert "breaks its schema" in str(caught.value) and tool.violations[0].pointer in str(
        caught.value
    )
    assert tool.field_state((tool.violations[0].path[0],)) is FieldState.INVALID
    # The same stream unchecked: the call is complete, its value the snapshot.
    plain = PROTOCOLS[case[0]]().read(body(case))
    plain_tool = tools_of(plain)[next(k for k, t in tools_of(acc).items() if t is tool)]
    assert plain_tool.schema is None and plain_tool.final() == tool.snapshot


# --------------------------------------------------------------------------- structured outputs


@dataclass
class LineItem:
    description: str
    quantity: int
    unit_price: float


@dataclass
class Invoice:
    invoice_number: str
    vendor: str
    issued: str
    currency: Literal["EUR", "USD", "GBP"]
    items: list[LineItem]
    total: float
    paid: bool
    notes: str | None


@dataclass
class Attendee:
    name: str
    email: str | None


@dataclass
class Meeting:
    title: str
    date: str
    start: str
    duration_minutes: int
    attendees: list[Attendee]
    online: bool
    location: str | None


@dataclass
class Ingredient:
    name: str
    amount: float
    unit: Literal["g", "ml", "piece", "tbsp", "tsp"]


@dataclass
class Recipe:
    title: str
    servings: int
    vegetarian: bool
    prep_minutes: int
    ingredients: list[Ingredient]
    steps: list[str]


_PEOPLE = [Attendee("Ana Souza", "ana@example.com"), Attendee("Jörg Weiß", None)]
#: What each structured fixture must end as, per choice.
TYPED: Final[dict[str, tuple[type, list[Any]]]] = {
    "schema_structured": (
        Invoice,
        [
            Invoice(
                "INV-2025-0417",
                "Nordlys Kontor AS",
                "2025-04-17",
                "EUR",
                [
                    LineItem('Ergonomic chair "Vega" \u2013 oak', 2, 349.5),
                    LineItem("Desk lamp, 40 W", 3, 42.0),
                    LineItem("Delivery to Troms\u00f8", 1, 59.9),
                ],
                884.9,
                False,
                "Net 30 — ref. PO 7731",
            )
        ],
    ),
    "chat_schema_structured": (
        Meeting,
        [
            Meeting("Q3 roadmap review", "2025-06-12", "14:30", 45, _PEOPLE, True, None),
            Meeting(
                "Q3 roadmap review", "2025-06-12", "14:30", 45, _PEOPLE, False, 'Room 4B "Fjord"'
            ),
        ],
    ),
    "responses_schema_structured": (
        Recipe,
        [
            Recipe(
                "Shakshuka",
                2,
                True,
                25,
                [
                    Ingredient("eggs", 4, "piece"),
                    Ingredient("crushed tomatoes", 400, "g"),
                    Ingredient("olive oil", 2, "tbsp"),
                    Ingredient("ground cumin", 1.5, "tsp"),
                ],
                [
                    "Warm the oil and soften the onion — about 5 min.",
                    "Add the tomatoes and cumin; simmer 10 min.",
                    "Make 4 wells, crack in the eggs, cover and cook until just set.",
                ],
            )
        ],
    ),
}


def conforms(value: Any, tp: Any, where: str = "$") -> None:
    """``value`` is :data:`NOT_YET` or of type ``tp``, all the way down (a Literal's value one
    of its values, an int not a bool)."""
    if value is NOT_YET:
        return
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        assert value in args, (where, value)
    elif origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        assert any(_fits(value, arg) for arg in args), (where, value)
        for arg in args:
            if _fits(value, arg):
                conforms(value, arg, where)
                break
    elif origin is list:
        assert isinstance(value, list), (where, value)
        for i, item in enumerate(value):
            conforms(item, args[0], f"{where}[{i}]")
    elif is_dataclass(tp):
        assert type(value) is tp, (where, value)
        hints = typing.get_type_hints(tp)
        for field in fields(tp):
            conforms(getattr(value, field.name), hints[field.name], f"{where}.{field.name}")
    else:
        assert _fits(value, tp), (where, value, tp)


def _fits(value: Any, tp: Any) -> bool:
    if tp is type(None):
        return value is None
    if tp is float:
        return type(value) in (int, float)
    if tp is int:
        return type(value) is int
    origin = typing.get_origin(tp)
    if origin is list:
        return isinstance(value, list)
    if is_dataclass(tp):
        return type(value) is tp
    return isinstance(value, tp)


@pytest.mark.parametrize("case", STRUCTURED_CASES, ids=ids)
def test_a_structured_output_ends_as_its_dataclass(case: tuple[str, str, str]) -> None:
    tp, want = TYPED[case[2]]
    for way in ("whole", "1-byte", "random#1"):
        acc = make(case, output_schema=tp)
        updates = list(acc.updates(cut(body(case), way)))
        outputs = outputs_of(acc)
        assert [outputs[str(i)].final() for i in range(len(want))] == want, way
        for i, output in outputs.items():
            assert type(output.final()) is tp and output.status == "complete" and output.ended
            done = [u for u in updates if u.event == "structured_done" and u.structured is output]
            assert len(done) == 1, i
        assert all(u.structured is not None for u in updates if u.text and not u.thinking)
    # Given the request's own format (a JSON Schema), the final value is the JSON.
    acc = make(case)
    acc.read(body(case))
    checked = beside(case, "checked")["structured"]
    assert {k: o.final() for k, o in outputs_of(acc).items()} == {
        k: v["value"] for k, v in checked.items()
    }


@pytest.mark.parametrize("way", ["1-byte", "7-byte", "random#0", "text-random#0"])
@pytest.mark.parametrize("case", STRUCTURED_CASES, ids=ids)
def test_the_typed_view_is_never_of_the_wrong_type(case: tuple[str, str, str], way: str) -> None:
    tp, want = TYPED[case[2]]
    acc = make(case, output_schema=tp)
    views = 0
    fields_seen = 0
    for update in acc.updates(cut(body(case), way)):
        if update.structured is None:
            continue
        view = update.structured.view()
        conforms(view, tp)
        views += 1
        if view is not NOT_YET:
            known = sum(getattr(view, f.name) is not NOT_YET for f in fields(tp))
            fields_seen = max(fields_seen, known)
        assert not update.violations
    assert views > 10 and fields_seen == len(fields(tp))
    outputs = outputs_of(acc)
    assert [outputs[str(i)].view() for i in range(len(want))] == want


def test_the_view_leaves_out_a_literal_until_it_is_whole() -> None:
    """``"unit": "pie`` is not a unit: the view shows NOT_YET there, then ``"piece"``."""
    acc = ResponseAccumulator(output_schema=Ingredient)
    acc.feed(_response_event("response.created"))
    acc.feed(_message_added())
    shown = []
    for piece in ['{"name":"eggs","amount":4,"unit":"p', "ie", 'ce"', "}"]:
        (update,) = acc.feed(_text_delta(piece))
        view = update.structured.view()  # type: ignore[union-attr]
        conforms(view, Ingredient)
        shown.append(view.unit)
    assert shown == [NOT_YET, NOT_YET, "piece", "piece"]


# --------------------------------------------------------------------------- streams by hand

WEATHER: Final = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "include_hourly": {"type": "boolean"},
    },
    "required": ["location", "unit"],
}
ANTHROPIC_TOOLS: Final = [{"name": "get_weather", "description": "d", "input_schema": WEATHER}]
CHAT_TOOLS: Final = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}
]
RESPONSES_TOOLS: Final = [{"type": "function", "name": "get_weather", "parameters": WEATHER}]


def _response_event(kind: str, **extra: Any) -> dict[str, Any]:
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    return {"type": kind, "response": response | extra}


def _message_added() -> dict[str, Any]:
    item = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    return {"type": "response.output_item.added", "output_index": 0, "item": item}


def _text_delta(text: str) -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "delta": text,
    }


def anthropic_events(
    pieces: Sequence[str] | None,
    name: str = "get_weather",
    text: Sequence[str] = (),
    thinking: str = "",
) -> Iterator[dict[str, Any]]:
    """A Messages stream: reasoning and text blocks (if any), then one tool call."""
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []}
    yield {"type": "message_start", "message": message | {"usage": {"input_tokens": 1}}}
    index = 0
    for kind, parts in (("thinking", [thinking] if thinking else []), ("text", text)):
        if not parts:
            continue
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": kind, kind: ""},
        }
        for part in parts:
            delta = {"type": f"{kind}_delta", kind: part}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    if pieces is not None:
        block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}
        yield {"type": "content_block_start", "index": index, "content_block": block}
        for piece in pieces:
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use"},
        "usage": {"output_tokens": 9},
    }
    yield {"type": "message_stop"}


def chat_events(pieces: Sequence[str], name: str = "get_weather") -> Iterator[Any]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}

    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    yield chunk({"role": "assistant", "tool_calls": [call]})
    for piece in pieces:
        yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
    yield chunk({}, "tool_calls")
    yield "[DONE]"


def responses_events(pieces: Sequence[str], name: str = "get_weather") -> Iterator[dict[str, Any]]:
    yield _response_event("response.created")
    item = {
        "id": "fc_1",
        "type": "function_call",
        "arguments": "",
        "call_id": "call_1",
        "name": name,
    }
    yield {"type": "response.output_item.added", "output_index": 0, "item": item}
    for piece in pieces:
        yield {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": piece}
    raw = "".join(pieces)
    yield {"type": "response.function_call_arguments.done", "output_index": 0, "arguments": raw}
    yield {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": item | {"arguments": raw},
    }
    done = item | {"arguments": raw, "status": "completed"}
    yield _response_event("response.completed", status="completed", output=[done])


STREAMS: Final = {
    "anthropic": (MessageAccumulator, anthropic_events, ANTHROPIC_TOOLS),
    "chat": (ChatCompletionAccumulator, chat_events, CHAT_TOOLS),
    "responses": (ResponseAccumulator, responses_events, RESPONSES_TOOLS),
}


#: The length of the tool input's raw text when each update of :func:`run` was made.
RAW_LENGTHS: dict[int, int] = {}


def run(
    protocol: str, pieces: Sequence[str], tools: Any = None, name: str = "get_weather"
) -> tuple[ToolInput, list[Update]]:
    """One tool call streamed in ``pieces`` through the protocol's accumulator."""
    cls, events, own_tools = STREAMS[protocol]
    acc = cls(tools=own_tools if tools is None else tools)
    updates = []
    RAW_LENGTHS.clear()
    for event in events(pieces, name):
        for update in acc.feed(event):
            updates.append(update)
            RAW_LENGTHS[id(update)] = len(update.tool.raw) if update.tool else 0
    (tool,) = acc.tool_calls()
    return tool, updates


def pieces_of(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@st.composite
def valid_arguments(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    value: dict[str, Any] = {
        "location": draw(st.text(max_size=20)),
        "unit": draw(st.sampled_from(["celsius", "fahrenheit"])),
    }
    if draw(st.booleans()):
        value["include_hourly"] = draw(st.booleans())
    if draw(st.booleans()):
        value = dict(reversed(value.items()))
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 2])),
        separators=draw(st.sampled_from([None, (",", ":")])),
    )
    return value, pieces_of(draw, text)


@settings(max_examples=examples(60), deadline=None)
@given(valid_arguments(), st.sampled_from(sorted(STREAMS)))
def test_valid_arguments_never_give_a_violation(
    case: tuple[dict[str, Any], list[str]], protocol: str
) -> None:
    value, pieces = case
    tool, updates = run(protocol, pieces)
    assert tool.schema is not None
    assert not any(update.violations for update in updates)
    assert tool.violations == [] and tool.status == "complete" and tool.missing() == []
    assert tool.final() == value


@st.composite
def wrong_units(draw: st.DrawFn) -> tuple[str, int, list[str]]:
    """Arguments with a unit that is no allowed value (ASCII letters: no escapes), the offset
    of the character that makes it certain, and the text cut in pieces."""
    unit = draw(
        st.text("acdefhilnrstuxCF", max_size=12).filter(
            lambda u: u not in ("celsius", "fahrenheit")
        )
    )
    text = json.dumps({"location": "Oslo", "unit": unit})
    start = text.index('"unit": ') + len('"unit": ')
    known = next(
        (
            k
            for k in range(len(unit))
            if not any(v.startswith(unit[: k + 1]) for v in ("celsius", "fahrenheit"))
        ),
        len(unit),  # a prefix of an allowed value: certain at the closing quote
    )
    return unit, start + 1 + known, pieces_of(draw, text)


@settings(max_examples=examples(60), deadline=None)
@given(wrong_units(), st.sampled_from(sorted(STREAMS)))
def test_a_wrong_unit_gives_one_violation_where_it_becomes_certain(
    case: tuple[str, int, list[str]], protocol: str
) -> None:
    unit, pos, pieces = case
    tool, updates = run(protocol, pieces)
    (found,) = tool.violations
    assert (found.pointer, found.keyword, found.pos, found.found is not None) == (
        "/unit",
        "enum",
        pos,
        True,
    )
    flagged = [u for u in updates if u.violations]
    assert len(flagged) == 1 and flagged[0].violations == (found,)
    then = RAW_LENGTHS[id(flagged[0])]
    assert then > pos  # the raw text had reached the character when it was reported...
    assert then - len(flagged[0].fragment) <= pos  # ...and this event brought it
    assert tool.status == "invalid" and tool.snapshot["unit"] == unit


# --------------------------------------------------------------------------- tools=


@pytest.mark.parametrize("protocol", sorted(STREAMS))
def test_every_shape_of_tools_in_every_accumulator(protocol: str) -> None:
    pieces = ['{"location": "Oslo", "unit": "kel', 'vin"}']
    shapes: list[Any] = [
        ANTHROPIC_TOOLS,
        CHAT_TOOLS,
        RESPONSES_TOOLS,
        {"get_weather": WEATHER},
        {"get_weather": Schema(WEATHER)},
        {"*": WEATHER},
        tool_schemas(ANTHROPIC_TOOLS),
        (tool for tool in CHAT_TOOLS),
    ]
    for tools in shapes:
        tool, _ = run(protocol, pieces, tools)
        assert [v.pos for v in tool.violations] == [30], tools
    # A tool not among them, or one without an input schema, is parsed unchecked.
    server = [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]
    custom = [{"type": "custom", "custom": {"name": "get_weather"}}, {"type": "web_search"}]
    for tools in (ANTHROPIC_TOOLS, server, custom, {"other": WEATHER}):
        tool, _ = run(
            protocol, pieces, tools, name="get_time" if tools is ANTHROPIC_TOOLS else "get_weather"
        )
        assert tool.schema is None and tool.status == "complete" and tool.violations == []


def test_schemas_are_compiled_once_and_keep_what_they_do_not_check() -> None:
    tools = [
        {"name": "a", "input_schema": {"type": "object", "x-ui": {"order": 1}}},
        {"type": "function", "function": {"name": "b", "parameters": {"type": "object"}}},
        {"type": "function", "name": "c", "parameters": {"type": "object"}, "strict": True},
        {"type": "function", "function": {"name": "d"}},  # no parameters: unchecked
    ]
    schemas = tool_schemas(tools)
    assert sorted(schemas) == ["a", "b", "c"]
    assert schemas["a"].unchecked == (("#", "x-ui"),)
    for cls in (MessageAccumulator, ChatCompletionAccumulator, ResponseAccumulator):
        acc = cls(tools=schemas)
        assert all(acc.schemas[name] is schemas[name] for name in schemas)
    invoice = MessageAccumulator(
        output_schema=beside(STRUCTURED_CASES[0], "request")["output_format"]
    )
    assert invoice.structured is not None
    assert ("/properties/issued", "format") in invoice.structured.schema.unchecked  # type: ignore[union-attr]


def test_bad_tools_and_formats_are_type_errors_that_name_the_parameter() -> None:
    for cls in (MessageAccumulator, ChatCompletionAccumulator, ResponseAccumulator):
        for bad in (
            42,
            "get_weather",
            b"x",
            [42],
            [ANTHROPIC_TOOLS],
            {1: WEATHER},
            ANTHROPIC_TOOLS[0],
        ):
            with pytest.raises(TypeError, match=r"tools="):
                cls(tools=bad)
        for fmt in (42, "json", [WEATHER]):
            with pytest.raises(TypeError, match=r"output_schema="):
                cls(output_schema=fmt)
        with pytest.raises(TypeError, match="toolz"):
            cls(toolz=[])  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"tools=: item 0 .* name is 42"):
        MessageAccumulator(tools=[{"name": 42, "input_schema": {}}])
    with pytest.raises(ValueError, match="get_weather' twice"):
        MessageAccumulator(tools=ANTHROPIC_TOOLS + CHAT_TOOLS)
    with pytest.raises(SchemaDefinitionError, match="tool 'x'"):
        MessageAccumulator(tools={"x": {"type": "nope"}})
    with pytest.raises(ValueError, match="without its schema"):
        ChatCompletionAccumulator(
            output_schema={"type": "json_schema", "json_schema": {"name": "x"}}
        )


def test_an_empty_input_is_checked_as_an_empty_object() -> None:
    tool, updates = run("anthropic", [])
    assert tool.raw == "" and tool.snapshot == {}
    assert [v.keyword for v in tool.violations] == ["required"]
    assert tool.status == "invalid" and tool.missing() == ["location", "unit"]
    assert sum(len(u.violations) for u in updates) == 1
    unchecked, _ = run("anthropic", [], name="other")
    assert unchecked.final() == {}


def test_field_states_and_missing_fields_while_the_call_streams() -> None:
    acc = MessageAccumulator(tools=ANTHROPIC_TOOLS)
    events = list(anthropic_events(['{"location": "Os', 'lo", "unit": "c', 'elsius"}']))
    states = []
    for event in events:
        acc.feed(event)
        if event["type"] == "content_block_delta":
            tool = acc.tools[0]
            states.append(
                (tool.field_state(["location"]), tool.field_state(["unit"]), tool.missing())
            )
    assert states == [
        (FieldState.STREAMING, FieldState.PENDING, ["unit"]),
        (FieldState.COMPLETE, FieldState.STREAMING, []),
        (FieldState.COMPLETE, FieldState.COMPLETE, []),
    ]
    assert acc.tools[0].field_state(["include_hourly"]) is FieldState.ABSENT
    assert acc.tools[0].final() == {"location": "Oslo", "unit": "celsius"}


def test_the_change_feed_of_a_checked_input() -> None:
    acc = ChatCompletionAccumulator(tools=CHAT_TOOLS)
    events = list(chat_events(['{"location": "Oslo", ', '"unit": "kel', 'vin"}']))
    acc.feed(events[0])
    records: list[Any] = []
    acc.tool_calls()[0].subscribe(["unit"], records.append)
    for event in events[1:]:
        acc.feed(event)
    tool = acc.tool_calls()[0]
    assert tool.schema is not None and [v.pointer for v in tool.violations] == ["/unit"]
    assert records and records[-1].value == "kelvin"
    assert "".join(r.text for r in records if isinstance(r, jsonsnap.Appended)) == "kelvin"


def test_a_legacy_function_call_is_checked_by_its_name() -> None:
    acc = ChatCompletionAccumulator(tools=[{"name": "get_weather", "parameters": WEATHER}])
    for piece in ['{"location": "Oslo", "unit": "x"}']:
        chunk = {
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {"function_call": {"name": "get_weather", "arguments": piece}},
                }
            ],
        }
        acc.feed(chunk)
    acc.feed("[DONE]")
    function = acc.function_call()
    assert function is not None and [v.pos for v in function.violations] == [30]


# --------------------------------------------------------------------------- output_schema=


@pytest.mark.parametrize(
    "fmt",
    [
        {"type": "json_schema", "json_schema": {"name": "w", "schema": WEATHER, "strict": False}},
        {"type": "json_schema", "name": "w", "schema": WEATHER, "strict": False},
        {"format": {"type": "json_schema", "name": "w", "schema": WEATHER}},
        {"type": "json_schema", "schema": WEATHER},
        WEATHER,
        Schema(WEATHER),
    ],
    ids=["chat", "responses", "text", "anthropic", "schema", "compiled"],
)
def test_every_shape_of_output_format(fmt: Any) -> None:
    acc = MessageAccumulator(output_schema=fmt)
    text = ['{"location": "Oslo",', ' "unit": "kel', 'vin"}']
    updates = [
        u for e in anthropic_events(None, text=text, thinking='{"unit": "k"}') for u in acc.feed(e)
    ]
    output = acc.structured
    assert output is not None and output.raw == "".join(text)  # the reasoning is not the answer
    assert [u.violations for u in updates if u.violations] == [tuple(output.violations)]
    with pytest.raises(StructuredOutputError, match="breaks its schema") as caught:
        output.final()
    assert caught.value.__cause__ is output.violations[0]


def test_json_mode_text_and_no_format() -> None:
    acc = ChatCompletionAccumulator(output_schema={"type": "json_object"})
    assert acc.structured is not None and acc.structured.schema is not None
    assert ChatCompletionAccumulator(output_schema={"type": "text"}).structured is None
    assert ResponseAccumulator(output_schema={"format": {"type": "text"}}).structured is None
    assert (
        MessageAccumulator().structured is None
        and MessageAccumulator().structured_output(1) is None
    )


def test_a_pydantic_model_as_the_output_schema() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Weather(pydantic.BaseModel):  # type: ignore[misc, name-defined]
        location: str
        unit: Literal["celsius", "fahrenheit"]

    acc = ResponseAccumulator(output_schema=Weather)
    for event in [_response_event("response.created"), _message_added()]:
        acc.feed(event)
    for piece in ['{"location":"Oslo",', '"unit":"celsius"}']:
        acc.feed(_text_delta(piece))
    acc.feed(_response_event("response.completed", status="completed"))
    assert acc.structured is not None and acc.structured.final() == Weather(
        location="Oslo", unit="celsius"
    )


def test_an_unfinished_empty_or_refused_answer() -> None:
    acc = ResponseAccumulator(output_schema=WEATHER)
    for event in [
        _response_event("response.created"),
        _message_added(),
        _text_delta('{"location": "Os'),
    ]:
        acc.feed(event)
    output = acc.structured
    assert output is not None and output.missing() == ["unit"]
    assert [output.status, output.ended] == ["streaming", False]
    with pytest.raises(StructuredOutputError, match="is unfinished"):
        output.final()
    (closed,) = acc.close()
    assert closed.event == "close" and closed.structured is output
    assert [output.status, output.ended] == ["incomplete", True]
    assert output.snapshot == {"location": "Os"}
    with pytest.raises(StructuredOutputError, match="cut off"):
        output.final()
    # A refusal is not the answer: the output ends empty.
    refused = ChatCompletionAccumulator(output_schema=WEATHER)
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"refusal": "I can't."}, "finish_reason": "stop"}],
    }
    updates = refused.feed(chunk)
    assert updates[0].structured is None and [u.event for u in updates][-1] == "structured_done"
    assert refused.structured is not None
    with pytest.raises(StructuredOutputError, match="is empty"):
        refused.structured.final()


def test_chat_choices_each_have_their_structured_output() -> None:
    acc = ChatCompletionAccumulator(output_schema=Attendee)
    assert acc.structured_output(1) is None
    for index, text in (
        (1, '{"name": "B", '),
        (0, '{"name": "A", "email": null}'),
        (1, '"email": "b@x"}'),
    ):
        acc.feed(
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": index, "delta": {"content": text}}],
            }
        )
    first, second = acc.structured_output(0), acc.structured_output(1)
    assert first is acc.structured and second is not None and second.choice == 1
    with pytest.raises(StructuredOutputError, match="of choice 1 is unfinished"):
        second.final()
    updates = acc.feed(
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 1, "delta": {}, "finish_reason": "stop"}],
        }
    )
    assert [u.event for u in updates] == ["finish", "structured_done"] and updates[
        1
    ].structured is second
    assert second.final() == Attendee("B", "b@x") and not first.ended  # type: ignore[union-attr]
    acc.feed("[DONE]")
    assert first.final() == Attendee("A", None)  # type: ignore[union-attr]


def test_reprs_and_public_names() -> None:
    acc = ChatCompletionAccumulator(output_schema=WEATHER)
    assert repr(acc.structured) == "<StructuredOutput of choice 0 streaming, 0 chars>"
    for cls in (StructuredOutput, StructuredOutputError, ToolInput, ToolInputError):
        assert cls.__module__ == "jsonsnap.streams"
    update = Update("x", violations=(SchemaError("bad", path=("a",)),))
    assert "violations=" in repr(update) and "structured" not in repr(update)
