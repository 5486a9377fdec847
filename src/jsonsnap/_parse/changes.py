"""Change records: what each fragment changed in the value, as small immutable records.

A :class:`~jsonsnap.Parser` made with ``track_changes=True`` keeps a record of every visible
change, in document order, for :meth:`~jsonsnap.Parser.changes` to hand out and for
subscriptions (:meth:`~jsonsnap.Parser.subscribe`) to receive. There are three kinds:

:class:`Started`
    an array, object or string value appeared at ``path`` (empty: ``[]``, ``{}``, ``""``);
:class:`Appended`
    the string at ``path`` grew by ``text`` (the new characters only);
:class:`Completed`
    the value at ``path`` is final: ``value`` is exactly what ``json.loads`` gives for it (what
    an object hook made of it, with hooks). A number, literal, or string hidden by
    ``partial_strings=False`` appears complete: its only record is this one.

A path is a tuple of object keys and array indices from the root; the root's path is ``()``.
Every record also has an ``index``: which value of the stream it is about, 0 but for a parser
that reads several values per stream (``multiple_values=True``).
:func:`replay` applies records to a value, so a copy of the value can be kept in step
elsewhere (another thread, another process) from the records alone.

This module owns the records, :func:`matches`, :func:`replay`, and the :class:`Recorder`: the
observer of the tree (see ``tree``) that makes the records and serves ``changes()`` and
``subscribe()``. It never reads the input or the parser's state: it hears of values through
the observer interface only, and it must never change the value.

Cost: a record is made in constant time at any depth. The tree reports where a value is as a
container's node and a key, and a record turns that into a path tuple only when its ``path``
is read; a subscription is matched against a node's path once per node (the answer is kept on
the node), so delivering a record costs a few steps per subscription, not per level. String
growth is reported when the tree is flushed (when records are handed out or delivered, and
when the string ends), so the fast path that appends plain text to a string does no
bookkeeping at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Final, Literal, TypeAlias

from .._jsontext import describe
from .observer import NOTHING, Key, Node, depth_of, path_of
from .options import flag, steps
from .watched import WatchedTree

__all__ = [
    "ANY",
    "Appended",
    "Change",
    "Completed",
    "Path",
    "Recorder",
    "Started",
    "matches",
    "replay",
    "subscription",
]

Path: TypeAlias = tuple[str | int, ...]


#: The default of a record's ``_key``: ``path`` is the path itself.
_PATH: Final = object()


class _Record:
    """The common part of the records: a path, one field (``kind``, ``text`` or ``value``,
    read-only: the records are immutable), and the index of the value of the stream it is
    about.

    A record the parser makes says where its value is as the tree does, by the node of its
    container and its key there (``_node``, ``_key``), and makes its path when the path is
    first read (``_path`` is ``None`` until then).
    """

    __slots__ = ("_data", "_index", "_key", "_node", "_path")
    _field: ClassVar[str]

    _node: Node | None
    _key: Any
    _path: Path | None
    _data: Any
    _index: int

    @property
    def path(self) -> Path:
        """Object keys and array indices from the root to the value (``()`` for the root)."""
        path = self._path
        if path is None:
            path = self._path = path_of(self._node, self._key)
            self._node = None
        return path

    @property
    def index(self) -> int:
        """Which value of the stream the record is about (0 for the first, and for a parser
        that reads one value)."""
        return self._index

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Record)
        return self.path == other.path and self._data == other._data and self._index == other._index

    def __hash__(self) -> int:
        return hash((type(self), self.path, self._data, self._index))

    def __repr__(self) -> str:
        index = f", index={self._index}" if self._index else ""
        return f"{type(self).__name__}(path={self.path!r}, {self._field}={self._data!r}{index})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self._data, self._index))


# (Each record's __init__ writes out the same five lines: a call to a shared one would cost a
# Python call per record on the pure build, where making records is most of what they cost.
# ``_key`` is for the parser's own records: ``path`` is then the node of the value's container
# and ``_key`` its key there, and the path is made when first read.)
# (``__match_args__`` is a ``ClassVar``: compiled, a plain class attribute is one per instance.)


class Started(_Record):
    """An array, object or string value appeared at ``path``, empty."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, str]] = ("path", "kind")
    _field = "kind"

    def __init__(
        self,
        path: Sequence[str | int] | Node | None,
        kind: Literal["array", "object", "string"],
        index: int = 0,
        _key: Any = _PATH,
    ) -> None:
        if _key is _PATH:
            self._path, self._node = tuple(path), None  # type: ignore[arg-type]
        else:
            self._path, self._node = None, path  # type: ignore[assignment]
        self._key = _key
        self._data = kind
        self._index = index

    @property
    def kind(self) -> Literal["array", "object", "string"]:
        """``"array"``, ``"object"`` or ``"string"``."""
        return self._data  # type: ignore[no-any-return]


class Appended(_Record):
    """The string at ``path`` grew by ``text``."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, str]] = ("path", "text")
    _field = "text"

    def __init__(
        self,
        path: Sequence[str | int] | Node | None,
        text: str,
        index: int = 0,
        _key: Any = _PATH,
    ) -> None:
        if _key is _PATH:
            self._path, self._node = tuple(path), None  # type: ignore[arg-type]
        else:
            self._path, self._node = None, path  # type: ignore[assignment]
        self._key = _key
        self._data = text
        self._index = index

    @property
    def text(self) -> str:
        """The characters the string gained."""
        return self._data  # type: ignore[no-any-return]


class Completed(_Record):
    """The value at ``path`` is final."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, str]] = ("path", "value")
    _field = "value"

    def __init__(
        self,
        path: Sequence[str | int] | Node | None,
        value: Any,
        index: int = 0,
        _key: Any = _PATH,
    ) -> None:
        if _key is _PATH:
            self._path, self._node = tuple(path), None  # type: ignore[arg-type]
        else:
            self._path, self._node = None, path  # type: ignore[assignment]
        self._key = _key
        self._data = value
        self._index = index

    @property
    def value(self) -> Any:
        """The final value, exactly as ``json.loads`` gives it."""
        return self._data


Change: TypeAlias = Started | Appended | Completed


class _Any:
    """Matches any one key or index in a subscription pattern."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "jsonsnap.ANY"


#: Wildcard for one path component (an array index or an object key) in a pattern.
ANY: Final = _Any()


def _component(want: object, got: object) -> bool:
    return want is ANY or (want == got and type(want) is type(got))


def matches(pattern: Sequence[object], path: Path, *, under: bool = False) -> bool:
    """Whether ``path`` matches ``pattern`` (a sequence of keys, indices and :data:`ANY`).

    With ``under=True`` paths below the pattern match too: ``("items",)`` then matches
    ``("items", 3, "name")``.
    """
    if len(path) != len(pattern) and not (under and len(path) > len(pattern)):
        return False
    return all(_component(want, got) for want, got in zip(pattern, path, strict=False))


_KINDS: Final = (Started, Appended, Completed)
_KIND_NAMES: Final = "Started, Appended and Completed"


def subscription(
    pattern: object, callback: object, under: object, kinds: object
) -> tuple[tuple[object, ...], Callable[[Any], object], bool, tuple[type[Change], ...] | None]:
    """The arguments of ``subscribe()``, checked at the call (a callback that cannot be called,
    or a kind that is not a record's, would fail only at the next ``feed()``): the pattern, the
    callback, ``under`` and the kinds (``None``: every kind)."""
    where: tuple[object, ...] = steps(pattern, "subscribe()", ANY)
    if not callable(callback):
        raise TypeError(f"subscribe() takes a callable callback, not {describe(callback)}")
    below = flag(under, "under")
    if kinds is None:
        return where, callback, below, None
    if isinstance(kinds, (str, bytes, type)) or not isinstance(kinds, Iterable):
        raise TypeError(f"kinds takes None or a tuple of {_KIND_NAMES}, not {describe(kinds)}")
    wanted = tuple(kinds)
    for kind in wanted:
        if not any(kind is known for known in _KINDS):
            raise TypeError(f"kinds holds {_KIND_NAMES}, not {describe(kind)}")
    return where, callback, below, wanted


class _Subscription:
    """A pattern, the records it takes, and where the open containers stand against it.

    ``fits`` has an entry per open container, outermost first: whether the container's path
    agrees with the pattern as far as both go. The recorder pushes an entry when a container
    starts and pops it when the container completes, so a record is matched against its
    container's entry and its own key: a few steps at any depth.
    """

    __slots__ = ("active", "callback", "fits", "kinds", "pattern", "under")

    def __init__(
        self,
        pattern: tuple[object, ...],
        callback: Callable[[Any], object],
        under: bool,
        kinds: tuple[type[Change], ...] | None,
        open_containers: Sequence[Node],
    ) -> None:
        self.pattern = pattern
        self.callback = callback
        self.under = under
        self.kinds = kinds
        self.active = True
        self.fits: list[bool] = []
        for where in open_containers:
            self.push(where[0], where[1])

    def push(self, parent: Node | None, key: Key) -> None:
        """A container starts at ``key`` in the container of ``parent``."""
        depth = depth_of(parent)
        fits = self.fits[-1] if self.fits else True
        if fits and 0 < depth <= len(self.pattern):
            fits = _component(self.pattern[depth - 1], key)
        self.fits.append(fits)

    def wants(self, kind: type[Change], parent: Node | None, key: Key) -> bool:
        """Whether a record of ``kind`` about the value at ``key`` in the container of
        ``parent`` (the innermost open one) is for this subscription."""
        if self.kinds is not None and kind not in self.kinds:
            return False
        depth = depth_of(parent)
        size = len(self.pattern)
        if depth < size or (depth > size and not self.under):
            return False
        if depth == 0:
            return True  # the root value, and an empty pattern
        if depth == size and not _component(self.pattern[-1], key):
            return False
        return self.fits[-1]


class Recorder:
    """The observer that makes change records and hands them out.

    ``records`` holds the records for ``changes()`` (with ``keep``) until ``take()`` hands them
    out; ``outbox`` holds each record some subscription wants, with those subscriptions, until
    ``dispatch()`` delivers them. A record is matched when it is made, against where the open
    containers stand (see :class:`_Subscription`).
    """

    __slots__ = ("index", "keep", "last", "outbox", "records", "subs", "tree")

    def __init__(self, tree: WatchedTree, keep: bool) -> None:
        self.tree = tree
        self.keep = keep  # records kept for changes(), not only for subscribers
        self.records: list[Any] = []
        self.outbox: list[tuple[Any, list[_Subscription]]] = []
        self.subs: list[_Subscription] = []
        # The string the last Appended record was about, and its subscriptions.
        self.last: tuple[Node | None, Key, list[_Subscription]] | None = None
        self.index = 0  # of the value of the stream being read

    # ------------------------------------------------------------------ the observer
    # (One call per event. Without subscriptions, a record is made and kept for changes();
    # with them, it is made only when changes() keeps it or some subscription wants it.)

    def restart(self) -> None:
        self.index += 1
        self.last = None

    def started(self, parent: Node | None, key: Key, kind: str) -> None:
        self.last = None
        subs = self.subs
        if subs:
            self._offer(Started, parent, key, kind)
            if kind != "string":
                for sub in subs:
                    sub.push(parent, key)
        elif self.keep:
            self.records.append(Started(parent, kind, self.index, key))  # type: ignore[arg-type]

    def appended(self, parent: Node | None, key: Key, text: str) -> None:
        if self.subs:
            last = self.last
            if last is not None and last[0] is parent and last[1] == key:
                wanted = last[2]  # more of the string the last record was about
            else:
                wanted = [sub for sub in self.subs if sub.wants(Appended, parent, key)]
                self.last = (parent, key, wanted)
            if wanted or self.keep:
                record = Appended(parent, text, self.index, key)
                if self.keep:
                    self.records.append(record)
                if wanted:
                    self.outbox.append((record, wanted))
        elif self.keep:
            self.records.append(Appended(parent, text, self.index, key))

    def completed(self, parent: Node | None, key: Key, value: Any) -> None:
        self.last = None
        subs = self.subs
        if subs:
            depth = 0 if parent is None else parent[2] + 1
            for sub in subs:
                if len(sub.fits) > depth:  # a container that ends: it is open no more
                    sub.fits.pop()
            self._offer(Completed, parent, key, value)
        elif self.keep:
            self.records.append(Completed(parent, value, self.index, key))

    def string(self, parent: Node | None, key: Key, value: str) -> None:
        """A string read whole: it starts, grows by all of it at once, and is complete."""
        if self.subs or not self.keep:
            self.started(parent, key, "string")
            if value:
                self.appended(parent, key, value)
            self.completed(parent, key, value)
            return
        self.last = None
        index = self.index
        records = self.records
        records.append(Started(parent, "string", index, key))
        if value:
            records.append(Appended(parent, value, index, key))
        records.append(Completed(parent, value, index, key))

    def ended(self, parent: Node | None, key: Key, rest: str, value: str) -> None:
        """The open string ends, grown by ``rest`` since it was last reported (maybe
        nothing): ``value`` is all of it."""
        if rest:
            self.appended(parent, key, rest)
        self.completed(parent, key, value)

    def _offer(self, kind: type[Change], parent: Node | None, key: Key, data: Any) -> None:
        """With subscriptions: make a record of ``kind`` if changes() keeps it or some
        subscription wants it."""
        wanted = [sub for sub in self.subs if sub.wants(kind, parent, key)]
        if wanted or self.keep:
            record = kind(parent, data, self.index, key)
            if self.keep:
                self.records.append(record)
            if wanted:
                self.outbox.append((record, wanted))

    # ------------------------------------------------------------------ handing out

    def take(self) -> list[Change]:
        """The records since the last call (``changes()``)."""
        self.tree.flush()
        records = self.records
        self.records = []
        return records

    def subscribe(
        self,
        pattern: tuple[object, ...],
        callback: Callable[[Any], object],
        under: bool,
        kinds: tuple[type[Change], ...] | None,
    ) -> Callable[[], None]:
        self.tree.flush()  # growth so far is not for the new subscriber
        sub = _Subscription(pattern, callback, under, kinds, self.tree.nodes)
        self.subs.append(sub)
        self.last = None

        def cancel() -> None:
            if sub.active:
                sub.active = False
                self.subs.remove(sub)
                self.last = None

        return cancel

    def dispatch(self) -> None:
        """Hand the records made since the last call to their subscribers, in order.

        A callback that raises does not stop the delivery: every record still reaches every
        other subscription, and the first exception is raised again at the end.
        """
        self.tree.flush()
        outbox = self.outbox
        if not outbox:
            return
        self.outbox = []
        failure: BaseException | None = None
        for record, subs in outbox:
            for sub in subs:
                if not sub.active:
                    continue
                try:
                    sub.callback(record)
                except Exception as exc:
                    if failure is None:
                        failure = exc
        if failure is not None:
            raise failure


_EMPTY: Final[dict[str, Callable[[], Any]]] = {"array": list, "object": dict, "string": str}


def replay(changes: Iterable[Change], value: Any = NOTHING) -> Any:
    """Apply change records to ``value`` (nothing yet, by default) and return the result.

    Records from one parser, applied in order from the start, rebuild every snapshot it showed
    along the way. ``value`` is changed in place where it is a list or dict. (Of a parser
    that reads several values per stream, apply the records of one ``index`` at a time.)
    """
    root: list[Any] = [value]
    for change in changes:
        path = change.path
        parent: Any = root
        last: Any = 0
        for step in path:
            parent = parent[last]
            last = step
        if isinstance(change, Appended):
            parent[last] += change.text
            continue
        new = _EMPTY[change.kind]() if isinstance(change, Started) else change.value
        if type(parent) is list and last == len(parent):
            parent.append(new)
        else:
            parent[last] = new
    return root[0]
