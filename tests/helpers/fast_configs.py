"""The fast paths' configurations the tests run the parser in: each alone, all, all eagerly."""

from __future__ import annotations

from dataclasses import replace

from jsonsnap._parse.fast import DEFAULT, GENERAL, FastPaths

#: Each fast path alone, on top of the automaton.
ALONE: dict[str, FastPaths] = {
    "lane": replace(GENERAL, lane=True),
    "elements": replace(GENERAL, elements=True),
    "members": replace(GENERAL, members=True),
    "runs": replace(GENERAL, runs=True),
    "long strings": replace(GENERAL, long_string=0, window=3),
    "scanner": replace(GENERAL, scan_min=0),
    "plain tree": replace(GENERAL, plain_tree=True),
    # (chars changes how elements and members are read: it is tried with them)
    "chars": replace(GENERAL, elements=True, members=True, chars=True),
}
#: Every fast path taken as often as it can be.
EAGER = replace(DEFAULT, long_string=0, window=3, scan_min=0)
#: All of them, reading elements and members the way the other build does by default.
OTHER_BUILD = replace(DEFAULT, chars=not DEFAULT.chars)
CONFIGS: dict[str, FastPaths] = {
    **ALONE,
    "all": DEFAULT,
    "eager": EAGER,
    "all, the other build's way": OTHER_BUILD,
}
