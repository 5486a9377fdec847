"""The comparisons every other test relies on (tests/helpers/values.py) tell apart what they
must."""

from __future__ import annotations

import copy

import pytest

from values import NOTHING, diff, grows, oracle, strict_loads


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 1.0),
        (1, True),
        (0.0, -0.0),
        ([1], (1,)),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]}),
        ([1, 2], [1, 2, 3]),
        (None, NOTHING),
        ("\ud83d", "\ud83d\ude00"),
    ],
)
def test_diff_is_strict(a: object, b: object) -> None:
    assert diff(a, b) is not None
    assert diff(b, a) is not None


def nested(depth: int) -> list[object]:
    """``[[[...]]]``, ``depth`` lists deep."""
    root: list[object] = []
    node = root
    for _ in range(depth - 1):
        child: list[object] = []
        node.append(child)
        node = child
    return root


def test_diff_equal_values() -> None:
    value = {"a": [1, 1.0, -0.0, float("nan"), float("inf"), None, True, "é"], "b": {}}
    assert diff(value, copy.deepcopy(value)) is None
    assert diff(NOTHING, NOTHING) is None
    assert diff(nested(10_000), nested(10_000)) is None  # no recursion
    assert diff(nested(10_000), nested(9_999)) is not None


def test_diff_without_key_order() -> None:
    want = {"a": 1, "b": [{"c": 1, "d": 2}]}
    assert diff(want, {"b": [{"d": 2, "c": 1}], "a": 1}, key_order=False) is None
    assert diff({"a": 1}, {"b": 1}, key_order=False) is not None
    assert diff({"a": 1}, {"a": 1, "b": 2}, key_order=False) is not None
    assert diff({"a": 1}, {"a": 1.0}, key_order=False) is not None
    assert diff({"a": [1, 2]}, {"a": [2, 1]}, key_order=False) is not None


def test_diff_without_key_order_is_asked_for() -> None:
    assert diff({"a": 1, "b": 2}, {"b": 2, "a": 1}) is not None
    assert diff({"a": 1, "b": 2}, {"b": 2, "a": 1}, key_order=False) is None


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (NOTHING, {"a": 1}),
        ("ab", "abc"),
        ([1], [1, 2]),
        ({"a": "x"}, {"a": "xy", "b": []}),
        ([[1], "a"], [[1], "ab", 3]),
        ({}, {"a": 1}),
    ],
)
def test_grows(before: object, after: object) -> None:
    assert grows(before, after) is None
    assert grows(before, after, settled=True) is None


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("ab", "ax"),
        ([1, 2], [1]),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ([1], [1.0]),
        ({"a": None}, {"a": 0}),
        ([], {}),
        ("a", NOTHING),
    ],
)
def test_does_not_grow(before: object, after: object) -> None:
    assert grows(before, after) is not None
    assert grows(before, after, settled=True) is not None


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (["a", "b"], ["ab", "b"]),  # a member followed by a comma grew
        ([[1], [2]], [[1, 3], [2]]),
        ({"a": "x", "b": "y"}, {"a": "xz", "b": "y"}),
        ([1, {"a": ["p", "q"]}], [1, {"a": ["pp", "q"]}]),  # nested, in the last member
    ],
)
def test_settled_members_do_not_change(before: object, after: object) -> None:
    assert grows(before, after) is None
    assert grows(before, after, settled=True) is not None


def test_strict_loads_refuses_constants() -> None:
    assert strict_loads("[1.5]") == [1.5]
    assert strict_loads(b'{"a": 1}') == {"a": 1}
    for text in ("NaN", "[Infinity]", "-Infinity"):
        with pytest.raises(ValueError):
            strict_loads(text)
        assert oracle(text) == (False, None)
    assert oracle("[1]") == (True, [1])
