"""JSON values as instances of Python types: :func:`convert` (a final value), :func:`view`
(a snapshot of a value still streaming, with :data:`NOT_YET` where a part has not arrived) and
:func:`type_at` (the type of a part). The mapping and the choices are ``_types``'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from ._pytypes import (  # the shared helpers of the type modules
    NOT_YET,
    _as_int,
    _choice,
    _Field,
    _fields,
    _inner,
    _integer,
    _item,
    _Kind,
    _kind,
    _members,
    _number,
    _Path,
    _prefix_of_choice,
    _tuple_items,
    _type_name,
)

__all__ = ["convert", "type_at", "view"]

# ---------------------------------------------------------------------------------------------
# Structural matching: which member of a union a value is.


def _pydantic_key(value: dict[str, Any], name: str, field: Any) -> str | None:
    """The key a pydantic field's value is under in ``value`` (alias first), or None."""
    for key in (getattr(field, "validation_alias", None), getattr(field, "alias", None), name):
        if isinstance(key, str) and key in value:
            return key
    return None


def _matches(value: Any, tp: Any, partial: bool) -> bool:
    """Whether ``value`` has the shape of ``tp``: the JSON types, required and unknown keys,
    array lengths, literal and enum values; constraints from ``Annotated`` are not checked.

    With ``partial``, ``value`` is a snapshot of a value still streaming: keys may be missing,
    arrays short, and a string may be cut short of a literal or enum value.
    """
    kind = _kind(tp)
    if kind in ("any", "unsupported"):  # unsupported: within a pydantic model, its business
        return True
    if kind == "null":
        return value is None
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return _integer(value)
    if kind == "number":
        return _number(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("annotated", "wrapper", "newtype", "alias"):
        return _matches(value, _inner(tp, kind), partial)
    if kind in ("literal", "enum"):
        choices = get_args(tp) if kind == "literal" else list(tp)
        if _choice(value, choices) is not NOT_YET:
            return True
        return partial and _prefix_of_choice(value, choices)
    if kind == "union":
        return any(_matches(value, member, partial) for member in _members(tp))
    if kind == "list":
        item = _item(tp)
        return isinstance(value, list) and all(_matches(v, item, partial) for v in value)
    if kind == "dict":
        item = _item(tp)
        return isinstance(value, dict) and all(_matches(v, item, partial) for v in value.values())
    if kind == "tuple":
        if not isinstance(value, list):
            return False
        items = _tuple_items(tp)
        if items is None:
            item = get_args(tp)[0] if get_args(tp) else Any
            return all(_matches(v, item, partial) for v in value)
        if len(value) > len(items) or (len(value) < len(items) and not partial):
            return False
        return all(_matches(v, t, partial) for v, t in zip(value, items, strict=False))
    if kind == "namedtuple":
        fields = _fields(tp, kind)
        if not isinstance(value, list) or len(value) > len(fields):
            return False
        if not partial and any(f.required for f in fields[len(value) :]):
            return False
        return all(_matches(v, f.tp, partial) for v, f in zip(value, fields, strict=False))
    if kind in ("dataclass", "typeddict"):
        if not isinstance(value, dict):
            return False
        by_name = {f.name: f for f in _fields(tp, kind) if f.init}
        if kind == "dataclass" and not by_name.keys() >= value.keys():
            return False
        if not partial and any(f.required and name not in value for name, f in by_name.items()):
            return False
        return all(_matches(v, by_name[k].tp, partial) for k, v in value.items() if k in by_name)
    # pydantic
    if not isinstance(value, dict):
        return False
    model_fields = getattr(tp, "model_fields", None)
    if not isinstance(model_fields, dict):
        return True
    for name, field in model_fields.items():
        key = _pydantic_key(value, name, field)
        if key is None:
            if not partial and getattr(field, "is_required", lambda: False)():
                return False
        elif not _matches(value[key], getattr(field, "annotation", Any), partial):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# convert


def _expect(value: Any, json_type: type, tp: Any) -> None:
    if not isinstance(value, json_type):
        raise ValueError(f"cannot convert {type(value).__name__} to {_type_name(tp)}")


def _convert(value: Any, tp: Any) -> Any:
    kind = _kind(tp)
    if kind in ("any", "null", "string", "number", "boolean"):
        return value
    if kind == "integer":
        return _as_int(value)
    if kind in ("annotated", "wrapper", "newtype", "alias"):
        return _convert(value, _inner(tp, kind))
    if kind == "literal":
        choice = _choice(value, get_args(tp))
        return value if choice is NOT_YET else choice
    if kind == "enum":
        member = _choice(value, tp)
        return tp(value) if member is NOT_YET else member  # tp(value) raises ValueError
    if kind == "list":
        _expect(value, list, tp)
        item = _item(tp)
        return [_convert(v, item) for v in value]
    if kind == "tuple":
        _expect(value, list, tp)
        items = _tuple_items(tp)
        if items is None:
            item = get_args(tp)[0] if get_args(tp) else Any
            return tuple(_convert(v, item) for v in value)
        return tuple(_convert(v, t) for v, t in zip(value, items, strict=False))
    if kind == "dict":
        _expect(value, dict, tp)
        item = _item(tp)
        return {k: _convert(v, item) for k, v in value.items()}
    if kind == "dataclass":
        _expect(value, dict, tp)
        return tp(
            **{
                f.name: _convert(value[f.name], f.tp)
                for f in _fields(tp, kind)
                if f.init and f.name in value
            }
        )
    if kind == "typeddict":
        _expect(value, dict, tp)
        by_name = {f.name: f.tp for f in _fields(tp, kind)}
        return {k: _convert(v, by_name[k]) if k in by_name else v for k, v in value.items()}
    if kind == "namedtuple":
        _expect(value, list, tp)
        return tp(*[_convert(v, f.tp) for v, f in zip(value, _fields(tp, kind), strict=False)])
    if kind == "union":
        for member in _members(tp):
            if _matches(value, member, False):
                return _convert(value, member)
        raise ValueError(f"{_short(value)} matches no member of {_type_name(tp)}")
    if kind == "pydantic":
        return tp.model_validate(value)
    raise TypeError(f"cannot convert to {_type_name(tp)}: not a type schema_of() can express")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def convert(value: Any, tp: Any) -> Any:
    """The final value (plain JSON, valid against ``schema_of(tp)``) as an instance of ``tp``.

    Dataclasses are built from their fields by name (absent fields take their defaults),
    NamedTuples from the array, Enum members from their values, tuples from arrays; lists and
    dicts are rebuilt with their items converted; a TypedDict stays a dict. A union takes the
    first member the value matches. A pydantic model is ``tp.model_validate(value)``.

    Raises :class:`ValueError` for a value of the wrong shape (or nesting too deep to convert)
    and :class:`TypeError` for a type :func:`schema_of` cannot express.
    """
    try:
        return _convert(value, tp)
    except RecursionError:
        raise ValueError("too deep to convert") from None


# ---------------------------------------------------------------------------------------------
# view


def _never(path: _Path) -> bool:
    return False


class _Viewer:
    """Views one snapshot: the caller's ``invalid`` and ``defaults`` for every part of it."""

    __slots__ = ("defaults", "invalid")

    def __init__(self, invalid: Callable[[_Path], bool], defaults: bool) -> None:
        self.invalid = invalid
        self.defaults = defaults

    def absent(self, field: _Field) -> Any:
        if self.defaults and field.default is not None:
            return field.default()
        return NOT_YET

    def view(self, value: Any, tp: Any, path: _Path, lenient: bool) -> Any:
        if value is NOT_YET or self.invalid(path):
            return NOT_YET
        kind = _kind(tp)
        if kind == "any":
            return value
        if kind in ("null", "string", "number", "boolean"):
            return value if _matches(value, tp, True) else NOT_YET
        if kind == "integer":
            return _as_int(value) if _integer(value) else NOT_YET
        if kind in ("annotated", "wrapper", "newtype", "alias"):
            return self.view(value, _inner(tp, kind), path, lenient)
        if kind == "literal":
            return _choice(value, get_args(tp))
        if kind == "enum":
            return _choice(value, tp)
        if kind == "union":
            # The member convert() would take if the value is complete, else the first it fits.
            members = _members(tp)
            for partial in (False, True):
                for member in members:
                    if _matches(value, member, partial):
                        return self.view(value, member, path, lenient)
            return NOT_YET
        if kind == "list":
            if not isinstance(value, list):
                return NOT_YET
            item = _item(tp)
            return [self.view(v, item, (*path, i), lenient) for i, v in enumerate(value)]
        if kind == "dict":
            if not isinstance(value, dict):
                return NOT_YET
            item = _item(tp)
            return {k: self.view(v, item, (*path, k), lenient) for k, v in value.items()}
        if kind == "tuple":
            return self.view_tuple(value, tp, path, lenient)
        if kind in ("dataclass", "typeddict", "namedtuple"):
            return self.view_fields(value, tp, kind, path, lenient)
        if kind == "pydantic":
            return self.view_pydantic(value, tp, path)
        if lenient:
            return value
        raise TypeError(f"cannot view as {_type_name(tp)}: not a type schema_of() can express")

    def view_tuple(self, value: Any, tp: Any, path: _Path, lenient: bool) -> Any:
        if not isinstance(value, list):
            return NOT_YET
        items = _tuple_items(tp)
        if items is None:
            item = get_args(tp)[0] if get_args(tp) else Any
            return tuple(self.view(v, item, (*path, i), lenient) for i, v in enumerate(value))
        if len(value) > len(items):
            return NOT_YET
        viewed = [
            self.view(v, t, (*path, i), lenient)
            for i, (v, t) in enumerate(zip(value, items, strict=False))
        ]
        return (*viewed, *[NOT_YET] * (len(items) - len(value)))

    def view_fields(self, value: Any, tp: Any, kind: _Kind, path: _Path, lenient: bool) -> Any:
        fields = _fields(tp, kind)
        if kind == "namedtuple":
            if not isinstance(value, list) or len(value) > len(fields):
                return NOT_YET
            viewed = [
                self.view(v, f.tp, (*path, i), lenient)
                for i, (v, f) in enumerate(zip(value, fields, strict=False))
            ]
            viewed.extend(self.absent(f) for f in fields[len(value) :])
            return tp._make(viewed)
        if not isinstance(value, dict):
            return NOT_YET
        values = {
            f.name: (
                self.view(value[f.name], f.tp, (*path, f.name), lenient)
                if f.init and f.name in value
                else self.absent(f)
            )
            for f in fields
            # The default of a key a TypedDict does not require is its absence.
            if not (
                kind == "typeddict" and self.defaults and not f.required and f.name not in value
            )
        }
        if kind == "typeddict":
            known = {f.name for f in fields}
            values.update((k, v) for k, v in value.items() if k not in known)
            return values
        # Built without __init__: no validation in __post_init__, frozen and slots work.
        obj = object.__new__(tp)
        for name, v in values.items():
            object.__setattr__(obj, name, v)
        return obj

    def view_pydantic(self, value: Any, tp: Any, path: _Path) -> Any:
        model_fields = getattr(tp, "model_fields", None)
        if getattr(tp, "__pydantic_root_model__", False) and isinstance(model_fields, dict):
            root = getattr(model_fields.get("root"), "annotation", Any)
            return tp.model_construct(self.view(value, root, path, True))
        if not isinstance(value, dict):
            return NOT_YET
        if not isinstance(model_fields, dict):
            return tp.model_construct(**value)
        values: dict[str, Any] = {}
        for name, field in model_fields.items():
            key = _pydantic_key(value, name, field)
            if key is not None:
                annotation = getattr(field, "annotation", Any)
                values[name] = self.view(value[key], annotation, (*path, key), True)
            elif not (self.defaults and not getattr(field, "is_required", lambda: True)()):
                values[name] = NOT_YET
            # else: left out, model_construct() fills in the default
        return tp.model_construct(**values)


def view(
    value: Any,
    tp: Any,
    *,
    invalid: Callable[[tuple[str | int, ...]], bool] = _never,
    defaults: bool = False,
) -> Any:
    """A typed partial view of ``value``, a snapshot of a JSON value still streaming.

    Each part present and of the right JSON type so far is viewed as its type; a part absent,
    of the wrong type, or whose path ``invalid(path)`` says is invalid, is :data:`NOT_YET`
    (with ``defaults=True``, a field absent that has a default gets the default instead).
    Paths are tuples of keys and indices, like ``("items", 3, "name")``; the root is ``()``.

    * A dataclass appears as soon as its object starts, built without calling ``__init__`` (so
      ``__post_init__`` does not run, and NOT_YET can be stored even in a frozen or slots
      dataclass); a NamedTuple as soon as its array starts, padded with NOT_YET; a TypedDict
      as a dict with every declared key, NOT_YET for the ones not there (with ``defaults``, a
      key it does not require is left out instead: its absence is its default), and any
      undeclared keys as they are.
    * A string is shown as far as it arrived, but an Enum or a Literal only once the value is
      exactly one of theirs: a string cut short is NOT_YET.
    * A list shows its items so far, NOT_YET in place of an item that does not fit; a fixed
      tuple is padded with NOT_YET.
    * A union is viewed as the member :func:`convert` would take if the value were complete,
      and otherwise as its first member the value fits so far (a string cut short fits a
      literal it begins), so the member may change as more arrives.
    * A pydantic model is ``tp.model_construct(...)`` (no validation) with its fields viewed.

    The root follows the same rules: ``view(None, Model)`` for a model that is not nullable is
    NOT_YET, so a snapshot's "nothing yet" default may be ``None`` or :data:`NOT_YET` itself.
    Raises :class:`TypeError` for a type :func:`schema_of` cannot express, and
    :class:`ValueError` if the value is nested too deep to view.
    """
    try:
        return _Viewer(invalid, defaults).view(value, tp, (), False)
    except RecursionError:
        raise ValueError("too deep to view") from None


# ---------------------------------------------------------------------------------------------
# The type at a path


def type_at(tp: Any, path: tuple[str | int, ...]) -> Any:
    """The Python type of the part of a ``tp`` value at ``path`` (``Any`` where the type says
    nothing, and for a union whose members disagree); for :meth:`jsonsnap.Parser.take`."""
    for step in path:
        tp = _bare(tp)
        kind = _kind(tp)
        if kind == "list" or (kind == "dict" and isinstance(step, str)):
            tp = _item(tp)
        elif kind == "tuple" and isinstance(step, int):
            items = _tuple_items(tp)
            tp = _item(tp) if items is None else (items[step] if step < len(items) else Any)
        elif kind in ("dataclass", "typeddict") and isinstance(step, str):
            found = [f.tp for f in _fields(tp, kind) if f.name == step]
            tp = found[0] if found else Any
        elif kind == "namedtuple" and isinstance(step, int):
            fields = _fields(tp, kind)
            tp = fields[step].tp if step < len(fields) else Any
        elif kind == "pydantic" and isinstance(step, str):
            field = getattr(tp, "model_fields", {}).get(step)
            tp = field.annotation if field is not None else Any
        elif kind == "union":
            members = [m for m in _members(tp) if _kind(m) != "null"]
            if len(members) != 1:
                return Any
            tp = type_at(members[0], (step,))
        else:
            return Any
    return tp


def _bare(tp: Any) -> Any:
    """``tp`` without Annotated, Required and the like, NewType and aliases; ``X | None`` as
    ``X``."""
    while True:
        kind = _kind(tp)
        if kind in ("annotated", "wrapper", "newtype", "alias"):
            tp = _inner(tp, kind)
        elif kind == "union":
            members = [m for m in _members(tp) if _kind(m) != "null"]
            if len(members) != 1:
                return tp
            tp = members[0]
        else:
            return tp
