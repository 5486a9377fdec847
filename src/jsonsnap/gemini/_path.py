"""The ``jsonPath`` of Vertex AI's partial arguments: read into segments, and shown in errors.

A path is RFC 9535's, restricted to what the partial arguments use: ``$``, then member names
(``.name`` or ``['name']``) and indices (``[0]``); :func:`parse_json_path` refuses the rest
(wildcards, slices, filters, negative indices, descendants). :func:`show` writes segments back
as a path for a message, in bounded time however long the path is.
"""

from __future__ import annotations

import json
import re

# The characters of a member name shorthand: the first is a letter, "_" or any character from
# U+0080 on but a surrogate; digits and "-" may follow. Each class is written as the
# characters it leaves out: the regex compiler takes some 15 ms for a class that runs to
# U+10FFFF, and well under 1 ms for its complement (the two match the same characters).
_NAME_FIRST = r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f\ud800-\udfff]"
_NAME_REST = r"[^\x00-\x2c\x2e\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\ud800-\udfff]"

#: One segment of an RFC 9535 path, as the partial arguments use them: ``.name`` (a member
#: name shorthand; ``-`` is taken after the first character too), ``[0]`` (an index: no sign,
#: no leading zero, at most 18 digits) or ``['name']`` / ``["name"]`` (escapes as in JSON, and
#: the quote of the string).
_SEGMENT = re.compile(
    rf"""
    \.(?P<name>{_NAME_FIRST}{_NAME_REST}*)
  | \[[ \t\n\r]*
    (?:
        (?P<index>0|[1-9][0-9]{{0,17}})
      | '(?P<single>(?:[^'\\\x00-\x1f]|\\(?:[bfnrt/\\']|u[0-9A-Fa-f]{{4}}))*)'
      | "(?P<double>(?:[^"\\\x00-\x1f]|\\(?:[bfnrt/\\"]|u[0-9A-Fa-f]{{4}}))*)"
    )
    [ \t\n\r]*\]
    """,
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(?:u(?P<hex>[0-9A-Fa-f]{4})|(?P<char>.))", re.DOTALL)
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SURROGATE = re.compile(f"[{chr(0xD800)}-{chr(0xDFFF)}]")
#: A name :func:`show` writes as ``.name``: the shorthand's characters, up to U+FFFF, surrogates
#: included (written as what they leave out, as above).
_SHORTHAND = re.compile(
    r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]"
    r"[^\x00-\x2c\x2e\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]*"
)

#: A segment of a path: a member name or an index.
Segment = str | int


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match["hex"]
        if code is not None:
            return chr(int(code, 16))
        char = match["char"]
        return _ESCAPED.get(char, char)

    joined = _ESCAPE.sub(one, text)
    if _SURROGATE.search(joined):  # \uD83D\uDE00 is one character
        joined = joined.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return joined


def parse_json_path(path: str) -> tuple[Segment, ...]:
    """The segments of a partial argument's ``jsonPath`` (``"$.a.b[0]['c d']"`` is ``("a",
    "b", 0, "c d")``): names and indices only, at least one. ``ValueError`` says where a path
    is not one (wildcards, slices, filters, negative indices and descendants are not)."""
    if not path.startswith("$"):
        raise ValueError("it does not start with '$'")
    segments: list[Segment] = []
    pos, end = 1, len(path)
    while pos < end:
        match = _SEGMENT.match(path, pos)
        if match is None:
            raise ValueError(f"no name or index at char {pos}")
        name, index = match["name"], match["index"]
        if name is not None:
            segments.append(name)
        elif index is not None:
            segments.append(int(index))
        else:
            quoted = match["single"] if match["single"] is not None else match["double"]
            segments.append(_unescape(quoted))
        pos = match.end()
    if not segments:
        raise ValueError("it names the arguments themselves, not one of them")
    return tuple(segments)


def show(segments: tuple[Segment, ...], count: int | None = None) -> str:
    """A path (its first ``count`` segments) as the partial arguments write it
    (``$.a[0]['b c']``), cut after 120 characters: the time it takes is bounded too."""
    out = ["$"]
    size = 1
    for at in range(len(segments) if count is None else count):
        segment = segments[at]
        if isinstance(segment, int):
            piece = f"[{segment}]"
        elif len(segment) <= 120 and _SHORTHAND.fullmatch(segment):
            piece = f".{segment}"
        else:
            piece = f"[{json.dumps(segment[:121])}]"
        out.append(piece)
        size += len(piece)
        if size > 120:
            break
    shown = "".join(out)
    return shown if len(shown) <= 120 else shown[:120] + "..."
