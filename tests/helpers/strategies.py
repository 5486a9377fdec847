"""Hypothesis strategies that produce JSON *text*, not just values.

Every document drawn here is valid RFC 8259 JSON that ``json.loads`` accepts (with NaN and the
infinities written as literals never produced) and has no duplicate object keys, so its decoded
value is unambiguous. The text exercises what a serializer never writes: random whitespace (only
the four JSON whitespace characters) between every pair of tokens, ``\\uXXXX`` escapes in random
hex case, surrogate pairs written as two escapes, lone surrogate escapes, numbers in many
spellings (``-0``, ``1E+05``, 400-digit integers, exponents that overflow to ``inf`` or underflow
to ``0.0``), and nesting up to a moderate depth. Documents stay small (well under 2 KB).

The factories are cached: a strategy is built (and validated by hypothesis) once, not on every
draw. Building them again per draw drew from the same distribution but cost about half the
suite's time (hypothesis validates every new strategy object).
"""

from __future__ import annotations

import functools
import itertools
import json

from hypothesis import strategies as st

__all__ = [
    "JSON_WHITESPACE",
    "MAX_DOC_CHARS",
    "chunked",
    "chunked_bytes",
    "corrupted_documents",
    "deep_documents",
    "fragments_at",
    "json_documents",
    "json_ish_text",
    "json_values",
    "key_literals",
    "literal_tokens",
    "number_literals",
    "scalar_literals",
    "split_points",
    "string_literals",
    "whitespace",
]

JSON_WHITESPACE = " \t\n\r"
#: Documents drawn by :func:`json_documents` are at most this many characters long.
MAX_DOC_CHARS = 2000

# --------------------------------------------------------------------------- whitespace


@functools.cache
def whitespace() -> st.SearchStrategy[str]:
    """Zero or more JSON whitespace characters (mostly none, so shrinking removes them)."""
    return st.one_of(st.just(""), st.text(alphabet=JSON_WHITESPACE, min_size=1, max_size=4))


# --------------------------------------------------------------------------- strings

#: Characters worth including by name: line/paragraph separators (valid raw in JSON, not in
#: JavaScript), DEL, C1 controls, NBSP, BOM, noncharacters, the last code point, combining
#: marks, CJK, emoji (astral, i.e. 4 UTF-8 bytes and a surrogate pair in UTF-16).
SPECIAL_CHARS = (
    "\u2028",
    "\u2029",
    "\x7f",
    "\x80",
    "\x9f",
    "\xa0",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\U0010ffff",
    "\u0301",
    "é",
    "ß",
    "中",
    "文",
    "字",
    "😀",
    "🎉",
    "𝄞",
    "/",
    "'",
    " ",
    "u",
    "D",
    "e",
    "0",
)

SHORT_ESCAPES = ('\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t")


@functools.cache
def _plain_chars() -> st.SearchStrategy[str]:
    """One raw character allowed inside a JSON string: not ``"``, ``\\``, U+0000-U+001F.

    Raw surrogate code points are left out so that every document also encodes to UTF-8.
    """
    return st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'),
        st.characters(codec="utf-8", min_codepoint=0x20, exclude_characters='"\\'),
        st.sampled_from(SPECIAL_CHARS),
    )


_FOUR_BOOLEANS = st.lists(st.booleans(), min_size=4, max_size=4)


@st.composite
def _hex4(draw: st.DrawFn, code: int) -> str:
    """``code`` as four hex digits, each in a random case."""
    digits = f"{code:04x}"
    upper = draw(_FOUR_BOOLEANS)
    return "".join(d.upper() if u else d for d, u in zip(digits, upper, strict=True))


_BMP_NOT_SURROGATE = st.one_of(
    st.integers(0, 0x7F),
    st.sampled_from([0x0, 0x1F, 0x22, 0x5C, 0x2F, 0x7F, 0x2028, 0xFEFF, 0xFFFF]),
    st.integers(0, 0xD7FF),
    st.integers(0xE000, 0xFFFF),
)
_ASTRAL = st.integers(0x10000, 0x10FFFF)
_SURROGATE = st.one_of(
    st.sampled_from([0xD800, 0xDBFF, 0xDC00, 0xDFFF]), st.integers(0xD800, 0xDFFF)
)


@st.composite
def _u_escape(draw: st.DrawFn) -> str:
    """A ``\\uXXXX`` escape of a BMP code point that is not a surrogate."""
    code = draw(_BMP_NOT_SURROGATE)
    return "\\u" + draw(_hex4(code))


@st.composite
def _surrogate_pair_escape(draw: st.DrawFn) -> str:
    """An astral code point written as two ``\\uXXXX`` escapes (high then low surrogate)."""
    code = draw(_ASTRAL) - 0x10000
    high, low = 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)
    return "\\u" + draw(_hex4(high)) + "\\u" + draw(_hex4(low))


@st.composite
def _lone_surrogate_escape(draw: st.DrawFn) -> str:
    """One surrogate escape on its own (``json.loads`` keeps it as a lone surrogate).

    Two of these in a row may happen to form a valid pair; ``json.loads`` then combines them,
    which is fine: the expected value always comes from ``json.loads``.
    """
    code = draw(_SURROGATE)
    return "\\u" + draw(_hex4(code))


@functools.cache
def _string_piece() -> st.SearchStrategy[str]:
    return st.one_of(
        _plain_chars(),
        st.sampled_from(SHORT_ESCAPES),
        _u_escape(),
        _surrogate_pair_escape(),
        _lone_surrogate_escape(),
    )


@functools.cache
def string_literals(max_pieces: int = 12) -> st.SearchStrategy[str]:
    """A JSON string token, quotes included, e.g. ``"a\\u00E9\\uD83D\\ude00\\n"``."""
    return st.lists(_string_piece(), max_size=max_pieces).map(lambda ps: '"' + "".join(ps) + '"')


@functools.cache
def key_literals() -> st.SearchStrategy[str]:
    """A JSON string token for an object key (shorter, often plain ASCII)."""
    return st.one_of(
        st.text(alphabet="abcxyz_", max_size=4).map(lambda s: '"' + s + '"'),
        string_literals(max_pieces=5),
    )


# --------------------------------------------------------------------------- numbers

#: Spellings that must all decode exactly as ``json.loads`` decodes them.
SPECIAL_NUMBERS = (
    "0",
    "-0",
    "0.0",
    "-0.0",
    "0e0",
    "-0E-0",
    "1e5",
    "1E+05",
    "1.5e-3",
    "1e400",
    "-1e400",
    "1e-400",
    "-1e-400",
    "123456789012345678901234567890",
    "-9007199254740993",
    "9007199254740993.0",
    "0.1",
    "2.5E+3",
    "1.7976931348623157e308",
    "5e-324",
    "4.9e-324",
    "100",
    "-1",
)


@functools.cache
def _digits(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=min_size, max_size=max_size)


_ONE_IN_FIVE = st.integers(0, 4)
_SPECIAL_NUMBER = st.sampled_from(SPECIAL_NUMBERS)
_SIGN = st.sampled_from(["", "", "-"])
_DIGIT = st.sampled_from("0123456789")
_NONZERO_DIGIT = st.sampled_from("123456789")
# Mostly short, sometimes a big integer of up to 400 digits.
_MORE_DIGITS = st.one_of(_digits(0, 6), _digits(0, 399))
_FRACTION = st.one_of(st.just(""), _digits(1, 6).map(lambda d: "." + d))
_E = st.sampled_from("eE")
_EXPONENT_SIGN = st.sampled_from(["", "+", "-"])


@st.composite
def number_literals(draw: st.DrawFn) -> str:
    """A JSON number token: ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?``."""
    if draw(_ONE_IN_FIVE) == 0:
        return draw(_SPECIAL_NUMBER)
    sign = draw(_SIGN)
    if draw(st.booleans()):
        int_part = draw(_DIGIT)
    else:
        rest = draw(_MORE_DIGITS)
        int_part = draw(_NONZERO_DIGIT) + rest
    frac = draw(_FRACTION)
    exp = ""
    if draw(st.booleans()):
        exp = draw(_E) + draw(_EXPONENT_SIGN) + draw(_digits(1, 3))
    return sign + int_part + frac + exp


# --------------------------------------------------------------------------- scalars, containers


@functools.cache
def literal_tokens() -> st.SearchStrategy[str]:
    return st.sampled_from(["true", "false", "null"])


@functools.cache
def scalar_literals() -> st.SearchStrategy[str]:
    """Any JSON scalar token: string, number, true, false, null."""
    return st.one_of(string_literals(), number_literals(), literal_tokens())


@st.composite
def _array(draw: st.DrawFn, members: st.SearchStrategy[list[str]]) -> str:
    values = draw(members)
    parts = ["["]
    for i, value in enumerate(values):
        if i:
            parts += [draw(whitespace()), ","]
        parts += [draw(whitespace()), value]
    parts += [draw(whitespace()), "]"]
    return "".join(parts)


def _decoded(token: str) -> object:
    decoded: object = json.loads(token)
    return decoded


@functools.cache
def _keys(count: int) -> st.SearchStrategy[list[str]]:
    """``count`` key tokens, unique by their *decoded* value: "\u0061" and "a" are one key."""
    return st.lists(key_literals(), min_size=count, max_size=count, unique_by=_decoded)


@st.composite
def _object(draw: st.DrawFn, members: st.SearchStrategy[list[str]]) -> str:
    values = draw(members)
    keys = draw(_keys(len(values)))
    parts = ["{"]
    for i, (key, value) in enumerate(zip(keys, values, strict=True)):
        if i:
            parts += [draw(whitespace()), ","]
        parts += [draw(whitespace()), key, draw(whitespace()), ":", draw(whitespace()), value]
    parts += [draw(whitespace()), "}"]
    return "".join(parts)


def _containers(items: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    members = st.lists(items, max_size=6)
    return st.one_of(_array(members), _object(members))


@functools.cache
def json_values(max_leaves: int = 20) -> st.SearchStrategy[str]:
    """The text of one JSON value (no surrounding whitespace), nested a few levels deep."""
    return st.recursive(scalar_literals(), _containers, max_leaves=max_leaves)


@functools.cache
def _deep_inner() -> st.SearchStrategy[str]:
    return st.one_of(scalar_literals(), st.sampled_from(["[]", "{}"]))


@st.composite
def deep_documents(draw: st.DrawFn, max_depth: int = 60) -> str:
    """A small value wrapped in up to ``max_depth`` arrays/single-member objects."""
    depth = draw(st.integers(1, max_depth))
    inner = draw(_deep_inner())
    opens: list[str] = []
    closes: list[str] = []
    for _ in range(depth):
        if draw(st.booleans()):
            opens.append("[" + draw(whitespace()))
            closes.append(draw(whitespace()) + "]")
        else:
            opens.append("{" + draw(whitespace()) + draw(key_literals()) + ":")
            closes.append("}")
    return "".join(opens) + inner + "".join(reversed(closes))


@functools.cache
def _document_values(max_leaves: int) -> st.SearchStrategy[str]:
    return st.one_of(json_values(max_leaves), scalar_literals(), deep_documents()).filter(
        lambda t: len(t) <= MAX_DOC_CHARS - 8
    )


@st.composite
def json_documents(draw: st.DrawFn, max_leaves: int = 20) -> str:
    """A whole valid JSON text: whitespace, one value, whitespace. At most MAX_DOC_CHARS long."""
    value = draw(_document_values(max_leaves))
    return draw(whitespace()) + value + draw(whitespace())


# --------------------------------------------------------------------------- corruptions, noise

#: Characters a corruption may insert or substitute: structure, the starts of every token, the
#: characters that continue numbers, escapes and literals, whitespace and near-whitespace,
#: control characters, non-ASCII.
CORRUPTION_CHARS = (
    '{}[]:,"\\/ \t\n\r0123456789-+.eEtrufalsnbu'
    "xXZ'\x00\x01\x08\x0b\x0c\x1f\x7f\xa0\u2028\ufeffé中😀"
)


_CORRUPTIBLE = json_documents(max_leaves=12)
_CORRUPTION = st.sampled_from(["insert", "delete", "replace"])
_CORRUPTION_CHAR = st.sampled_from(CORRUPTION_CHARS)


@st.composite
def corrupted_documents(draw: st.DrawFn) -> str:
    """A valid document with one character inserted, deleted or replaced at random."""
    doc = draw(_CORRUPTIBLE)
    op = draw(_CORRUPTION)
    if op == "insert":
        at = draw(st.integers(0, len(doc)))
        return doc[:at] + draw(_CORRUPTION_CHAR) + doc[at:]
    if not doc:
        return doc
    at = draw(st.integers(0, len(doc) - 1))
    if op == "delete":
        return doc[:at] + doc[at + 1 :]
    return doc[:at] + draw(_CORRUPTION_CHAR) + doc[at + 1 :]


@functools.cache
def json_ish_text(max_size: int = 40) -> st.SearchStrategy[str]:
    """Short random text over an alphabet where JSON tokens are likely to appear.

    It may hold raw lone surrogates: encode it with ``"surrogatepass"`` if bytes are needed.
    """
    return st.lists(
        st.one_of(
            st.sampled_from(CORRUPTION_CHARS),
            st.sampled_from(["true", "false", "null", "NaN", "Infinity", '"a"', "\\u", "12"]),
            # Raw lone surrogates: json.loads accepts them inside a str; not encodable as UTF-8.
            st.sampled_from(["\ud800", "\udfff"]),
        ),
        max_size=max_size,
    ).map("".join)


# --------------------------------------------------------------------------- chunkings


@st.composite
def split_points(draw: st.DrawFn, length: int) -> list[int]:
    """Sorted, distinct cut positions strictly inside ``0..length``.

    Drawn in one of three modes: a random set of cuts, every position (one character or byte at
    a time), or no cut at all (the whole text in one fragment).
    """
    if length <= 1:
        return []
    mode = draw(_SPLIT_MODE)
    if mode == "every":
        return list(range(1, length))
    if mode == "none":
        return []
    return sorted(draw(_cut_sets(length)))


_SPLIT_MODE = st.sampled_from(["random", "random", "every", "none"])


@functools.cache
def _cut_sets(length: int) -> st.SearchStrategy[set[int]]:
    return st.sets(st.integers(1, length - 1), max_size=min(length - 1, 40))


def fragments_at(text: str, cuts: list[int]) -> list[str]:
    """Cut ``text`` at the sorted positions ``cuts``."""
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _bytes_at(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def chunked(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> tuple[str, list[str]]:
    """A text from ``texts`` and a random way of cutting it into fragments."""
    text = draw(texts)
    return text, fragments_at(text, draw(split_points(len(text))))


@st.composite
def chunked_bytes(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> tuple[str, list[bytes]]:
    """A text from ``texts`` and its UTF-8 encoding cut at random *byte* positions.

    Cuts fall inside multi-byte characters as often as between them.
    """
    text = draw(texts)
    data = text.encode("utf-8")
    return text, _bytes_at(data, draw(split_points(len(data))))


SURROGATES = st.characters(categories=["Cs"])
