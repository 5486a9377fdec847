"""The contract every stream accumulator keeps: events in, updates out, tool inputs kept live.

An accumulator rebuilds one kind of streamed API response (:data:`PROTOCOLS`, each name's
accumulator class, its module imported when it is first looked up: ``"anthropic"``
in :mod:`jsonsnap.anthropic`, ``"chat"`` and ``"responses"`` in :mod:`jsonsnap.openai`,
``"gemini"`` in :mod:`jsonsnap.gemini`, ``"bedrock"`` (ConverseStream) and
``"bedrock-anthropic"`` (InvokeModelWithResponseStream) in :mod:`jsonsnap.bedrock`, and
``"ui-message"``, the UI message stream web front ends read, in :mod:`jsonsnap.vercel`) from
its events. Every one of them is an
:class:`Accumulator`:

- ``feed(event)`` takes one event (a decoded dict, an SDK event object or a
  :class:`~jsonsnap.sse.ServerSentEvent`) and returns what it did, a list of :class:`Update`;
  ``read(body)``, ``updates(body)`` and ``aupdates(body)`` take a whole HTTP body (its chunks, or
  the SDK's stream of events) and call ``close()`` at its end;
- ``close()`` ends the stream: a tool input still streaming becomes ``"incomplete"``;
- ``tools`` (keyed as each protocol documents) and ``tool_calls()`` (in order) hold a
  :class:`ToolInput` per streamed tool call: the raw JSON text, a :class:`jsonsnap.Parser` for the
  live snapshot and its change feed, and the strict value once the protocol says the input is
  finished; ``result`` is the message, completion or response so far, a plain dict;
- given the request's tool definitions (``tools=``, in any provider's shape, compiled once:
  :func:`tool_schemas`), each call's input is checked against its tool's schema as it streams:
  ``ToolInput.violations``, ``field_state()``, ``missing()``, status ``"invalid"``, and the
  update of the event that found a violation carries it (``Update.violations``);
- given the request's structured output format (``output_schema=``), the answer text is parsed
  live as JSON and checked: :attr:`Accumulator.structured`, a :class:`StructuredOutput` whose
  ``final()`` is the value converted to the schema's Python type when it is one;
- with ``repair=True`` (or a set of repair kinds), tool inputs and the structured output are read
  tolerantly, as ``Parser(repair=)`` reads (``ToolInput.repairs``); a tool input that holds two
  values glued together (``{..}{..}``) is reported as such (``ToolInput.glued``, ``values``);
- a :class:`StreamError` reports an error the stream carries, events out of order or after the
  end, and malformed ones (checked before anything changes: a rejected event leaves the result
  as it was). Passing something that is not an event at all is a ``TypeError``.
"""

from __future__ import annotations

from ._errors import StreamError
from ._streams.accumulator import Accumulator
from ._streams.protocols import PROTOCOLS, detect
from ._streams.schemas import tool_schemas
from ._streams.streamed_json import Status, StreamedJSON
from ._streams.tool_input import (
    ANY_TOOL,
    StructuredOutput,
    StructuredOutputError,
    ToolInput,
    ToolInputError,
    ToolSchemas,
)
from ._streams.update import Update

__all__ = [
    "ANY_TOOL",
    "PROTOCOLS",
    "Accumulator",
    "Status",
    "StreamError",
    "StreamedJSON",
    "StructuredOutput",
    "StructuredOutputError",
    "ToolInput",
    "ToolInputError",
    "ToolSchemas",
    "Update",
    "detect",
    "tool_schemas",
]
