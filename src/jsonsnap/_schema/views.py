"""Typed views of a value still streaming: :func:`view` (a snapshot, with :data:`NOT_YET` where
a part has not arrived), and the :class:`LiveView` and :class:`Marks` a parser keeps.

A view is a walk (see ``walk``). A parser's :meth:`~jsonsnap.Parser.view` keeps a
:class:`LiveView` between calls: the view of a container finished when it was viewed is final
and is reused as it is, and an open one is brought up to date from where it stood (an array
from its last element, a ``dict[str, X]`` from its last key, the fields of a class all again:
they are bounded by the type), so a view after every fragment costs what changed, not the
whole value. (A key repeated in an open ``dict[str, X]`` shows its first value until the
object closes; a repeated field of a class shows the last at once. Finding a repeated key
among n sooner would cost n per view.)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Final, get_args

from .type_kinds import (  # the shared helpers of the type modules
    NOT_YET,
    _as_int,
    _choice,
    _Field,
    _fields,
    _integer,
    _item,
    _Kind,
    _kind,
    _members,
    _Path,
    _tuple_items,
    _type_name,
)
from .walk import (
    _CONTAINERS,
    _DEEP,
    _HERE,
    ConversionError,
    _Frame,
    _is_container,
    _of_json_type,
    _pydantic_key,
    _run,
    _scalar_matches,
    _Unsupported,
    _unwrap,
    _Walk,
)

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
