"""The Vercel AI SDK's UI message stream (``useChat``'s wire format, version 1), both ways.

The UI message stream is server-sent events whose ``data`` is one JSON chunk each (``{"type":
"text-delta", "id", "delta"}``, ``{"type": "tool-input-delta", "toolCallId",
"inputTextDelta"}``...), ended by ``data: [DONE]``; the response carries the header
``x-vercel-ai-ui-message-stream: v1`` (:data:`HEADERS`). The client folds the chunks into one
assistant ``UIMessage``: ``{"id", "role": "assistant", "parts": [...]}``.

Out (a Python backend behind ``useChat``): :class:`UIMessageEncoder` turns the
:class:`~jsonsnap.streams.Update` objects of any accumulator into chunks, and
:func:`ui_message_stream` / :func:`aui_message_stream` into the body's SSE text. It reads only
what every update carries, so one encoder serves every protocol:

- answer text (``update.text``, not ``thinking``) becomes a ``text`` part, reasoning a
  ``reasoning`` part: ``*-start`` when a part begins, ``*-delta`` per piece, ``*-end`` when
  another part begins or the stream ends. A part is one run of text with the same ``index``,
  ``thinking`` and ``delta`` kind: text that resumes after a tool call is a new part, in the
  order it came;
- a tool call (``update.tool``) becomes ``tool-input-start`` (once its name is known, or its
  first fragment is), a ``tool-input-delta`` per fragment (``inputTextDelta`` is exactly the
  JSON text the provider sent: all of it, as it came), and when its input ends
  ``tool-input-available`` with ``input`` the strict value (:meth:`ToolInput.final`), or
  ``tool-input-error`` when the input is invalid or was cut off (``input`` the raw text, or
  the value that breaks its schema; ``errorText`` why). Several calls may stream at once. Its
  ``toolCallId`` is the provider's id; a call that has none (Gemini's, where the API gives
  none) is ``call-<n>``, the n-th call of the message, as the stream needs one. A call that
  sent no text (Bedrock's, for a tool without parameters) sends no delta, and its ``input`` is
  ``{}``. Arguments holding several values glued together, which the accumulator reads as one
  call each (a compatible server's parallel calls), go out as they came, under the first call:
  its ``input`` is the first value (the client's live input shows that one too), and each
  other value then comes as a call of its own;
- the stream is framed by ``start`` (``messageId``: the result's id, Gemini's ``responseId``;
  a new ``msg-<uuid>`` for a provider with none, as Bedrock) and ``start-step``, and ended by
  ``finish-step``, ``finish`` (``finishReason``, from the provider's stop reason by
  :func:`finish_reason_of` when the accumulator is given) and ``[DONE]``; a
  :class:`StreamError` ends it with an ``error`` chunk instead (every call still streaming
  becomes a ``tool-input-error``), then ``finish`` and ``[DONE]``.

Every chunk goes out as one ``data:`` line of compact JSON, written without recursion (any
depth), always valid UTF-8; an infinity is written as ``1e400``, NaN as ``null``.

A UI message is one answer: of a stream with several (a Chat Completions stream with ``n``
choices, a Gemini stream with several candidates), :func:`ui_message_stream` given the
``accumulator`` encodes the first (index 0) only.

In (a client, a test, ``jsonsnap replay``): :class:`UIMessageAccumulator` (protocol
``"ui-message"``) rebuilds the ``UIMessage`` exactly as the ``ai`` package's
``readUIMessageStream`` does (its parts, their states, undefined fields left out), with a live
:class:`ToolInput` per tool call: ``tools`` is keyed by the place of the call's part in
``message["parts"]``. What the client accepts, it accepts; where the client would throw (a
chunk whose fields are missing or of the wrong type, a delta for a part that was never started
or has ended, an output for an unknown call) it raises :class:`StreamError`, and so does an
``error`` chunk. A surrogate pair cut between two
deltas (of a text, a reasoning or a tool input) is joined into one character, as the client's
UTF-16 strings join it; a ``step-start`` part shows from the next chunk after which the client
shows the message (so a message with no content has no parts). Three deliberate differences:
a streaming part's ``input`` is jsonsnap's snapshot (a number or literal shows once it is
whole), not the client's repaired parse; a delta's last character, when it is the first half
of a pair, is held back until the next delta (or the part's end), where the client shows the
half alone meanwhile; and a chunk type this version does not know is skipped (the client
refuses it).
"""

from __future__ import annotations

from ..streams import StreamError, ToolInput, ToolInputError, Update
from ._body import aui_message_stream, ui_message_stream
from ._decoder import UIMessageAccumulator
from ._dump import dump as dump
from ._encoder import UIMessageEncoder
from ._protocol import CHUNK_TYPES as CHUNK_TYPES
from ._protocol import DONE, HEADERS, finish_reason_of, sse
from ._protocol import FINISH_REASONS as FINISH_REASONS

# (dump, CHUNK_TYPES and FINISH_REASONS stay importable from here, as they always were, outside
# __all__.)

__all__ = [
    "DONE",
    "HEADERS",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "UIMessageAccumulator",
    "UIMessageEncoder",
    "Update",
    "aui_message_stream",
    "finish_reason_of",
    "sse",
    "ui_message_stream",
]

# The public names are this package's, wherever their code lives (as errors and reprs say).
for _public in (
    UIMessageAccumulator, UIMessageEncoder, aui_message_stream, finish_reason_of, sse,
    ui_message_stream,
):  # fmt: skip
    setattr(_public, "__module__", __name__)  # noqa: B010 (a compiled class too)
del _public
