"""The tree builder: the value being built, and the only code that changes it.

The automaton and the fast paths say *what* they read through the builder interface::

    open(container)     an array or object begins          close()       it ends
    key_start()         a key begins (text via append)     key(text)     a key read whole
    string_start()      a string value begins              append(text)  more of it
    string_end()        the string (value or key) ends     scalar(v)     a whole scalar
    member(key, v)      a key and its scalar value, read whole
    whole(value)        a whole array or object read at once (the C scanner's; when someone
                        listens, the scanner builds it again through the calls above instead)
    provisional(v)      an unfinished number or literal shown for now; take_back() undoes it

:class:`Tree` owns:

- the root slot (``box[0]``) and the open containers (``stack``, with the key being read in
  each, ``keys``): the snapshot *is* the root value, and it grows in place;
- linking a value into its parent: ``_link``, which ``open``, ``string_start`` and
  ``member`` write out for speed (a call each would cost several percent on many small
  values; ``watched.WatchedTree`` overrides all four, so that nothing is linked unreported);
  counting changes to the snapshot (``version``); growing the open string (``append``, see
  :func:`grow`);
- provisional values (``partial_numbers``, ``partial_literals``).

``watched.WatchedTree`` adds the object hooks, ``max_depth`` and the observer; a parser that
has none of these uses the plain :class:`Tree` and pays nothing for them. :func:`walk` finds
the value at a path (for the parser's queries).

The builder never sees the input text and never raises a positioned error: it raises
:class:`DepthError` and the automaton, which knows where it is, turns that into a
``JSONDecodeError``. It must never unlink a value it linked, but for a provisional one.
"""

from __future__ import annotations

from typing import Any

from .observer import NOTHING, Key

__all__ = ["DepthError", "Tree", "copy_value", "grow", "walk"]


def copy_value(value: Any) -> Any:
    """An independent copy of the lists and dicts in ``value``, without recursion.

    The parser's own copy (``snapshot(copy=True)``, ``take()``): a value it built holds no
    shared container and no cycle, and what is not exactly a list or a dict (a hook's object)
    is the caller's, so it is shared. Foreign data (an event's) is copied by
    ``jsonsnap._jsontext.copy_data``, which also turns mappings and tuples into dicts and lists
    and keeps shared containers shared: that bookkeeping would make this one about 1.6x slower,
    and this one is compiled with the parser."""
    kind = type(value)
    if kind is not list and kind is not dict:
        return value
    root: Any = kind()
    todo: list[tuple[Any, Any]] = [(value, root)]
    while todo:
        src, dst = todo.pop()
        if type(src) is list:
            dst.extend(src)
            items: Any = enumerate(src)
        else:
            dst.update(src)
            items = src.items()
        for key, item in items:
            kind = type(item)
            if kind is list or kind is dict:
                child: Any = kind()
                dst[key] = child
                todo.append((item, child))
    return root


class DepthError(Exception):
    """``max_depth`` would be exceeded (the automaton gives it a position)."""


def grow(holder: Any, key: Any, text: str) -> None:
    """Append ``text`` to the string at ``holder[key]`` in place.

    CPython appends to a ``str`` without copying when the string holds the only reference to
    itself; the slot is emptied for the duration of ``s += text`` so that it does. Everything
    that grows a string goes through here, but for copies of these four lines where a call
    would cost too much: :meth:`Tree.append` (every piece of every string, and of every key,
    which grows in a list of its own) and the lane in ``Parser.feed`` (every character of a
    long string fed a character at a time).
    """
    s: str = holder[key]  # (typed: a compiled build then appends in place)
    holder[key] = None
    s += text
    holder[key] = s


class Tree:
    """The value being built, without hooks, depth limit or observer."""

    __slots__ = (
        "box",
        "in_key",
        "keys",
        "partial_strings",
        "pending",
        "provisional_at",
        "retracted",
        "slot",
        "slot_key",
        "stack",
        "version",
    )

    def __init__(self, partial_strings: bool = True) -> None:
        self.box: list[Any] = [NOTHING]
        self.stack: list[Any] = []
        # For each open container, the key of the member being read (None for arrays).
        self.keys: list[Key] = []
        # Counts changes to the snapshot, for feed()'s answer.
        self.version = 0
        self.partial_strings = partial_strings
        # The open string: a visible value lives in its parent only, at slot[slot_key]; a key,
        # or a string hidden by partial_strings=False, is built in pending[0] (slot is None).
        self.slot: Any = None
        self.slot_key: Any = None
        self.pending = [""]
        self.in_key = False
        # The provisional value: (container, key or None for an array, previous value).
        self.provisional_at: tuple[Any, Any, Any] | None = None
        # The provisional value last taken back: (container, key or index, value).
        self.retracted: tuple[Any, Any, Any] | None = None

    # ------------------------------------------------------------------ linking

    def _link(self, value: Any) -> None:
        """Link a new value into the member slot being read (or make it the root)."""
        self.version += 1
        stack = self.stack
        if not stack:
            self.box[0] = value
        elif type(top := stack[-1]) is list:
            top.append(value)
        else:
            top[self.keys[-1]] = value

    def scalar(self, value: Any) -> None:
        """A whole scalar (a number, a literal, a string read in one piece)."""
        self._link(value)

    def element(self, value: Any) -> None:
        """A whole scalar array element read by the ``elements`` fast path (``_link`` for an
        array, written out: there is one call per element)."""
        self.version += 1
        self.stack[-1].append(value)

    def whole(self, value: Any) -> None:
        """A whole array or object, read at once."""
        self._link(value)

    def begins(self) -> None:
        """A number or literal begins, and the fragment ends before it does (for a schema
        checker: its type is known from its first character)."""

    def member(self, key: str, value: Any) -> None:
        """A member read whole: its key and its scalar value (``_link`` for an object, written
        out: this is the commonest link of all)."""
        self.version += 1
        self.keys[-1] = key
        self.stack[-1][key] = value

    def open(self, container: Any) -> None:
        """An array or object begins: linked (``_link``, written out) and pushed."""
        self.version += 1
        stack = self.stack
        if not stack:
            self.box[0] = container
        elif type(top := stack[-1]) is list:
            top.append(container)
        else:
            top[self.keys[-1]] = container
        stack.append(container)
        self.keys.append(None)

    def close(self) -> None:
        self.stack.pop()
        self.keys.pop()

    def key(self, text: str) -> None:
        """The key of the member being read, read whole."""
        self.keys[-1] = text

    # ------------------------------------------------------------------ strings

    def key_start(self) -> None:
        self.in_key = True
        self.slot = None
        self.pending[0] = ""

    def string_start(self) -> None:
        """A string value begins: shown at once, empty, unless ``partial_strings`` is off."""
        self.in_key = False
        if not self.partial_strings:
            self.slot = None
            self.pending[0] = ""
            return
        # Linked (``_link``, written out) where it will grow.
        self.version += 1
        stack = self.stack
        if not stack:
            self.box[0] = ""
            self.slot, self.slot_key = self.box, 0
        elif type(top := stack[-1]) is list:
            top.append("")
            self.slot, self.slot_key = top, -1
        else:
            key = self.keys[-1]
            top[key] = ""
            self.slot, self.slot_key = top, key

    def append(self, text: str) -> None:
        """Decoded text for the open string."""
        holder = self.slot
        if holder is None:  # a key (or a hidden string): grow(), written out for a list of str
            pending = self.pending
            kept = pending[0]
            pending[0] = ""
            kept += text
            pending[0] = kept
            return
        self.version += 1
        key = self.slot_key
        # grow(), written out: this runs for every piece of every string.
        s: str = holder[key]
        holder[key] = None
        s += text
        holder[key] = s

    def escape(self, text: str, length: int) -> None:
        """Decoded text for the open string, from one escape ``length`` characters long."""
        self.append(text)

    def string_end(self) -> bool:
        """The closing quote was read; return whether the string was a key."""
        if self.slot is not None:
            self.slot = None
            return False
        s = self.pending[0]
        self.pending[0] = ""
        if self.in_key:
            self.keys[-1] = s
            return True
        self._link(s)
        return False

    def flush(self) -> None:
        """Report the open string's growth (hook for :class:`WatchedTree`)."""

    def restart(self) -> None:
        """A new top-level value begins (several values per stream): nothing shows yet."""
        self.box[0] = NOTHING
        self.version += 1

    # ------------------------------------------------------------------ provisional values
    # (partial_numbers and partial_literals; such a parser builds with WatchedTree, whose
    # _link tells a value put back where it was taken from, for feed()'s answer)

    def provisional(self, value: Any) -> None:
        """Show ``value`` where the next value goes, until :meth:`take_back`."""
        stack = self.stack
        if not stack:
            self.provisional_at = (self.box, 0, self.box[0])
        elif type(top := stack[-1]) is list:
            self.provisional_at = (top, None, NOTHING)
        else:
            key = self.keys[-1]
            self.provisional_at = (top, key, top.get(key, NOTHING))
        self._link(value)

    def take_back(self) -> None:
        """Unlink the provisional value (the one value ever unlinked)."""
        container, key, previous = self.provisional_at  # type: ignore[misc]
        self.provisional_at = None
        slot = key
        if type(container) is list and container is not self.box:
            slot = len(container) - 1
        self.retracted = (container, slot, container[slot])
        if container is self.box:
            self.box[0] = previous
        elif type(container) is list:
            container.pop()
        elif previous is NOTHING:
            del container[key]
        else:
            container[key] = previous

    def settle_retracted(self) -> None:
        """End of a step: a value taken back and not put back is a change."""
        if self.retracted is not None:
            self.retracted = None
            self.version += 1

    def _same_as_retracted(self, value: Any) -> bool:
        """Whether ``value`` goes where the provisional value just taken back was, and equals
        it: then the snapshot is as it was (the answer feed() gives)."""
        container, key, old = self.retracted  # type: ignore[misc]
        self.retracted = None
        stack = self.stack
        if not stack:
            here = container is self.box
        elif type(top := stack[-1]) is list:
            here = top is container and len(top) == key
        else:
            here = top is container and self.keys[-1] == key
        return (
            here
            and type(value) is type(old)
            and value == old
            and (type(value) is not float or repr(value) == repr(old))
        )

    # ------------------------------------------------------------------ queries

    def path_here(self, depth: int) -> tuple[str | int, ...]:
        """The path of the value in the slot being read of the container at ``depth`` (of the
        root, for 0): keys of objects and indices of the last elements of arrays."""
        stack = self.stack
        keys = self.keys
        return tuple(
            len(stack[i]) - 1 if type(stack[i]) is list else keys[i]  # type: ignore[misc]
            for i in range(depth)
        )

    def holds_open_string(self, path: tuple[str | int, ...]) -> bool:
        """Whether ``path`` is the open string value."""
        return self.slot is not None and path == self.path_here(len(self.stack))


def walk(root: Any, path: tuple[str | int, ...]) -> tuple[Any, list[Any]]:
    """The value at ``path`` in ``root`` (``NOTHING`` if there is none) and the values stepped
    into on the way (as many as the path's steps when its parent is there)."""
    value = root
    parents: list[Any] = []
    if value is NOTHING:
        return NOTHING, parents
    for step in path:
        parents.append(value)
        if isinstance(value, dict):
            if not isinstance(step, str) or step not in value:
                return NOTHING, parents
        elif not isinstance(value, list) or type(step) is not int or not 0 <= step < len(value):
            return NOTHING, parents
        value = value[step]
    return value, parents
