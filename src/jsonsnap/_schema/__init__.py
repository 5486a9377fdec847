"""Schemas: a JSON Schema checked while the value streams, and Python types on both sides of it.

This layer is loaded only when a schema is given (``Parser(schema=...)``, a :class:`Schema`
made, an accumulator given tool schemas, or a schema name of ``jsonsnap`` asked for): a parser
without one never imports it.

Its parts:

- the schema and its compiled form: ``schema`` (:class:`~jsonsnap.Schema`, the public class),
  ``compile`` (the compiler: a table of one handler per keyword), ``shape`` (:class:`Shape`,
  one per subschema, and the expansion of a value's checks), ``equality`` (JSON's types as
  bits, JSON equality and canonical keys), ``regex`` (patterns searched in linear time);
- checking while the value is built: ``checker`` (what the parser's tree calls as values
  begin and end), ``frames`` (the checks on each value), ``faults`` (violations positioned and
  worded), ``side`` (what a parser with a schema says of its value);
- Python types: ``from_types`` (a type written as a JSON Schema, :func:`schema_of`),
  ``to_types`` (a final value converted to its type), ``views`` (typed views of a value still
  streaming), ``walk`` (the walk over a value and a type that both run, without recursion),
  ``type_kinds`` (what kind of type a type is, and its fields: what every type module reads).

It may import ``_errors`` and the parser's layer (``_parse``), never the layers above it (the
stream contract, the providers, the command line). The errors it raises
(:class:`~jsonsnap.SchemaError`, :class:`~jsonsnap.SchemaDefinitionError`,
:class:`~jsonsnap.SchemaWarning`) live in ``_errors``, so that naming them loads none of it.
"""
