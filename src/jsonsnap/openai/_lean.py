"""The chunk most of a Chat Completions stream is, read in one look.

Nearly every chunk of a stream brings one piece: of one choice's text (``content``, a refusal,
reasoning) or of the arguments of one function call already begun. :func:`lean_piece`
recognises such a chunk, making on it the checks the general reading would make, and returns
its piece; the accumulator applies it at once, with no plan, no steps and no checked copy of
the call's delta.

Anything else (a first or last chunk, ``usage``, several choices or calls, a
``finish_reason``, ``logprobs``, a vendor's choice field, a call's ``id`` or ``custom`` part, a
call the server has not named before, a piece that is empty or not a string, a value of a type
JSON decoding does not make...) is ``None``: the chunk goes the general way, which applies it or
refuses it with the error it always did.

Invariant: a piece returned here is one the general reading would apply in the same way, with
the same updates; the tests feed the same streams both ways and compare.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._choice import Choice

#: Message fields whose deltas are pieces of text, and whether they are reasoning.
TEXT_FIELDS: Final[Mapping[str, bool]] = {
    "content": False,
    "refusal": False,
    "reasoning_content": True,
    "reasoning": True,
}
#: The fields a choice of a lean chunk may have, and those of its tool call.
_CHOICE: Final = frozenset({"index", "delta", "logprobs", "finish_reason"})
_CALL: Final = frozenset({"index", "id", "type", "function"})

#: A lean chunk's piece: the choice, the field (a key of :data:`TEXT_FIELDS`, or
#: ``"tool_calls"``), the text, and for a call, its index (``-1`` for text) and the name the
#: delta repeats (or ``None``).
Piece = tuple[Choice, str, str, int, "str | None"]


def lean_piece(chunk: Mapping[str, Any], states: Mapping[int, Choice]) -> Piece | None:
    """The one piece a chunk brings to a choice that has begun, or ``None`` (see the module
    docstring). ``states``: the choices so far, by index."""
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1 or chunk.get("usage") is not None:
        return None
    choice = choices[0]
    if (
        type(choice) is not dict
        or not _CHOICE.issuperset(choice)
        or choice.get("finish_reason") is not None
        or choice.get("logprobs") is not None
    ):
        return None
    index = choice.get("index")
    if index is None:
        index = 0
    elif type(index) is not int:
        return None
    state = open_choice(states, index)
    delta = choice.get("delta")
    if state is None or type(delta) is not dict:
        return None
    key = ""
    piece: Any = None
    for field, value in delta.items():
        if value is None or (
            field == "role" and type(value) is str and state.message.get("role") is not None
        ):
            continue  # (a role is set once: a server that repeats it changes nothing)
        if key:
            return None
        key, piece = field, value
    if key == "tool_calls":
        return _call_piece(state, piece)
    return text_piece(state, key, piece)


def text_piece(state: Choice, key: str, piece: Any) -> Piece | None:
    """The piece ``piece`` of the text field ``key`` (not empty), or ``None``."""
    if key in TEXT_FIELDS and type(piece) is str and piece:
        return state, key, piece, -1, None
    return None


def _call_piece(state: Choice, calls: Any) -> Piece | None:
    """A piece of the arguments of one function call the server has named by its index
    before, with no ``id``."""
    if type(calls) is not list or len(calls) != 1:
        return None
    call = calls[0]
    if type(call) is not dict or not _CALL.issuperset(call) or call.get("id") is not None:
        return None
    kind = call.get("type")
    body = call.get("function")
    server = call.get("index")
    if (kind is not None and type(kind) is not str) or type(body) is not dict:
        return None
    text = body.get("arguments")
    name = body.get("name")
    if type(text) is not str or (name is not None and type(name) is not str):
        return None
    return call_piece(state, server, text, name)


def open_choice(states: Mapping[int, Choice], index: int) -> Choice | None:
    """The choice at ``index`` if it has begun and not finished (a lean piece's choice)."""
    state = states.get(index)
    return None if state is None or state.finished else state


def call_piece(state: Choice, server: Any, text: str, name: str | None) -> Piece | None:
    """The piece ``text`` (with the ``name`` the delta repeats) of the function call the
    server has named by its index ``server`` before, or ``None``."""
    index = state.server.get(server) if type(server) is int else None
    if index is None or state.kinds[index] != "function":
        return None
    return state, "tool_calls", text, index, name
