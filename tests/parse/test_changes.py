"""Change records (``track_changes=True``), subscriptions, ``feed()``'s answer, ``writing``,
``writing_key`` and ``is_complete``.

Properties (hypothesis, generated documents under random chunkings):

a. the records, replayed, rebuild every snapshot (and the final value);
b. the Appended texts of each string add up to its Completed value;
c. Completed fires once per value, in post-order, with exactly ``json.loads``'s values;
d. the records do not depend on the chunking (once consecutive Appended are merged);
e. ``feed()`` returns True exactly when the snapshot changed (tracked or not);
f. after an error, the records up to it are still handed out and still rebuild the snapshot;
g. ``is_complete`` and ``writing`` agree with the records.

Then tables: the changed flag, ``is_complete``/``writing`` at chosen prefixes, subscriptions,
``matches``, ``replay`` and the option checks.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from chunking import chunkings
from effort import examples
from jsonsnap import ANY, Appended, Change, Completed, Started
from values import NOTHING, diff

Path = tuple[str | int, ...]

# --------------------------------------------------------------------------- helpers


def coalesce(records: Iterable[Change]) -> list[Change]:
    """Merge consecutive Appended records of the same path (the only freedom the spec leaves)."""
    out: list[Change] = []
    for record in records:
        if (
            type(record) is Appended
            and out
            and type(last := out[-1]) is Appended
            and last.path == record.path
            and diff(last.path, record.path) is None
        ):
            out[-1] = Appended(record.path, last.text + record.text)
        else:
            out.append(record)
    return out


def record_diff(expected: Change, got: Change) -> str | None:
    """How two records differ: kind, path (component types too), kind/text/value (strictly)."""
    if type(expected) is not type(got):
        return f"expected {expected!r}, got {got!r}"
    problem = diff(expected.path, got.path)
    if problem is not None:
        return f"path of {got!r}: {problem}"
    if isinstance(expected, Started):
        assert isinstance(got, Started)
        problem = None if expected.kind == got.kind else "kind"
    elif isinstance(expected, Appended):
        assert isinstance(got, Appended)
        problem = diff(expected.text, got.text)
    else:
        assert isinstance(expected, Completed) and isinstance(got, Completed)
        problem = diff(expected.value, got.value)
    if problem is not None:
        return f"expected {expected!r}, got {got!r}: {problem}"
    return None


def records_diff(expected: Sequence[Change], got: Sequence[Change]) -> str | None:
    """The first difference between two record lists (compared after coalescing)."""
    want, have = coalesce(expected), coalesce(got)
    for i, (a, b) in enumerate(zip(want, have, strict=False)):
        problem = record_diff(a, b)
        if problem is not None:
            return f"record {i}: {problem}\nexpected {want!r}\ngot      {have!r}"
    if len(want) != len(have):
        return f"expected {len(want)} records, got {len(have)}:\n{want!r}\n{have!r}"
    return None


def post_order(root: Any) -> list[tuple[Path, Any]]:
    """(path, value) of every value in ``root``: children before parents, siblings in order."""
    out: list[tuple[Path, Any]] = []
    stack: list[tuple[Path, Any, bool]] = [((), root, False)]
    while stack:
        path, value, expanded = stack.pop()
        if expanded or not isinstance(value, (list, dict)):
            out.append((path, value))
            continue
        stack.append((path, value, True))
        items: list[tuple[str | int, Any]] = (
            list(enumerate(value)) if isinstance(value, list) else list(value.items())
        )
        stack.extend(((*path, key), item, False) for key, item in reversed(items))
    return out


def tracked(fragments: Iterable[str], **options: Any) -> tuple[jsonsnap.Parser, list[Change]]:
    """Feed ``fragments`` to a tracking parser and close it; return it and all its records."""
    parser = jsonsnap.Parser(track_changes=True, **options)
    records: list[Change] = []
    for fragment in fragments:
        parser.feed(fragment)
        records += parser.changes()
    parser.close()
    records += parser.changes()
    return parser, records


def whole_records(text: str, **options: Any) -> list[Change]:
    return tracked([text], **options)[1]


def valid_chunked() -> st.SearchStrategy[tuple[str, list[str]]]:
    return strategies.chunked(strategies.json_documents())


# --------------------------------------------------------------------------- a. replay


@settings(max_examples=examples(250, default=125))
@given(valid_chunked())
def test_replay_rebuilds_every_snapshot(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    parser = jsonsnap.Parser(track_changes=True)
    assert jsonsnap.replay([], NOTHING) is NOTHING
    log: list[Change] = []
    rebuilt: Any = NOTHING
    check_from_scratch = len(fragments) <= 40
    for i, fragment in enumerate(fragments):
        parser.feed(fragment)
        new = parser.changes()
        log += new
        rebuilt = jsonsnap.replay(new, rebuilt)
        shown = parser.snapshot(NOTHING, copy=True)
        problem = diff(shown, rebuilt)
        assert problem is None, f"after fragment {i} {fragment!r} of {text!r}: {problem}"
        if check_from_scratch:
            problem = diff(shown, jsonsnap.replay(list(log), NOTHING))
            assert problem is None, f"from scratch, after fragment {i} of {text!r}: {problem}"
    final = parser.close()
    new = parser.changes()
    log += new
    expected = json.loads(text)
    problem = diff(expected, jsonsnap.replay(new, rebuilt))
    assert problem is None, f"after close() of {text!r}: {problem}"
    assert diff(expected, final) is None
    problem = diff(expected, jsonsnap.replay(log, NOTHING))
    assert problem is None, f"all records from scratch, {text!r}: {problem}"
    assert parser.changes() == []


@settings(max_examples=examples(100))
@given(strategies.chunked_bytes(strategies.json_documents()))
def test_replay_and_flag_with_bytes(case: tuple[str, list[bytes]]) -> None:
    """UTF-8 bytes cut anywhere (inside characters too): same records, same answers."""
    text, pieces = case
    parser = jsonsnap.Parser(track_changes=True)
    log: list[Change] = []
    rebuilt: Any = NOTHING
    before: Any = NOTHING
    for i, piece in enumerate(pieces):
        changed = parser.feed(piece)
        new = parser.changes()
        log += new
        rebuilt = jsonsnap.replay(new, rebuilt)
        after = parser.snapshot(NOTHING, copy=True)
        assert diff(after, rebuilt) is None, f"{text!r}, after piece {i} {piece!r}"
        assert changed == (diff(before, after) is not None), f"{text!r}, piece {i} {piece!r}"
        before = after
    parser.close()
    log += parser.changes()
    problem = records_diff(whole_records(text), log)
    assert problem is None, f"{text!r} as bytes: {problem}"


# --------------------------------------------------------------------------- b. strings


def check_string_records(records: Sequence[Change], *, partial_strings: bool = True) -> None:
    """Every visible string: Started, then Appended texts (non-empty) that add up to its
    Completed value; a hidden string has only its Completed record."""
    open_strings: dict[Path, list[str]] = {}
    for record in records:
        if isinstance(record, Started) and record.kind == "string":
            assert partial_strings, f"hidden string got {record!r}"
            assert record.path not in open_strings, f"string started twice: {record!r}"
            open_strings[record.path] = []
        elif isinstance(record, Appended):
            assert partial_strings, f"hidden string got {record!r}"
            assert record.text, f"empty Appended: {record!r}"
            assert record.path in open_strings, f"{record!r} without a Started string"
            open_strings[record.path].append(record.text)
        elif isinstance(record, Completed) and type(record.value) is str:
            if partial_strings:
                assert record.path in open_strings, f"{record!r} without a Started string"
                pieces = open_strings.pop(record.path)
                assert "".join(pieces) == record.value, (record, pieces)
            else:
                assert record.path not in open_strings
    assert not open_strings, f"strings never completed: {open_strings!r}"


@settings(max_examples=examples(200, default=100))
@given(valid_chunked())
def test_appended_texts_add_up_to_each_string(case: tuple[str, list[str]]) -> None:
    _, fragments = case
    check_string_records(tracked(fragments)[1])


@settings(max_examples=examples(100))
@given(valid_chunked())
def test_hidden_strings_only_complete(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    parser = jsonsnap.Parser(track_changes=True, partial_strings=False)
    records: list[Change] = []
    rebuilt: Any = NOTHING
    for fragment in fragments:
        parser.feed(fragment)
        new = parser.changes()
        records += new
        rebuilt = jsonsnap.replay(new, rebuilt)
        assert diff(parser.snapshot(NOTHING, copy=True), rebuilt) is None, text
    parser.close()
    records += parser.changes()
    check_string_records(records, partial_strings=False)
    assert diff(json.loads(text), jsonsnap.replay(records, NOTHING)) is None


# --------------------------------------------------------------------------- c. Completed


@settings(max_examples=examples(200))
@given(valid_chunked())
def test_completed_once_per_value_in_post_order(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    completed = [r for r in tracked(fragments)[1] if isinstance(r, Completed)]
    expected = post_order(json.loads(text))
    got = [(r.path, r.value) for r in completed]
    for i, ((want_path, want_value), (path, value)) in enumerate(zip(expected, got, strict=False)):
        problem = diff(want_path, path) or diff(want_value, value)
        assert problem is None, f"Completed #{i} of {text!r}: {problem}\n{expected}\n{got}"
    assert len(got) == len(expected), f"{text!r}: expected {expected}, got {got}"


# --------------------------------------------------------------------------- d. chunkings


@settings(max_examples=examples(150))
@given(valid_chunked())
def test_records_do_not_depend_on_the_chunking(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    whole = whole_records(text)
    for label, cut in (("drawn", fragments), ("1-char", list(text))):
        problem = records_diff(whole, tracked(cut)[1])
        assert problem is None, f"{label} chunking of {text!r}: {problem}"


# --------------------------------------------------------------------------- e. feed()'s answer


def check_feed_flags(fragments: Sequence[str], **options: Any) -> None:
    parser = jsonsnap.Parser(**options)
    before = parser.snapshot(NOTHING, copy=True)
    for i, fragment in enumerate(fragments):
        changed = parser.feed(fragment)
        after = parser.snapshot(NOTHING, copy=True)
        really = diff(before, after) is not None
        assert changed == really, (
            f"feed({fragment!r}) (#{i}) returned {changed}, snapshot went from "
            f"{before!r} to {after!r}; prefix {''.join(fragments[:i])!r}, options {options}"
        )
        before = after


@settings(max_examples=examples(200))
@given(valid_chunked())
def test_feed_says_whether_the_snapshot_changed(case: tuple[str, list[str]]) -> None:
    check_feed_flags(case[1], track_changes=True)


UNTRACKED_OPTIONS: list[dict[str, bool]] = [
    {},
    {"partial_strings": False},
    {"partial_numbers": True},
    {"partial_literals": True},
    {"track_changes": True, "partial_strings": False},
]


@pytest.mark.parametrize("options", UNTRACKED_OPTIONS, ids=lambda o: ",".join(o) or "default")
@settings(max_examples=examples(60))
@given(case=valid_chunked())
def test_feed_flag_with_other_options(
    options: dict[str, bool], case: tuple[str, list[str]]
) -> None:
    """The spec: True exactly when the snapshot changed, for all parsers, tracked or not."""
    check_feed_flags(case[1], **options)


# --------------------------------------------------------------------------- f. errors


@settings(max_examples=examples(250, default=125))
@given(strategies.chunked(st.one_of(strategies.corrupted_documents(), strategies.json_documents())))
def test_records_up_to_an_error(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    parser = jsonsnap.Parser(track_changes=True)
    delivered: list[Change] = []
    parser.subscribe((), delivered.append, under=True)
    log: list[Change] = []
    rebuilt: Any = NOTHING
    failed = False
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except jsonsnap.JSONDecodeError:
            failed = True
        new = parser.changes()
        log += new
        rebuilt = jsonsnap.replay(new, rebuilt)
        problem = diff(parser.snapshot(NOTHING, copy=True), rebuilt)
        assert problem is None, f"{text!r} cut {fragments!r}, failed={failed}: {problem}"
        if failed:
            break
    if not failed:
        try:
            parser.close()
        except jsonsnap.JSONDecodeError:
            failed = True
        new = parser.changes()
        log += new
        rebuilt = jsonsnap.replay(new, rebuilt)
        assert diff(parser.snapshot(NOTHING, copy=True), rebuilt) is None, text
    if failed:
        assert parser.error is not None
        assert parser.changes() == []
        with pytest.raises(jsonsnap.JSONDecodeError):
            parser.feed("]")
        assert parser.changes() == []
        assert diff(parser.snapshot(NOTHING, copy=True), jsonsnap.replay(log, NOTHING)) is None
    problem = records_diff(log, delivered)
    assert problem is None, f"subscriber vs changes() for {text!r}: {problem}"


# --------------------------------------------------------------------------- g. completeness


def open_and_finished(
    parser: jsonsnap.Parser, open_paths: list[Path]
) -> tuple[list[Path], list[Path]]:
    """Update the paths Started and not yet Completed (innermost last) with the new records;
    return them and the paths Completed by these records."""
    finished: list[Path] = []
    for record in parser.changes():
        if isinstance(record, Started):
            open_paths.append(record.path)
        elif isinstance(record, Completed):
            if open_paths and open_paths[-1] == record.path:
                open_paths.pop()
            finished.append(record.path)
    return open_paths, finished


@settings(max_examples=examples(150, default=75))
@given(valid_chunked())
def test_is_complete_follows_the_records(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    parser = jsonsnap.Parser(track_changes=True)
    open_paths: list[Path] = []
    for i, fragment in enumerate(fragments):
        parser.feed(fragment)
        open_paths, finished = open_and_finished(parser, open_paths)
        where = f"{text!r} after {''.join(fragments[: i + 1])!r}"
        wrong = [p for p in finished if not parser.is_complete(p)]
        assert not wrong, f"{where}: Completed but not is_complete: {wrong}"
        wrong = [p for p in open_paths if parser.is_complete(p)]
        assert not wrong, f"{where}: Started, not Completed, but is_complete: {wrong}"
    parser.close()
    assert parser.is_complete(())


@settings(max_examples=examples(150, default=75))
@given(valid_chunked())
def test_writing_follows_the_records(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    parser = jsonsnap.Parser(track_changes=True)
    open_paths: list[Path] = []
    for i, fragment in enumerate(fragments):
        parser.feed(fragment)
        open_paths = open_and_finished(parser, open_paths)[0]
        where = f"{text!r} after {''.join(fragments[: i + 1])!r}"
        writing = parser.writing
        if open_paths:
            # Something is written below the innermost open value (or that value itself).
            inner = open_paths[-1]
            assert writing is not None, where
            assert writing[: len(inner)] == inner, (where, writing, inner)
        if parser.writing_key:
            assert writing is not None and writing[:-1] == open_paths[-1], (where, writing)
    parser.close()
    assert parser.writing is None
    assert parser.writing_key is False


# --------------------------------------------------------------------------- explicit records


def S(path: Path, kind: Any) -> Started:
    return Started(path, kind)


def A(path: Path, text: str) -> Appended:
    return Appended(path, text)


def C(path: Path, value: Any) -> Completed:
    return Completed(path, value)


RECORD_CASES: list[tuple[str, dict[str, Any], list[Change]]] = [
    (
        '{"a": [], "b": {}, "c": ""}',
        {},
        [
            S((), "object"),
            S(("a",), "array"),
            C(("a",), []),
            S(("b",), "object"),
            C(("b",), {}),
            S(("c",), "string"),
            C(("c",), ""),
            C((), {"a": [], "b": {}, "c": ""}),
        ],
    ),
    (' "ab\\u0063\\n" ', {}, [S((), "string"), A((), "abc\n"), C((), "abc\n")]),
    ("12", {}, [C((), 12)]),
    (" -0.0 ", {}, [C((), -0.0)]),
    ("null", {}, [C((), None)]),
    (
        "[12, true, null, -0.5e1, 1E400]",
        {},
        [
            S((), "array"),
            C((0,), 12),
            C((1,), True),
            C((2,), None),
            C((3,), -5.0),
            C((4,), float("inf")),
            C((), [12, True, None, -5.0, float("inf")]),
        ],
    ),
    (
        '{"k": {"x": [1, "s"]}, "1": [[]]}',
        {},
        [
            S((), "object"),
            S(("k",), "object"),
            S(("k", "x"), "array"),
            C(("k", "x", 0), 1),
            S(("k", "x", 1), "string"),
            A(("k", "x", 1), "s"),
            C(("k", "x", 1), "s"),
            C(("k", "x"), [1, "s"]),
            C(("k",), {"x": [1, "s"]}),
            S(("1",), "array"),
            S(("1", 0), "array"),
            C(("1", 0), []),
            C(("1",), [[]]),
            C((), {"k": {"x": [1, "s"]}, "1": [[]]}),
        ],
    ),
    (
        '["ab", {"k": "v"}]',
        {"partial_strings": False},
        [
            S((), "array"),
            C((0,), "ab"),
            S((1,), "object"),
            C((1, "k"), "v"),
            C((1,), {"k": "v"}),
            C((), ["ab", {"k": "v"}]),
        ],
    ),
    (
        '["\\ud83d\\ude00\\ud800x"]',
        {},
        [
            S((), "array"),
            S((0,), "string"),
            A((0,), "\U0001f600\ud800x"),
            C((0,), "\U0001f600\ud800x"),
            C((), ["\U0001f600\ud800x"]),
        ],
    ),
]


@pytest.mark.parametrize(("text", "options", "expected"), RECORD_CASES)
def test_records_table(text: str, options: dict[str, Any], expected: list[Change]) -> None:
    for label, fragments in chunkings(text):
        problem = records_diff(expected, tracked(fragments, **options)[1])
        assert problem is None, f"{label}: {problem}"


def test_growth_is_reported_up_to_now() -> None:
    parser = jsonsnap.Parser(track_changes=True)
    parser.feed('{"a": "xy')
    assert coalesce(parser.changes()) == [S((), "object"), S(("a",), "string"), A(("a",), "xy")]
    parser.feed("z")
    parser.feed("w")
    assert coalesce(parser.changes()) == [A(("a",), "zw")]
    assert parser.changes() == []
    parser.feed("\\")  # held back: nothing new
    assert parser.changes() == []
    parser.feed('n"')
    assert coalesce(parser.changes()) == [A(("a",), "\n"), C(("a",), "xyzw\n")]


# --------------------------------------------------------------------------- 2. changed flag

#: (prefix, fragment, whether feeding the fragment after the prefix changes the snapshot)
FLAG_CASES: list[tuple[str, str, bool]] = [
    ("", "", False),
    ("", "  \n\t\r", False),
    ("", "[", True),
    ("", "1", False),
    ("1", " ", True),
    ("[", " ", False),
    ('{"a": 1, ', "  \n", False),
    ('{"a": "x"', " \t", False),
    ("[1", " ", True),  # whitespace ends a held number
    ('{"a": 1', "2", False),
    ('{"a": 12', "}", True),
    ('{"a": 12', ",", True),
    ("[1.", "5", False),
    ("[1.5e", "-", False),
    ("[1.5e-", "3", False),
    ("[1.5e-3", "]", True),
    ("[tr", "u", False),
    ("[tru", "e", True),
    ("[n", "ul", False),
    ("[nul", "l", True),
    ('["a\\', "u00", False),
    ('["a\\u00', "41", True),
    ('["a\\', "n", True),
    ('["a\\ud83d', "\\ud", False),
    ('["a\\ud83d\\ud', "e00", True),
    ('["a\\ud83d', '"', True),  # a lone high surrogate, confirmed
    ('["a', '\\"', True),
    ('{"ab', "cd", False),
    ('{"abcd', '"', False),  # the key is complete, but the member is not shown yet
    ('{"abcd"', ": ", False),
    ('{"abcd": ', '"', True),
    ('{"abcd": ', "1", False),
    ('{"abcd": ', "[", True),
    ('{"abcd": ', "tru", False),
    ('{"abcd": tru', "e", True),
    ('["ab', "cd", True),
    ('["ab', " ", True),
    ('["ab', "", False),
    ('["ab"', "", False),
    ('["', "\u00e9\U0001f600", True),
    ('["ab', '"', False),  # closing a string shows nothing new
    ('["ab"', "]", False),
    ("[[]", "]", False),
    ("[1 ", "]", False),
    ("[{}", ", {", True),
]


@pytest.mark.parametrize(("prefix", "fragment", "expected"), FLAG_CASES)
@pytest.mark.parametrize("track", [True, False], ids=["tracked", "untracked"])
def test_changed_flag_table(prefix: str, fragment: str, expected: bool, track: bool) -> None:
    for label, fragments in chunkings(prefix):
        parser = jsonsnap.Parser(track_changes=track)
        for piece in fragments:
            parser.feed(piece)
        before = parser.snapshot(NOTHING, copy=True)
        got = parser.feed(fragment)
        after = parser.snapshot(NOTHING, copy=True)
        assert got is expected, (
            f"{label}: {prefix!r} + {fragment!r} returned {got}, snapshot {before!r} -> {after!r}"
        )


def test_changed_flag_bytes() -> None:
    parser = jsonsnap.Parser(track_changes=True)
    assert parser.feed(b'["') is True
    assert parser.feed(b"\xc3") is False  # half a character
    assert parser.feed(b"\xa9") is True
    assert parser.snapshot() == ["\u00e9"]


# --------------------------------------------------------------------------- 3. writing

DOC_ITEMS = '{"items": [{"id": 1, "name": "x"}, {"id": 2, "na'

#: (prefix, writing, writing_key, paths complete, paths not complete)
WRITING_CASES: list[tuple[str, Path | None, bool, list[Path], list[Path]]] = [
    ("", None, False, [], [()]),
    ("  ", None, False, [], [()]),
    ("[", (), False, [], [(), (0,)]),
    ("[1", (0,), False, [], [(), (0,)]),
    ("[1 ", (), False, [(0,)], [(), (1,)]),
    ("[1, 2", (1,), False, [(0,)], [(), (1,)]),
    # After a comma the next element's index is known: the implementation names it.
    ("[1, ", (1,), False, [(0,)], [(), (1,)]),
    ("[tr", (0,), False, [], [(), (0,)]),
    ('["a\\', (0,), False, [], [(), (0,)]),
    ('[1, "ab', (1,), False, [(0,)], [(), (1,), (-1,)]),
    ("[[1, 2], [3", (1, 0), False, [(0,), (0, 0), (0, 1)], [(), (1,), (1, 0)]),
    ('"ab', (), False, [], [()]),
    ("12", (), False, [], [()]),
    ("12 ", None, False, [()], []),
    ("tru", (), False, [], [()]),
    ("true", None, False, [()], []),
    ("{", (), False, [], [()]),
    ('{"a', ("a",), True, [], [(), ("a",)]),
    ('{"a"', ("a",), False, [], [(), ("a",)]),
    ('{"a": ', ("a",), False, [], [(), ("a",)]),
    ('{"a": 1', ("a",), False, [], [(), ("a",)]),
    ('{"a": 1 ', (), False, [("a",)], [()]),
    ('{"a": 1, ', (), False, [("a",)], [()]),
    ('{"a": [', ("a",), False, [], [(), ("a",), ("a", 0)]),
    ('{"a": {"b": [tr', ("a", "b", 0), False, [], [(), ("a",), ("a", "b"), ("a", "b", 0)]),
    ('{"a": {"b": [true', ("a", "b"), False, [("a", "b", 0)], [(), ("a",), ("a", "b")]),
    ('{"a": "x", "b": {}', (), False, [("a",), ("b",)], [()]),
    ('{"a": "x", "b": {}}', None, False, [(), ("a",), ("b",)], [("c",)]),
    (
        DOC_ITEMS,
        ("items", 1, "na"),
        True,
        [("items", 0), ("items", 0, "id"), ("items", 0, "name"), ("items", 1, "id")],
        [(), ("items",), ("items", 1), ("items", 1, "na"), ("items", 1, "name"), ("items", 2)],
    ),
    (DOC_ITEMS + 'me": "y', ("items", 1, "name"), False, [("items", 1, "id")], [("items", 1)]),
    (DOC_ITEMS + 'me": "y"', ("items", 1), False, [("items", 1, "name")], [("items", 1)]),
    (DOC_ITEMS + 'me": "y"}', ("items",), False, [("items", 1)], [("items",)]),
    (DOC_ITEMS + 'me": "y"}]', (), False, [("items",), ("items", 1)], [()]),
    ('{"items": [], "con', ("con",), True, [("items",)], [(), ("con",), ("content",)]),
    ('{"items": [], "content', ("content",), True, [("items",)], [(), ("content",)]),
    ('{"items": [], "content"', ("content",), False, [("items",)], [(), ("content",)]),
    ('{"items": [], "content": "he', ("content",), False, [("items",)], [(), ("content",)]),
    ('{"x": 1, "a\\u0062', ("ab",), True, [("x",)], [(), ("ab",)]),
    ('{"a\\u00', ("a",), True, [], [(), ("a",)]),
    ('{"1": 5, "x": [7]', (), False, [("1",), ("x",), ("x", 0)], [(1,), ("x", "0"), ()]),
]


def prefix_parsers(prefix: str) -> Iterable[tuple[str, jsonsnap.Parser]]:
    """A parser (tracked and not) fed ``prefix`` in each chunking, with a label for messages."""
    for label, fragments in chunkings(prefix):
        for track in (True, False):
            parser = jsonsnap.Parser(track_changes=track)
            for piece in fragments:
                parser.feed(piece)
            yield f"{label}, tracked={track}, after {prefix!r}", parser


@pytest.mark.parametrize(("prefix", "writing", "key", "complete", "incomplete"), WRITING_CASES)
def test_writing_table(
    prefix: str,
    writing: Path | None,
    key: bool,
    complete: list[Path],
    incomplete: list[Path],
) -> None:
    for where, parser in prefix_parsers(prefix):
        assert parser.writing == writing, f"{where}: writing is {parser.writing!r}"
        if writing is not None:
            assert diff(writing, parser.writing) is None, where
        assert parser.writing_key is key, where


@pytest.mark.parametrize(("prefix", "writing", "key", "complete", "incomplete"), WRITING_CASES)
def test_is_complete_table(
    prefix: str,
    writing: Path | None,
    key: bool,
    complete: list[Path],
    incomplete: list[Path],
) -> None:
    for where, parser in prefix_parsers(prefix):
        wrong = [p for p in complete if parser.is_complete(p) is not True]
        wrong += [p for p in incomplete if parser.is_complete(p) is not False]
        assert not wrong, f"{where}: is_complete wrong for {wrong!r}"


def test_writing_and_is_complete_after_close() -> None:
    for text in ['{"a": [1, "x"], "b": {"c": null}}', "12", '"s"', "[]"]:
        for label, fragments in chunkings(text):
            parser = jsonsnap.Parser(track_changes=True)
            for piece in fragments:
                parser.feed(piece)
            value = parser.close()
            where = f"{label}: {text!r}"
            assert parser.writing is None, where
            assert parser.writing_key is False, where
            for path, _ in post_order(value):
                assert parser.is_complete(path) is True, f"{where}: {path!r}"
            assert parser.is_complete(("zz",)) is False, where
            assert parser.is_complete((5,)) is False, where


def test_writing_after_an_error() -> None:
    parser = jsonsnap.Parser(track_changes=True)
    parser.feed('{"a": "x')
    with pytest.raises(jsonsnap.JSONDecodeError):
        parser.feed("\x01")
    assert parser.writing is None
    assert parser.writing_key is False
    parser = jsonsnap.Parser(track_changes=True)
    parser.feed('{"a": 1, "b')
    with pytest.raises(jsonsnap.JSONDecodeError):
        parser.feed("\x01")
    assert parser.writing is None
    assert parser.writing_key is False
    assert parser.is_complete(("a",)) is True


# --------------------------------------------------------------------------- 4. subscriptions

SUB_DOC = (
    '{"items": [{"id": 1, "name": "x"}, {"id": 2, "name": "yz\\u00e9"}], '
    '"content": "hello\\nworld \\ud83d\\ude00", "title": "t", "n": [3.5]}'
)
SUB_VALUE = json.loads(SUB_DOC)


def subscribed_run(
    fragments: Sequence[str],
    subs: Sequence[tuple[Sequence[object], dict[str, Any]]],
) -> tuple[list[list[Change]], list[tuple[int, Change]], list[Change]]:
    """Feed with the given subscriptions; return what each got, the shared log of
    (subscription index, record), and all records from changes()."""
    parser = jsonsnap.Parser(track_changes=True)
    got: list[list[Change]] = [[] for _ in subs]
    log: list[tuple[int, Change]] = []

    def callback(i: int) -> Callable[[Change], None]:
        def call(change: Change) -> None:
            got[i].append(change)
            log.append((i, change))

        return call

    for i, (pattern, options) in enumerate(subs):
        parser.subscribe(pattern, callback(i), **options)
    for fragment in fragments:
        parser.feed(fragment)
    parser.close()
    return got, log, parser.changes()


def test_subscribe_to_finished_elements() -> None:
    expected = [C(("items", i), item) for i, item in enumerate(SUB_VALUE["items"])]
    for label, fragments in chunkings(SUB_DOC):
        got = subscribed_run(fragments, [(("items", ANY), {"kinds": [Completed]})])[0][0]
        problem = records_diff(expected, got)
        assert problem is None, f"{label}: {problem}"


def test_subscribe_to_a_string_streams_exactly_its_characters() -> None:
    for label, fragments in chunkings(SUB_DOC):
        got = subscribed_run(fragments, [(("content",), {"kinds": [Appended]})])[0][0]
        assert all(type(r) is Appended and r.path == ("content",) for r in got), (label, got)
        assert all(r.text for r in got if isinstance(r, Appended)), (label, got)
        text = "".join(r.text for r in got if isinstance(r, Appended))
        assert text == SUB_VALUE["content"], label


def test_subscribe_under_a_path() -> None:
    for label, fragments in chunkings(SUB_DOC):
        got, _, records = subscribed_run(fragments, [(("items",), {"under": True})])
        expected = [r for r in records if r.path[:1] == ("items",)]
        assert expected, label
        problem = records_diff(expected, got[0])
        assert problem is None, f"{label}: {problem}"


def test_subscribe_with_a_wildcard_in_the_middle() -> None:
    expected: list[Change] = [
        S(("items", 0, "name"), "string"),
        A(("items", 0, "name"), "x"),
        C(("items", 0, "name"), "x"),
        S(("items", 1, "name"), "string"),
        A(("items", 1, "name"), "yz\u00e9"),
        C(("items", 1, "name"), "yz\u00e9"),
    ]
    for label, fragments in chunkings(SUB_DOC):
        got = subscribed_run(fragments, [(("items", ANY, "name"), {})])[0][0]
        problem = records_diff(expected, got)
        assert problem is None, f"{label}: {problem}"


def test_subscribe_with_kinds_as_any_iterable() -> None:
    for kinds in ({Started}, (k for k in [Started]), frozenset([Started])):
        got = subscribed_run([SUB_DOC], [((), {"under": True, "kinds": kinds})])[0][0]
        assert [r.path for r in got] == [
            (),
            ("items",),
            ("items", 0),
            ("items", 0, "name"),
            ("items", 1),
            ("items", 1, "name"),
            ("content",),
            ("title",),
            ("n",),
        ]


def test_callbacks_run_in_document_order_across_subscriptions() -> None:
    subs: list[tuple[Sequence[object], dict[str, Any]]] = [
        (("items", ANY), {"kinds": [Completed, Started]}),
        ((), {"under": True, "kinds": [Started]}),
        (("items", ANY, ANY), {"kinds": [Completed]}),
        ((), {"kinds": [Completed]}),
        (("n", 0), {}),
    ]
    for label, fragments in chunkings(SUB_DOC):
        _, log, records = subscribed_run(fragments, subs)
        expected: list[tuple[int, Change]] = []
        for record in records:
            for i, (pattern, options) in enumerate(subs):
                kinds = options.get("kinds")
                if (kinds is None or type(record) in kinds) and jsonsnap.matches(
                    pattern, record.path, under=options.get("under", False)
                ):
                    expected.append((i, record))
        assert [i for i, _ in log] == [i for i, _ in expected], label
        for (_, want), (_, got) in zip(expected, log, strict=True):
            assert record_diff(want, got) is None, (label, want, got)


def test_callbacks_run_after_the_fragment_is_taken() -> None:
    parser = jsonsnap.Parser(track_changes=True)
    seen: list[tuple[int, Any]] = []
    parser.subscribe((), lambda change: seen.append((parser.position, parser.snapshot())))
    parser.subscribe(
        ("a",), lambda change: seen.append((parser.position, parser.snapshot(copy=True)))
    )
    text = '{"a": 1, "b": [2]}'
    parser.feed(text)
    assert seen == [(len(text), {"a": 1, "b": [2]})] * 3  # Started (), Completed a, Completed ()
    seen.clear()
    top = jsonsnap.Parser(track_changes=True)
    top.subscribe((), lambda change: seen.append((top.position, change)))
    top.feed("12")
    assert seen == []
    top.close()
    assert seen == [(2, C((), 12))]


def test_cancel_stops_delivery() -> None:
    for label, fragments in chunkings(SUB_DOC):
        half = len(fragments) // 2
        parser = jsonsnap.Parser(track_changes=True)
        got: list[Change] = []
        kept: list[Change] = []
        cancel = parser.subscribe(("items",), got.append, under=True)
        parser.subscribe(("items",), kept.append, under=True)
        for fragment in fragments[:half]:
            parser.feed(fragment)
        before = [r for r in parser.changes() if r.path[:1] == ("items",)]
        cancel()
        delivered = list(got)
        for fragment in fragments[half:]:
            parser.feed(fragment)
        cancel()  # harmless the second time
        parser.close()
        assert got == delivered, label
        problem = records_diff(before, delivered)
        assert problem is None, f"{label}: {problem}"
        after = [r for r in parser.changes() if r.path[:1] == ("items",)]
        problem = records_diff(before + after, kept)
        assert problem is None, f"{label}: the other subscription: {problem}"


def test_cancel_from_inside_a_callback() -> None:
    parser = jsonsnap.Parser(track_changes=True)
    got: list[Change] = []

    def once(change: Change) -> None:
        got.append(change)
        cancel()

    cancel = parser.subscribe((), once, under=True)
    parser.feed("[1, 2")
    parser.feed(", 3]")
    assert got == [S((), "array")]


def test_late_subscription_gets_only_later_records() -> None:
    """Ambiguous in the spec: here a subscription receives the records of the feed() calls made
    after it, whether or not another subscription was there before it."""
    prefix, rest = '{"a": [1, 2], "b": "xy"', ', "c": 3}'
    for other in (False, True):
        parser = jsonsnap.Parser(track_changes=True)
        if other:
            parser.subscribe(("zzz",), lambda change: None)
        parser.feed(prefix)
        got: list[Change] = []
        parser.subscribe((), got.append, under=True)
        parser.feed(rest)
        parser.close()
        expected = [C(("c",), 3), C((), json.loads(prefix + rest))]
        problem = records_diff(expected, got)
        assert problem is None, f"with another subscription before: {other}: {problem}"


def test_subscribe_before_the_first_feed_without_track_changes() -> None:
    # Documented: the parser then makes records for its subscribers only.
    parser = jsonsnap.Parser()
    got: list[jsonsnap.Change] = []
    parser.subscribe(("a",), got.append)
    parser.feed('{"a": 1}')
    assert got == [jsonsnap.Completed(("a",), 1)]
    with pytest.raises(ValueError):
        jsonsnap.Parser(partial_numbers=True).subscribe(("a",), got.append)


def test_subscribe_after_feed_without_track_changes_is_refused() -> None:
    parser = jsonsnap.Parser()
    parser.feed("[1")
    with pytest.raises(ValueError):
        parser.subscribe(("a",), lambda change: None)


def test_changes_needs_track_changes() -> None:
    with pytest.raises(ValueError):
        jsonsnap.Parser().changes()
    parser = jsonsnap.Parser()
    parser.subscribe((), lambda change: None)  # records for the subscriber, not kept
    parser.feed("[1, 2]")
    with pytest.raises(ValueError):
        parser.changes()


MATCH_CASES: list[tuple[Sequence[object], Path, bool, bool]] = [
    ((), (), False, True),
    ((), ("a",), False, False),
    ((), ("a",), True, True),
    ((), (), True, True),
    (("a",), ("a",), False, True),
    (("a",), ("a",), True, True),
    (("a",), ("b",), False, False),
    (("a",), ("b",), True, False),
    (("a",), ("a", 0), False, False),
    (("a",), ("a", 0), True, True),
    (("a",), ("a", 0, "b"), True, True),
    (("a", 0), ("a",), False, False),
    (("a", 0), ("a",), True, False),
    ((ANY,), ("x",), False, True),
    ((ANY,), (3,), False, True),
    ((ANY,), (), False, False),
    ((ANY,), (), True, False),
    ((ANY,), ("x", 1), False, False),
    ((ANY,), ("x", 1), True, True),
    (("items", ANY), ("items", 0), False, True),
    (("items", ANY), ("items",), False, False),
    (("items", ANY), ("other", 0), False, False),
    (("items", ANY, "name"), ("items", 2, "name"), False, True),
    (("items", ANY, "name"), ("items", 2, "id"), False, False),
    (("items", ANY, "name"), ("items", "k", "name"), False, True),
    ((ANY, ANY), ("a", 1), False, True),
    (("1",), (1,), False, False),
    ((1,), ("1",), False, False),
    ((1,), ("1",), True, False),
    (("a", 1), ("a", "1"), False, False),
    ((0,), (0,), False, True),
    (["a", ANY], ("a", 0), False, True),
]


@pytest.mark.parametrize(("pattern", "path", "under", "expected"), MATCH_CASES)
def test_matches_table(pattern: Sequence[object], path: Path, under: bool, expected: bool) -> None:
    assert jsonsnap.matches(pattern, path, under=under) is expected
    if not under:
        assert jsonsnap.matches(pattern, path) is expected


# --------------------------------------------------------------------------- replay by hand


def test_replay_by_hand() -> None:
    records: list[Change] = [
        S((), "object"),
        S(("a",), "string"),
        A(("a",), "x"),
        A(("a",), "y"),
        S(("b",), "array"),
        C(("b", 0), 1),
        S(("b", 1), "object"),
        C(("b", 1, "k"), None),
    ]
    assert jsonsnap.replay(records) == {"a": "xy", "b": [1, {"k": None}]}
    assert jsonsnap.replay(records[:1]) == {}
    assert jsonsnap.replay([C((), 5)]) == 5
    value: dict[str, Any] = {"a": [1]}
    result = jsonsnap.replay([C(("a", 1), 2), S(("c",), "string")], value)
    assert result == {"a": [1, 2], "c": ""}
    assert jsonsnap.replay([], NOTHING) is NOTHING


# --------------------------------------------------------------------------- 5. options


@pytest.mark.parametrize("option", ["partial_numbers", "partial_literals"])
def test_track_changes_refuses_partial_options(option: str) -> None:
    on: dict[str, Any] = {option: True}
    off: dict[str, Any] = {option: False}
    with pytest.raises(ValueError):
        jsonsnap.Parser(track_changes=True, **on)
    jsonsnap.Parser(track_changes=True, **off)


def test_chunking_helpers_cover_the_docs() -> None:
    # The tables above rely on chunkings() giving several cuts of each prefix.
    labels = [label for label, _ in chunkings(DOC_ITEMS)]
    assert "whole" in labels and "1-char" in labels and len(labels) > 10
    assert list(itertools.islice(chunkings(""), 1)) == [("whole", [""])]


# --------------------------------------------------------------------------- subscriptions


@settings(max_examples=examples(150))
@given(
    case=strategies.chunked(strategies.json_documents()),
    data=st.data(),
    under=st.booleans(),
    kinds=st.sampled_from([None, (Started,), (Appended,), (Completed,), (Started, Completed)]),
)
def test_a_subscription_gets_what_matches_says(
    case: tuple[str, list[str]],
    data: st.DataObject,
    under: bool,
    kinds: tuple[type[Change], ...] | None,
) -> None:
    """Subscribed at any fragment, with a pattern made from a path of the document (some keys
    and indices replaced by ANY), a subscription receives exactly the later records that
    ``matches`` accepts, of the kinds asked for. (The recorder matches records as they are
    made, against where the open containers stand; ``matches`` reads the whole path.)"""
    _, fragments = case
    everything = jsonsnap.Parser(track_changes=True)
    for fragment in fragments:
        everything.feed(fragment)
    everything.close()
    # Deep paths and few wildcards: patterns that part of the document matches, and not all.
    paths = sorted({record.path for record in everything.changes()}, key=len)
    path = data.draw(st.sampled_from(paths[len(paths) // 2 :]))
    pattern = tuple(data.draw(st.sampled_from([step, step, step, ANY])) for step in path)
    pattern = pattern[: data.draw(st.integers(len(pattern) // 2, len(pattern)))]
    at = data.draw(st.integers(0, len(fragments)))

    parser = jsonsnap.Parser(track_changes=True)
    got: list[Change] = []
    later: list[Change] = []
    for i, fragment in enumerate(fragments):
        if i == at:
            parser.changes()  # what came before is not for the subscriber
            parser.subscribe(pattern, got.append, under=under, kinds=kinds)
        parser.feed(fragment)
        if i >= at:
            later += parser.changes()
    if at == len(fragments):
        parser.changes()
        parser.subscribe(pattern, got.append, under=under, kinds=kinds)
    parser.close()
    later += parser.changes()
    expected = [
        record
        for record in later
        if (kinds is None or type(record) in kinds)
        and jsonsnap.matches(pattern, record.path, under=under)
    ]
    assert coalesce(got) == coalesce(expected), (pattern, under, kinds, at)


# ----------------------------------------------------------------- one recorder, three ways
# Without subscriptions the recorder keeps each record for changes() at once (a string read
# whole gets its three records written out); with them, it matches first and makes a record
# only when changes() keeps it or a subscription wants it. Both ways must make the same records.


def three_ways(fragments: Sequence[str], **options: Any) -> list[list[Change]]:
    """The records of ``fragments`` from changes() alone, from a subscription to everything
    (with no changes()), and from both on one parser, drained after every fragment."""
    alone = jsonsnap.Parser(track_changes=True, **options)
    sub_only = jsonsnap.Parser(**options)
    both = jsonsnap.Parser(track_changes=True, **options)
    out: list[list[Change]] = [[], [], [], []]
    sub_only.subscribe((), out[1].append, under=True)
    both.subscribe((), out[3].append, under=True)
    for fragment in fragments:
        alone.feed(fragment)
        out[0] += alone.changes()
        sub_only.feed(fragment)
        both.feed(fragment)
        out[2] += both.changes()
    for parser in (alone, sub_only, both):
        parser.close()
    out[0] += alone.changes()
    out[2] += both.changes()
    return out


def check_three_ways(text: str, fragments: Sequence[str], **options: Any) -> None:
    ways = three_ways(fragments, **options)
    for i, got in enumerate(ways[1:], 1):
        assert [type(r) for r in got] == [type(r) for r in ways[0]], (text, fragments, i)
        for want, have in zip(ways[0], got, strict=True):
            problem = record_diff(want, have)
            assert problem is None, f"way {i}, {text!r} in {fragments!r}: {problem}"
    # The same records the same way, whatever the chunking.
    problem = records_diff(whole_records(text, **options), ways[0])
    assert problem is None, problem


@settings(max_examples=examples(150, default=75))
@given(valid_chunked())
def test_records_kept_and_records_subscribed_are_the_same(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    check_three_ways(text, fragments)


THREE_WAY_DOCS = [
    '{"a": "xyz", "b": ["", "q\\u00e9", {"c": "\\n"}], "d": [1, "2", null], "e": ""}',
    '["s", ["t", ["u"]], {"k": "v", "w": {"x": "y"}}]',
    '"alone"',
    '{"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}',
]


@pytest.mark.parametrize("text", THREE_WAY_DOCS)
@pytest.mark.parametrize(
    "options",
    [{}, {"partial_strings": False}, {"object_pairs_hook": dict}, {"object_hook": dict}],
    ids=["default", "whole_strings", "pairs_hook", "object_hook"],
)
def test_records_kept_and_subscribed_at_every_chunking(text: str, options: dict[str, Any]) -> None:
    for _, fragments in chunkings(text):
        check_three_ways(text, fragments, **options)


# --------------------------------------------------------------------------- the records as values


def test_records_made_by_the_parser_behave_as_records_made_by_hand() -> None:
    import copy
    import pickle

    made = whole_records('{"a": ["x", 1]}')
    by_hand = [
        S((), "object"),
        S(("a",), "array"),
        S(("a", 0), "string"),
        A(("a", 0), "x"),
        C(("a", 0), "x"),
        C(("a", 1), 1),
        C(("a",), ["x", 1]),
        C((), {"a": ["x", 1]}),
    ]
    assert made == by_hand
    assert [hash(r) for r in made[:-2]] == [hash(r) for r in by_hand[:-2]]
    assert [repr(r) for r in made] == [repr(r) for r in by_hand]
    assert repr(made[3]) == "Appended(path=('a', 0), text='x')"
    for record in made:
        assert pickle.loads(pickle.dumps(record)) == record
        assert copy.copy(record) == record and copy.deepcopy(record) == record
        assert isinstance(record, (Started, Appended, Completed))
    assert made[0] != Completed((), "object") and made[0] != ("object",)
    assert Started(["a", 0], "string") == S(("a", 0), "string")  # any sequence, as a tuple
    assert Started(("a",), "array", 2).index == 2 and made[0].index == 0
    with pytest.raises(AttributeError):
        made[3].text = "y"  # type: ignore[misc, union-attr]
    with pytest.raises(AttributeError):
        made[3].path = ()  # type: ignore[misc]
    match made[3]:
        case Appended(path, text):
            assert (path, text) == (("a", 0), "x")
        case _:
            pytest.fail("Appended(path, text) did not match")
    match made[-1]:
        case Completed(path=(), value=value):
            assert value == {"a": ["x", 1]}
        case _:
            pytest.fail("Completed(path=(), value=...) did not match")
