"""JSON values as instances of Python types: :func:`convert`, a final value converted at any
depth (the mapping and the choices are ``from_types``'s docstring). A conversion is a walk
(see ``walk``): a frame per container, a scalar converted in its container's frame.
"""

from __future__ import annotations

import itertools
from typing import Any, get_args

from .type_kinds import (  # the shared helpers of the type modules
    NOT_YET,
    _as_int,
    _choice,
    _fields,
    _item,
    _kind,
    _members,
    _Path,
    _tuple_items,
    _type_name,
)
from .walk import (
    _DEEP,
    _HERE,
    ConversionError,
    _expect,
    _Frame,
    _is_container,
    _run,
    _scalar_matches,
    _short,
    _Unsupported,
    _unwrap,
    _Walk,
)

__all__ = ["ConversionError", "convert"]


def _flat(value: Any, tp: Any) -> Any:
    """The conversion of a value that is not a container to a type that needs no frame,
    or :data:`_DEEP` (a container, a class, an Enum or a union that does not take it:
    its frame raises, with its path)."""
    if _is_container(value):
        return _DEEP
    tp, kind = _unwrap(tp)
    if kind in ("any", "null", "string", "number", "boolean"):
        return value
    if kind == "integer":
        return _as_int(value)
    if kind == "literal":
        choice = _choice(value, get_args(tp))
        return value if choice is NOT_YET else choice
    if kind == "enum":
        member = _choice(value, tp)
        return _DEEP if member is NOT_YET else member
    if kind == "union":
        for member in _members(tp):
            if _scalar_matches(value, member, _kind(member), False):
                return _flat(value, member)
    return _DEEP


def _converting(walk: _Walk, value: Any, tp: Any) -> _Frame:
    """``value`` (final) as an instance of ``tp``."""
    tp, kind = _unwrap(tp)
    if kind in ("any", "null", "string", "number", "boolean", "integer", "literal"):
        return _flat(value, tp) if not _is_container(value) else value
    if kind == "enum":
        member = _choice(value, tp)
        return tp(value) if member is NOT_YET else member  # tp(value) raises ValueError
    if kind == "union":
        for member in _members(tp):
            if (yield _HERE, walk.matching(value, member, False)):
                return (yield _HERE, _converting(walk, value, member))
        raise ValueError(f"{_short(value)} matches no member of {_type_name(tp)}")
    if kind in ("list", "tuple", "namedtuple"):
        _expect(value, list, tp)
        if kind == "namedtuple":
            types: Any = [f.tp for f in _fields(tp, kind)]
        else:
            fixed = _tuple_items(tp) if kind == "tuple" else None
            if fixed is None:
                args = get_args(tp)
                types = itertools.repeat(args[-1] if args else Any)
            else:
                types = fixed
        out = []
        for i, (v, t) in enumerate(zip(value, types, strict=False)):
            c = _flat(v, t)
            out.append((yield i, _converting(walk, v, t)) if c is _DEEP else c)
        if kind == "list":
            return out
        return tp(*out) if kind == "namedtuple" else tuple(out)
    if kind == "dict":
        _expect(value, dict, tp)
        item = _item(tp)
        converted = {}
        for k, v in value.items():
            c = _flat(v, item)
            converted[k] = (yield k, _converting(walk, v, item)) if c is _DEEP else c
        return converted
    if kind in ("dataclass", "typeddict"):
        _expect(value, dict, tp)
        by_name = {f.name: f for f in _fields(tp, kind) if f.init}
        fields = {}
        for k, v in value.items():
            f = by_name.get(k)
            if f is not None:  # (a TypedDict keeps its declared keys only)
                c = _flat(v, f.tp)
                fields[k] = (yield k, _converting(walk, v, f.tp)) if c is _DEEP else c
        return tp(**fields) if kind == "dataclass" else fields
    if kind == "pydantic":
        return tp.model_validate(value)
    raise _Unsupported(f"cannot convert to {_type_name(tp)}: not a type schema_of() can express")


def convert(value: Any, tp: Any) -> Any:
    """The final value (plain JSON, valid against ``schema_of(tp)``) as an instance of ``tp``,
    at any depth.

    Dataclasses are built from their fields by name (absent fields take their defaults),
    NamedTuples from the array, Enum members from their values, tuples from arrays; lists and
    dicts are rebuilt with their items converted; a TypedDict is a dict of its declared keys
    (others are dropped, as pydantic does). A union takes the first member the value matches.
    A pydantic model is ``tp.model_validate(value)``.

    Raises :class:`ConversionError` (a ``ValueError``, with the ``path`` of the part and what
    refused it as ``__cause__``) for a value that does not convert, and :class:`TypeError`
    for a type :func:`schema_of` cannot express.
    """
    walk = _Walk()
    flat = _flat(value, tp)  # (a container is _DEEP)
    if flat is not _DEEP:
        return flat
    try:
        return _run(_converting(walk, value, tp))
    except ConversionError as error:
        error.path = _located(value, error.path)
        raise


def _located(value: Any, path: _Path) -> _Path:
    """``path`` without the steps that are not in ``value`` (pydantic's ``loc`` names the
    member of a union it tried, as in ``("pet", "cat", "lives")``)."""
    kept: list[str | int] = []
    for step in path:
        in_object = isinstance(value, dict) and isinstance(step, str) and step in value
        in_array = isinstance(value, list) and type(step) is int and 0 <= step < len(value)
        if in_object or in_array:
            value = value[step]
            kept.append(step)
    return tuple(kept)
