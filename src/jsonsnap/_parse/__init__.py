"""The parser layer: JSON text in fragments to a live value, with its change feed.

What it owns: reading JSON (strict, or tolerant with ``repair=``) one fragment at a time, the
value being built and shown, the records of how it changes, and the positioned errors. It
imports nothing above it (``jsonsnap._errors`` only); the schema layer (``jsonsnap._schema``)
is reached through two interfaces it defines (``observer.Checker``, ``observer.Cursor``) and
one import inside the function that makes a parser's schema side, so that it is loaded only
when a schema is given.

The parts
=========

``parser``     :class:`~jsonsnap.Parser`: the lifecycle, UTF-8 input, the lane; it holds the
               parts below and hands each query to the one that knows the answer
``options``    the options, checked and resolved once into a frozen ``Options``
``parts``      makes the tree and the automaton for the options
``grammar``    the states, regexes and tables of the JSON grammar
``tokens``     literals, numbers, strings and the positioned errors (the automaton's base)
``automaton``  the state machine that reads a fragment and tells the tree what it read
``tolerant``   the automaton that reads on where strict JSON ends, recording each repair
``fast``       the fast paths: the same grammar read in bigger steps (runs, whole members,
               the C scanner, the lane)
``chars``      whole members and elements read a character at a time (the compiled build's
               way: the ``chars`` fast path)
``tree``       the value being built: the only code that changes it
``watched``    the tree with hooks, a depth limit and an observer; and the one that asks a
               checker first
``observer``   where a value is (nodes, paths), the ``Observer``, ``Checker`` and ``Cursor``
               interfaces, and the one ``NOTHING`` marker
``changes``    the change records, the recorder (an observer) and subscriptions
``oneshot``    ``loads`` and ``parse_partial``;  ``values``: ``iter_values``, ``aiter_values``

One fragment
============

``Parser.feed(data)`` decodes bytes, or, inside a visible string, appends plain text to it
directly (the lane). Else it hands the text to the automaton's ``run()``, which resumes in
the state the last fragment left it in: each token is read by ``tokens`` (or, where they
apply, by the fast paths in one regex match) and reported to the tree through the builder
interface (``open``, ``key``, ``string_start``, ``append``, ``scalar``, ``member``,
``close``...). The tree links each value into its parent and counts the change; a watched
tree also tells its observer (the change recorder, whose records the parser hands to the
subscribers at the end of the call) and, with a schema, first asks its checker, which may
raise. What the fragment leaves unfinished (part of a number, a literal or an escape) stays
in the automaton's ``tail`` for the next one.

Invariants
==========

1. Everything before the automaton's ``tail`` has been read exactly once; its ``offset`` (once
   the lane has been settled) is the absolute position of ``tail[0]`` in the stream, and
   ``lines``/``line_start`` count the ``\\n`` read so far, so errors carry absolute positions
   without keeping the text.
2. A value is linked into the tree only when the snapshot rules allow it to be shown, and then
   it is never unlinked (the ``partial_numbers`` and ``partial_literals`` options add one
   *provisional* value at the end of a ``feed()``, which the next call takes back first).
3. An error is raised at the first character no continuation could accept, before anything
   at or after it touches the tree; the parser then keeps raising it, and the tree stays as
   it was: the snapshot of the text before the offending character.
4. Every input costs time and memory proportional to its size: no text is read twice but for
   a bounded amount (the tail, at most 24 characters; a failed offer to the C scanner, at
   most once more), and a record or report costs the same at any depth.
5. The fast paths change nothing that can be seen: with any of them off, every snapshot,
   record, final value and error is the same.
"""
