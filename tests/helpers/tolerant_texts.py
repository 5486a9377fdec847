"""Text for tolerant mode to read: the tokens of the repairs, fuzz, several values in one stream."""

from __future__ import annotations

from hypothesis import strategies as st

import strategies
from spoil import spoiled_documents

#: The tokens of the repairs, for random text that gets far into tolerant mode's code.
REPAIR_TOKENS = (
    "'",
    "\\'",
    "//",
    "/*",
    "*/",
    "\n",
    "True",
    "False",
    "None",
    "undefined",
    "NaN",
    "Infinity",
    "-Infinity",
    "```",
    "```json\n",
    "Here is",
    "the answer: ",
    "ab",
    "$_1",
    "\\x",
    "\\u12G4",
    "\x01",
    "\t",
    "1234567890" * 3,  # a long number, cut anywhere in it
)
_MUTATION_CHARS = strategies.CORRUPTION_CHARS + "'`/*$_TFNIu"


@st.composite
def _mutated_spoiled(draw: st.DrawFn) -> str:
    """A spoiled document with one character inserted, deleted or replaced."""
    _, (text, _used) = draw(spoiled_documents(max_leaves=6))
    at = draw(st.integers(0, len(text)))
    op = draw(st.sampled_from(["insert", "delete", "replace"]))
    if op == "insert" or at == len(text):
        return text[:at] + draw(st.sampled_from(_MUTATION_CHARS)) + text[at:]
    if op == "delete":
        return text[:at] + text[at + 1 :]
    return text[:at] + draw(st.sampled_from(_MUTATION_CHARS)) + text[at + 1 :]


_NOISE = st.one_of(st.sampled_from(strategies.CORRUPTION_CHARS), st.sampled_from(REPAIR_TOKENS))

FUZZ_TEXTS = st.one_of(
    st.text(st.one_of(st.characters(), strategies.SURROGATES), max_size=60),
    strategies.json_ish_text(),
    st.lists(st.one_of(_NOISE, strategies.scalar_literals()), max_size=30).map("".join),
    # Where a first scalar ends and text after it begins: trailing text, or leading text?
    st.tuples(strategies.scalar_literals(), st.lists(_NOISE, max_size=5).map("".join)).map("".join),
    _mutated_spoiled(),
)


def _one_line(text: str) -> str:
    """A value's text with its whitespace newlines made spaces (valid JSON holds no raw line
    break inside a string, so they are all whitespace)."""
    return text.replace("\n", " ").replace("\r", " ")


@st.composite
def several_values(draw: st.DrawFn) -> tuple[list[str], str]:
    """Some value texts, and one stream holding them all: NDJSON, or glued together (two
    containers with nothing or whitespace between them, anything else with whitespace)."""
    texts = draw(st.lists(strategies.json_values(max_leaves=8), min_size=1, max_size=6))
    if draw(st.booleans()):
        ending = draw(st.sampled_from(["\n", "\r\n"]))
        last = draw(st.sampled_from(["", ending]))
        return texts, ending.join(_one_line(t) for t in texts) + last
    parts = [draw(strategies.whitespace())]
    for i, t in enumerate(texts):
        if i:
            gap = draw(strategies.whitespace())
            if not gap and not (texts[i - 1][0] in "[{" and t[0] in "[{"):
                gap = draw(st.sampled_from(strategies.JSON_WHITESPACE))
            parts.append(gap)
        parts.append(t)
    parts.append(draw(strategies.whitespace()))
    return texts, "".join(parts)
