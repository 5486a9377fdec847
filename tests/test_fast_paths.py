"""The string fast paths against the general path.

Three ways decode string content: the general path (one escape at a time in Python), runs of
plain text and complete escapes (a regex, then the standard library's C scanner), and long
content (the C scanner on the whole string, or on windows cut at escape boundaries). Module
constants switch each off or force it on; every configuration must give the same snapshots,
final values and errors.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
from jsonsnap import _parser

_ESCAPES = st.sampled_from(
    [
        r"\n",
        r"\"",
        r"\\",
        r"\/",
        r"\b",
        r"\u00e9",
        r"\uD83D\uDE00",
        r"\ud83d",
        r"\uDC00",
        r"\uD800\uD800",
        r"\\uD83D",
        r"\\\uD83D",
        "\U0001f600",
        "a",
        "\u2028",
        " ",
        r"\u0041",
    ]
)
_BODIES = st.lists(_ESCAPES, max_size=12).map("".join)


def _run(text: str, cuts: list[int]) -> tuple[list[object], object]:
    parser = jsonsnap.Parser()
    shots: list[object] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(text)]:
        try:
            parser.feed(text[start:cut])
        except jsonsnap.JSONDecodeError as err:
            return shots, ("error", err.pos, err.msg)
        start = cut
        shots.append(parser.snapshot(copy=True))
    try:
        return shots, parser.close()
    except jsonsnap.JSONDecodeError as err:
        return shots, ("error", err.pos, err.msg, err.incomplete)


@settings(max_examples=300, deadline=None)
@given(
    bodies=st.lists(_BODIES, min_size=1, max_size=3),
    tail=st.sampled_from(["", '"', "x", r"\q", "\x01", r"\u12g4"]),
    data=st.data(),
)
def test_general_path_agrees_with_fast_path(
    bodies: list[str], tail: str, data: st.DataObject
) -> None:
    text = "[" + ", ".join(f'"{b}"' for b in bodies) + "]"
    # Corrupt the last string's end sometimes, so errors go through both paths too.
    if tail:
        text = text[:-2] + tail + text[-2:]
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=8))
    fast = _run(text, cuts)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_parser, "_RUN_RE", re.compile(""))
        m.setattr(_parser, "_LONG_STRING", 10**9)
        general = _run(text, cuts)
    assert repr(fast) == repr(general)
    for window in (1, 2, 7, 64):
        with pytest.MonkeyPatch.context() as m:
            m.setattr(_parser, "_LONG_STRING", 0)
            m.setattr(_parser, "_WINDOW", window)
            assert repr(_run(text, cuts)) == repr(general), window
    if not tail:
        assert repr(fast[1]) == repr(json.loads(text))
