"""Rebuild OpenAI Chat Completions and Responses streams, with live tool-argument snapshots.

:class:`ChatCompletionAccumulator` (in ``jsonsnap.openai.chat``) rebuilds a Chat Completions
stream into ``.completion``, shaped as a non-streamed ``chat.completion``;
:class:`ResponseAccumulator` (in ``jsonsnap.openai.responses``) rebuilds a Responses API stream
into ``.response``. Both keep the contract of :class:`jsonsnap.streams.Accumulator`: ``feed()``
returns a list of :class:`Update`, ``updates()`` / ``aupdates()`` / ``read()`` take an HTTP body
(or the SDK's stream), ``close()`` ends the stream. A choice cut at ``finish_reason: "length"``
(or a response that is incomplete) leaves each unfinished call as its best-effort snapshot with
the raw text, status ``"incomplete"``; nothing is raised unless :meth:`ToolInput.final` is asked
for the strict arguments.

Both take the request's ``tools`` (``tools=``: Chat Completions ``{"type": "function",
"function": {...}}`` or Responses ``{"type": "function", "name", "parameters"}`` definitions,
either in either) and check each call's arguments against its function's ``parameters`` as they
stream; and its structured output format (``output_schema=``: ``response_format``,
``text.format``, or a dataclass or pydantic model), whose answer text they parse live into
``.structured`` (per choice for Chat Completions: ``structured_output(choice)``).

``ChatCompletionAccumulator(compatible=...)`` reads the streams of OpenAI-compatible servers
(vLLM, Ollama, Groq, OpenRouter, DeepSeek...): each departure from OpenAI's wire format it
reads is a :class:`Quirk` (``acc.quirks``, and each call's ``tool.quirks``).
"""

from __future__ import annotations

from ..streams import StreamError, ToolInput, ToolInputError, Update
from ._compatible import QUIRKS, Quirk
from ._tool_input import ChatToolInput
from .chat import ChatCompletionAccumulator
from .responses import ResponseAccumulator

__all__ = [
    "QUIRKS",
    "ChatCompletionAccumulator",
    "ChatToolInput",
    "Quirk",
    "ResponseAccumulator",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "Update",
]

for _cls in (ChatCompletionAccumulator, ResponseAccumulator, ChatToolInput, Quirk):
    setattr(_cls, "__module__", __name__)  # noqa: B010 (a compiled class too)
del _cls
