"""What callers pass: every public option and argument refused, when it is of the wrong type or
value, with our own exception and message, the same in both builds.

The table below is the documented answer for each argument: a wrong type is a ``TypeError``, a
wrong value of the right type a ``ValueError``, and the message shows the value as the library
shows values (the repr of a short string, a number, ``None`` or a bool; ``a list``, ``an
object``...; never an address). The test runs one build at a time; run on each
(``JSONSNAP_EXPECT_BUILD=compiled PYTHONPATH=build/compiled pytest tests/parse/test_arguments.py``),
it shows that they agree: the compiled build checks the declared type of a compiled function's
arguments itself, with messages of its own (``bool object expected; got str``), unless the
function takes them as ``object`` and checks them itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from effort import examples
from jsonsnap import ANY, Completed, Parser, Started
from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import PROTOCOLS

FLAG = "{name} must be True or False, not {shown}"
HOOK = "{name} must be callable or None, not {shown}"
PATH = (
    "is_complete() takes a path, a tuple of object keys (str) and array indices (int), not {shown}"
)
STEP = "is_complete(): a path holds object keys (str) and array indices (int), not {shown}"
PATTERN = (
    "subscribe() takes a pattern, a tuple of object keys (str), array indices (int) and "
    "jsonsnap.ANY, not {shown}"
)
PATTERN_STEP = (
    "subscribe(): a pattern holds object keys (str), array indices (int) and jsonsnap.ANY, "
    "not {shown}"
)


def parser_option(name: str) -> Callable[[object], object]:
    return lambda value: Parser(**{name: value})  # type: ignore[arg-type]


def loose(call: Callable[..., object]) -> Callable[[object], object]:
    """``call``, as the table calls it: with a value of any type."""
    return call


def fed() -> Parser:
    parser = Parser()
    parser.feed('{"a": [1, {"b": 2')
    return parser


def _bool(value: object) -> bool:
    return isinstance(value, bool)


def _hooklike(value: object) -> bool:
    return value is None or callable(value)


def _sequence(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def _iterable(value: object) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, type))


def _text(value: object) -> bool:
    return isinstance(value, (str, bytes, bytearray, memoryview))


def accumulator(cls: type[Any], keyword: str) -> Callable[[object], object]:
    return lambda value: cls(**{keyword: value})


def _repairs(value: object) -> bool:
    return value is None or isinstance(value, (bool, list, tuple, set, frozenset, dict))


REPAIR = "repair must be True, False or an iterable of repair kinds, not {shown}"
#: The options every accumulator takes: which values are of the right type, the error for the
#: others.
ACCUMULATOR_OPTIONS: list[tuple[str, Callable[[object], bool], str]] = [
    (
        "tools",
        lambda v: v is None or isinstance(v, (list, tuple, dict)),
        "tools= takes the request's tool definitions (a list), or a mapping {{name: schema}}; "
        "not {shown}",
    ),
    (
        "output_schema",
        lambda v: v is None or isinstance(v, (bool, dict, type)),
        "output_schema= takes a JSON Schema (a dict), a jsonsnap.Schema, a Python type or a "
        "pydantic model class; not {shown}",
    ),
    ("repair", _repairs, REPAIR),
]

#: Each argument: how to pass a value, which values are of the right type, and the error for
#: the others, as (exception, message with {name} and {shown}).
ARGUMENTS: dict[str, tuple[Callable[[object], object], Callable[[object], bool], str]] = {
    **{
        name: (parser_option(name), _bool, FLAG)
        for name in (
            "partial_strings",
            "partial_numbers",
            "partial_literals",
            "allow_nan",
            "track_changes",
            "multiple_values",
        )
    },
    **{
        name: (parser_option(name), _hooklike, HOOK)
        for name in ("parse_float", "parse_int", "parse_constant", "object_hook")
    },
    "object_pairs_hook": (parser_option("object_pairs_hook"), _hooklike, HOOK),
    "max_depth": (
        parser_option("max_depth"),
        lambda v: v is None or type(v) is int,
        "max_depth must be None or an int, not {shown}",
    ),
    "on_violation": (
        parser_option("on_violation"),
        lambda v: isinstance(v, str),
        "on_violation is 'raise' or 'collect', not {shown}",
    ),
    "typed": (
        parser_option("typed"),
        lambda v: v is None or isinstance(v, bool),
        "typed must be True, False or None, not {shown}",
    ),
    "repair": (parser_option("repair"), _repairs, REPAIR),
    "loads()": (loose(jsonsnap.loads), _text, "loads() takes str or bytes, not {shown}"),
    "parse_partial()": (
        loose(jsonsnap.parse_partial),
        _text,
        "parse_partial() takes str or bytes, not {shown}",
    ),
    "feed()": (loose(lambda v: Parser().feed(v)), _text, "feed() takes str or bytes, not {shown}"),
    "copy": (lambda v: Parser().snapshot(copy=v), _bool, FLAG),
    "copy (fed)": (lambda v: fed().snapshot(copy=v), _bool, FLAG),
    "is_complete() path": (
        lambda v: fed().is_complete(v),  # type: ignore[arg-type]
        _sequence,
        PATH,
    ),
    "is_complete() step": (
        lambda v: fed().is_complete(("a", v)),  # type: ignore[arg-type]
        lambda v: isinstance(v, str) or type(v) is int,
        STEP,
    ),
    "subscribe() pattern": (
        lambda v: Parser().subscribe(v, print),  # type: ignore[arg-type]
        _sequence,
        PATTERN,
    ),
    "subscribe() pattern step": (
        lambda v: Parser().subscribe(("a", v), print),
        lambda v: isinstance(v, str) or type(v) is int or v is ANY,
        PATTERN_STEP,
    ),
    "subscribe() callback": (
        lambda v: Parser().subscribe((), v),  # type: ignore[arg-type]
        callable,
        "subscribe() takes a callable callback, not {shown}",
    ),
    "under": (lambda v: Parser().subscribe((), print, under=v), _bool, FLAG),
    "kinds": (
        lambda v: Parser().subscribe((), print, kinds=v),  # type: ignore[arg-type]
        lambda v: v is None or _iterable(v),
        "kinds takes None or a tuple of Started, Appended and Completed, not {shown}",
    ),
    "kinds item": (
        lambda v: Parser().subscribe((), print, kinds=(Started, v)),  # type: ignore[arg-type]
        lambda v: v in (Started, Completed, jsonsnap.Appended),
        "kinds holds Started, Appended and Completed, not {shown}",
    ),
    "errors": (
        loose(lambda v: SSEDecoder(errors=v)),
        lambda v: isinstance(v, str),
        "errors is 'replace' or 'strict', not {shown}",
    ),
    "SSEDecoder.feed()": (
        loose(lambda v: SSEDecoder().feed(v)),
        _text,
        "SSEDecoder.feed() takes bytes or str, not {shown}",
    ),
    "chat(compatible=)": (
        accumulator(PROTOCOLS["chat"], "compatible"),
        lambda v: v is None or isinstance(v, bool),
        "compatible= takes True, False, or None (chosen from the stream), not {shown}",
    ),
    **{
        f"{protocol}({keyword}=)": (accumulator(cls, keyword), right, message)
        for protocol, cls in PROTOCOLS.items()
        for keyword, right, message in ACCUMULATOR_OPTIONS
    },
}


class _Thing:
    def __repr__(self) -> str:
        return "<a thing at 0x1234>"  # never shown: the type's name is


#: Values of each kind the issue names, with how a message shows them.
WRONG: list[tuple[object, str]] = [
    ("3", "'3'"),
    ("x" * 50, repr("x" * 40) + "..."),
    (1.5, "1.5"),
    (True, "True"),
    (False, "False"),
    (0, "0"),
    (1, "1"),
    (10**30, "a very large int"),
    (None, "None"),
    ([1], "a list"),
    ({"a": 1}, "a dict"),
    (object(), "an object"),
    (_Thing(), "a _Thing"),
    (int, "the class int"),
    (b"[1]", "a bytes"),
]


def refusal(argument: str, value: object, shown: str) -> tuple[type[Exception], str] | None:
    """What the table says ``argument`` given ``value`` raises (``None``: of the right type)."""
    _, right, message = ARGUMENTS[argument]
    if right(value):
        return None
    name = argument.split(" ")[0]
    return TypeError, message.format(name=name, shown=shown)


def outcome(argument: str, value: object) -> tuple[type[Exception], str] | None:
    call = ARGUMENTS[argument][0]
    try:
        call(value)
    except Exception as exc:
        return type(exc), str(exc)
    return None


def check(argument: str, value: object, shown: str) -> None:
    expected = refusal(argument, value, shown)
    got = outcome(argument, value)
    if expected is None:
        # The right type: refused, if at all, as a wrong value (a ValueError, or what the
        # value's own layer says), never with the compiled build's type message.
        assert got is None or "object expected" not in got[1], (argument, value, got)
        return
    assert got == expected, (argument, value)


@pytest.mark.parametrize("argument", list(ARGUMENTS))
@pytest.mark.parametrize(("value", "shown"), WRONG, ids=[shown for _, shown in WRONG])
def test_each_argument_refuses_a_wrong_type_with_our_message(
    argument: str, value: object, shown: str
) -> None:
    check(argument, value, shown)


#: Generated values, each with how a message shows it.
values = st.one_of(
    st.text(max_size=40).map(lambda s: (s, repr(s))),
    st.integers(-(2**63), 2**63).map(lambda i: (i, repr(i))),
    st.floats().map(lambda f: (f, repr(f))),
    st.booleans().map(lambda b: (b, repr(b))),
    st.none().map(lambda n: (n, "None")),
    st.lists(st.integers(), max_size=3).map(lambda v: (v, "a list")),
    st.tuples(st.floats(), st.none()).map(lambda v: (v, "a tuple")),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2).map(lambda v: (v, "a dict")),
    st.builds(object).map(lambda v: (v, "an object")),
)


@settings(max_examples=examples(150, default=75))
@given(argument=st.sampled_from(list(ARGUMENTS)), pair=values)
def test_generated_wrong_values_get_the_documented_refusal(
    argument: str, pair: tuple[object, str]
) -> None:
    value, shown = pair
    check(argument, value, shown)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"max_depth": -1}, ValueError, "max_depth must be None or a non-negative integer"),
        ({"on_violation": "warn"}, ValueError, "on_violation is 'raise' or 'collect', not 'warn'"),
        ({"typed": True}, ValueError, "typed=True needs a schema= that is a Python type"),
        ({"errors": "ignore"}, ValueError, "errors is 'replace' or 'strict', not 'ignore'"),
        (
            {"track_changes": True, "partial_numbers": True},
            ValueError,
            "track_changes does not go with partial_numbers or partial_literals",
        ),
    ],
)
def test_a_wrong_value_of_the_right_type_is_a_value_error(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        if "errors" in options:
            SSEDecoder(**options)
        else:
            Parser(**options)
    assert str(caught.value) == message


def test_subscribe_refuses_at_the_call_what_would_fail_at_the_next_feed() -> None:
    """``subscribe((), 5)`` and ``kinds=[int]`` were taken, and the callback failed (or never
    matched) at the next ``feed()``: refused at the call, and the parser is left as it was."""
    parser = Parser()
    with pytest.raises(TypeError, match="callable callback, not 5"):
        parser.subscribe((), 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="kinds holds Started, Appended and Completed, not the"):
        parser.subscribe((), print, kinds=[int])  # type: ignore[list-item]
    parser.feed("[1]")  # no subscription was made: nothing to call
    assert parser.close() == [1]


def test_the_right_arguments_still_work() -> None:
    seen: list[object] = []
    parser = Parser(partial_numbers=False, max_depth=3, typed=None, on_violation="collect")
    parser.subscribe(["a", ANY], seen.append, under=False, kinds=[Completed])
    parser.feed('{"a": [1, 2]}')
    assert parser.snapshot(copy=True) == {"a": [1, 2]}
    assert parser.is_complete(["a", 0]) and parser.is_complete(("a",))
    assert seen == [Completed(("a", 0), 1), Completed(("a", 1), 2)]
    assert jsonsnap.loads(bytearray(b"[1]")) == [1] == jsonsnap.parse_partial(memoryview(b"[1, 2"))


def test_a_tool_inputs_subscribe_refuses_before_it_starts_anything() -> None:
    from jsonsnap.streams import ToolInput

    tool = ToolInput(0, "f")
    tool._feed('{"a": [1')
    with pytest.raises(TypeError, match="callable callback"):
        tool.subscribe((), None)  # type: ignore[arg-type]
    assert not tool._tracking  # the change feed was not started for nothing
    seen: list[object] = []
    tool.subscribe(("a", ANY), seen.append, kinds=[Started, Completed])
    tool._feed(", 2")
    assert seen == [Completed(("a", 0), 1)]


def test_a_tool_input_subscribes_with_the_kinds_an_iterator_gives() -> None:
    """The arguments are checked at the call, and what the check made of them is what the
    subscription gets: kinds given as an iterator are not used up by the check."""
    from jsonsnap.anthropic import MessageAccumulator

    acc = MessageAccumulator()
    acc.feed({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}})
    acc.feed(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        }
    )
    (tool,) = acc.tool_calls()
    seen: list[Any] = []
    tool.subscribe(("path",), seen.append, kinds=iter([Completed]))
    delta = {"type": "input_json_delta", "partial_json": '{"path": "a.py"}'}
    acc.feed({"type": "content_block_delta", "index": 0, "delta": delta})
    assert [(r.path, r.value) for r in seen] == [(("path",), "a.py")]
