"""The Parser's lifecycle and the rest of the public surface: properties, input types, misuse,
callbacks that raise, and the bounded memory of a long stream."""

from __future__ import annotations

import json
from typing import Any

import pytest

import jsonsnap
from jsonsnap._parse import fast as _fast


def test_properties_follow_the_stream() -> None:
    parser = jsonsnap.Parser()
    assert (parser.done, parser.error, parser.position) == (False, None, 0)
    parser.feed('{"a": [1, 2')
    assert (parser.done, parser.position) == (False, 11)
    parser.feed("]}")
    assert (parser.done, parser.position) == (True, 13)
    parser.feed("  \n")
    assert parser.done
    assert parser.close() == {"a": [1, 2]}


def test_top_level_number_is_done_only_at_close() -> None:
    parser = jsonsnap.Parser()
    parser.feed("12")
    assert not parser.done
    assert parser.close() == 12
    assert parser.done


def test_close_is_idempotent_and_feed_after_close_is_refused() -> None:
    parser = jsonsnap.Parser()
    parser.feed("[1]")
    first = parser.close()
    assert parser.close() is first
    with pytest.raises(ValueError, match="after close"):
        parser.feed("")
    assert parser.snapshot() == [1]


def test_error_property_and_repeated_raises() -> None:
    parser = jsonsnap.Parser()
    with pytest.raises(jsonsnap.JSONDecodeError) as caught:
        parser.feed("[1, x]")
    assert parser.error is caught.value
    for call in (lambda: parser.feed("]"), parser.close):
        with pytest.raises(jsonsnap.JSONDecodeError) as again:
            call()
        assert (again.value.pos, again.value.msg) == (4, "Expecting value")


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_like_input(kind: Any) -> None:
    data = '{"k": "\u00e9\U0001f600"}'.encode()
    parser = jsonsnap.Parser()
    for i in range(len(data)):
        parser.feed(kind(data[i : i + 1]))
    assert parser.close() == {"k": "\u00e9\U0001f600"}


@pytest.mark.parametrize("bad", [1, None, ["["], 1.5])
def test_other_input_types_are_a_type_error(bad: Any) -> None:
    parser = jsonsnap.Parser()
    with pytest.raises(TypeError, match="str or bytes"):
        parser.feed(bad)
    parser.feed("[]")  # a TypeError is the caller's mistake, not the document's
    assert parser.close() == []


def test_one_shot_functions_take_bytes_and_options() -> None:
    assert jsonsnap.loads(b'{"a": 1.5}', parse_float=str) == {"a": "1.5"}
    assert jsonsnap.parse_partial(b'["\xc3\xa9', default=0) == ["\u00e9"]
    assert jsonsnap.parse_partial("  ", default=0) == 0
    with pytest.raises(jsonsnap.JSONDecodeError) as caught:
        jsonsnap.parse_partial("[1 2")
    assert caught.value.pos == 3


def test_loads_error_carries_the_whole_document() -> None:
    with pytest.raises(jsonsnap.JSONDecodeError) as caught:
        jsonsnap.loads('{"a":\n  tru e}')
    err = caught.value
    with pytest.raises(json.JSONDecodeError) as oracle:
        json.loads('{"a":\n  tru e}')
    assert (err.doc, err.doc_offset, err.lineno) == ('{"a":\n  tru e}', 0, oracle.value.lineno)
    assert err.doc[err.pos] == " "


def test_max_depth_zero_allows_only_scalars() -> None:
    assert jsonsnap.loads('"x"', max_depth=0) == "x"
    with pytest.raises(jsonsnap.JSONDecodeError) as caught:
        jsonsnap.loads(" []", max_depth=0)
    assert caught.value.pos == 1
    with pytest.raises(ValueError, match="max_depth"):
        jsonsnap.Parser(max_depth=-1)


def test_a_raising_hook_propagates_and_fails_the_parser() -> None:
    def refuse(text: str) -> float:
        raise ArithmeticError(text)

    parser = jsonsnap.Parser(parse_float=refuse)
    parser.feed('{"a": [1, ')
    with pytest.raises(ArithmeticError):
        parser.feed("2.5]")
    assert parser.snapshot() == {"a": [1]}
    with pytest.raises(jsonsnap.JSONDecodeError, match="ArithmeticError"):
        parser.feed("}")


def test_only_an_undecided_token_is_kept_between_fragments() -> None:
    # White-box: the parser keeps the unconsumed tail only, never the text it has read.
    content = 'x = "\\u00e9"\n\t\\\\ \ud83d\ude00 ' * 2000
    doc = json.dumps({"path": "a.py", "content": content, "n": [1, 2, 3]}, ensure_ascii=True)
    parser = jsonsnap.Parser()
    longest = 0
    for i in range(0, len(doc), 37):
        parser.feed(doc[i : i + 37])
        held = parser._auto.tail + (parser._lanes.tail if parser._lanes else "")
        longest = max(longest, len(held))
    assert longest <= 12
    assert parser.close() == json.loads(doc)


def test_long_string_windows_cover_a_one_shot_prefix() -> None:
    content = 'line \\u00e9 "quoted" \\\\ end\n' * 5000
    doc = json.dumps({"content": content})
    cut = doc.index("end", len(doc) // 2)
    # One buffer far longer than the window: the C scanner's path decodes it.
    assert len(doc) > 100 * _fast.DEFAULT.window
    assert jsonsnap.parse_partial(doc[:cut]) == json.loads(doc[:cut] + '"}')


def test_the_build_is_named() -> None:
    """``__build__`` says which build is imported; the test command sets
    ``JSONSNAP_EXPECT_BUILD`` when it runs the suite against one build, so that a run never
    tests the other one by mistake."""
    import os

    from jsonsnap._parse import automaton as _automaton

    compiled = not _automaton.__file__.endswith(".py")
    assert jsonsnap.__build__ == ("compiled" if compiled else "pure")
    expected = os.environ.get("JSONSNAP_EXPECT_BUILD")
    if expected:
        assert jsonsnap.__build__ == expected
