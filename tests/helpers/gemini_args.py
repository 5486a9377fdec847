"""Gemini's streamed arguments: generated argument objects, their leaves and JSONPaths, and text
cut into the pieces a ``partialArgs`` stream sends.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

KEYS = st.text(alphabet=st.sampled_from('ab "\\é😀\n'), min_size=1, max_size=4)
STRINGS = st.text(alphabet=st.sampled_from('xy "\\\t\né€😀\U0001f44d'), max_size=12)
NUMBERS = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
)
LEAVES = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS)
ARGS = st.dictionaries(
    KEYS,
    st.recursive(
        LEAVES,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=3),
            st.dictionaries(KEYS, inner, min_size=1, max_size=3),
        ),
        max_leaves=8,
    ),
    max_size=5,
)


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """The leaves of a value in document order (no empty containers in ARGS)."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, (*path, i))]
    return [(path, value)]


def path_text(path: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f"[{json.dumps(p)}]" for p in path)


def pieces_of(text: str, draw: Any, most: int = 3) -> list[str]:
    """``text`` cut at up to ``most`` places drawn (pieces may be empty)."""
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=most))))
    return [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]
