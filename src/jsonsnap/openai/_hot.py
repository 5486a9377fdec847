"""The hot form of a Chat Completions chunk: a lean chunk (see ``_lean``) read from its data
text in one look, with no decoding of its envelope.

A stream's chunks begin with the same fields (``{"id":..,"object":"chat.completion.chunk",
"created":..,"model":..,`` up to ``"choices":``), their *head*; then comes the one choice's
*lead*, up to the piece's string (``[{"index":0,"delta":{"tool_calls":[{"index":0,"function":
{"arguments":"`` or ``[{"index":0,"delta":{"content":"``), then the string, then one of the few
*tails* servers send (the delta's close, ``"logprobs":null`` and ``"finish_reason":null`` or
not, ``"usage":null`` or not, OpenAI's ``"obfuscation"`` or not). :class:`HotChunks` keeps the
last head and lead it read (and what they mean), so that most chunks cost a ``startswith`` for
each, the C reader of the string and an ``endswith``.

Invariant: a text read here is a JSON object that :func:`~jsonsnap._lean.lean_piece` takes, its
piece the one :meth:`HotChunks.read` returns, its fields beside ``choices`` the head's (those
after are ``usage`` null and ``obfuscation``, which the accumulator does not read). A head is
taken only once decoded (the fields before ``"choices":``, which must be whole members of the
object); a lead only in the grammar of :data:`LEAD`; the string and the tail only as
:func:`~jsonsnap._streams.envelope.string_at` reads them, strictly. Anything else is ``None``:
the chunk goes the general way, which applies it or refuses it with its error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from .._errors import JSONDecodeError
from .._streams.envelope import loads_envelope, string_at
from ._choice import Choice
from ._lean import Piece, call_piece, open_choice, text_piece

#: The end of a chunk's head.
CHOICES: Final = '"choices":'
#: A lead: the choice's index, then the text field, or the call's index.
LEAD: Final = re.compile(
    r'\[\{"index":(0|[1-9][0-9]{0,8}),"delta":\{"(?:(content|refusal|reasoning_content|reasoning)'
    r'|tool_calls":\[\{"index":(0|[1-9][0-9]{0,8}),"function":\{"arguments)":"'
)
#: After the piece's closing quote and before the chunk's last brace (or its obfuscation): the
#: tails of a call's piece and of a text's.
_CHOICE_ENDS: Final = (
    ',"logprobs":null,"finish_reason":null',
    "",
    ',"logprobs":null',
    ',"finish_reason":null',
    ',"finish_reason":null,"logprobs":null',
)
_CHUNK_ENDS: Final = ("}]", '}],"usage":null')
CALL_TAILS: Final = tuple(f"}}}}]}}{c}{k}" for c in _CHOICE_ENDS for k in _CHUNK_ENDS)
TEXT_TAILS: Final = tuple(f"}}{c}{k}" for c in _CHOICE_ENDS for k in _CHUNK_ENDS)
#: OpenAI's last field of a chunk, ASCII letters and digits that pad its length.
OBFUSCATION: Final = ',"obfuscation":"'


class HotChunks:
    """The head and lead last read (see the module docstring), and the tail last seen."""

    __slots__ = ("call", "choice", "fields", "head", "key", "lead", "span", "tail", "tails")

    def __init__(self) -> None:
        self.head = ""  # ("": none yet; no text is read with it)
        #: The head's fields, decoded: what the chunk's completion fields are.
        self.fields: Mapping[str, Any] = {}
        self.lead = ""
        #: What the lead means: its choice, its text field (or ``"tool_calls"``), the call's
        #: index as the server gave it (or ``-1`` for text); the tails that may follow.
        self.choice = 0
        self.key = ""
        self.call = -1
        self.tails: tuple[str, ...] = ()
        self.tail = ""
        #: Where the last piece's string is in its text (after its opening quote, to its
        #: closing one).
        self.span = (0, 0)

    def read(self, text: str, states: Mapping[int, Choice]) -> Piece | None:
        """The piece of a chunk in the hot form whose choice (in ``states``) takes it, or
        ``None``; the head's fields are then :attr:`fields`."""
        head = self.head
        if not (head and text.startswith(head)) and not self._learn_head(text):
            return None
        at = len(self.head)
        lead = self.lead
        if not (lead and text.startswith(lead, at)) and not self._learn_lead(text, at):
            return None
        end = self._end(text)
        if end is None:
            return None
        start = at + len(self.lead)
        piece = string_at(text, start, end)
        state = None if piece is None else open_choice(states, self.choice)
        if state is None or piece is None:
            return None
        self.span = (start, len(text) - len(end) - 1)
        if self.call < 0:
            return text_piece(state, self.key, piece)
        return call_piece(state, self.call, piece, None)

    def _learn_head(self, text: str) -> bool:
        """Take the head of ``text`` if its fields before ``"choices":`` are whole members of
        a JSON object (none of them one the accumulator reads after the head)."""
        at = text.find(CHOICES)
        before = text[:at]  # ("{", or members and a comma)
        if at < 1 or text[0] != "{" or before[-1] not in "{,":
            return False
        try:
            fields = loads_envelope(before.removesuffix(",") + "}")
        except JSONDecodeError:
            return False
        if not isinstance(fields, dict) or any(
            key in fields for key in ("choices", "usage", "error", "obfuscation")
        ):
            return False
        self.head = text[: at + len(CHOICES)]
        self.fields = fields
        return True

    def _learn_lead(self, text: str, at: int) -> bool:
        """Take the lead at ``text[at:]`` if it is one of :data:`LEAD`."""
        found = LEAD.match(text, at)
        if found is None:
            return False
        choice, key, call = found.groups()
        self.lead = found.group()
        self.choice = int(choice)
        self.key = key or "tool_calls"
        self.call = -1 if call is None else int(call)
        self.tails = TEXT_TAILS if call is None else CALL_TAILS
        self.tail = self.tails[0]
        return True

    def _end(self, text: str) -> str | None:
        """What must follow the piece's string in ``text`` (a tail of the lead's, then an
        obfuscation or the last brace), or ``None`` if the text ends in no such way."""
        if text.endswith('"}'):
            at = text.rfind(OBFUSCATION)
            padding = text[at + len(OBFUSCATION) : -2]
            if at < 0 or not (padding.isascii() and padding.isalnum()):
                return None
        else:
            at = len(text) - 1
        tail = self.tail
        if not text.endswith(tail, 0, at):
            for tail in self.tails:
                if text.endswith(tail, 0, at):
                    break
            else:
                return None
            self.tail = tail
        return tail + text[at:]
