"""Rebuild a Google Gemini ``streamGenerateContent`` stream, with live function-call arguments.

:class:`GenerateContentAccumulator` takes the chunks of a ``streamGenerateContent?alt=sse``
body (each ``data:`` is a whole ``GenerateContentResponse``: the decoded dict, the
:class:`~jsonsnap.sse.ServerSentEvent`, or the ``google-genai`` SDK's
``GenerateContentResponse`` object) and keeps ``.response``, the final response as one
non-streamed ``generateContent`` call would return it (the API's camelCase JSON):

- candidates by ``index`` (absent: 0), in index order; ``content.role`` is set once, and the
  ``content.parts`` are the chunks' parts in order, where a text part is joined to the part
  before it when that one is a text part of the same kind (``thought`` or answer) and the two
  do not carry different ``thoughtSignature`` values (a signature is never dropped: it stays on
  the joined part, and a second, different one starts a new part); ``finishReason`` and the
  other candidate fields keep their latest value, but ``citationMetadata.citations`` grow;
- ``usageMetadata`` is updated field by field (the counts are cumulative: the last chunk's are
  the totals), ``modelVersion``, ``responseId``, ``createTime`` and ``promptFeedback`` keep their
  latest value; a prompt blocked (``promptFeedback.blockReason``) ends the stream, as does every
  candidate having its ``finishReason`` (the API sends the usage with the last one): a chunk
  after that is a :class:`StreamError`.

Function calls. A whole ``functionCall`` (``{name, args, id?}``) is a :class:`ToolInput` fed the
arguments as JSON text at once; Vertex AI's streamed arguments (``streamFunctionCallArguments``:
a call opened with ``willContinue: true``, continued by parts whose ``functionCall`` carries
``partialArgs`` entries ``{jsonPath, stringValue | numberValue | boolValue | nullValue,
willContinue}``, and ended by a part without ``willContinue``) are translated, entry by entry,
into the JSON text of the same arguments (``{"location": "Bos``, ``ton"``, ...), which the
call's :class:`ToolInput` parses as any other streamed JSON: the live snapshot, the change
records, the schema checks (``tools=``) and :meth:`ToolInput.final` are those of that text. The
translation keeps the arguments in the order the paths come; a path must name the next member
of the structure so far, so a malformed ``jsonPath``, one that goes back to a finished value,
one that skips an array element, one that conflicts with the structure so far (a key into an
array, an index into an object, a value where an object is open) and a value that changes type
(a number for a string that was to go on) are each a :class:`StreamError` that names the path.
A string piece with ``willContinue`` keeps its string open: the next entry must be the same
path. A number is followed by a space, so that it shows at once (a number at the end of JSON
text could go on). In ``.response``, a call's part holds ``functionCall: {name, args, id?}``,
``args`` its live snapshot, then its final value (``partialArgs`` and ``willContinue`` are not
kept). A part without ``willContinue`` ends the call: the part after it, in the same chunk or a
later one, is read afresh (text, or another call, to the same function or not), so how the
parts are grouped into chunks changes nothing. A path costs time in proportion to its length.

How ``tools`` is keyed. A Gemini function call has no index of its own, and its ``id`` is
optional, so ``tools`` holds candidate 0's calls by
the place of their part in ``response["candidates"][0]["content"]["parts"]``: ``tools[2]`` is
the call whose part is ``parts[2]``, and ``tools[2].index == 2``. The keys are in stream order
but need not be consecutive (text and other parts take places too), and a call's key never
changes, since a part, once placed, stays where it is. ``ToolInput.id`` is the call's ``id``
when one came (else ``None``) and ``ToolInput.name`` its function's name.
``tool_calls(candidate)`` lists any candidate's calls in order; ``update.index`` of a
``function_call`` update is the same place. ``tools=`` takes the request's ``tools``
(``functionDeclarations`` with ``parametersJsonSchema`` or ``parameters``, as dicts or the
SDK's ``Tool`` objects), and ``output_schema=`` its ``generationConfig``
(``responseJsonSchema`` or ``responseSchema``) or any schema.

A chunk is checked whole before it changes anything (the state the streamed arguments keep is
rolled back if a later entry of the same chunk is refused). An ``{"error": ...}`` payload raises
:class:`StreamError` with the error's ``status`` as its type.
"""

from __future__ import annotations

from ..streams import StreamError, ToolInput, ToolInputError, Update
from ._accumulator import GenerateContentAccumulator, accumulate
from ._path import parse_json_path

__all__ = [
    "GenerateContentAccumulator",
    "StreamError",
    "ToolInput",
    "ToolInputError",
    "Update",
    "accumulate",
    "parse_json_path",
]

for _public in (GenerateContentAccumulator, accumulate, parse_json_path):
    setattr(_public, "__module__", __name__)  # noqa: B010 (where users import them from)
del _public
