"""The checks on strings and keys as their characters come: :class:`Leaf` narrows the
``enum``/``const`` strings (or allowed keys) still possible, and :class:`TextChecks` decides
``maxLength`` and those candidates at each character, and the rest of a string's or key's
keywords when it is complete.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any, Final

from .faults import Branch, Fault, Report, alive
from .shape import Shape

if TYPE_CHECKING:
    from .frames import Checks, Frame

__all__ = ["KEYS", "STRINGS", "Leaf", "TextChecks", "common", "refused"]

#: The most prefixes a shape's record of candidates' places holds (see ``Leaf.narrow``).
RANGES: Final = 1024
#: Which record of its shape's a leaf's candidates have: none, ``strings_ranges`` (of its
#: enum/const strings) or ``allowed_ranges`` (of a closed object's keys).
NO_RECORD: Final = 0
STRINGS: Final = 1
KEYS: Final = 2


class Leaf:
    """One shape's checks on one value, with what they count."""

    __slots__ = (
        "cands",
        "hi",
        "length",
        "lo",
        "owner",
        "record",
        "seen",
        "shape",
        "told",
        "uniq",
    )

    def __init__(self, shape: Shape, owner: Branch | None) -> None:
        self.shape = shape
        self.owner = owner
        self.seen: set[str] | None = None  # an object's keys (for maxProperties)
        self.uniq: set[Any] | None = None  # uniqueItems: the elements' canonical keys
        # enum/const strings (or closed keys), sorted: those still possible are cands[lo:hi],
        # the ones that begin with the string (or key) so far.
        self.cands: tuple[str, ...] | None = None
        self.record = NO_RECORD  # which record of the shape's is kept for cands
        self.lo = 0
        self.hi = 0
        self.length = 0  # a string's (or key's) length so far
        self.told = False  # its enum (or unknown key) fault is reported: once

    def expect(self, cands: tuple[str, ...] | None, record: int = NO_RECORD) -> None:
        """A string (or key) begins: any of ``cands`` is still possible (``record``: which of
        the shape's records of the places of those that begin with a prefix is theirs,
        :data:`STRINGS` or :data:`KEYS`; see :meth:`narrow`)."""
        self.cands = cands
        self.record = record
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
        # (Compared as slices: a compiled build calls startswith() with a start as a generic
        # method, which costs several times more.)
        first = cands[lo]
        end = start + len(text)
        if first[start:end] == text and cands[hi - 1][start:end] == text:
            return -1
        # Else those that begin with the string so far and ``text`` (``prefix``) are found by
        # the C bisection of whole strings, from ``prefix`` to the least string past them; or
        # in the shape's record, for a prefix found so before (their place is the prefix's
        # alone: the candidates that begin with it). The record holds prefixes of candidates
        # only, and at most RANGES of them.
        prefix = first[:start] + text
        record = self.record
        ranges = None
        if record:
            shape = self.shape
            ranges = shape.strings_ranges if record == STRINGS else shape.allowed_ranges
            found = None if ranges is None else ranges.get(prefix)
            if found is not None:
                self.lo, self.hi = found
                return -1
        lo = bisect_left(cands, prefix, lo, hi)
        past = _past(prefix)
        if past is not None:
            hi = bisect_left(cands, past, lo, hi)
        if lo < hi:
            self.lo, self.hi = lo, hi
            if record:
                self._remember(ranges, prefix, lo, hi)
            return -1
        # The longest common beginning is a neighbour's, in sorted order.
        return max(
            (common(cands[i], text, start) for i in (lo - 1, lo) if self.lo <= i < self.hi),
            default=0,
        )

    def _remember(
        self, ranges: dict[str, tuple[int, int]] | None, prefix: str, lo: int, hi: int
    ) -> None:
        """Put in the shape's record (made now if it has none) where the candidates that
        begin with ``prefix`` lie, unless it holds :data:`RANGES` prefixes already."""
        if ranges is None:
            ranges = {}
            if self.record == STRINGS:
                self.shape.strings_ranges = ranges
            else:
                self.shape.allowed_ranges = ranges
        if len(ranges) < RANGES:
            ranges[prefix] = (lo, hi)

    def holds(self, text: str) -> bool:
        """Whether the string (or key) so far, ``text``, is one of the candidates."""
        cands = self.cands
        return cands is not None and self.lo < self.hi and cands[self.lo] == text


class TextChecks:
    """The checks on the characters of strings and keys (beside :class:`~jsonsnap._schema.
    frames.Checks`, whose frames and completions they use)."""

    __slots__ = ("checks", "report")

    def __init__(self, checks: Checks, report: Report) -> None:
        self.checks = checks
        self.report = report

    def grow(self, frame: Frame, text: str, pos: int, width: int, before: str) -> None:
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
                            self.report.enum_error(
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
            self.report.fail_all(failed)

    def fits(self, frame: Frame, text: str) -> bool:
        """Whether ``text`` of the string of ``frame`` fails nothing (no ``maxLength`` passed,
        some candidate still goes on with it): then it is counted as :meth:`grow` counts it;
        else nothing changes (its faults are for :meth:`grow` to place, character by
        character). The characters the candidates share, and a length within the limit, cost
        no more for a run than for one character."""
        n = len(text)
        narrowed: list[tuple[Leaf, int, int]] | None = None
        counted: list[Leaf] = []
        for leaf in frame.leaves:
            shape = leaf.shape
            if not shape.exact or (leaf.owner is not None and not alive(leaf.owner)):
                continue
            length = leaf.length
            limit = shape.max_len
            fits = limit is None or not length <= limit < length + n
            cands = leaf.cands
            if fits and cands is not None and not leaf.told:
                lo, hi = leaf.lo, leaf.hi
                if not (
                    lo < hi
                    and cands[lo][length : length + n] == text
                    and cands[hi - 1][length : length + n] == text
                ):  # (else all of them go on with it: nothing narrows; slices, as in narrow)
                    if narrowed is None:
                        narrowed = []
                    narrowed.append((leaf, lo, hi))
                    fits = leaf.narrow(text) < 0
            if not fits:
                for leaf, lo, hi in narrowed or ():
                    leaf.lo, leaf.hi = lo, hi
                return False
            counted.append(leaf)
        for leaf in counted:
            leaf.length += n
        return True

    def string_done(self, frame: Frame, value: str, end: int) -> None:
        """The string of ``frame`` is complete at ``end`` (its closing quote)."""
        for leaf in frame.leaves:
            shape = leaf.shape
            if not shape.exact or (leaf.owner is not None and not alive(leaf.owner)):
                continue
            err = None
            if leaf.cands is not None and not leaf.told and not leaf.holds(value):
                err = self.report.enum_error(shape, value, end, frame.where, frame.start)
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
                self.report.fail(leaf.owner, err)
        self.checks.end_groups(frame.groups, end)
        self.checks.child_done(value, end)

    def whole_string(self, value: str, start: int, end: int) -> None:
        """A string read whole (no escapes: each character is one in the input)."""
        frame = self.checks.string_frame(start)
        if frame is not None:
            if value:
                self.grow(frame, value, start + 1, 1, "")
            self.string_done(frame, value, end)
        else:
            self.checks.child_done(value, end)

    def key_done(self, key: str, quote: int, close: int, whole: bool) -> None:
        """A key of the open object is read (from its quote to its closing quote); its
        failures are reported in the order of their places."""
        frame = self.checks.frames[-1]
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
                        err = self.key_error(shape, key[: k + 1], quote + 1 + k, frame, False)
                    else:  # a beginning of allowed keys only: at its closing quote
                        err = self.key_error(shape, key, close, frame, True)
                    failed.append((owner, err))
            elif refused(shape, key):  # (closed, but patternProperties may allow it)
                failed.append((owner, self.key_error(shape, key, close, frame, True)))
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
            self.report.fail_all(failed)

    def key_done_exact(self, key: str, quote: int, end: int, reported: list[Leaf]) -> None:
        """A key read one character at a time is complete: a closed object's key that is a
        prefix of an allowed key only is refused at its closing quote."""
        frame = self.checks.frames[-1]
        assert frame is not None
        failed: list[tuple[Branch | None, Fault]] = []
        for leaf in frame.keys:
            closed = leaf.shape.closed
            if leaf in reported or closed is None or key in closed or not alive(leaf.owner):
                continue
            failed.append((leaf.owner, self.key_error(leaf.shape, key, end, frame, True)))
        if failed:
            self.report.fail_all(failed)
        self.key_done(key, quote, end, False)

    def key_error(self, shape: Shape, key: str, pos: int, frame: Frame, whole: bool) -> Fault:
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
            self.report.expected(shape, "additionalProperties", allowed),
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
