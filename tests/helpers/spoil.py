"""Write a JSON value as the kind of almost-JSON that tolerant mode (``repair=True``) repairs.

:func:`spoil` renders a value (dicts, lists, str, int, float, bool, None) as text, applying a
random mix of the repairs of tolerant mode, and returns the text with the set of repair kinds it
actually used. Reading the text back in tolerant mode must give the value again (NaN equal to
NaN), and every repair the parser reports must be one of those kinds. The randomness comes from
a ``random.Random`` (in a hypothesis test, one drawn by ``st.randoms()``, which hypothesis then
controls and shrinks); the same seed and the same value always give the same text.

The rules, kind by kind (a kind not in ``kinds`` is never used; an enabled kind is applied at
each place it could be with probability ``rate``):

* ``trailing_comma``: a comma after the last element of a non-empty array or the last member of
  a non-empty object (``[1, 2,]``, ``{"a": 1,}``); never in an empty one (``[,]`` is an error).
* ``single_quotes``: a string (key or value) between ``'``: a ``'`` inside is written ``\\'``
  and a ``"`` inside is left bare. ``\\'`` is also what the spec lists under
  ``invalid_escape``, so a single-quoted string holding a ``'`` counts as using both kinds.
* ``unquoted_key``: a key matching ``[A-Za-z_$][A-Za-z0-9_$]*`` written bare (``{a: 1}``).
* ``python_literal``: ``True`` / ``False`` / ``None`` for true / false / null.
* ``undefined``: ``undefined`` for null.
* ``comment``: a ``// ...`` line comment (always followed by its newline) or a ``/* ... */``
  block comment where whitespace may be: before and between the tokens of the value, and at the
  top level before the value. After the top-level value only when trailing text follows anyway
  (whether a comment there is a ``comment`` or part of the ``trailing_text`` is left open by the
  spec). Comments hold no bracket, quote, newline or ``*/``.
* ``control_character``: a character below U+0020 inside a string written raw instead of as an
  escape (never ``"`` or ``\\``, which are not control characters anyway).
* ``missing_comma``: no comma between two elements or members; the whitespace between them then
  always holds a newline (``[1\\n2]``, ``{"a": 1\\n"b": 2}``).
* ``leading_text`` / ``trailing_text``: only when the top-level value is an array or an object:
  a line of prose and/or a ```` ```json ```` fence before it, a closing fence and/or prose after
  it. No prose holds ``{`` or ``[``, and a leading one never begins with a whole scalar (its
  first word fails as a literal, as "The" fails as ``True``, or cannot begin a value at all).
* ``non_finite``: ``NaN``, ``Infinity``, ``-Infinity`` for non-finite floats. NaN has no other
  spelling, so it always uses this kind; an infinity is written ``1e400`` / ``-1e400`` (which
  overflows to it in strict JSON too) when the kind is not chosen.

Everything else is strict JSON: random JSON whitespace between tokens, non-ASCII characters raw
or as ``\\uXXXX`` escapes, lone surrogates always escaped, ints as ``str(int)`` and finite floats
as ``repr(float)`` (both are valid JSON numbers that read back exactly).

:func:`json_values` is a hypothesis strategy of Python values to render: the values of
``strategies.json_documents()`` with some numbers turned into NaN or an infinity, and
:func:`spoiled_documents` draws a value, a set of kinds and a seed, and renders it.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any, Final, NamedTuple

from hypothesis import strategies as st

import strategies
from values import strict_loads

__all__ = [
    "KINDS",
    "LEADING_PROSE",
    "TRAILING_PROSE",
    "Spoiled",
    "json_values",
    "spoil",
    "spoiled_documents",
]

#: Every repair kind :func:`spoil` can apply.
KINDS: Final = frozenset(
    {
        "comment",
        "control_character",
        "invalid_escape",
        "leading_text",
        "missing_comma",
        "non_finite",
        "python_literal",
        "single_quotes",
        "trailing_comma",
        "trailing_text",
        "undefined",
        "unquoted_key",
    }
)

#: Prose written before a top-level container. None holds ``{`` or ``[``; each begins with a
#: character that cannot begin a value, or with a word that fails as a literal at its second or
#: third letter ("The" as True, "no" as null, "Info" as Infinity, "undone" as undefined...).
LEADING_PROSE: Final = (
    "Here is the JSON you asked for:",
    "Sure! Here you go.",
    "The result:",
    "no problem, here it is:",
    "Info follows:",
    "frankly, this is it:",
    "undone work below",
    "Note: values follow.",
    "As requested:",
    "Output",
)
#: Prose written after a top-level container (anything without ``{`` or ``[``).
TRAILING_PROSE: Final = (
    "Hope this helps!",
    "Let me know if you need anything else.",
    "That's all. 1, 2, 3",
    '"done"',
    "true",
)

_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_JSON_WHITESPACE: Final = " \t\n\r"
_COMMENT_CHARS: Final = "abcxyz XYZ019:,.-+*/="
_SHORT_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


class Spoiled(NamedTuple):
    """What :func:`spoil` wrote, and the repair kinds it used to write it."""

    text: str
    used: frozenset[str]


class _Renderer:
    def __init__(self, rng: random.Random, kinds: frozenset[str], rate: float) -> None:
        self.rng = rng
        self.kinds = kinds
        self.rate = rate
        self.used: set[str] = set()
        self.out: list[str] = []

    def chance(self, kind: str, rate: float | None = None) -> bool:
        """Whether to apply ``kind`` at this place (and if so, record it as used)."""
        if kind not in self.kinds:
            return False
        if self.rng.random() >= (self.rate if rate is None else rate):
            return False
        self.used.add(kind)
        return True

    # ------------------------------------------------------------------ whitespace, comments

    def comment(self) -> str:
        body = "".join(self.rng.choice(_COMMENT_CHARS) for _ in range(self.rng.randint(0, 8)))
        if self.rng.random() < 0.5:
            return "//" + body + "\n"
        return "/*" + body.replace("*/", "* /") + "*/"

    def space(self, newline: bool = False, comments: bool = True) -> str:
        """Whitespace between two tokens (comments included); ``newline``: it holds one."""
        parts = ["".join(self.rng.choice(_JSON_WHITESPACE) for _ in range(self.rng.randint(0, 2)))]
        if comments and self.chance("comment", self.rate / 2):
            parts.append(self.comment())
            parts.append(" " * self.rng.randint(0, 1))
        if newline:
            parts.append("\n")
            if comments and self.chance("comment", self.rate / 4):
                parts.append(self.comment())
        parts.append(" " * self.rng.randint(0, 2))
        return "".join(parts)

    # ------------------------------------------------------------------ scalars

    def string(self, s: str) -> str:
        quote = "'" if self.chance("single_quotes") else '"'
        out = [quote]
        for c in s:
            code = ord(c)
            if c == quote:
                out.append("\\" + c)
                if quote == "'":
                    self.used.add("invalid_escape")
            elif c == "\\":
                out.append("\\\\")
            elif code < 0x20:
                if self.chance("control_character"):
                    out.append(c)
                elif c in _SHORT_ESCAPES and self.rng.random() < 0.5:
                    out.append(_SHORT_ESCAPES[c])
                else:
                    out.append(f"\\u{code:04x}")
            elif 0xD800 <= code <= 0xDFFF:
                out.append(f"\\u{code:04X}" if self.rng.random() < 0.5 else f"\\u{code:04x}")
            elif code > 0x7E and self.rng.random() < 0.2:
                if code > 0xFFFF:
                    code -= 0x10000
                    out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
                else:
                    out.append(f"\\u{code:04x}")
            else:
                out.append(c)
        out.append(quote)
        return "".join(out)

    def key(self, k: str) -> str:
        if _IDENTIFIER.fullmatch(k) and self.chance("unquoted_key"):
            return k
        return self.string(k)

    def scalar(self, value: Any) -> str:
        if value is None:
            if self.chance("undefined", self.rate / 2):
                return "undefined"
            return "None" if self.chance("python_literal") else "null"
        if value is True or value is False:
            text = "true" if value else "false"
            return text.capitalize() if self.chance("python_literal") else text
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            if math.isnan(value):
                self.used.add("non_finite")
                return "NaN"
            if math.isinf(value):
                sign = "-" if value < 0 else ""
                return sign + ("Infinity" if self.chance("non_finite") else "1e400")
            return repr(value)
        if isinstance(value, str):
            return self.string(value)
        raise TypeError(f"not a JSON value: {value!r}")

    # ------------------------------------------------------------------ containers

    def members(self, items: list[str], close: str) -> None:
        """Write the members' texts (already rendered) separated by commas, and ``close``."""
        for i, item in enumerate(items):
            if i:
                if self.chance("missing_comma"):
                    self.out.append(self.space(newline=True))
                else:
                    self.out += [self.space(), ",", self.space()]
            else:
                self.out.append(self.space())
            self.out.append(item)
        if items and self.chance("trailing_comma"):
            self.out += [self.space(), ","]
        self.out += [self.space(), close]

    def value(self, value: Any) -> str:
        if isinstance(value, list):
            saved, self.out = self.out, ["["]
            self.members([self.value(v) for v in value], "]")
        elif isinstance(value, dict):
            saved, self.out = self.out, ["{"]
            rendered = [
                self.key(k) + self.space() + ":" + self.space() + self.value(v)
                for k, v in value.items()
            ]
            self.members(rendered, "}")
        else:
            return self.scalar(value)
        text = "".join(self.out)
        self.out = saved
        return text

    def document(self, value: Any) -> str:
        container = isinstance(value, (list, dict))
        before = ""
        if container and self.chance("leading_text"):
            prose, fence = self._prose_and_fence()
            before = (self.rng.choice(LEADING_PROSE) + "\n" if prose else "") + (
                "```json\n" if fence else ""
            )
        body = self.value(value)
        after = ""
        if container and self.chance("trailing_text"):
            prose, fence = self._prose_and_fence()
            after = (
                self.space(comments=True)
                + ("\n```" if fence else "")
                + ("\n" + self.rng.choice(TRAILING_PROSE) if prose else "")
            )
        else:
            after = self.space(comments=False)
        return before + self.space() + body + after

    def _prose_and_fence(self) -> tuple[bool, bool]:
        """Prose, a fence, or both."""
        return self.rng.choice(((True, False), (False, True), (True, True)))


def spoil(
    value: Any, rng: random.Random, kinds: frozenset[str] = KINDS, rate: float = 0.4
) -> Spoiled:
    """Render ``value`` as text with some of the repairs in ``kinds`` applied (see the module
    docstring); ``rate`` is the chance of applying an enabled kind at each place it fits."""
    unknown = kinds - KINDS
    if unknown:
        raise ValueError(f"unknown repair kinds: {sorted(unknown)}")
    renderer = _Renderer(rng, kinds, rate)
    text = renderer.document(value)
    return Spoiled(text, frozenset(renderer.used))


# --------------------------------------------------------------------------- hypothesis


def _non_finite(value: Any, rng: random.Random, rate: float) -> Any:
    """``value`` with some of its numbers (never bools) replaced by NaN, inf or -inf."""
    if isinstance(value, list):
        return [_non_finite(v, rng, rate) for v in value]
    if isinstance(value, dict):
        return {k: _non_finite(v, rng, rate) for k, v in value.items()}
    if isinstance(value, (int, float)) and not isinstance(value, bool) and rng.random() < rate:
        return rng.choice((math.nan, math.inf, -math.inf))
    return value


_RATES: Final = st.sampled_from([0.0, 0.0, 0.2, 0.5])


@st.composite
def json_values(draw: st.DrawFn, max_leaves: int = 12) -> Any:
    """A Python JSON value: what ``json.loads`` makes of a ``strategies.json_documents()``
    text (which may hold an inf, from ``1e400``), with some numbers turned into NaN or an
    infinity."""
    value = strict_loads(draw(strategies.json_documents(max_leaves=max_leaves)))
    rate = draw(_RATES)
    if rate:
        value = _non_finite(value, draw(st.randoms(use_true_random=False)), rate)
    return value


_KIND_SETS: Final = st.one_of(
    st.just(KINDS), st.sets(st.sampled_from(sorted(KINDS)), min_size=1).map(frozenset)
)
_RATE: Final = st.sampled_from([0.1, 0.4, 0.8])


@st.composite
def spoiled_documents(draw: st.DrawFn, max_leaves: int = 12) -> tuple[Any, Spoiled]:
    """A value from :func:`json_values` and its text as :func:`spoil` renders it, with every
    kind or a drawn subset of them."""
    value = draw(json_values(max_leaves))
    kinds = draw(_KIND_SETS, label="kinds")
    rng = draw(st.randoms(use_true_random=False), label="rng")
    return value, spoil(value, rng, kinds, draw(_RATE, label="rate"))
