"""The UI message stream's JSON writer: a chunk as compact JSON text on one line.

Every chunk is written by the package's one JSON writer (:func:`jsonsnap._jsontext.json_text`),
without recursion (a tool input may nest deeper than Python's recursion limit), as one
``data:`` line: JSON escapes every line end, and a lone surrogate is written as its
``\\uXXXX`` escape, so the body is always valid UTF-8. What JSON cannot say is
written as JSON the client reads: an infinity (a tool input's ``1e400``) as ``1e400``, which
``json.loads`` reads back as that infinity and ``JSON.parse`` as ``Infinity``; NaN (a repaired
``NaN``) as ``null``, as ``JSON.stringify`` writes it. (An integer longer than Python reads,
4300 digits, makes the tool input invalid: it goes out as a ``tool-input-error``.)
"""

from __future__ import annotations

from typing import Any

from .._jsontext import json_text


def dump(value: Any) -> str:
    """``value`` as compact JSON text on one line, without recursion (any depth). Lone
    surrogates are written as ``\\uXXXX`` escapes, so the text encodes to UTF-8; an infinity
    as ``1e400`` or ``-1e400``, NaN as ``null``. ``TypeError`` for what JSON cannot hold,
    ``ValueError`` for an int too long to write (``sys.get_int_max_str_digits``) and for a
    container inside itself."""
    return json_text(value, nan="null", infinity="1e400")
