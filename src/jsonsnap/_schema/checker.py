"""Checking a value against its schema while it is built: :class:`SchemaChecker`.

A parser given a schema builds with a checking tree (``jsonsnap._parse.watched.CheckingTree``)
that asks its :class:`SchemaChecker` (an ``observer.Checker``) about each builder call against
the compiled schema (``compile``) before it lets the call change the value. The checker
never reads the input: where a call is about it reads through the automaton as a read-only
``observer.Cursor`` (``quote``, ``at``, ``number_at`` and ``match``, which the automaton sets
before the call; lines and columns from its ``buf``, ``offset`` and ``lines``), and it asks
the automaton to read a string exactly (``read_exactly``) when each character's place
matters. Its parts: :class:`~jsonsnap._schema.frames.Checks` (the shapes of each value, and
the keywords of containers and scalars), :class:`~jsonsnap._schema.strings.TextChecks`
(strings and keys, character by character) and :class:`~jsonsnap._schema.faults.Report`
(the violations, positioned and reported).

The checks
==========

Each value being read has *leaves*: pairs of a shape (its own keywords) and an *owner*, the
``anyOf``/``oneOf`` branch the shape belongs to (``None``: the value must match it). A value's
leaves are found when it begins: the shapes its container's leaves give for its key or index
(``properties``, ``patternProperties``, ``additionalProperties``, ``prefixItems``,
``items``), expanded through ``allOf`` and ``$ref`` (the same owner) and ``anyOf``/``oneOf``
(a ``Group`` of ``Branch`` owners, one per alternative). An open array or object
keeps its leaves in a ``Frame`` (``frames``, beside the tree's ``stack``; ``None`` when
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

from typing import Any, Final

from .._errors import SchemaError
from .._parse.automaton import Automaton
from .._parse.grammar import TOP
from .._parse.watched import WatchedTree
from .equality import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING, kind_of
from .faults import Branch, Fault, Report, alive
from .frames import KIND, NO_GROUPS, NOT_SIMPLE, Checks, Frame
from .shape import Shape
from .strings import KEYS, Leaf, TextChecks

__all__ = ["SchemaChecker"]

#: A literal's or number's first character: its kind.
_FIRST: Final[dict[str, int]] = {"t": BOOLEAN, "f": BOOLEAN, "n": NULL, "N": NUMBER, "I": NUMBER}
#: What a literal read whole by a fast path begins with.
_LITERAL_STARTS: Final = "tfn"


class SchemaChecker:
    """Checks every value against a schema before the tree links it (see the module
    docstring)."""

    __slots__ = (
        "checks",
        "cursor",
        "exact",
        "frames",
        "key_leaves",
        "raw",
        "report",
        "string",
        "text",
        "tree",
    )

    tree: WatchedTree  # the checked tree, read only (set by attach)
    # Where the automaton is (set by attach): read as an ``observer.Cursor`` only, but typed
    # as the automaton, so that a compiled build reads its attributes directly.
    cursor: Automaton

    def __init__(self, root: Shape, raise_: bool) -> None:
        self.report = Report(raise_)
        self.checks = Checks(root, self.report)
        self.text = TextChecks(self.checks, self.report)
        self.frames: list[Frame | None] = self.checks.frames  # (the same list, read per value)
        self.string: Frame | None = None  # the open string's checks, when exact
        self.key_leaves: list[Leaf] | None = None  # the key's checks, when exact
        self.exact = False  # whether the open string (or key) is read exactly
        self.raw = 0  # characters of the exact string (or key) read so far, escapes whole

    def attach(self, tree: WatchedTree, cursor: Automaton) -> None:
        """Check what ``tree`` builds as ``cursor`` (the automaton) reads it."""
        self.tree = tree
        self.checks.tree = tree
        self.cursor = cursor
        self.report.cursor = cursor

    @property
    def violations(self) -> list[SchemaError]:
        return self.report.violations

    @property
    def dropped(self) -> int:
        return self.report.dropped

    def _exact(self, on: bool, runs: bool = False) -> None:
        """Have the automaton read the open string (or key) one escape at a time, so that
        each character's place is known (and put its fast paths back); with ``runs``, in
        runs of text vetted first (``run``), read one escape at a time only where a run
        fails."""
        if on:
            self.cursor.read_exactly(True, self.run if runs else None)
            self.exact = True
            self.raw = 0
        elif self.exact:
            self.cursor.read_exactly(False)
            self.exact = False

    # ------------------------------------------------------------------ containers

    def open(self, container: Any) -> None:
        checks = self.checks
        sub = checks.one_shape()
        if sub is None:  # nothing is checked in it
            checks.frames.append(None)
            return
        kind = ARRAY if type(container) is list else OBJECT
        start = self.cursor.at
        shape: Shape | None = None if sub is NOT_SIMPLE else sub
        if shape is not None and shape.types & kind and not shape.never:
            # One simple shape, of the right type: the commonest case, written out (no frame
            # when nothing but the type is checked, as the type just was).
            where = checks.here()
            leaves = [Leaf(shape, None)]
            frame = Frame(kind, leaves, NO_GROUPS, where, start) if shape.inner else None
        else:
            leaves, groups, where = checks.begin(kind, start)
            frame = Frame(kind, leaves, groups, where, start) if leaves or groups else None
        checks.frames.append(frame)
        if frame is not None and frame.hashed:
            checks.hashing += 1

    def close(self, value: Any) -> bool:
        checks = self.checks
        frames = self.frames
        frame = frames[-1]
        if frame is not None:
            checks.end_container(frame, value, self.cursor.at)
        frames.pop()
        if frame is not None and frame.hashed:
            checks.hashing -= 1
            if not checks.hashing:
                checks.known.clear()
                checks.ids.clear()
                checks.enums.clear()
        # Told when closed only when its container checks uniqueItems.
        return bool(frames) and (outer := frames[-1]) is not None and outer.unique

    def closed(self, value: Any) -> None:
        self.checks.child_done(value, self.cursor.at)

    # ------------------------------------------------------------------ scalars

    def begins(self) -> None:
        cursor = self.cursor
        if cursor.state == TOP:  # (tolerant: it may be the first word of prose; checked if shown)
            return
        kind = _FIRST.get(cursor.buf[cursor.at - cursor.offset], NUMBER)
        self.checks.begin(kind, cursor.at)

    def scalar(self, value: Any) -> None:
        # A number or literal read by the automaton: it began at number_at (a literal sets
        # it too) and is complete at ``at``.
        checks = self.checks
        if checks.quick(value):
            return
        cursor = self.cursor
        start, end = cursor.number_at, cursor.at
        kind = KIND.get(type(value)) or kind_of(value)
        if kind == STRING:
            self.text.whole_string(value, start, end)
        else:
            checks.any_scalar(value, kind, start, end)

    def element(self, value: Any) -> None:
        if self.frames[-1] is not None and not self.checks.quick(value):
            self._matched(value)

    def member(self, key: str, value: Any) -> None:
        frame = self.frames[-1]
        if frame is not None:
            keyed = frame.keys
            if keyed and (
                len(keyed) > 1
                or keyed[0].shape.closed is None
                or keyed[0].shape.max_props is not None
                or key not in keyed[0].shape.closed
                or keyed[0].owner is not None
            ):
                self._key_read(key)
            if not self.checks.quick(value):
                self._matched(value)

    def key(self, text: str) -> None:
        frame = self.frames[-1]
        if frame is not None and frame.keys:
            self._key_read(text)

    def _key_read(self, key: str) -> None:
        """A key read whole by a fast path: its place from the fast path's match, or (read a
        character at a time, ``chars``) from its opening quote, a key without escapes."""
        cursor = self.cursor
        if cursor.chars:
            start = cursor.quote
            self.text.key_done(key, start, start + 1 + len(key), True)
            return
        m = cursor.match
        offset = cursor.offset
        self.text.key_done(key, offset + m.start(), offset + m.end("key"), True)

    def _matched(self, value: Any) -> None:
        """A scalar read whole by a fast path (and not ``Checks.quick``): its place from the
        fast path's match, or (read a character at a time, ``chars``) from ``number_at`` and
        ``at``, the characters at and after it."""
        cursor = self.cursor
        if cursor.chars:
            start, end = cursor.number_at, cursor.at
            c = cursor.buf[start - cursor.offset]
            if c == '"':  # (ends at its closing quote)
                self.text.whole_string(value, start, end - 1)
            else:  # a literal is placed at its first character
                end = start if c in _LITERAL_STARTS else end
                self.checks.any_scalar(value, kind_of(value), start, end)
            return
        m = self.cursor.match
        offset = self.cursor.offset
        if m["string"] is not None:
            start, end = offset + m.start("string") - 1, offset + m.end("string")
            self.text.whole_string(value, start, end)
        elif m["number"] is not None:
            start, end = offset + m.start("number"), offset + m.end("number")
            self.checks.any_scalar(value, kind_of(value), start, end)
        else:
            at = offset + m.start("literal")
            self.checks.any_scalar(value, kind_of(value), at, at)

    # ------------------------------------------------------------------ strings and keys

    def string_start(self) -> None:
        sub = self.checks.one_shape()
        shape: Shape | None = None if sub is NOT_SIMPLE else sub
        if sub is None or (shape is not None and shape.plain and shape.types & STRING):
            self.string = None  # nothing to check in it (the commonest case, written out)
            return
        frame = self.checks.string_frame(self.cursor.quote)
        self.string = frame
        if frame is not None:
            self._exact(True, runs=True)

    def key_start(self) -> None:
        frames = self.checks.frames
        frame = frames[-1] if frames else None
        if frame is not None and frame.keys:
            leaves = [leaf for leaf in frame.keys if alive(leaf.owner)]
            for leaf in leaves:
                shape = leaf.shape
                if shape.closed is not None:
                    leaf.expect(shape.allowed, KEYS)
                else:
                    leaf.expect(None)
            self.key_leaves = leaves
            self._exact(True)
        else:
            self.key_leaves = None

    def append(self, text: str, width: int, length: int) -> None:
        # (told only while the open string or key is read exactly)
        pos = self.cursor.quote + 1 + self.raw
        self.raw += length
        tree = self.tree
        if tree.in_key:
            leaves = self.key_leaves
            frame = self.checks.frames[-1]
            if leaves and frame is not None:
                self._key_text(leaves, frame, text, pos, width)
        elif self.string is not None:
            before = tree.slot[tree.slot_key] if tree.slot is not None else tree.pending[0]
            self.text.grow(self.string, text, pos, width, before)

    def run(self, text: str, length: int) -> bool:
        # (asked only about the open string, read exactly with its runs vetted: see _exact)
        frame = self.string
        if frame is None or not self.text.fits(frame, text):
            return False
        self.raw += length
        return True

    def _key_text(self, leaves: list[Leaf], frame: Frame, text: str, pos: int, width: int) -> None:
        """``text`` of the key being read exactly, its first character at ``pos``."""
        failed: list[tuple[Branch | None, Fault]] = []
        for leaf in leaves:
            if leaf.cands is None or leaf.told or not alive(leaf.owner):
                continue
            k = leaf.narrow(text)
            if k >= 0:
                leaf.told = True
                key = self.tree.pending[0] + text[: k + 1]
                err = self.text.key_error(leaf.shape, key, pos + k * width, frame, False)
                failed.append((leaf.owner, err))
            leaf.length += len(text)
        if failed:
            self.report.fail_all(failed)

    def string_end(self) -> None:
        # (told only when the string or key was read exactly: nothing else is checked then)
        quote = self.cursor.quote
        end = quote + 1 + self.raw
        self._exact(False)
        tree = self.tree
        if tree.in_key and tree.slot is None:
            leaves = self.key_leaves
            self.key_leaves = None
            frames = self.checks.frames
            if frames and frames[-1] is not None:
                done = [leaf for leaf in leaves or () if leaf.told]
                self.text.key_done_exact(tree.pending[0], quote, end, done)
            return
        frame = self.string
        self.string = None
        value = tree.slot[tree.slot_key] if tree.slot is not None else tree.pending[0]
        if frame is not None:
            self.text.string_done(frame, value, end)
        else:
            self.checks.child_done(value, end)
