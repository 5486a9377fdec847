"""Strict comparison of JSON values for the tests, without recursion.

``diff`` compares exactly (types, key order, the sign of zero; NaN equals NaN), ``grows`` says
whether one snapshot extends another by the snapshot rules, and ``oracle`` is ``json.loads``
with NaN and Infinity rejected, as RFC 8259 and jsonsnap's defaults want.
"""

from __future__ import annotations

import json
import math
import reprlib
from typing import Final


class _Nothing:
    """The ``default`` handed to ``snapshot()``: "nothing displayable yet"."""

    def __repr__(self) -> str:
        return "NOTHING"


NOTHING: Final = _Nothing()

_repr = reprlib.Repr()
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlevel = 5


def show(value: object) -> str:
    return f"{_repr.repr(value)} ({type(value).__name__})"


def diff(expected: object, got: object) -> str | None:
    """First difference between two values, compared strictly and without recursion.

    Types must match exactly (``1`` is not ``1.0`` nor ``True``), dict keys must come in the same
    order, ``-0.0`` differs from ``0.0`` and NaN equals NaN.
    """
    stack: list[tuple[str, object, object]] = [("$", expected, got)]
    while stack:
        path, a, b = stack.pop()
        if type(a) is not type(b):
            return f"{path}: expected {show(a)}, got {show(b)}"
        if isinstance(a, (list, tuple)):
            assert isinstance(b, (list, tuple))
            if len(a) != len(b):
                return f"{path}: expected {show(a)}, got {show(b)} (length {len(a)} != {len(b)})"
            pairs = enumerate(zip(a, b, strict=True))
            stack.extend((f"{path}[{i}]", x, y) for i, (x, y) in pairs)
        elif isinstance(a, dict):
            assert isinstance(b, dict)
            if list(a) != list(b):
                return f"{path}: expected keys {list(a)!r}, got {list(b)!r}"
            stack.extend((f"{path}[{k!r}]", v, b[k]) for k, v in a.items())
        elif isinstance(a, float):
            assert isinstance(b, float)
            if math.isnan(a) and math.isnan(b):
                continue
            if a != b or math.copysign(1.0, a) != math.copysign(1.0, b):
                return f"{path}: expected {a!r}, got {b!r}"
        elif a != b:
            return f"{path}: expected {show(a)}, got {show(b)}"
    return None


def grows(before: object, after: object) -> str | None:
    """Why ``after`` is not a growth of ``before`` (None when it is).

    Strings only get longer, lists only append or grow their elements, dicts only add keys at
    the end or grow their values; everything else never changes.
    """
    stack: list[tuple[str, object, object]] = [("$", before, after)]
    while stack:
        path, a, b = stack.pop()
        if a is NOTHING:
            continue
        if type(a) is not type(b):
            return f"{path}: {show(a)} became {show(b)}"
        if isinstance(a, str):
            assert isinstance(b, str)
            if not b.startswith(a):
                return f"{path}: {a!r} became {b!r}"
        elif isinstance(a, list):
            assert isinstance(b, list)
            if len(b) < len(a):
                return f"{path}: {show(a)} shrank to {show(b)}"
            pairs = enumerate(zip(a, b, strict=False))
            stack.extend((f"{path}[{i}]", x, y) for i, (x, y) in pairs)
        elif isinstance(a, dict):
            assert isinstance(b, dict)
            if list(b)[: len(a)] != list(a):
                return f"{path}: keys {list(a)!r} became {list(b)!r}"
            stack.extend((f"{path}[{k!r}]", v, b[k]) for k, v in a.items())
        else:
            problem = diff(a, b)
            if problem is not None:
                return f"{path}: changed: {problem}"
    return None


def reject_constant(name: str) -> object:
    raise ValueError(f"oracle rejects {name}")


def oracle(text: str) -> tuple[bool, object]:
    """``(True, value)`` when ``json.loads`` (NaN/Infinity rejected) accepts ``text``."""
    try:
        return True, json.loads(text, parse_constant=reject_constant)
    except ValueError:
        return False, None
