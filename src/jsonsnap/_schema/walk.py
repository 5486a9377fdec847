"""A walk over a value and a Python type: the frames, the explicit stack that runs them, and
whether a value matches a type.

Every walk over a value (matching a union member, converting, viewing) is written as a
generator per container and run by :func:`_run` on an explicit stack, so any depth the parser
reads converts; a scalar is handled in its container's frame, without a frame of its own.
Within one walk, whether a container matches a type is decided once (``_Walk.matched``), so
nested unions cost each (container, type) pair once, not once per level. The conversion
(``to_types``) and the views (``views``) are walks; :func:`type_at` reads the type alone.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Generator
from typing import Any, Final, get_args

from .type_kinds import (  # the shared helpers of the type modules
    NOT_YET,
    _choice,
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

__all__ = ["ConversionError", "type_at"]  # and the helpers to_types and views import by name

#: The kinds that stand for another type (``_inner``).
_WRAPPING: Final = frozenset({"annotated", "wrapper", "newtype", "alias"})
#: The kinds whose values are JSON containers, walked with a frame of their own.
_CONTAINERS: Final = frozenset(
    {"list", "tuple", "dict", "dataclass", "typeddict", "namedtuple", "pydantic"}
)

#: A step of a walk: the key of the part the child frame is about (``_HERE``: the same part),
#: and the child frame.
_Frame = Generator[tuple[Any, Any], Any, Any]
_HERE: Final[Any] = object()


class ConversionError(ValueError):
    """A value does not convert to its type: ``path`` says where (keys and indices from the
    root), ``__cause__`` is what refused it (a ``ValueError`` or ``TypeError`` of ours, an
    enum's, a constructor's, or pydantic's ``ValidationError``)."""

    def __init__(self, msg: str, path: _Path) -> None:
        super().__init__(msg)
        self.msg = msg
        self.path = path


class _Unsupported(TypeError):
    """A type :func:`schema_of` cannot express (raised as it is, not as a ConversionError)."""


def _run(top: _Frame) -> Any:
    """Run a walk whose frames are generators: a frame yields ``(key, child)`` and is sent
    the child's result. An exception in a frame ends the walk as :class:`ConversionError`
    (or a ``TypeError`` of ours as it is), with the path of the frame it came from."""
    stack = [top]
    keys: list[Any] = [_HERE]
    sent: Any = None
    while True:
        try:
            key, child = stack[-1].send(sent)
        except StopIteration as stop:  # noqa: PERF203 - how a frame returns its result
            stack.pop()
            keys.pop()
            if not stack:
                return stop.value
            sent = stop.value
        except _Unsupported:
            raise
        except (ValueError, TypeError, RecursionError) as error:
            path = tuple(k for k in keys if k is not _HERE)
            for frame in stack:  # let them go now, not at the next collection
                frame.close()
            msg, inner = _reason(error)
            raise ConversionError(msg, path + inner) from error
        else:
            stack.append(child)
            keys.append(key)
            sent = None


def _reason(error: BaseException) -> tuple[str, _Path]:
    """What ``error`` says, on one line, and the path under the part it is about: for
    pydantic's ``ValidationError``, its first error's message and ``loc``."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            found = errors()
            first = found[0]
            loc = tuple(k for k in first["loc"] if isinstance(k, (str, int)))
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            return f"{first['msg']}{more}", loc
        except Exception:  # not pydantic's after all: its text, then
            pass
    text = str(error) or type(error).__name__
    return text.splitlines()[0] if text.strip() else type(error).__name__, ()


def _unwrap(tp: Any) -> tuple[Any, _Kind]:
    """``tp`` without Annotated, Required and the like, NewType and aliases, and its kind."""
    try:
        return _cached_unwrap(tp)
    except TypeError:  # unhashable, such as Annotated[int, {"minimum": 0}]
        return _unwrap_of(tp)


@functools.lru_cache(maxsize=1024)
def _cached_unwrap(tp: Any) -> tuple[Any, _Kind]:
    return _unwrap_of(tp)


def _unwrap_of(tp: Any) -> tuple[Any, _Kind]:
    kind = _kind(tp)
    while kind in _WRAPPING:
        tp = _inner(tp, kind)
        kind = _kind(tp)
    return tp, kind


def _pydantic_key(value: dict[str, Any], name: str, field: Any) -> str | None:
    """The key a pydantic field's value is under in ``value`` (alias first), or None."""
    for key in (getattr(field, "validation_alias", None), getattr(field, "alias", None), name):
        if isinstance(key, str) and key in value:
            return key
    return None


def _scalar_matches(value: Any, tp: Any, kind: _Kind, partial: bool) -> bool:
    """Whether a value that is not a container has the shape of ``tp`` (walks the type only:
    its depth is the type's)."""
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
    if kind in _WRAPPING:
        inner, inner_kind = _unwrap(tp)
        return _scalar_matches(value, inner, inner_kind, partial)
    if kind in ("literal", "enum"):
        choices = get_args(tp) if kind == "literal" else list(tp)
        if _choice(value, choices) is not NOT_YET:
            return True
        return partial and _prefix_of_choice(value, choices)
    if kind == "union":
        return any(_scalar_matches(value, m, _kind(m), partial) for m in _members(tp))
    return False  # a container type


def _is_container(value: Any) -> bool:
    return isinstance(value, (list, dict))


def _of_json_type(value: Any, tp: Any) -> bool:
    """Whether the values of ``tp`` are containers of the JSON type of ``value``."""
    kind = _unwrap(tp)[1]
    if isinstance(value, list):
        return kind in ("list", "tuple", "namedtuple")
    return isinstance(value, dict) and kind in ("dict", "dataclass", "typeddict", "pydantic")


def _short(value: Any) -> str:
    text = repr(value) if not _is_container(value) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _expect(value: Any, json_type: type, tp: Any) -> None:
    if not isinstance(value, json_type):
        raise ValueError(f"cannot convert {type(value).__name__} to {_type_name(tp)}")


#: What :meth:`_Walk.flat` answers for a part that needs a frame of its own.
_DEEP: Final[Any] = object()


class _Walk:
    """One walk over a value: which containers are still open (none in a final value) and
    what is known of which container matches which type.

    ``matched`` holds the verdict for a finished container, ``progress`` how many leading
    items of an open array or dict are finished and match (they never change); both may be
    kept between walks (a parser's :class:`LiveView`), as long as ``open`` is told right.
    ``now`` holds the verdicts for open containers, good for this walk only.
    """

    __slots__ = ("matched", "now", "open", "progress")

    def __init__(self, open_ids: frozenset[int] | set[int] = frozenset()) -> None:
        self.open = open_ids
        self.matched: dict[tuple[int, int, bool], tuple[Any, Any, bool]] = {}
        self.now: dict[tuple[int, int, bool], bool] = {}  # open containers, for this walk
        self.progress: dict[tuple[int, int, bool], tuple[Any, int]] = {}

    # ------------------------------------------------------------------ matching

    def step(self, where: Any, key: str | int) -> Any:
        """The place of the part at ``key`` of the part at ``where`` (for a view's masks)."""
        return None

    def masked(self, where: Any) -> bool:
        """Whether the part at ``where`` is masked (a view shows NOT_YET there)."""
        return False

    def fits(self, value: Any, tp: Any, partial: bool, where: Any) -> bool | None:
        """Whether a part that is not a container matches (a masked part fits anything: it
        shows as NOT_YET), or None for a container."""
        if where is not None and self.masked(where):
            return True
        if _is_container(value):
            return None
        return _scalar_matches(value, tp, _kind(tp), partial)

    def matching(self, value: Any, tp: Any, partial: bool, where: Any = None) -> _Frame:
        """Whether ``value`` has the shape of ``tp``: the JSON types, required and unknown
        keys, array lengths, literal and enum values; constraints from ``Annotated`` are not
        checked. With ``partial``, ``value`` is a snapshot of a value still streaming: keys
        may be missing, arrays short, and a string may be cut short of a literal or enum.
        In a view, the parts masked at or under ``where`` fit anything."""
        if where is not None and self.masked(where):
            return True
        tp, kind = _unwrap(tp)
        if not _is_container(value):
            return _scalar_matches(value, tp, kind, partial)
        if kind == "union":
            for member in _members(tp):
                if (yield _HERE, self.matching(value, member, partial, where)):
                    return True
            return False
        if kind not in _CONTAINERS:
            return kind in ("any", "unsupported")
        key = (id(value), id(tp), partial)
        known = self.matched.get(key)
        if known is not None:
            return known[2]
        is_open = id(value) in self.open
        if is_open and key in self.now:
            return self.now[key]
        ok = yield from self._match_container(value, tp, kind, partial, key, is_open, where)
        if is_open:
            self.now[key] = ok
        else:
            self.matched[key] = (value, tp, ok)
        return ok

    def _match_part(self, value: Any, tp: Any, partial: bool, where: Any, key: Any) -> _Frame:
        """Whether the part at ``key`` of a container (``value``) matches ``tp``."""
        place = self.step(where, key)
        ok = self.fits(value, tp, partial, place)
        if ok is None:
            ok = yield key, self.matching(value, tp, partial, place)
        return ok

    def _match_items(
        self,
        items: Any,
        tp: Any,
        partial: bool,
        key: tuple[int, int, bool],
        is_open: bool,
        where: Any,
    ) -> _Frame:
        """Whether every item of an array or every value of a dict matches ``tp``; for an open
        one, from where the last walk left off (the items before its last are finished)."""
        n = len(items)
        start = self.progress[key][1] if is_open and key in self.progress else 0
        if start:
            # The newest items: an array's by index; a dict's, newest first (JSON objects
            # only grow at their end, but for a repeated key, checked again once finished).
            todo: Any = (
                enumerate(items[start:], start)
                if isinstance(items, list)
                else itertools.islice(reversed(items.items()), n - start)
            )
        else:
            todo = enumerate(items) if isinstance(items, list) else items.items()
        for k, v in todo:
            if not (yield from self._match_part(v, tp, partial, where, k)):
                if is_open and isinstance(items, list) and k > start:
                    self.progress[key] = (items, min(k, n - 1))  # those before it match
                return False
        if is_open:
            self.progress[key] = (items, max(n - 1, 0))
        return True

    def _match_container(
        self,
        value: Any,
        tp: Any,
        kind: _Kind,
        partial: bool,
        key: tuple[int, int, bool],
        is_open: bool,
        where: Any,
    ) -> _Frame:
        if kind in ("list", "dict"):
            if not isinstance(value, list if kind == "list" else dict):
                return False
            return (yield from self._match_items(value, _item(tp), partial, key, is_open, where))
        if kind in ("tuple", "namedtuple"):
            if not isinstance(value, list):
                return False
            if kind == "namedtuple":
                fields = _fields(tp, kind)
                items: Any = [f.tp for f in fields]
                if not partial and any(f.required for f in fields[len(value) :]):
                    return False
            else:
                items = _tuple_items(tp)
                if items is None:
                    item = get_args(tp)[0] if get_args(tp) else Any
                    return (yield from self._match_items(value, item, partial, key, is_open, where))
                if len(value) < len(items) and not partial:
                    return False
            if len(value) > len(items):
                return False
            for i, (v, t) in enumerate(zip(value, items, strict=False)):
                if not (yield from self._match_part(v, t, partial, where, i)):
                    return False
            return True
        if not isinstance(value, dict):
            return False
        if kind == "pydantic":
            return (yield from self._match_pydantic(value, tp, partial, where))
        by_name = {f.name: f for f in _fields(tp, kind) if f.init}
        if kind == "dataclass" and (
            len(value) > len(by_name) or not by_name.keys() >= value.keys()
        ):
            return False
        for name, f in by_name.items():
            if name in value:
                if not (yield from self._match_part(value[name], f.tp, partial, where, name)):
                    return False
            elif f.required and not partial:
                return False
        return True

    def _match_pydantic(self, value: dict[str, Any], tp: Any, partial: bool, where: Any) -> _Frame:
        model_fields = getattr(tp, "model_fields", None)
        if not isinstance(model_fields, dict):
            return True
        for name, field in model_fields.items():
            key = _pydantic_key(value, name, field)
            if key is None:
                if not partial and getattr(field, "is_required", lambda: False)():
                    return False
            else:
                annotation = getattr(field, "annotation", Any)
                if not (yield from self._match_part(value[key], annotation, partial, where, key)):
                    return False
        return True


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
        tp, kind = _unwrap(tp)
        if kind != "union":
            return tp
        members = [m for m in _members(tp) if _kind(m) != "null"]
        if len(members) != 1:
            return tp
        tp = members[0]
