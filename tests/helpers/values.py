"""The one way the tests compare JSON values: strictly, and without recursion.

* :func:`diff` compares exactly (types, key order, the sign of zero; NaN equals NaN); with
  ``key_order=False`` object keys may come in any order (JSON objects are unordered, and the
  streaming APIs do not promise an order), everything else is as strict;
* :func:`grows` says whether one snapshot extends another by the snapshot rules, and with
  ``settled=True`` also that only the last member of each container may still change;
* :func:`strict_loads` is ``json.loads`` with NaN and Infinity rejected, as RFC 8259 and
  jsonsnap's defaults want, and :func:`oracle` its ``(ok, value)`` form;
* :data:`NOTHING` is the ``default`` the tests hand to ``snapshot()`` and ``parse_partial()``:
  "nothing to show yet", told apart from a JSON ``null``.
"""

from __future__ import annotations

import json
import math
import reprlib
from typing import Any, Final


class _Nothing:
    """The ``default`` handed to ``snapshot()``: "nothing displayable yet".

    Deliberately without ``__copy__``/``__deepcopy__``: a copy is another object, so a test that
    checks ``snapshot(NOTHING, copy=True) is NOTHING`` sees it if the default were copied.
    """

    def __repr__(self) -> str:
        return "NOTHING"


NOTHING: Final = _Nothing()

_repr = reprlib.Repr()
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlevel = 5


def show(value: object) -> str:
    return f"{_repr.repr(value)} ({type(value).__name__})"


def diff(expected: object, got: object, *, key_order: bool = True) -> str | None:
    """First difference between two values, compared strictly and without recursion.

    Types must match exactly (``1`` is not ``1.0`` nor ``True``), ``-0.0`` differs from ``0.0``
    and NaN equals NaN. Dict keys must come in the same order, unless ``key_order`` is false.
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
            if key_order and list(a) != list(b):
                return f"{path}: expected keys {list(a)!r}, got {list(b)!r}"
            if not key_order and a.keys() != b.keys():
                missing = [k for k in a if k not in b]
                extra = [k for k in b if k not in a]
                return f"{path}: keys missing {missing!r}, unexpected {extra!r}"
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


def grows(before: object, after: object, *, settled: bool = False) -> str | None:
    """Why ``after`` is not a growth of ``before`` (None when it is).

    Strings only get longer, lists only append or grow their elements, dicts only add keys at
    the end or grow their values; everything else never changes. ``before`` may be
    :data:`NOTHING` (nothing shown yet): anything grows it.

    ``settled``: moreover only the last member of each container may still change. Members
    before it were followed by a comma in the text, so they are complete and must already equal
    their value in ``after``.
    """
    stack: list[tuple[str, object, object, bool]] = [("$", before, after, settled)]
    while stack:
        path, a, b, last_may_grow = stack.pop()
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
            children = [(f"{path}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b, strict=False))]
            problem = _settled(children, last_may_grow, stack)
            if problem is not None:
                return problem
        elif isinstance(a, dict):
            assert isinstance(b, dict)
            if list(b)[: len(a)] != list(a):
                return f"{path}: keys {list(a)!r} became {list(b)!r}"
            children = [(f"{path}[{k!r}]", v, b[k]) for k, v in a.items()]
            problem = _settled(children, last_may_grow, stack)
            if problem is not None:
                return problem
        else:
            problem = diff(a, b)
            if problem is not None:
                return f"{path}: changed: {problem}"
    return None


def _settled(
    children: list[tuple[str, object, object]],
    settled: bool,
    stack: list[tuple[str, object, object, bool]],
) -> str | None:
    """Queue the members of a container for :func:`grows`; when ``settled``, all but the last
    must be equal already (the reason if one is not)."""
    if not settled:
        stack.extend((path, a, b, False) for path, a, b in children)
        return None
    for path, a, b in children[:-1]:
        problem = diff(a, b)
        if problem is not None:
            return f"{path}: a member followed by a comma changed: {problem}"
    stack.extend((path, a, b, True) for path, a, b in children[-1:])
    return None


def reject_constant(name: str) -> Any:
    raise ValueError(f"oracle rejects {name}")


def strict_loads(text: str | bytes) -> Any:
    """``json.loads`` with NaN, Infinity and -Infinity refused (jsonsnap's default)."""
    return json.loads(text, parse_constant=reject_constant)


def oracle(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when :func:`strict_loads` accepts ``text``, else ``(False, None)``."""
    try:
        return True, strict_loads(text)
    except ValueError:
        return False, None
