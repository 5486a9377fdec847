"""The checks on each value: the shapes a value must match, found when it begins, and the
keywords each event decides (the checker's half that reads the schema).

A value's *leaves* are pairs of a shape and an owner (see ``_faults``), found by
:meth:`Checks._begin` from its container's leaves and the key or index (``properties``,
``patternProperties``, ``additionalProperties``, ``prefixItems``, ``items``), and expanded
through ``allOf`` and ``$ref`` (the same owner) and ``anyOf``/``oneOf`` (a group of branches).
An open array or object keeps them in a :class:`Frame`; so does an open string whose
characters are checked. :meth:`Checks._one_shape` and :meth:`Checks._quick` are the
commonest case written out: one shape on the container, one simple shape for the value.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from .equality import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    KIND_NAMES,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    canonical,
    describe,
    integral,
    json_equal,
    kind_of,
    type_names,
)
from .faults import Branch, Fault, Faults, Group, Where, alive, settle
from .shape import Shape, number_fault

__all__ = ["GENERAL", "KIND", "NO_GROUPS", "NUMBERS", "Checks", "Frame", "Leaf"]

#: Not the commonest case (see Checks._one_shape).
GENERAL: Any = object()
KIND = {type(None): NULL, bool: BOOLEAN, int: INTEGER, float: NUMBER, str: STRING}
NUMBERS = INTEGER | NUMBER
#: The one empty list of leaves a frame without key checks holds, and of groups a frame
#: without alternatives holds (never changed: fewer objects for the garbage collector).
_NONE: list[Any] = []
NO_GROUPS: list[Group] = []


class Leaf:
    """One shape's checks on one value, with what they count."""

    __slots__ = ("cands", "hi", "length", "lo", "owner", "seen", "shape", "told", "uniq")

    def __init__(self, shape: Shape, owner: Branch | None) -> None:
        self.shape = shape
        self.owner = owner
        self.seen: set[str] | None = None  # an object's keys (for maxProperties)
        self.uniq: set[Any] | None = None  # uniqueItems: the elements' canonical keys
        # enum/const strings (or closed keys), sorted: those still possible are cands[lo:hi],
        # the ones that begin with the string (or key) so far.
        self.cands: tuple[str, ...] | None = None
        self.lo = 0
        self.hi = 0
        self.length = 0  # a string's (or key's) length so far
        self.told = False  # its enum (or unknown key) fault is reported: once

    def expect(self, cands: tuple[str, ...] | None) -> None:
        """A string (or key) begins: any of ``cands`` is still possible."""
        self.cands = cands
        self.lo = 0
        self.hi = len(cands) if cands is not None else 0
        self.told = False
        self.length = 0

    def narrow(self, text: str) -> int:
        """``text`` follows the string so far: keep the candidates that go on with it (-1),
        or say how many of its characters the closest one has (none left: then nothing is
        changed). Those in ``[lo, hi)`` of the sorted candidates share the string so far, and
        are in the order of what follows it: a character they all share costs two
        comparisons, one where they part a bisection (in C) of their number's log."""
        cands = self.cands
        assert cands is not None
        start = self.length
        lo, hi = self.lo, self.hi
        if lo >= hi:
            return 0
        # When the first and the last go on with it, so does every one between them (they are
        # sorted): no bisection, so that the characters the candidates share cost nothing more
        # for more candidates (a long common beginning, "value-000...", is the usual case).
        first = cands[lo]
        if first.startswith(text, start) and cands[hi - 1].startswith(text, start):
            return -1
        # Else those that begin with the string so far and ``text`` (``prefix``) are found by
        # the C bisection of whole strings, from ``prefix`` to the least string past them.
        prefix = first[:start] + text
        lo = bisect_left(cands, prefix, lo, hi)
        past = _past(prefix)
        if past is not None:
            hi = bisect_left(cands, past, lo, hi)
        if lo < hi:
            self.lo, self.hi = lo, hi
            return -1
        # The longest common beginning is a neighbour's, in sorted order.
        return max(
            (common(cands[i], text, start) for i in (lo - 1, lo) if self.lo <= i < self.hi),
            default=0,
        )

    def holds(self, text: str) -> bool:
        """Whether the string (or key) so far, ``text``, is one of the candidates."""
        cands = self.cands
        return cands is not None and self.lo < self.hi and cands[self.lo] == text


class Frame:
    """The checks on an open array, object or string."""

    __slots__ = ("groups", "hashed", "keys", "kind", "leaves", "start", "unique", "where")

    def __init__(
        self, kind: int, leaves: list[Leaf], groups: list[Group], where: Where, start: int
    ) -> None:
        self.kind = kind
        self.leaves = leaves
        self.groups = groups
        self.where = where
        self.start = start
        # uniqueItems to check; the leaves that check keys as they are read (closed objects,
        # maxProperties).
        # (uniqueItems is for arrays only, and closed keys for objects only.)
        if len(leaves) == 1:
            shape = leaves[0].shape
            self.unique = shape.unique and kind == ARRAY
            self.keys: list[Leaf] = leaves if shape.keyed and kind == OBJECT else _NONE
            # Whether canonical keys are made of what is inside it (uniqueItems, or its enum).
            self.hashed = self.unique or shape.enum is not None
        else:
            self.unique = kind == ARRAY and any(leaf.shape.unique for leaf in leaves)
            keyed = [leaf for leaf in leaves if leaf.shape.keyed] if kind == OBJECT else None
            self.keys = keyed or _NONE
            self.hashed = self.unique or any(leaf.shape.enum is not None for leaf in leaves)


class Checks(Faults):
    """The checks on each value (a part of the checked tree)."""

    __slots__ = ()

    stack: list[Any]
    keys: list[Any]
    nodes: list[Any]
    frames: list[Frame | None]
    known: dict[int, tuple[Any, Any]]
    ids: dict[Any, int]
    enums: dict[int, frozenset[Any]]
    hashing: int
    root_shape: Shape
    auto: Any
    string: Frame | None
    pending: list[str]

    def _here(self) -> Where:
        """Where the value about to be linked goes, as ``(node, key)``."""
        stack = self.stack
        if not stack:
            return None, None
        top = stack[-1]
        return self.nodes[-1], len(top) if type(top) is list else self.keys[-1]

    def _expand(
        self,
        shape: Shape,
        owner: Branch | None,
        leaves: list[Leaf],
        groups: list[Group],
        where: Where,
        start: int,
    ) -> None:
        """The leaves (and groups) of ``shape`` on one value (its expansion, found once when
        the schema is compiled: see ``Shape.expansion``)."""
        if shape.simple:
            if shape.own:
                leaves.append(Leaf(shape, owner))
            return
        owners = [owner]
        for index, sub, keyword, branches in shape.expansion():
            if not keyword:
                leaves.append(Leaf(sub, owners[index]))
                continue
            group = Group(owners[index], keyword, sub, where, start)
            groups.append(group)
            owners.extend(Branch(group) for _ in range(branches))  # (each joins the group)

    def _begin(self, kind: int, start: int) -> tuple[list[Leaf], list[Group], Where]:
        """A value of ``kind`` begins at ``start``: its leaves and groups, and where it is;
        the checks its first character decides are made."""
        leaves: list[Leaf] = []
        groups: list[Group] = []
        stack = self.stack
        where = self._here()
        if not stack:
            self._expand(self.root_shape, None, leaves, groups, where, start)
        else:
            frame = self.frames[-1]
            if frame is None:
                return leaves, groups, where
            top = stack[-1]
            if type(top) is list:
                index = len(top)
                for leaf in frame.leaves:
                    owner = leaf.owner
                    if owner is not None and not alive(owner):
                        continue
                    shape = leaf.shape
                    if shape.max_items is not None and index >= shape.max_items:
                        self._fail(
                            owner,
                            Fault(
                                f"more than {shape.max_items} items",
                                "maxItems",
                                shape.max_items,
                                index + 1,
                                start,
                                frame.where,
                                frame.start,
                                shape,
                            ),
                        )
                    sub = shape.item_shape(index)
                    if sub is not None:
                        self._expand(sub, owner, leaves, groups, where, start)
            else:
                key = self.keys[-1]
                for leaf in frame.leaves:
                    owner = leaf.owner
                    if owner is not None and not alive(owner):
                        continue
                    if leaf.shape.keyed and refused(leaf.shape, key):
                        continue  # refused with its key
                    for sub in leaf.shape.key_shapes(key):
                        self._expand(sub, owner, leaves, groups, where, start)
        for leaf in leaves:
            shape = leaf.shape
            if shape.never:
                self._never(leaf, where, start)
                continue
            types = shape.types
            if not types & kind and not (kind == NUMBER and types & INTEGER):
                self._fail(
                    leaf.owner,
                    Fault(
                        f"expected {type_names(types)}, found {KIND_NAMES[kind]}",
                        "type",
                        type_names(types),
                        KIND_NAMES[kind],
                        start,
                        where,
                        start,
                        shape,
                    ),
                )
                continue
            kinds = shape.enum_kinds
            if shape.enum is not None and not (
                kinds & kind or (kind == NUMBER and kinds & NUMBERS)
            ):
                self._fail(
                    leaf.owner, self._enum_error(shape, KIND_NAMES[kind], start, where, start)
                )
        return leaves, groups, where

    def _scalar(self, value: Any, start: int, end: int) -> None:
        """A number or literal (or a string read whole) from ``start``, complete at ``end``."""
        if self._quick(value):
            return
        kind = KIND.get(type(value)) or kind_of(value)
        if kind == STRING:
            self._whole_string(value, start, end)
            return
        self._any_scalar(value, kind, start, end)

    def _quick(self, value: Any) -> bool:
        """Whether the scalar ``value``, about to be linked, is surely valid: the commonest
        case, written out (see ``_one_shape``); ``False`` when it takes the general way."""
        sub = self._one_shape()
        if sub is None:
            return True  # nothing to check
        if sub is GENERAL or not sub.scalar:
            return False
        kind = KIND.get(type(value))
        if kind is None:
            return False
        types = sub.types
        if not types & kind or (kind == NUMBER and not types & NUMBER):
            return False
        if sub.plain:
            return True
        return kind & NUMBERS != 0 and number_fault(sub, value) is None

    def _one_shape(self) -> Any:
        """The commonest case, for a value about to begin: its container has one shape, with
        one simple shape for this member or element. That shape; ``None`` when nothing is
        checked; ``GENERAL`` when it is not so simple."""
        stack = self.stack
        if not stack:
            return GENERAL
        frame = self.frames[-1]
        if frame is None:
            return None  # nothing is checked in this container
        leaves = frame.leaves
        if len(leaves) != 1 or leaves[0].owner is not None or frame.unique:
            return GENERAL
        shape = leaves[0].shape
        top = stack[-1]
        if type(top) is list:
            index = len(top)
            if shape.max_items is not None and index >= shape.max_items:
                return GENERAL
            prefix = shape.prefix
            sub = prefix[index] if index < len(prefix) else shape.items
        elif shape.patterns:
            return GENERAL
        else:
            key = self.keys[-1]
            sub = shape.props.get(key)
            if sub is None:
                sub = shape.additional
                if sub is not None and shape.closed is not None:
                    return None  # refused with its key
        if sub is None:
            return None
        return sub if sub.simple else GENERAL

    def _any_scalar(self, value: Any, kind: int, start: int, end: int) -> None:
        leaves, groups, where = self._begin(NUMBER if kind & NUMBERS else kind, start)
        for leaf in leaves:
            owner = leaf.owner
            if owner is not None and not alive(owner):
                continue
            shape = leaf.shape
            if shape.never:
                continue
            err = None
            if kind & NUMBERS:
                types = shape.types
                if not types & NUMBER and not (kind == INTEGER or integral(value)):
                    err = Fault(
                        f"expected {type_names(types)}, found {describe(value)}",
                        "type",
                        type_names(types),
                        value,
                        end,
                        where,
                        start,
                        shape,
                    )
                else:
                    fault = number_fault(shape, value)
                    if fault is not None:
                        err = self._number_error(fault, value, end, where, start, shape)
            if err is None and shape.enum is not None and not self._in_enum(shape, value):
                err = self._enum_error(shape, value, end if kind & NUMBERS else start, where, start)
            if err is not None:
                self._fail(owner, err)
        self._end_groups(groups, end)
        self._child_done(value, end)

    def _end_groups(self, groups: list[Group], end: int) -> None:
        """The value of ``groups`` is complete: ``oneOf`` must have one branch left."""
        for group in reversed(groups):  # the inner ones first: they may kill outer branches
            settle(group)
            if group.keyword != "oneOf" or group.failed or not alive(group.owner):
                continue
            if group.left > 1:
                left = [b for b in group.branches if not b.dead]
                group.failed = True
                self._fail(
                    group.owner,
                    Fault(
                        f"matches {len(left)} of the alternatives of oneOf, not exactly one",
                        "oneOf",
                        1,
                        len(left),
                        end,
                        group.where,
                        group.start,
                        group.shape,
                    ),
                )

    def _child_done(self, value: Any, end: int) -> None:
        """A value in the open container is complete (for ``uniqueItems``)."""
        frames = self.frames
        if not frames:
            return
        frame = frames[-1]
        if frame is None or not frame.unique:
            return
        key: Any = None
        for leaf in frame.leaves:
            if not leaf.shape.unique or not alive(leaf.owner):
                continue
            if key is None:
                key = self._canonical(value)
            uniq = leaf.uniq
            if uniq is None:
                uniq = leaf.uniq = set()
            if key in uniq:
                top = self.stack[-1]
                self._fail(
                    leaf.owner,
                    Fault(
                        "items are not unique",
                        "uniqueItems",
                        True,
                        value,
                        end,
                        frame.where,
                        frame.start,
                        leaf.shape,
                    ),
                )
                del top  # (the array itself is the place)
            else:
                uniq.add(key)

    def _canonical(self, value: Any) -> Any:
        """The canonical key of a complete value: a container's in the checker's numbering
        (``ids``), kept while a container that may ask for it again is open, so that nested
        ones are walked once."""
        if type(value) is not list and type(value) is not dict:
            return canonical(value)
        known = self.known
        hit = known.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        key = canonical(value, known, self.ids)
        if self.hashing:
            known[id(value)] = (value, key)
        return key

    def _in_enum(self, shape: Shape, value: Any) -> bool:
        """Whether a complete value is one of ``shape``'s enum (a set lookup, or one by one
        when a value is not hashable)."""
        keys = shape.enum_keys
        if keys is not None:
            try:
                if type(value) is not list and type(value) is not dict:
                    return canonical(value) in keys
                found = self.enums.get(id(shape))
                if found is None:  # its containers, numbered as the checker numbers them
                    found = self.enums[id(shape)] = frozenset(
                        canonical(v, None, self.ids)
                        for v in shape.enum or ()
                        if kind_of(v) & (ARRAY | OBJECT)
                    )
                return self._canonical(value) in found
            except TypeError:  # a number of the user's parse_float that does not hash
                pass
        return any(json_equal(value, v) for v in shape.enum or ())

    def _string_frame(self, start: int) -> Frame | None:
        """A string value begins at ``start``: its checks, kept when exact."""
        leaves, groups, where = self._begin(STRING, start)
        exact = [leaf for leaf in leaves if leaf.shape.exact]
        for leaf in exact:
            leaf.expect(leaf.shape.strings)
        frames = self.frames
        unique = bool(frames) and frames[-1] is not None and frames[-1].unique
        if not exact and not groups and not unique:  # (uniqueItems needs its closing quote)
            return None
        return Frame(STRING, leaves, groups, where, start)

    def _grow(self, frame: Frame, text: str, pos: int, width: int, before: str) -> None:
        """``text`` of the string of ``frame`` (after ``before``): its first character at
        ``pos``, each next one ``width`` further (1; or 0 for the characters of one escape).
        Its failures are reported in the order of their places, as if it came one character
        at a time."""
        failed: list[tuple[Branch | None, Fault]] = []
        for leaf in frame.leaves:
            shape = leaf.shape
            if not shape.exact or (leaf.owner is not None and not alive(leaf.owner)):
                continue
            length = leaf.length
            if leaf.cands is not None and not leaf.told:
                k = leaf.narrow(text)
                if k >= 0:
                    leaf.told = True  # reported once
                    failed.append(
                        (
                            leaf.owner,
                            self._enum_error(
                                shape,
                                before + text[: k + 1],
                                pos + k * width,
                                frame.where,
                                frame.start,
                            ),
                        )
                    )
            limit = shape.max_len
            if limit is not None and length <= limit < length + len(text):
                failed.append(
                    (
                        leaf.owner,
                        Fault(
                            f"longer than {limit} characters",
                            "maxLength",
                            limit,
                            limit + 1,
                            pos + (limit - length) * width,
                            frame.where,
                            frame.start,
                            shape,
                        ),
                    )
                )
            leaf.length = length + len(text)
        if failed:
            self._fail_all(failed)

    def _string_done(self, frame: Frame, value: str, end: int) -> None:
        """The string of ``frame`` is complete at ``end`` (its closing quote)."""
        for leaf in frame.leaves:
            shape = leaf.shape
            if not shape.exact or (leaf.owner is not None and not alive(leaf.owner)):
                continue
            err = None
            if leaf.cands is not None and not leaf.told and not leaf.holds(value):
                err = self._enum_error(shape, value, end, frame.where, frame.start)
            elif shape.min_len is not None and len(value) < shape.min_len:
                err = Fault(
                    f"shorter than {shape.min_len} characters",
                    "minLength",
                    shape.min_len,
                    len(value),
                    end,
                    frame.where,
                    frame.start,
                    shape,
                )
            elif shape.pattern is not None and not shape.pattern.search(value):
                err = Fault(
                    f"does not match {shape.pattern.pattern!r}",
                    "pattern",
                    shape.pattern.pattern,
                    value,
                    end,
                    frame.where,
                    frame.start,
                    shape,
                )
            if err is not None:
                self._fail(leaf.owner, err)
        self._end_groups(frame.groups, end)
        self._child_done(value, end)

    def _whole_string(self, value: str, start: int, end: int) -> None:
        """A string read whole (no escapes: each character is one in the input)."""
        frame = self._string_frame(start)
        if frame is not None:
            if value:
                self._grow(frame, value, start + 1, 1, "")
            self._string_done(frame, value, end)
        else:
            self._child_done(value, end)

    def _key_done(self, key: str, quote: int, close: int, whole: bool) -> None:
        """A key of the open object is read (from its quote to its closing quote); its
        failures are reported in the order of their places."""
        frame = self.frames[-1]
        if frame is None:
            return
        failed: list[tuple[Branch | None, Fault]] = []
        for leaf in frame.keys:
            owner = leaf.owner
            if owner is not None and not alive(owner):
                continue
            shape = leaf.shape
            closed = shape.closed
            if closed is not None:
                if whole and key not in closed:
                    cands = shape.allowed
                    probe = Leaf(shape, owner)
                    probe.expect(cands)
                    k = probe.narrow(key)
                    if 0 <= k < len(key):  # at the first character no allowed key has there
                        err = self._key_error(shape, key[: k + 1], quote + 1 + k, frame, False)
                    else:  # a beginning of allowed keys only: at its closing quote
                        err = self._key_error(shape, key, close, frame, True)
                    failed.append((owner, err))
            elif refused(shape, key):  # (closed, but patternProperties may allow it)
                failed.append((owner, self._key_error(shape, key, close, frame, True)))
            limit = shape.max_props
            if limit is None:
                continue
            seen = leaf.seen
            if seen is None:
                seen = leaf.seen = set()
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > limit:
                failed.append(
                    (
                        owner,
                        Fault(
                            f"more than {limit} properties",
                            "maxProperties",
                            limit,
                            len(seen),
                            close,
                            frame.where,
                            frame.start,
                            shape,
                        ),
                    )
                )
        if failed:
            self._fail_all(failed)

    def _key_done_exact(self, key: str, end: int, reported: list[Leaf]) -> None:
        """A key read one character at a time is complete: a closed object's key that is a
        prefix of an allowed key only is refused at its closing quote."""
        frame = self.frames[-1]
        assert frame is not None
        failed: list[tuple[Branch | None, Fault]] = []
        for leaf in frame.keys:
            closed = leaf.shape.closed
            if leaf in reported or closed is None or key in closed or not alive(leaf.owner):
                continue
            failed.append((leaf.owner, self._key_error(leaf.shape, key, end, frame, True)))
        if failed:
            self._fail_all(failed)
        self._key_done(key, self.auto.quote, end, False)

    def _end_container(self, frame: Frame, value: Any, end: int) -> None:
        is_list = type(value) is list
        for leaf in frame.leaves:
            owner = leaf.owner
            if owner is not None and not alive(owner):
                continue
            shape = leaf.shape
            if shape.enum is not None and not self._in_enum(shape, value):
                self._fail(owner, self._enum_error(shape, value, end, frame.where, frame.start))
            if is_list:
                if shape.min_items is not None and len(value) < shape.min_items:
                    self._fail(
                        owner,
                        Fault(
                            f"fewer than {shape.min_items} items",
                            "minItems",
                            shape.min_items,
                            len(value),
                            end,
                            frame.where,
                            frame.start,
                            shape,
                        ),
                    )
                continue
            missing = [k for k in shape.required if k not in value]
            if missing:
                names = ", ".join(repr(k) for k in missing)
                noun = "property" if len(missing) == 1 else "properties"
                self._fail(
                    owner,
                    Fault(
                        f"missing required {noun} {names}",
                        "required",
                        missing,
                        sorted(value),
                        end,
                        frame.where,
                        frame.start,
                        shape,
                    ),
                )
            if shape.min_props is not None and len(value) < shape.min_props:
                self._fail(
                    owner,
                    Fault(
                        f"fewer than {shape.min_props} properties",
                        "minProperties",
                        shape.min_props,
                        len(value),
                        end,
                        frame.where,
                        frame.start,
                        shape,
                    ),
                )
        self._end_groups(frame.groups, end)

    def _never(self, leaf: Leaf, where: Where, start: int) -> None:
        pointer = leaf.shape.pointer
        keyword = pointer.rsplit("/", 1)[-1]
        if keyword == "additionalProperties":
            msg = f"no other properties are allowed (found {where[1]!r})"
        elif keyword == "items":
            msg = "no more items are allowed"
        else:
            keyword = "false"
            msg = "no value is allowed here"
        self._fail(
            leaf.owner, Fault(msg, keyword, False, where[1], start, where, start, leaf.shape)
        )

    def _key_error(self, shape: Shape, key: str, pos: int, frame: Frame, whole: bool) -> Fault:
        """An unknown key: ``key`` whole (at its closing quote), or its beginning up to the
        first character no allowed key has there."""
        allowed = shape.allowed
        shown = ", ".join(repr(k) for k in allowed[:8]) + (", ..." if len(allowed) > 8 else "")
        if shape.patterns:
            matching = " or ".join(repr(p.pattern) for p, _ in shape.patterns)
            shown = (
                f"{shown}, or keys matching {matching}" if shown else f"keys matching {matching}"
            )
        what = f"unknown property {key!r}" if whole else f"no property begins with {key!r}"
        return Fault(
            f"{what} (allowed: {shown or 'none'})",
            "additionalProperties",
            self._shared(shape, "additionalProperties", allowed),
            key,
            pos,
            frame.where,
            frame.start,
            shape,
        )


def refused(shape: Shape, key: str) -> bool:
    """Whether a closed object's shape refuses ``key`` (``additionalProperties: false``, and
    neither ``properties`` nor ``patternProperties`` has it)."""
    closed = shape.closed
    if closed is not None:
        return key not in closed
    additional = shape.additional
    return (
        additional is not None
        and additional.never
        and key not in shape.props
        and not any(pattern.search(key) for pattern, _ in shape.patterns)
    )


def _past(prefix: str) -> str | None:
    """The least string greater than every string that begins with ``prefix`` (``None``: no
    string is, the prefix being all U+10FFFF)."""
    end = len(prefix)
    while end and prefix[end - 1] == "\U0010ffff":
        end -= 1
    if not end:
        return None
    return prefix[: end - 1] + chr(ord(prefix[end - 1]) + 1)


def common(candidate: str, text: str, start: int) -> int:
    """How many characters of ``text`` match ``candidate`` from ``start``."""
    k = 0
    for a, b in zip(candidate[start:], text, strict=False):
        if a != b:
            break
        k += 1
    return k
