"""What kind of Python type a type is, the fields of a class, and JSON values as types see them:
the one dispatch (:func:`_kind`) that the schema writer (``from_types``) and the walks over
values (``walk``, ``to_types``, ``views``) read types with, and the :data:`NOT_YET` marker of a
partial view.
"""

from __future__ import annotations

import collections.abc
import contextlib
import dataclasses
import enum
import functools
import math
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any, Literal, TypeAlias, Union, get_args, get_origin

__all__ = ["NOT_YET"]  # and the helpers the type modules import by name

_Path: TypeAlias = tuple[str | int, ...]
_Schema: TypeAlias = dict[str, Any]


class _NotYet(enum.Enum):
    """The type of :data:`NOT_YET` (an enum, so that it is a picklable singleton)."""

    NOT_YET = "not yet"

    def __repr__(self) -> str:
        return "<not yet>"

    def __bool__(self) -> bool:
        return False


#: In a :func:`view`: this part has not arrived yet, or is not of the right type yet. Falsy.
NOT_YET: typing.Final = _NotYet.NOT_YET


# ---------------------------------------------------------------------------------------------
# What kind of type a type is: the one dispatch every walker below uses.

_Kind: TypeAlias = Literal[
    "any",
    "null",
    "string",
    "integer",
    "number",
    "boolean",
    "list",
    "tuple",
    "dict",
    "literal",
    "enum",
    "union",
    "annotated",
    "wrapper",
    "newtype",
    "alias",
    "dataclass",
    "typeddict",
    "namedtuple",
    "pydantic",
    "unsupported",
]

_SIMPLE: dict[Any, _Kind] = {
    Any: "any",
    object: "any",
    None: "null",
    type(None): "null",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
}
#: Qualifiers that say something about a field, nothing about its value.
_WRAPPERS = frozenset({"Required", "NotRequired", "ReadOnly", "Final"})
#: The named types: in ``$defs`` when used more than once or recursively.
_NAMED = frozenset({"enum", "dataclass", "typeddict", "namedtuple", "alias"})


def _special_name(origin: Any) -> str | None:
    """The name of a special form such as ``Literal``, from typing or typing_extensions."""
    name = getattr(origin, "_name", None) or getattr(origin, "__name__", None)
    return name if isinstance(name, str) else None


def _is_class(tp: Any) -> bool:
    # Before 3.11, isinstance(list[int], type) is True.
    return isinstance(tp, type) and not isinstance(tp, types.GenericAlias)


def _is_pydantic(tp: type) -> bool:
    return hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")


def _is_typeddict(tp: type) -> bool:
    return (
        issubclass(tp, dict)
        and hasattr(tp, "__required_keys__")
        and hasattr(tp, "__optional_keys__")
        and hasattr(tp, "__total__")
    )


def _is_namedtuple(tp: type) -> bool:
    return issubclass(tp, tuple) and hasattr(tp, "_fields") and hasattr(tp, "_make")


def _kind(tp: Any) -> _Kind:
    try:
        return _cached_kind(tp)
    except TypeError:  # unhashable, such as Annotated[int, {"minimum": 0}]
        return _kind_of(tp)


@functools.lru_cache(maxsize=1024)
def _cached_kind(tp: Any) -> _Kind:
    """:func:`_kind` of a hashable type (the converters ask it of every part they walk)."""
    return _kind_of(tp)


def _kind_of(tp: Any) -> _Kind:
    try:
        simple = _SIMPLE.get(tp)
    except TypeError:  # unhashable
        simple = None
    if simple is not None:
        return simple
    origin = get_origin(tp)
    if origin is not None and hasattr(tp, "__metadata__"):
        return "annotated"
    if origin is Union or origin is types.UnionType:
        return "union"
    name = _special_name(origin)
    if name == "Literal":
        return "literal"
    if name in _WRAPPERS:
        return "wrapper"
    base = tp if origin is None else origin
    if base is list or base is collections.abc.Sequence:
        return "list"
    if base is tuple:
        return "tuple"
    if base is dict or base is collections.abc.Mapping:
        return "dict"
    if callable(tp) and hasattr(tp, "__supertype__"):
        return "newtype"
    if type(tp).__name__ == "TypeAliasType" and hasattr(tp, "__value__"):
        return "alias"
    if _is_class(tp):
        if _is_pydantic(tp):
            return "pydantic"
        if issubclass(tp, enum.Enum):
            return "enum"
        if dataclasses.is_dataclass(tp):
            return "dataclass"
        if _is_typeddict(tp):
            return "typeddict"
        if _is_namedtuple(tp):
            return "namedtuple"
    return "unsupported"


def _inner(tp: Any, kind: _Kind) -> Any:
    """What an annotated, wrapper, newtype or alias type stands for."""
    if kind == "annotated":
        return tp.__origin__
    if kind == "wrapper":
        return get_args(tp)[0]
    if kind == "newtype":
        return tp.__supertype__
    return tp.__value__


def _item(tp: Any) -> Any:
    """The item type of a list, the value type of a dict (``Any`` when bare)."""
    args = get_args(tp)
    return args[-1] if args else Any


def _tuple_items(tp: Any) -> tuple[Any, ...] | None:
    """The fixed item types of a tuple type, or None for ``tuple[X, ...]`` and bare tuples."""
    args = get_args(tp)
    if tp is tuple or tp is typing.Tuple or (len(args) == 2 and args[1] is Ellipsis):  # noqa: UP006
        return None
    if args == ((),):  # typing.Tuple[()] before 3.11
        return ()
    return args


def _members(tp: Any) -> list[Any]:
    """The members of a union, nested unions flattened."""
    out: list[Any] = []
    for member in get_args(tp):
        if _kind(member) == "union":
            out.extend(_members(member))
        else:
            out.append(member)
    return out


def _type_name(tp: Any) -> str:
    if _is_class(tp):
        return str(tp.__qualname__)
    if tp is None:
        return "None"
    return repr(tp).replace("typing.", "")


# ---------------------------------------------------------------------------------------------
# The fields of dataclasses, TypedDicts and NamedTuples, resolved once per class.


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    tp: Any
    required: bool
    #: Makes the default value; None when the field has none.
    default: Callable[[], Any] | None
    #: Whether the field is in the JSON form (a dataclass field with init=False is not).
    init: bool = True


_fields_cache: weakref.WeakKeyDictionary[type, tuple[_Field, ...]] = weakref.WeakKeyDictionary()


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as error:  # NameError for a name it cannot find, and others
        raise TypeError(f"cannot resolve the annotations of {cls.__qualname__}: {error}") from error


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def _fields(cls: type, kind: _Kind) -> tuple[_Field, ...]:
    cached = _fields_cache.get(cls)
    if cached is not None:
        return cached
    hints = _hints(cls)
    fields: list[_Field] = []
    if kind == "dataclass":
        for f in dataclasses.fields(cls):
            default: Callable[[], Any] | None = None
            if f.default is not dataclasses.MISSING:
                default = _constant(f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = f.default_factory
            tp = hints.get(f.name, Any)
            fields.append(_Field(f.name, tp, default is None, default, f.init))
    elif kind == "typeddict":
        required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
        for name, tp in hints.items():
            # Required[X] and NotRequired[X] written as strings (from __future__ import
            # annotations) are not seen by TypedDict itself, so __required_keys__ misses them.
            qualifier = _special_name(get_origin(tp))
            is_required = qualifier != "NotRequired" and (
                qualifier == "Required" or name in required
            )
            fields.append(_Field(name, tp, is_required, None))
    else:  # namedtuple
        defaults: dict[str, Any] = getattr(cls, "_field_defaults", {})
        for name in getattr(cls, "_fields", ()):
            default = _constant(defaults[name]) if name in defaults else None
            fields.append(_Field(name, hints.get(name, Any), default is None, default))
    result = tuple(fields)
    with contextlib.suppress(TypeError):  # a class without weak references: not cached
        _fields_cache[cls] = result
    return result


# ---------------------------------------------------------------------------------------------
# JSON values: what a Literal or an Enum may hold, and equality as JSON sees it.


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if a is None or b is None:
        return a is b
    return type(a) is type(b) and bool(a == b)


def _literal_json(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _choice(value: Any, choices: collections.abc.Iterable[Any]) -> Any:
    """The choice (a Literal value or an enum member) whose JSON value is ``value``, or NOT_YET."""
    for choice in choices:
        if _same(_literal_json(choice), value):
            return choice
    return NOT_YET


def _prefix_of_choice(value: Any, choices: collections.abc.Iterable[Any]) -> bool:
    """Whether ``value`` is a string cut short of some string choice."""
    if not isinstance(value, str):
        return False
    for choice in choices:
        text = _literal_json(choice)
        if isinstance(text, str) and text.startswith(value):
            return True
    return False


def _integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_int(value: Any) -> Any:
    """An integral float as the int it stands for (JSON Schema counts 2.0 as an integer)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
