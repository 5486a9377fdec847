"""The accumulator contract: what every protocol's accumulator is, and the values it gives.

This layer owns the contract :mod:`jsonsnap.streams` publishes (its docstring states it):
events in, :class:`Update` values out, tool inputs and the structured output kept live and
checked. Its parts, one concern each:

- ``accumulator``: :class:`Accumulator`, the base of every protocol's accumulator: ``feed()``,
  ``close()``, a body read through ``read()``, ``updates()`` and ``aupdates()``, and the
  dispatch of an event through the protocol's table of handlers. It holds its parts:
- ``fields``: :class:`EventFields`, the checks of an event's fields (a malformed field is a
  :class:`StreamError` that names it);
- ``schemas``: the request's schemas (``tool_schemas``, ``output_schema_of``) and
  :class:`SchemaSide`, the accumulator's schema side (the structured outputs, the violations
  an event found, on its updates);
- ``envelope``: an event's JSON text decoded (the standard library's C decoder, our parser
  where depth needs it or to give our error), and the data of a server-sent event;
- ``events``: an event's data copied, an SDK object dumped, the error a payload reports, the
  plans of a chunk applied;
- ``body``: a body's chunks or events, and what a body that brings no event is;
- ``tool_input``, ``streamed_json``, ``glued``: :class:`ToolInput` and
  :class:`StructuredOutput`, their common part :class:`StreamedJSON`, and the values glued
  after the first;
- ``update``: :class:`Update`; ``surrogates``: the halves of a surrogate pair cut between two
  pieces of a text, joined as a client joins them;
- ``protocols``: :data:`PROTOCOLS`, a table of each protocol's accumulator by name, whose
  modules are imported when first looked up, and :func:`detect`.

What it may import: the errors (``_errors``), the wire formats (``sse``), the parser
(``_parse``) and the schemas (``_schema``, through :mod:`jsonsnap`'s names). Never a provider:
the providers (``anthropic``, ``bedrock``, ``gemini``, ``openai``, ``vercel``) import this
layer, and ``protocols`` names them as strings, imported only when a class is looked up.
"""
