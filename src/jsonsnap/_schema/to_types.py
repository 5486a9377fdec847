"""JSON values as instances of Python types: :func:`convert` (a final value), :func:`view`
(a snapshot of a value still streaming, with :data:`NOT_YET` where a part has not arrived) and
:func:`type_at` (the type of a part). The mapping and the choices are ``_types``'s docstring.

Every walk over a value (matching a union member, converting, viewing) is written as a
generator per container and run by :func:`_run` on an explicit stack, so any depth the parser
reads converts; a scalar is handled in its container's frame, without a frame of its own.
Within one walk, whether a container matches a type is decided once (``_Walk.matched``), so
nested unions cost each (container, type) pair once, not once per level.

A parser's :meth:`~jsonsnap.Parser.view` keeps a :class:`LiveView` between calls: the view of
a container finished when it was viewed is final and is reused as it is, and an open one is
brought up to date from where it stood (an array from its last element, a ``dict[str, X]``
from its last key, the fields of a class all again: they are bounded by the type), so a view
after every fragment costs what changed, not the whole value. (A key repeated in an open
``dict[str, X]`` shows its first value until the object closes; a repeated field of a class
shows the last at once. Finding a repeated key among n sooner would cost n per view.)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Generator
from typing import Any, Final, get_args

from .pytypes import (  # the shared helpers of the type modules
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

__all__ = ["ConversionError", "LiveView", "Marks", "convert", "type_at", "view", "view_marked"]

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
#: In a trie of violation paths: a violation is at this node's path.
_END: Final[Any] = object()


class _Entry:
    """The view of one container, kept between a parser's views: the container, the type it
    was viewed as, the view, how many of its items the view holds (an array's, a dict's), its
    items (a ``tuple[X, ...]``'s, which is rebuilt), and whether it was finished then (the view
    is final)."""

    __slots__ = ("count", "done", "items", "result", "tp", "value")

    def __init__(self, value: Any, tp: Any) -> None:
        self.value = value  # (kept: the entries are found by id())
        self.tp = tp
        self.result: Any = None
        self.count = 0
        self.items: list[Any] = []
        self.done = False


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

    # ------------------------------------------------------------------ converting

    def flat(self, value: Any, tp: Any) -> Any:
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
                    return self.flat(value, member)
        return _DEEP

    def converting(self, value: Any, tp: Any) -> _Frame:
        """``value`` (final) as an instance of ``tp``."""
        tp, kind = _unwrap(tp)
        if kind in ("any", "null", "string", "number", "boolean", "integer", "literal"):
            return self.flat(value, tp) if not _is_container(value) else value
        if kind == "enum":
            member = _choice(value, tp)
            return tp(value) if member is NOT_YET else member  # tp(value) raises ValueError
        if kind == "union":
            for member in _members(tp):
                if (yield _HERE, self.matching(value, member, False)):
                    return (yield _HERE, self.converting(value, member))
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
                c = self.flat(v, t)
                out.append((yield i, self.converting(v, t)) if c is _DEEP else c)
            if kind == "list":
                return out
            return tp(*out) if kind == "namedtuple" else tuple(out)
        if kind == "dict":
            _expect(value, dict, tp)
            item = _item(tp)
            converted = {}
            for k, v in value.items():
                c = self.flat(v, item)
                converted[k] = (yield k, self.converting(v, item)) if c is _DEEP else c
            return converted
        if kind in ("dataclass", "typeddict"):
            _expect(value, dict, tp)
            by_name = {f.name: f for f in _fields(tp, kind) if f.init}
            fields = {}
            for k, v in value.items():
                f = by_name.get(k)
                if f is not None:  # (a TypedDict keeps its declared keys only)
                    c = self.flat(v, f.tp)
                    fields[k] = (yield k, self.converting(v, f.tp)) if c is _DEEP else c
            return tp(**fields) if kind == "dataclass" else fields
        if kind == "pydantic":
            return tp.model_validate(value)
        raise _Unsupported(
            f"cannot convert to {_type_name(tp)}: not a type schema_of() can express"
        )


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
    flat = walk.flat(value, tp)  # (a container is _DEEP)
    if flat is not _DEEP:
        return flat
    try:
        return _run(walk.converting(value, tp))
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


# ---------------------------------------------------------------------------------------------
# view


def _never(path: _Path) -> bool:
    return False


class _Viewer(_Walk):
    """Views one snapshot: which parts are masked (``invalid`` called with each path, or a
    trie of violation paths), ``defaults``, and the entries kept from the last view (a
    parser's, or none)."""

    __slots__ = ("defaults", "entries", "invalid")

    def __init__(
        self,
        invalid: Callable[[_Path], bool] | None,
        defaults: bool,
        open_ids: frozenset[int] | set[int] = frozenset(),
        entries: dict[int, _Entry] | None = None,
    ) -> None:
        super().__init__(open_ids)
        self.invalid = invalid  # None: the places are a trie of violation paths (or None)
        self.defaults = defaults
        self.entries = entries

    def step(self, where: Any, key: str | int) -> Any:
        """The place of the part at ``key`` of the part at ``where``."""
        if where is None:
            return None
        if self.invalid is not None:
            return (*where, key)
        return where.get(key)

    def masked(self, where: Any) -> bool:
        if where is None:
            return False
        if self.invalid is not None:
            return self.invalid(where)
        return _END in where

    def absent(self, field: _Field) -> Any:
        if self.defaults and field.default is not None:
            return field.default()
        return NOT_YET

    def flat_view(self, value: Any, tp: Any, where: Any, lenient: bool) -> Any:
        """The view of a part that needs no frame of its own, or :data:`_DEEP`."""
        if value is NOT_YET or self.masked(where):
            return NOT_YET
        tp, kind = _unwrap(tp)
        if kind == "any":
            return value
        if _is_container(value):
            return _DEEP if kind in _CONTAINERS or kind == "union" else NOT_YET
        if kind in ("null", "string", "number", "boolean"):
            return value if _scalar_matches(value, tp, kind, True) else NOT_YET
        if kind == "integer":
            return _as_int(value) if _integer(value) else NOT_YET
        if kind == "literal":
            return _choice(value, get_args(tp))
        if kind == "enum":
            return _choice(value, tp)
        if kind == "union":
            # The member convert() would take if the value is complete, else the first it fits.
            members = _members(tp)
            for partial in (False, True):
                for member in members:
                    if _scalar_matches(value, member, _kind(member), partial):
                        return self.flat_view(value, member, where, lenient)
            return NOT_YET
        if kind == "pydantic" and getattr(tp, "__pydantic_root_model__", False):
            return _DEEP
        if kind in _CONTAINERS:
            return NOT_YET
        if lenient:
            return value
        raise _Unsupported(f"cannot view as {_type_name(tp)}: not a type schema_of() can express")

    def part(self, value: Any, tp: Any, where: Any, lenient: bool) -> _Frame:
        """A frame that views a part (or returns its flat view)."""
        flat = self.flat_view(value, tp, where, lenient)
        if flat is not _DEEP:
            return flat
        return (yield _HERE, self.viewing(value, tp, where, lenient))

    def viewing(self, value: Any, tp: Any, where: Any, lenient: bool) -> _Frame:
        """The view of a container (or of a pydantic root model)."""
        tp, kind = _unwrap(tp)
        if kind == "union":
            members = _members(tp)
            for partial in (False, True):
                for member in members:
                    if (yield _HERE, self.matching(value, member, partial, where)):
                        return (yield _HERE, self.part(value, member, where, lenient))
            # None fits: the first member of its JSON type, its parts that do not fit NOT_YET
            # (an ``X | None`` shows X with a wrong part, as X itself does).
            for member in members:
                if _of_json_type(value, member):
                    return (yield _HERE, self.part(value, member, where, lenient))
            return NOT_YET
        entry = None
        entries = self.entries
        if entries is not None and _is_container(value):
            entry = entries.get(id(value))
            if entry is None or entry.tp is not tp:
                entry = entries[id(value)] = _Entry(value, tp)
            elif entry.done:
                return entry.result
        else:
            entry = _Entry(value, tp)
        done = id(value) not in self.open
        if kind in ("list", "tuple"):
            result = yield from self.view_array(value, tp, kind, where, lenient, entry, done)
        elif kind == "dict":
            result = yield from self.view_dict(value, tp, where, lenient, entry, done)
        elif kind in ("dataclass", "typeddict", "namedtuple"):
            result = yield from self.view_fields(value, tp, kind, where, lenient, entry)
        else:
            result = yield from self.view_pydantic(value, tp, where)
        entry.result = result
        entry.done = done
        return result

    def view_array(
        self, value: Any, tp: Any, kind: _Kind, where: Any, lenient: bool, entry: _Entry, done: bool
    ) -> _Frame:
        if not isinstance(value, list):
            return NOT_YET
        items = _tuple_items(tp) if kind == "tuple" else None
        if items is not None:  # a fixed tuple: its length is the type's
            if len(value) > len(items):
                return NOT_YET
            viewed = []
            for i, (v, t) in enumerate(zip(value, items, strict=False)):
                viewed.append((yield i, self.part(v, t, self.step(where, i), lenient)))
            return (*viewed, *[NOT_YET] * (len(items) - len(value)))
        args = get_args(tp)
        item = args[0] if args else Any
        # An array only grows at its end, and all but its last item were finished when it
        # was viewed last: only those from its last item on are viewed again.
        out = entry.items
        start = max(entry.count - 1, 0)
        del out[start:]
        for i in range(start, len(value)):
            out.append((yield i, self.part(value[i], item, self.step(where, i), lenient)))
        entry.count = len(value)
        if kind == "list":
            return out
        return tuple(out)

    def view_dict(
        self, value: Any, tp: Any, where: Any, lenient: bool, entry: _Entry, done: bool
    ) -> _Frame:
        if not isinstance(value, dict):
            return NOT_YET
        item = _item(tp)
        out: dict[str, Any] | None = entry.result
        n = len(value)
        if out is None or done:  # (once finished, all again: a key may have been repeated)
            out = {}
            todo: Any = value.items()
        else:  # an object grows at its end: from its last key on
            todo = list(itertools.islice(reversed(value.items()), n - max(entry.count - 1, 0)))
            todo.reverse()
        for k, v in todo:
            out[k] = yield k, self.part(v, item, self.step(where, k), lenient)
        entry.count = n
        return out

    def view_fields(
        self, value: Any, tp: Any, kind: _Kind, where: Any, lenient: bool, entry: _Entry
    ) -> _Frame:
        fields = _fields(tp, kind)
        if kind == "namedtuple":
            if not isinstance(value, list) or len(value) > len(fields):
                return NOT_YET
            viewed = []
            for i, (v, f) in enumerate(zip(value, fields, strict=False)):
                viewed.append((yield i, self.part(v, f.tp, self.step(where, i), lenient)))
            viewed.extend(self.absent(f) for f in fields[len(value) :])
            return tp._make(viewed)
        if not isinstance(value, dict):
            return NOT_YET
        values: dict[str, Any] = {}
        for f in fields:
            if f.init and f.name in value:
                part = self.part(value[f.name], f.tp, self.step(where, f.name), lenient)
                values[f.name] = yield f.name, part
            # The default of a key a TypedDict does not require is its absence.
            elif not (kind == "typeddict" and self.defaults and not f.required):
                values[f.name] = self.absent(f)
        if kind == "typeddict":
            return values
        # Built without __init__: no validation in __post_init__, frozen and slots work. An
        # open object's view is the same instance each time, brought up to date.
        obj = entry.result if entry.result is not None else object.__new__(tp)
        for name, v in values.items():
            object.__setattr__(obj, name, v)
        return obj

    def view_pydantic(self, value: Any, tp: Any, where: Any) -> _Frame:
        model_fields = getattr(tp, "model_fields", None)
        if getattr(tp, "__pydantic_root_model__", False) and isinstance(model_fields, dict):
            root = getattr(model_fields.get("root"), "annotation", Any)
            return tp.model_construct((yield _HERE, self.part(value, root, where, True)))
        if not isinstance(value, dict):
            return NOT_YET
        if not isinstance(model_fields, dict):
            return tp.model_construct(**value)
        values: dict[str, Any] = {}
        for name, field in model_fields.items():
            key = _pydantic_key(value, name, field)
            if key is not None:
                annotation = getattr(field, "annotation", Any)
                part = self.part(value[key], annotation, self.step(where, key), True)
                values[name] = yield key, part
            elif not (self.defaults and not getattr(field, "is_required", lambda: True)()):
                values[name] = NOT_YET
            # else: left out, model_construct() fills in the default
        return tp.model_construct(**values)


def _view_root(viewer: _Viewer, value: Any, tp: Any, where: Any) -> Any:
    flat = viewer.flat_view(value, tp, where, False)
    if flat is not _DEEP:
        return flat
    try:
        return _run(viewer.viewing(value, tp, where, False))
    except ConversionError as error:  # (nothing of ours raises: a class's own code did)
        raise error.__cause__ from None  # type: ignore[misc]


def view(
    value: Any,
    tp: Any,
    *,
    invalid: Callable[[tuple[str | int, ...]], bool] = _never,
    defaults: bool = False,
) -> Any:
    """A typed partial view of ``value``, a snapshot of a JSON value still streaming, at any
    depth.

    Each part present and of the right JSON type so far is viewed as its type; a part absent,
    of the wrong type, or whose path ``invalid(path)`` says is invalid, is :data:`NOT_YET`
    (with ``defaults=True``, a field absent that has a default gets the default instead).
    Paths are tuples of keys and indices, like ``("items", 3, "name")``; the root is ``()``.

    * A dataclass appears as soon as its object starts, built without calling ``__init__`` (so
      ``__post_init__`` does not run, and NOT_YET can be stored even in a frozen or slots
      dataclass); a NamedTuple as soon as its array starts, padded with NOT_YET; a TypedDict
      as a dict with every declared key, NOT_YET for the ones not there (with ``defaults``, a
      key it does not require is left out instead: its absence is its default); undeclared
      keys are left out, as :func:`convert` leaves them out.
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
    Raises :class:`TypeError` for a type :func:`schema_of` cannot express.
    """
    if invalid is _never:
        return _view_root(_Viewer(None, defaults), value, tp, None)
    return _view_root(_Viewer(invalid, defaults), value, tp, ())


def view_marked(value: Any, tp: Any, marks: Marks, defaults: bool) -> Any:
    """The view of a parser's value, made anew, the parts at or under a path in ``marks``
    masked."""
    return _view_root(_Viewer(None, defaults), value, tp, marks.root)


class LiveView:
    """A parser's view between calls (see the module docstring): the entries of the
    containers viewed, and what is known of which matches which type."""

    __slots__ = ("entries", "matched", "progress")

    def __init__(self) -> None:
        self.entries: dict[int, _Entry] = {}
        self.matched: dict[tuple[int, int, bool], tuple[Any, Any, bool]] = {}
        self.progress: dict[tuple[int, int, bool], tuple[Any, int]] = {}

    def view(
        self, value: Any, tp: Any, open_containers: list[Any], marks: Marks, defaults: bool
    ) -> Any:
        """The view of the parser's value, ``open_containers`` the ones still open, the parts
        at or under a path in ``marks`` masked."""
        viewer = _Viewer(None, defaults, {id(c) for c in open_containers}, self.entries)
        viewer.matched = self.matched
        viewer.progress = self.progress
        return _view_root(viewer, value, tp, marks.root)


class Marks:
    """The paths of the violations found so far, as a trie (nested dicts, :data:`_END` where
    a violation is), added as they are found: where a view masks, and which parts hold one."""

    __slots__ = ("count", "root", "seen")

    def __init__(self) -> None:
        self.root: dict[Any, Any] | None = None
        self.count = 0  # how many of the checker's violations are in
        self.seen: Any = None  # the parser's own error, once in

    def add(self, path: _Path) -> None:
        node = self.root
        if node is None:
            node = self.root = {}
        for step in path:
            node = node.setdefault(step, {})
        node[_END] = True

    def update(self, violations: list[Any], error: Any) -> None:
        """Add the violations found since the last call (and the parser's own error)."""
        for found in violations[self.count :]:
            self.add(found.path)
        self.count = len(violations)
        if error is not None and error is not self.seen:
            self.seen = error
            self.add(error.path)

    def under(self, path: _Path) -> bool:
        """Whether a violation is at or under ``path``."""
        node = self.root
        for step in path:
            if node is None:
                return False
            node = node.get(step)
        return node is not None


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
