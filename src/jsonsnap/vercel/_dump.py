"""The UI message stream's JSON writer: a chunk as compact JSON text on one line.

Every chunk is serialised without recursion (a tool input may nest deeper than Python's
recursion limit) as one ``data:`` line: JSON escapes every line end, and a lone surrogate is
written as its ``\\uXXXX`` escape, so the body is always valid UTF-8. What JSON cannot say is
written as JSON the client reads: an infinity (a tool input's ``1e400``) as ``1e400``, which
``json.loads`` reads back as that infinity and ``JSON.parse`` as ``Infinity``; NaN (a repaired
``NaN``) as ``null``, as ``JSON.stringify`` writes it. (An integer longer than Python reads,
4300 digits, makes the tool input invalid: it goes out as a ``tool-input-error``.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from .._jsontext import describe

_SURROGATE = re.compile("[\ud800-\udfff]")
_INFINITY: Final = float("inf")
_encode_string: Callable[[str], str] = json.encoder.encode_basestring


class _Piece(str):
    """Output already written (punctuation), on the stack of :func:`dump`."""

    __slots__ = ()


_OPEN_OBJECT, _CLOSE_OBJECT = _Piece("{"), _Piece("}")
_OPEN_ARRAY, _CLOSE_ARRAY, _COMMA = _Piece("["), _Piece("]"), _Piece(",")


def _float_text(value: float) -> str:
    """A float as JSON: an infinity as ``1e400`` (the text ``json.loads`` reads back as that
    infinity, and JavaScript's ``JSON.parse`` as ``Infinity``), NaN as ``null`` (no JSON text
    means NaN; ``JSON.stringify`` writes ``null`` too)."""
    if value != value:
        return "null"
    if value in (_INFINITY, -_INFINITY):
        return "1e400" if value > 0 else "-1e400"
    return float.__repr__(value)


def dump(value: Any) -> str:
    """``value`` as compact JSON text on one line, without recursion (any depth). Lone
    surrogates are written as ``\\uXXXX`` escapes, so the text encodes to UTF-8; an infinity
    as ``1e400`` or ``-1e400``, NaN as ``null``. ``TypeError`` for what JSON cannot hold,
    ``ValueError`` for an int too long to write (``sys.get_int_max_str_digits``)."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is _Piece:
            out.append(item)
        elif kind is str:
            out.append(_encode_string(item))
        elif item is None:
            out.append("null")
        elif kind is bool:
            out.append("true" if item else "false")
        elif kind is int:
            out.append(int.__repr__(item))
        elif kind is float:
            out.append(_float_text(item))
        elif isinstance(item, Mapping):
            stack.append(_CLOSE_OBJECT)
            pairs = list(item.items())
            for place in range(len(pairs) - 1, -1, -1):
                key, child = pairs[place]
                if not isinstance(key, str):
                    raise TypeError(f"an object key is {describe(key)}, not a string")
                stack.append(child)
                stack.append(_Piece(_encode_string(key) + ":"))
                if place:
                    stack.append(_COMMA)
            stack.append(_OPEN_OBJECT)
        elif isinstance(item, (list, tuple)):
            stack.append(_CLOSE_ARRAY)
            for place in range(len(item) - 1, -1, -1):
                stack.append(item[place])
                if place:
                    stack.append(_COMMA)
            stack.append(_OPEN_ARRAY)
        elif isinstance(item, str):  # a str subclass
            out.append(_encode_string(str(item)))
        elif isinstance(item, int) and not isinstance(item, bool):
            out.append(int.__repr__(int(item)))
        elif isinstance(item, float):
            out.append(_float_text(float(item)))
        else:
            raise TypeError(f"{describe(item)} is not JSON")
    text = "".join(out)
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
