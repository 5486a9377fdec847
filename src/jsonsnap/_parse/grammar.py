"""The JSON grammar as data: states, transitions, token patterns, messages, escape helpers.

This module owns what the grammar *is*; it holds no state and does no parsing. The automaton
(``_automaton``) walks these states, the fast paths (``_fast``) match these patterns, and both
raise with these messages. Nothing here may import another jsonsnap module but ``_errors``.
"""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable
from enum import IntEnum
from typing import Final

__all__ = [
    "ELEMENT_RE",
    "MEMBER_RE",
    "NUMBER_RE",
    "PLAIN_RE",
    "RUN_RE",
    "TRANSITIONS",
    "WS_RE",
    "State",
    "held_from",
    "high_surrogate_ends",
    "scanstring",
    "skip_ws",
]


class State(IntEnum):
    """What the automaton expects next.

    The transitions, as data (``TRANSITIONS`` below holds the same table, and the tests hold
    the automaton to it). "value" is the start of any value; a closing bracket goes to AFTER
    when a container is still open and to DONE otherwise (written ``AFTER|DONE``)::

        state          on                      goes to                 builder call
        -------------  ----------------------  ----------------------  ---------------------
        VALUE          '"'                     STRING                  string_start()
                       '[' '{'                 ARRAY_START             open(list)
                                               OBJECT_START            open(dict)
                       digit '-'               NUMBER                  (none yet)
                       literal                 AFTER|DONE              scalar(value)
        ARRAY_START    ']'                     AFTER|DONE              close()
                       value                   as VALUE
        OBJECT_START   '"'                     STRING (a key)          key_start()
                       '}'                     AFTER|DONE              close()
        KEY            '"'                     STRING (a key)          key_start()
        COLON          ':'                     VALUE
        AFTER          ','                     VALUE (array), KEY (object)
                       ']' '}'                 AFTER|DONE              close()
        STRING         text, escapes           STRING                  string_append(text)
                       '"'                     COLON (a key)           string_end()
                                               AFTER|DONE (a value)    string_end()
                       '"' ':' (a key)         VALUE                   string_end()
                       '"' ',' (a value)       VALUE (array), KEY      string_end()
        NUMBER         digit '.' 'e' '+' '-'   NUMBER
                       anything else           AFTER|DONE, then read   scalar(number)
        DONE           (nothing but whitespace)

    Whitespace is skipped in every state but STRING and NUMBER. Any other input is an error
    at that character; the end of input anywhere but DONE is an error at the end (an
    ``incomplete`` one). The tolerant automaton (``_tolerant``) reads the same table, and
    turns some of those errors into repairs, with three states of its own (TOP, PROSE and
    COMMENT: see its module docstring).
    """

    VALUE = 0  # a value: at the top, after ':' and after ',' in an array
    ARRAY_START = 1  # a value or ']' (just after '[')
    OBJECT_START = 2  # a key or '}' (just after '{')
    KEY = 3  # a key (after ',' in an object)
    COLON = 4  # ':' after a key
    AFTER = 5  # ',' or the closing bracket, after a member or element
    STRING = 6  # inside a string (a key or a value)
    NUMBER = 7  # inside a number that the input has not ended yet
    DONE = 8  # the top-level value is complete: only whitespace may follow
    # Tolerant mode only (``_tolerant``; the strict automaton never enters these):
    TOP = 9  # before a top-level value: a value, or text to skip up to the first '{' or '['
    PROSE = 10  # skipping text up to the first '{' or '['
    COMMENT = 11  # inside a comment, then back to the state it interrupted


#: ``TRANSITIONS[state][token]`` is the set of states the automaton may go to on ``token``
#: (a token class, as named in ``token_class``). ``"ws"`` is whitespace.
TRANSITIONS: Final[dict[State, dict[str, frozenset[State]]]] = {
    State.VALUE: {
        '"': frozenset({State.STRING}),
        "[": frozenset({State.ARRAY_START}),
        "{": frozenset({State.OBJECT_START}),
        "number": frozenset({State.NUMBER, State.AFTER, State.DONE}),
        "literal": frozenset({State.AFTER, State.DONE}),
        "ws": frozenset({State.VALUE}),
    },
    State.ARRAY_START: {
        '"': frozenset({State.STRING}),
        "[": frozenset({State.ARRAY_START}),
        "{": frozenset({State.OBJECT_START}),
        "number": frozenset({State.NUMBER, State.AFTER}),
        "literal": frozenset({State.AFTER}),
        "]": frozenset({State.AFTER, State.DONE}),
        "ws": frozenset({State.ARRAY_START}),
    },
    State.OBJECT_START: {
        '"': frozenset({State.STRING}),
        "}": frozenset({State.AFTER, State.DONE}),
        "ws": frozenset({State.OBJECT_START}),
    },
    State.KEY: {'"': frozenset({State.STRING}), "ws": frozenset({State.KEY})},
    State.COLON: {":": frozenset({State.VALUE}), "ws": frozenset({State.COLON})},
    State.AFTER: {
        ",": frozenset({State.VALUE, State.KEY}),
        "]": frozenset({State.AFTER, State.DONE}),
        "}": frozenset({State.AFTER, State.DONE}),
        "ws": frozenset({State.AFTER}),
    },
    State.STRING: {
        "text": frozenset({State.STRING}),
        '"': frozenset({State.COLON, State.AFTER, State.DONE}),
        # The colon after a key, or the comma after a value, read with the quote.
        '":': frozenset({State.VALUE}),
        '",': frozenset({State.VALUE, State.KEY}),
    },
    State.NUMBER: {
        "number": frozenset({State.NUMBER}),
        # The character that ends a number is read in the state after it.
        "end": frozenset({State.AFTER, State.DONE}),
    },
    State.DONE: {"ws": frozenset({State.DONE})},
}

# The states as plain ints, which the automaton keeps (``State`` names them): compared as
# machine integers in the compiled build, where an enum member is an object.
VALUE: Final = 0
ARRAY_START: Final = 1
OBJECT_START: Final = 2
KEY: Final = 3
COLON: Final = 4
AFTER: Final = 5
STRING: Final = 6
NUMBER: Final = 7
DONE: Final = 8
TOP: Final = 9
PROSE: Final = 10
COMMENT: Final = 11
assert list(State) == [
    VALUE,
    ARRAY_START,
    OBJECT_START,
    KEY,
    COLON,
    AFTER,
    STRING,
    NUMBER,
    DONE,
    TOP,
    PROSE,
    COMMENT,
]

# ---------------------------------------------------------------------------- characters

#: JSON whitespace: exactly these four (never ``str.isspace()``, which accepts NBSP).
WS: Final = " \t\n\r"
WS_RE: Final = re.compile(r"[ \t\n\r]*")
DIGITS: Final = "0123456789"
HEX: Final = frozenset("0123456789abcdefABCDEF")
#: What may follow a number inside an object (index 0) or an array (index 1), besides
#: whitespace.
ENDS: Final = (",}", ",]")
#: The characters that may start a scalar, for the element and member fast paths.
SCALAR_STARTS: Final = frozenset('"-0123456789tfn')
#: Printable ASCII but the quote and the backslash: string content as it is (one hash lookup
#: tells a one-character fragment of it, the common case of text streamed a character at a
#: time).
PLAIN_CHARS: Final = frozenset(map(chr, range(32, 127))) - {'"', "\\"}
SIMPLE_ESCAPES: Final = dict(zip('"\\/bfnrt', '"\\/\b\f\n\r\t', strict=True))
#: Character classes of a low-surrogate escape, ``\uDC00`` to ``\uDFFF``, place by place.
LOW_SURROGATE: Final = ("\\", "u", "dD", "cdefCDEF", HEX, HEX)
#: The literals, and the constants that ``allow_nan`` adds (by their first character).
LITERALS: Final = {"t": "true", "f": "false", "n": "null"}
CONSTANTS: Final = {"N": "NaN", "I": "Infinity", "-": "-Infinity"}
LITERAL_VALUES: Final = {"true": True, "false": False, "null": None}
CONSTANT_VALUES: Final = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}

# ---------------------------------------------------------------------------- numbers

#: The longest beginning of a number. Each part may only follow a digit, so the match stops
#: at the first character that cannot continue the number; the name of the last group that
#: matched (``m.lastgroup``) says where inside the number a cut there would fall.
NUMBER_RE: Final = re.compile(
    r"""
    (?P<sign> - )?
    (?:
        (?P<int> 0 | [1-9][0-9]* )       # no leading zeros
        (?: (?P<dot> \. ) (?P<frac> [0-9]+ )? )?
    )?
    (?:
        (?<= [0-9] )                     # an exponent only after a digit
        (?P<e> [eE] ) (?P<esign> [-+] )? (?P<exp> [0-9]+ )?
    )?
    """,
    re.VERBOSE,
)
#: For a number cut by the end of a fragment: where the cut fell (``NUMBER_RE``'s last group)
#: -> the shortest text that puts ``NUMBER_RE`` in the same place, to match what follows
#: against (``"int0"``: the integer part is a lone zero, which no digit may follow).
NUMBER_CONTEXT: Final = {
    "sign": "-",
    "int0": "0",
    "int": "1",
    "dot": "1.",
    "frac": "1.0",
    "e": "1e",
    "esign": "1e+",
    "exp": "1e0",
}
#: How many characters at the end of an unfinished number are not part of a number yet.
NUMBER_UNFINISHED: Final = {"sign": 1, "dot": 1, "e": 1, "esign": 2}
#: The characters a number is made of: how far a number can go, found before matching it.
NUMBER_CHARS_RE: Final = re.compile(r"[-+.eE0-9]*")

# ---------------------------------------------------------------------------- scalars


def _scalar_pattern(closer: str) -> str:
    """A whole scalar value, the whitespace after it and its comma, inside a container that
    ``closer`` closes (the character that may end a number there, besides ``,``)."""
    return rf"""
    (?:
        " (?P<string> [^"\\\x00-\x1f]* ) "          # a string without escapes
      | (?P<number> -? (?:0|[1-9][0-9]{{0,599}})       # (a longer int may be too long for int())
            (?P<fraction> (?:\.[0-9]+)? (?:[eE][-+]?[0-9]+)? )  # empty for an int
        ) (?= [ \t\n\r,{closer}] )                  # a number that a delimiter ends
      | (?P<literal> true | false | null )
    )
    [ \t\n\r]* (?: (?P<comma> , ) [ \t\n\r]* )?      # and what ends it
    """


#: An array element: a whole scalar and what ends it. Its groups, in order:
#: ``string, number, fraction, literal, comma``.
ELEMENT_RE: Final = re.compile(_scalar_pattern(r"\]"), re.VERBOSE)
#: An object member: a key without escapes and its colon, then (when it is all there) a whole
#: scalar value and what ends it. Its groups, in order:
#: ``key, string, number, fraction, literal, comma``.
MEMBER_RE: Final = re.compile(
    r"""
    " (?P<key> [^"\\\x00-\x1f]* ) " [ \t\n\r]* : [ \t\n\r]*
    """
    + "(?:"
    + _scalar_pattern("}")
    + ")?",
    re.VERBOSE,
)

# ---------------------------------------------------------------------------- strings

#: String content without escapes.
PLAIN_RE: Final = re.compile(r'[^"\\\x00-\x1f]*')
#: String content made of plain runs and complete escapes (decoded by ``scanstring``).
RUN_RE: Final = re.compile(
    r"""
    (?:
        [^"\\\x00-\x1f]+                 # plain characters
      | \\ ["\\/bfnrt]                   # a simple escape
      | \\u [0-9a-fA-F]{4}               # a \\uXXXX escape
    )*
    """,
    re.VERBOSE,
)
#: The standard library's string decoder (C when available): content after an opening quote
#: up to the closing one -> (decoded text, position after the quote).
scanstring: Final[Callable[[str, int, bool], tuple[str, int]]] = json.decoder.scanstring  # type: ignore[attr-defined]


def skip_ws(buf: str, pos: int, end: int) -> int:
    """The position after the whitespace that begins at ``buf[pos]``: one character (the
    commonest, after a colon or a comma) is stepped over without a regex call."""
    pos += 1
    if pos < end and buf[pos] in WS:
        return WS_RE.match(buf, pos).end()  # type: ignore[union-attr]
    return pos


def high_surrogate_ends(buf: str, start: int, stop: int) -> bool:
    """Whether ``buf[start:stop]``, string content that starts at a token boundary, ends with a
    ``\\uD800``-``\\uDBFF`` escape (and not with an escaped backslash followed by ``uD8..``)."""
    k = stop - 6
    if (
        k < start
        or buf[k] != "\\"
        or buf[k + 1] != "u"
        or buf[k + 2] not in "dD"
        or buf[k + 3] not in "89abAB"
        or buf[k + 4] not in HEX
        or buf[k + 5] not in HEX
    ):
        return False
    slashes = 0
    while k > start and buf[k - 1] == "\\":
        slashes += 1
        k -= 1
    return slashes % 2 == 0


def held_from(buf: str, start: int, end: int) -> int:
    """Where the part of string content ``buf[start:end]`` (which begins at a token boundary)
    that what comes after ``end`` must finish or decide begins: an escape cut short (``\\``,
    ``\\u12``), or a ``\\uD800``-``\\uDBFF`` escape that a low half may still follow (with
    the beginning of that half, if any). ``end`` when there is none; ``-1`` when what follows
    the last backslash can begin no escape. The lane cuts a fragment here, and long strings
    their windows.

    Escapes are at most 6 characters long and a high surrogate is decided by the 6 after
    it, so only the last 12 characters are looked at (and the backslashes before them).
    What comes before is not checked here: the C string scanner checks it as it decodes it.
    """
    b = buf.rfind("\\", end - 12 if end - 12 > start else start, end)
    if b < 0:
        return end
    if b > start and buf[b - 1] == "\\":  # a run of backslashes: pairs escape each other
        k = b - 1
        while k > start and buf[k - 1] == "\\":
            k -= 1
        if (b - k) % 2:  # the last one is escaped by the one before it
            return end
    after = end - b - 1  # the characters after it
    if after:
        kind = buf[b + 1]
        if kind != "u":
            return end if kind in SIMPLE_ESCAPES else -1
        if after > 5:  # a whole \\uXXXX escape (the C scanner checks it), and text after it
            return end
        if after == 5:  # a whole \\uXXXX escape at the end: only a high surrogate waits
            return b if high_surrogate_ends(buf, b, end) else end
        if not HEX.issuperset(buf[b + 2 : end]):
            return -1
    # An escape cut short at b: the high surrogate before it, if any, waits with it unless
    # it cannot become a low half.
    if b - 6 >= start and buf[b - 6] == "\\" and high_surrogate_ends(buf, start, b):
        for i in range(b, end):
            if buf[i] not in LOW_SURROGATE[i - b]:
                return b
        return b - 6
    return b


# ---------------------------------------------------------------------------- messages

# Worded as CPython 3.13's json words them where it has the same error.
EXPECTING_VALUE: Final = "Expecting value"
EXPECTING_COMMA: Final = "Expecting ',' delimiter"
EXPECTING_COLON: Final = "Expecting ':' delimiter"
EXPECTING_KEY: Final = "Expecting property name enclosed in double quotes"
EXTRA_DATA: Final = "Extra data"
TRAILING_COMMA: Final = (
    "Illegal trailing comma before end of object",
    "Illegal trailing comma before end of array",
)
UNTERMINATED_STRING: Final = "Unterminated string starting at"
CONTROL_CHARACTER: Final = "Invalid control character at"
INVALID_ESCAPE: Final = "Invalid \\escape"
INVALID_UNICODE_ESCAPE: Final = "Invalid \\uXXXX escape"
INVALID_NUMBER: Final = "Invalid number"
INT_TOO_LONG: Final = "Number too large to convert to int"
BYTE_ORDER_MARK: Final = "Unexpected byte order mark (U+FEFF)"

#: The message for input that ends in each state.
INCOMPLETE: Final = {
    VALUE: EXPECTING_VALUE,
    ARRAY_START: EXPECTING_VALUE,
    OBJECT_START: EXPECTING_KEY,
    KEY: EXPECTING_KEY,
    COLON: EXPECTING_COLON,
    AFTER: EXPECTING_COMMA,
    STRING: UNTERMINATED_STRING,
    NUMBER: EXPECTING_VALUE,
    TOP: EXPECTING_VALUE,
    PROSE: EXPECTING_VALUE,
    COMMENT: "Unterminated comment",
}
