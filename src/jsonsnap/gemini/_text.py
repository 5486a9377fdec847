"""The JSON text that Gemini's function-call arguments are written as.

A whole call's ``args`` (:func:`args_text`) and each value of Vertex AI's streamed partial
arguments (:func:`string`, :func:`number`) become JSON text that the call's tool input parses,
so the raw text of a call is the same whichever way its arguments came. Items are separated by
``", "`` and ``": "``; a float with an integral value is written as an integer, as the API's
own JSON writes doubles; lone surrogates are escaped, so that a pair split across two pieces is
joined by the parser, as it would be in the whole text. What is not JSON is a ``ValueError``
that says what it is.
"""

from __future__ import annotations

from typing import Any

from .._jsontext import describe, json_string, json_text

#: Floats at least this large are written as they are, not as integers.
_EXACT = 2.0**53


def string(text: str) -> str:
    """``text`` as the inside of a JSON string, lone surrogates escaped."""
    return json_string(text)[1:-1]


def number(value: Any) -> str:
    """A JSON number's text; ``ValueError`` for anything else. A float with an integral value
    is written as an integer."""
    if type(value) is int:
        if value.bit_length() > 4000:
            raise ValueError("a number too large")
        return str(value)
    if type(value) is float:
        if value - value != 0.0:  # an infinity or NaN
            raise ValueError(f"{value!r}, not a JSON number")
        if value.is_integer() and abs(value) < _EXACT:
            return str(int(value))
        return repr(value)
    raise ValueError(f"{describe(value)}, not a number")


def _bad_key(key: Any) -> Exception:
    return ValueError(f"an object key that is {describe(key)}")


def _cycle() -> Exception:
    return ValueError("a container inside itself")


def args_text(value: Any) -> str:
    """``value`` (a call's ``args``) as JSON text, written without recursion."""
    return json_text(value, comma=", ", colon=": ", number=number, bad_key=_bad_key, cycle=_cycle)
