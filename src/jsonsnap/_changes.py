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
:func:`replay` applies records to a value, so a copy of the value can be kept in step
elsewhere (another thread, another process) from the records alone.

Records are emitted where the value changes and paths are computed from the parser's stack,
so the cost is proportional to the fragment. String growth is recorded lazily: the characters
a string gained are reported once, when records are handed out or the string ends, so the fast
path that appends plain text to a string does no bookkeeping at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

__all__ = ["ANY", "Appended", "Change", "Completed", "Path", "Started", "matches", "replay"]

Path: TypeAlias = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Started:
    """An array, object or string value appeared at ``path``, empty."""

    path: Path
    kind: Literal["array", "object", "string"]


@dataclass(frozen=True, slots=True)
class Appended:
    """The string at ``path`` grew by ``text``."""

    path: Path
    text: str


@dataclass(frozen=True, slots=True)
class Completed:
    """The value at ``path`` is final."""

    path: Path
    value: Any


Change: TypeAlias = Started | Appended | Completed


class _Any:
    """Matches any one key or index in a subscription pattern."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "jsonsnap.ANY"


#: Wildcard for one path component (an array index or an object key) in a pattern.
ANY: Final = _Any()


def matches(pattern: Sequence[object], path: Path, *, under: bool = False) -> bool:
    """Whether ``path`` matches ``pattern`` (a sequence of keys, indices and :data:`ANY`).

    With ``under=True`` paths below the pattern match too: ``("items",)`` then matches
    ``("items", 3, "name")``.
    """
    if len(path) != len(pattern) and not (under and len(path) > len(pattern)):
        return False
    for want, got in zip(pattern, path, strict=False):
        if want is not ANY and (want != got or type(want) is not type(got)):
            return False
    return True


_EMPTY: Final[dict[str, Callable[[], Any]]] = {"array": list, "object": dict, "string": str}
_MISSING: Any = object()


def replay(changes: Iterable[Change], value: Any = _MISSING) -> Any:
    """Apply change records to ``value`` (nothing yet, by default) and return the result.

    Records from one parser, applied in order from the start, rebuild every snapshot it showed
    along the way. ``value`` is changed in place where it is a list or dict.
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
