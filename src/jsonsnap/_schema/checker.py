"""Checking a value against its schema while it is built: :class:`CheckedTree`.

A parser given a schema builds with a :class:`CheckedTree`, a watched tree (``_tree``) that
checks each builder call against the compiled schema (``_schema``) before it lets it change
the value. It never reads the input: where a call is about comes from the automaton's
``quote``, ``at``, ``number_at`` and ``match`` (see ``_tokens``), which the automaton sets
before the call, and lines and columns from its ``buf``, ``offset`` and ``lines``.

The checks
==========

Each value being read has *leaves*: pairs of a shape (its own keywords) and an *owner*, the
``anyOf``/``oneOf`` branch the shape belongs to (``None``: the value must match it). A value's
leaves are found when it begins: the shapes its container's leaves give for its key or index
(``properties``, ``patternProperties``, ``additionalProperties``, ``prefixItems``,
``items``), expanded through ``allOf`` and ``$ref`` (the same owner) and ``anyOf``/``oneOf``
(a :class:`Group` of :class:`Branch` owners, one per alternative). An open array or object
keeps its leaves in a :class:`Frame` (``frames``, beside the tree's ``stack``; ``None`` when
nothing is checked in it, so that an unconstrained subtree costs one test per value); so does
the open string when a character's place matters (``enum``, ``const``, lengths, ``pattern``,
or a group: the automaton then reads it without the fast paths that decode escapes in bulk,
so that each character's place in the input is known).

When a check fails, the failure goes to the leaf's owner: ``None`` reports it; a branch dies,
and the group fails when its last branch dies (reported as the last branch's own failure when
that branch had outlived the others, or as the group's when they died together); a failure in
a dead branch is dropped. ``oneOf`` is also checked when its value completes: more than one
branch alive is a failure.

When each is decided
====================

- wrong type: the value's first character (a number's or literal's, even when the fragment
  ends inside it: the automaton says ``begins``);
- ``enum``/``const`` of a string, an unknown key of a closed object: the first character no
  allowed value (key) begins with;
- ``maxLength``, ``maxItems``: the character or element over the limit; ``maxProperties`` and
  ``additionalProperties: false`` of a key read whole (or beside ``patternProperties``, whose
  patterns need the whole key): the key's closing quote;
- ``required``, ``minItems``, ``minProperties``: the closing bracket;
- numbers, ``pattern``, ``minLength``, other ``enum``/``const``: the character that completes the
  value (after a number: the character that ends it, or the end of the input);
- ``uniqueItems``: when the repeated element completes.

Strings and keys allowed by ``enum``/``const`` or a closed object are narrowed as each
character comes by a bisection of the sorted candidates (``Leaf.narrow``), so that a character
costs the log of their number; other values are looked up by canonical key. Several failures
one call finds (a fragment of a string against several shapes) are reported in the order of
their places, as if the text came one character at a time.

Reporting: ``on_violation="raise"`` raises the :class:`~jsonsnap.SchemaError` from the builder
call, before the call changes anything (the parser then stays failed); ``"collect"`` keeps it
in ``violations`` (once per place and keyword, the first ``MAX_VIOLATIONS``, fewer when their
paths add up to ``MAX_PATH_STEPS``; ``dropped`` counts the others) and goes on. A duplicate
key's members are each checked as they are read.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .._errors import SchemaError
from .._parse.fast import FastPaths
from .._parse.grammar import TOP
from .._parse.tree import Tree, WatchedTree
from .equality import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING, kind_of
from .faults import MAX_PATH_STEPS, MAX_VIOLATIONS, Branch, Fault, Locator, alive
from .frames import GENERAL, NO_GROUPS, Checks, Frame, Leaf
from .shape import Shape

__all__ = ["CheckedTree", "alive", "checked_fast_paths"]

BEYOND = 1 << 62
#: A literal's or number's first character: its kind.
_FIRST = {"t": BOOLEAN, "f": BOOLEAN, "n": NULL, "N": NUMBER, "I": NUMBER}


def checked_fast_paths(fast: FastPaths) -> FastPaths:
    """The fast paths a checked parser takes: all but the C scanner (which builds a whole
    container at once, so that no part of it has a place in the input)."""
    return dataclasses.replace(fast, scan_min=None) if fast.scan_min is not None else fast


class CheckedTree(Checks, WatchedTree):
    """A watched tree that checks every value against a schema (see the module docstring)."""

    __slots__ = (
        "auto",
        "enums",
        "exact_fast",
        "faults",
        "frames",
        "hashing",
        "ids",
        "key_leaves",
        "known",
        "locator",
        "raise_",
        "raw",
        "root_shape",
        "saved",
        "shared",
        "steps",
        "string",
        "violations",
    )

    def __init__(self, root: Shape, raise_: bool, **options: Any) -> None:
        super().__init__(**options)
        self.placed = True
        self.root_shape = root
        self.raise_ = raise_
        self.auto: Any = None  # the automaton, set by the parser
        self.frames: list[Frame | None] = []
        self.string: Frame | None = None  # the open string's checks, when exact
        self.key_leaves: list[Leaf] | None = None  # the key's checks, when exact
        self.raw = 0  # characters of the exact string (or key) read so far, escapes whole
        self.saved: tuple[FastPaths, int] | None = None  # the automaton's, while exact
        self.exact_fast: FastPaths | None = None
        self.violations: list[SchemaError] = []
        self.faults: set[tuple[int, str, int, Any]] = set()
        self.steps = 0  # of the paths of the violations kept (beyond MAX_PATH_STEPS: full)
        self.locator = Locator()
        self.shared: dict[tuple[int, str], list[Any]] = {}
        # The canonical keys of complete containers that an open array's uniqueItems or an
        # open container's enum may ask for again (by id, with the container), the numbers
        # of the containers' keys, the container enum values of each shape in that
        # numbering, and how many such containers are open (none: all three forgotten).
        self.known: dict[int, tuple[Any, Any]] = {}
        self.ids: dict[Any, int] = {}
        self.enums: dict[int, frozenset[Any]] = {}
        self.hashing = 0

    def _room(self, steps: int) -> bool:
        if len(self.violations) < MAX_VIOLATIONS and self.steps + steps <= MAX_PATH_STEPS:
            self.steps += steps
            return True
        self.steps = MAX_PATH_STEPS + 1  # full: the violations kept are the first ones
        return False

    def _exact(self, on: bool) -> None:
        """Have the automaton read the open string (or key) one escape at a time, so that
        each character's place is known (and put its fast paths back)."""
        auto = self.auto
        if on:
            if self.saved is None:
                self.saved = (auto.fast, auto.long_min)
            fast = self.exact_fast
            if fast is None:
                fast = self.exact_fast = dataclasses.replace(auto.fast, runs=False, lane=False)
            auto.fast = fast
            auto.long_min = BEYOND
            self.raw = 0
        elif self.saved is not None:
            auto.fast, auto.long_min = self.saved
            self.saved = None

    def open(self, container: Any) -> None:
        sub = self._one_shape()
        if sub is None:  # nothing is checked in it
            self._open(container)
            self.frames.append(None)
            return
        kind = ARRAY if type(container) is list else OBJECT
        start = self.auto.at
        if sub is not GENERAL and sub.types & kind and not sub.never:
            # One simple shape, of the right type: the commonest case, written out.
            where = self._here()
            self._open(container)
            frame = Frame(kind, [Leaf(sub, None)], NO_GROUPS, where, start) if sub.own else None
        else:
            leaves, groups, where = self._begin(kind, start)
            self._open(container)
            frame = Frame(kind, leaves, groups, where, start) if leaves or groups else None
        self.frames.append(frame)
        if frame is not None and frame.hashed:
            self.hashing += 1

    def _open(self, container: Any) -> None:
        """``WatchedTree.open``; written out when it has nothing to do but keep the nodes."""
        if self.observer is not None or self.pairs is not None or self.max_depth is not None:
            WatchedTree.open(self, container)
            return
        if self.retracted is not None and self._same_as_retracted(container):
            self.version -= 1
        self.version += 1
        stack = self.stack
        nodes = self.nodes
        if not stack:
            self.box[0] = container
            nodes.append((None, None, 0))
        else:
            top = stack[-1]
            parent = nodes[-1]
            if type(top) is list:
                nodes.append((parent, len(top), parent[2] + 1))
                top.append(container)
            else:
                key = self.keys[-1]
                nodes.append((parent, key, parent[2] + 1))
                top[key] = container
        stack.append(container)
        self.keys.append(None)

    def close(self) -> None:
        frame = self.frames[-1]
        end = self.auto.at
        value = self.stack[-1]
        if frame is not None:
            self._end_container(frame, value, end)
        frames = self.frames
        frames.pop()
        if frame is not None and frame.hashed:
            self.hashing -= 1
            if not self.hashing:
                self.known.clear()
                self.ids.clear()
                self.enums.clear()
        if self.observer is None and self.pairs is None and self.object_hook is None:
            self.stack.pop()  # WatchedTree.close, written out: it has nothing else to do
            self.keys.pop()
            self.nodes.pop()
        else:
            WatchedTree.close(self)
        if frames and frames[-1] is not None and frames[-1].unique:
            self._child_done(value, end)

    def begins(self) -> None:
        auto = self.auto
        if auto.state == TOP:  # (tolerant: it may be the first word of prose; checked if shown)
            return
        self._begin(_FIRST.get(auto.buf[auto.at - auto.offset], NUMBER), auto.at)

    def scalar(self, value: Any) -> None:
        # A number or literal read by the automaton: it began at number_at (a literal sets
        # it too) and is complete at ``at``.
        if not self._quick(value):
            auto = self.auto
            self._scalar(value, auto.number_at, auto.at)
        if self.observer is None and self.pairs is None and self.retracted is None:
            Tree._link(self, value)
        else:
            WatchedTree.scalar(self, value)

    def element(self, value: Any) -> None:
        if self.frames[-1] is not None and not self._quick(value):
            self._matched(value)
        if self.observer is None and self.pairs is None and self.retracted is None:
            self.version += 1
            self.stack[-1].append(value)
        else:
            WatchedTree.scalar(self, value)

    def member(self, key: str, value: Any) -> None:
        frame = self.frames[-1]
        self.keys[-1] = key
        if frame is not None:
            keyed = frame.keys
            if keyed and (
                len(keyed) > 1
                or keyed[0].shape.closed is None
                or keyed[0].shape.max_props is not None
                or key not in keyed[0].shape.closed
                or keyed[0].owner is not None
            ):
                m = self.auto.match
                offset = self.auto.offset
                self._key_done(key, offset + m.start(), offset + m.end("key"), True)
            if not self._quick(value):
                self._matched(value)
        if self.observer is None and self.pairs is None and self.retracted is None:
            self.version += 1
            self.stack[-1][key] = value
        else:
            WatchedTree.scalar(self, value)

    def key(self, text: str) -> None:
        frame = self.frames[-1]
        if frame is not None and frame.keys:
            m = self.auto.match
            offset = self.auto.offset
            self._key_done(text, offset + m.start(), offset + m.end("key"), True)
        self.keys[-1] = text

    def _matched(self, value: Any) -> None:
        """A scalar read whole by a fast path (and not :meth:`_quick`): its place from the fast
        path's match."""
        m = self.auto.match
        offset = self.auto.offset
        if m["string"] is not None:
            self._whole_string(value, offset + m.start("string") - 1, offset + m.end("string"))
        elif m["number"] is not None:
            self._any_scalar(
                value, kind_of(value), offset + m.start("number"), offset + m.end("number")
            )
        else:
            at = offset + m.start("literal")
            self._any_scalar(value, kind_of(value), at, at)

    def string_start(self) -> None:
        sub = self._one_shape()
        if sub is None or (sub is not GENERAL and sub.plain and sub.types & STRING):
            self.string = None  # nothing to check in it (the commonest case, written out)
            if self.observer is None:
                Tree.string_start(self)
            else:
                WatchedTree.string_start(self)
            return
        frame = self._string_frame(self.auto.quote)
        self.string = frame
        if frame is not None:
            self._exact(True)
        super().string_start()

    def key_start(self) -> None:
        frames = self.frames
        frame = frames[-1] if frames else None
        if frame is not None and frame.keys:
            leaves = [leaf for leaf in frame.keys if alive(leaf.owner)]
            for leaf in leaves:
                shape = leaf.shape
                leaf.expect(shape.allowed if shape.closed is not None else None)
            self.key_leaves = leaves
            self._exact(True)
        else:
            self.key_leaves = None
        super().key_start()

    def append(self, text: str) -> None:
        if self.saved is not None:
            self._exact_text(text, 1)
            self.raw += len(text)
        Tree.append(self, text)

    def escape(self, text: str, length: int) -> None:
        if self.saved is not None:
            self._exact_text(text, 0)
            self.raw += length
        super().append(text)

    def _exact_text(self, text: str, width: int) -> None:
        pos = self.auto.quote + 1 + self.raw
        if self.in_key:
            leaves = self.key_leaves
            frame = self.frames[-1]
            if leaves and frame is not None:
                failed: list[tuple[Branch | None, Fault]] = []
                for leaf in leaves:
                    if leaf.cands is None or leaf.told or not alive(leaf.owner):
                        continue
                    k = leaf.narrow(text)
                    if k >= 0:
                        leaf.told = True
                        key = self.pending[0] + text[: k + 1]
                        err = self._key_error(leaf.shape, key, pos + k * width, frame, False)
                        failed.append((leaf.owner, err))
                    leaf.length += len(text)
                if failed:
                    self._fail_all(failed)
        elif self.string is not None:
            before = self.slot[self.slot_key] if self.slot is not None else self.pending[0]
            self._grow(self.string, text, pos, width, before)

    def string_end(self) -> bool:
        if self.saved is None:  # nothing to check (an exact string or key has saved set)
            return WatchedTree.string_end(self)
        end = self.auto.quote + 1 + self.raw
        exact = self.saved is not None
        self._exact(False)
        if self.in_key and self.slot is None:
            key = self.pending[0]
            leaves = self.key_leaves
            self.key_leaves = None
            if self.frames and self.frames[-1] is not None:
                if exact:
                    done = [leaf for leaf in leaves or () if leaf.told]
                    self._key_done_exact(key, end, done)
                else:
                    self._key_done(key, self.auto.quote, end, False)
            return super().string_end()
        frame = self.string
        self.string = None
        value = self.slot[self.slot_key] if self.slot is not None else self.pending[0]
        if frame is not None:
            self._string_done(frame, value, end)
        else:
            self._child_done(value, end)
        return super().string_end()
