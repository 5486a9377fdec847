"""The command line: the application layer, on top of everything else.

``jsonsnap.__main__`` reads the options and hands the subcommand to one of these:

- ``replay``: ``jsonsnap replay`` (and ``demo``): an event stream played back as a typewriter,
  each tool call's arguments drawn live in a panel;
- ``parse``: ``jsonsnap parse``: JSON text watched as it grows into a value, then the strict
  value or the error with a caret;
- ``inputs``: what both share: the option types, the input (a file, standard input or the
  example recording, read in the pieces it arrives in), the events decoded from it, the
  accumulator of its protocol, and the schemas given with ``--schema``;
- ``render``: values as lines, whole for a log or only the tail a screen shows;
- ``terminal``: committed text above, a live region redrawn below, cut to the width.

It is the top layer: it may import any layer below it, and nothing in the package imports it.
It reaches the accumulators only through the registry of protocols and the contract every
accumulator offers (``jsonsnap.streams``), so it knows no protocol by name; what it takes
from a provider's package is the decoding of Bedrock's binary event stream (a wire format).
"""
