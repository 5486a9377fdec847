"""Characters beyond the BMP, and text as the UTF-16 code units a stream's JSON escapes cut."""

from __future__ import annotations

from hypothesis import strategies as st


def code_units(text: str) -> str:
    """``text`` as UTF-16 code units: each character beyond the BMP as its two halves, as a
    stream's JSON escapes it (``\\ud83d\\ude00``) and may cut it between two events."""
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))


ASTRAL_TEXTS = st.text(
    st.one_of(st.characters(min_codepoint=0x10000), st.sampled_from('a "\\\n')), max_size=12
)


ASTRAL = 'a\U0001f600 \U0001d11e"\U0010ffff\\ b'
