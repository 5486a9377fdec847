"""The benchmark workloads: JSON documents and the fragments they are streamed in.

Every workload is generated from a fixed seed, so two runs (and two machines) stream exactly the
same text cut at exactly the same places.

====  =====================================================================================
A     a small tool call: a ~300-byte ``write_file``-like argument object, 5-20 char fragments
B     a file write ``{"path": ..., "content": ...}`` with 10 KB, 100 KB and 1 MB of
      source-like text (newlines, quotes, backslashes, tabs, CJK, emoji), 16-64 char
      fragments, ``json.dumps(..., ensure_ascii=False)``
C     an array of 2,000 and of 20,000 small records (ints, floats, booleans, nulls, short
      strings, nested lists), 16-64 char fragments
D     objects and arrays nested 500 deep (``{"a": [`` alternating, scalars at every level),
      16-64 char fragments
E     ~100 KB of strings dense in ``\\uXXXX`` escapes and surrogate pairs
      (``ensure_ascii=True``), fragment sizes cycling 1..13 so that the cuts land at every
      position inside an escape
F     a 100 KB file-write argument fed one character at a time
====  =====================================================================================
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

SEED = 20240611

GROUPS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F")


@dataclass(frozen=True)
class Workload:
    """One document and the fragments it is streamed in."""

    name: str
    """Short name used in tables, e.g. ``"B 1 MB"``."""
    group: str
    """The workload letter, ``"A"`` to ``"F"``."""
    description: str
    text: str
    fragments: tuple[str, ...] = field(repr=False)
    fragment_sizes: str
    """How the fragments were cut, e.g. ``"16-64 chars"``."""

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def size(self) -> int:
        """Size of the document in UTF-8 bytes."""
        return len(self.text.encode("utf-8"))


# --------------------------------------------------------------------------- fragmenting


def split_random(text: str, rng: random.Random, low: int, high: int) -> tuple[str, ...]:
    """Cut ``text`` into fragments of ``low``..``high`` characters (the last may be shorter)."""
    out: list[str] = []
    pos = 0
    n = len(text)
    while pos < n:
        step = rng.randint(low, high)
        out.append(text[pos : pos + step])
        pos += step
    return tuple(out)


def split_cycle(text: str, sizes: Iterable[int]) -> tuple[str, ...]:
    """Cut ``text`` into fragments whose sizes follow ``sizes`` cyclically."""
    out: list[str] = []
    pos = 0
    n = len(text)
    for step in itertools.cycle(sizes):
        if pos >= n:
            break
        out.append(text[pos : pos + step])
        pos += step
    return tuple(out)


# --------------------------------------------------------------------------- documents

_KEYWORDS = ("def", "return", "if", "else", "for", "in", "while", "import", "class", "yield")
_NAMES = ("x", "value", "items", "path", "result", "self", "config", "buf", "n", "total")
_CJK = ("中文", "数据", "解析器", "日本語", "한국어", "测试", "文件", "注释")
_EMOJI = ("😀", "🚀", "✨", "🐍", "👍", "🔥", "📦", "🎉")


def source_text(size: int, rng: random.Random) -> str:
    """``size`` characters of source-like text.

    Indented lines (spaces and tabs) of code with string literals holding quotes and
    backslashes (Windows paths, regexes, escaped newlines), and comments in CJK with emoji.
    """
    lines: list[str] = []
    total = 0
    while total < size:
        indent = rng.choice(("", "    ", "        ", "\t", "\t\t"))
        kind = rng.random()
        if kind < 0.15:
            words = " ".join(rng.choice(_CJK) for _ in range(rng.randint(1, 4)))
            line = f"{indent}# {words} {rng.choice(_EMOJI)}"
        elif kind < 0.30:
            line = (
                f'{indent}{rng.choice(_NAMES)} = "C:\\\\Users\\\\{rng.choice(_NAMES)}\\\\file.txt"'
            )
        elif kind < 0.40:
            line = f'{indent}pattern = re.compile(r"\\d+\\s*\\"{rng.choice(_NAMES)}\\"")'
        elif kind < 0.55:
            line = f'{indent}print("{rng.choice(_NAMES)}: %s\\n" % {rng.choice(_NAMES)})'
        elif kind < 0.62:
            line = ""
        else:
            tokens = [rng.choice(_KEYWORDS + _NAMES) for _ in range(rng.randint(2, 9))]
            line = f"{indent}{' '.join(tokens)}:"
            if rng.random() < 0.2:
                line += "\t# " + rng.choice(_EMOJI)
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def tool_call(rng: random.Random) -> str:
    """A ~300-byte ``write_file``-like argument object."""
    body = source_text(150, rng)
    args: dict[str, Any] = {
        "path": "src/app/handlers/upload.py",
        "content": body,
        "mode": "overwrite",
        "create_dirs": True,
        "encoding": "utf-8",
        "line_count": body.count("\n") + 1,
        "backup": None,
    }
    return json.dumps(args, ensure_ascii=False)


def file_write(size: int, rng: random.Random) -> str:
    """``{"path": ..., "content": ...}`` with ``size`` characters of source-like content."""
    args = {"path": "src/jsonsnap_demo/generated_module.py", "content": source_text(size, rng)}
    return json.dumps(args, ensure_ascii=False)


_WORDS = ("alpha", "beta", "gamma", "delta", "red", "green", "blue", "north", "south", "x")


def _number(rng: random.Random) -> int | float:
    kind = rng.random()
    if kind < 0.4:
        return rng.randint(-1000, 100_000)
    if kind < 0.7:
        return round(rng.uniform(-1000, 1000), 2)
    if kind < 0.85:
        return rng.random()
    if kind < 0.93:
        return rng.random() * 1e-9
    return rng.random() * 1e21


def records(count: int, rng: random.Random) -> str:
    """An array of ``count`` small objects."""
    items: list[dict[str, Any]] = []
    for i in range(count):
        item: dict[str, Any] = {
            "id": i,
            "name": f"{rng.choice(_WORDS)} {rng.randint(1, 999)}",
            "price": _number(rng),
            "qty": rng.randint(0, 500),
            "active": rng.random() < 0.5,
            "note": None if rng.random() < 0.6 else rng.choice(("ok", 'say "hi"', "a\\b", "é")),
            "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 3))],
            "dims": [_number(rng), _number(rng), [rng.randint(0, 9), None, False]],
        }
        items.append(item)
    return json.dumps(items)


def deep(depth: int, rng: random.Random) -> str:
    """Objects and arrays nested ``depth`` deep, alternating ``{"a": [``, with scalars at every
    level (written out directly: no recursion)."""
    opens: list[str] = []
    closes: list[str] = []
    for level in range(depth):
        if level % 2 == 0:
            opens.append(f'{{"level": {level}, "name": "n{level}", "ok": true, "a": ')
            closes.append(f', "w": {_number(rng)!r}}}')
        else:
            opens.append(f'[{level}, {_number(rng)!r}, "s{level}", null, ')
            closes.append(", false]")
    return "".join(opens) + '"bottom"' + "".join(reversed(closes))


_ACCENTED = "éèêëàâäôöûüçñøåæœßíóúÉÀÇÑØÅ"
_CJK_CHARS = "漢字中文数据解析器日本語한국어测试文件注释東京北京서울"
_ASTRAL = "😀🚀✨🐍👍🔥📦🎉🌍🎵𝄞𠀀𩸽"


def escape_heavy_text(size: int, rng: random.Random) -> str:
    """``size`` characters dense in non-ASCII: accented letters, CJK, and astral characters
    (emoji and others that ``ensure_ascii`` writes as surrogate pairs)."""
    out: list[str] = []
    for _ in range(size):
        kind = rng.random()
        if kind < 0.30:
            out.append(rng.choice(_ACCENTED))
        elif kind < 0.60:
            out.append(rng.choice(_CJK_CHARS))
        elif kind < 0.85:
            out.append(rng.choice(_ASTRAL))
        elif kind < 0.95:
            out.append(" ")
        else:
            out.append(rng.choice('abc"\\\n\t/'))
    return "".join(out)


def escapes(target_bytes: int, rng: random.Random) -> str:
    """An object of strings written with ``ensure_ascii=True``: about ``target_bytes`` long."""
    # A character becomes about 6.6 bytes of escapes on average.
    body_chars = max(100, target_bytes * 3 // 4 * 10 // 66)
    note_chars = max(10, target_bytes // 4 * 10 // 66 // 40)
    doc = {
        "title": escape_heavy_text(40, rng),
        "content": escape_heavy_text(body_chars, rng),
        "notes": [escape_heavy_text(note_chars, rng) for _ in range(40)],
    }
    return json.dumps(doc, ensure_ascii=True)


def truncated(text: str) -> str:
    """``text`` cut in the middle of its content string, not inside an escape."""
    pos = len(text) // 2
    while text[pos - 1] == "\\" or "\\" in text[pos - 6 : pos]:
        pos += 1
    return text[:pos]


# --------------------------------------------------------------------------- spoiled


_SINGLE_QUOTED = str.maketrans(
    {"\\": "\\\\", "'": "\\'", **{chr(i): f"\\u{i:04x}" for i in range(32) if i != 10}}
)


def spoiled_text(value: dict[str, Any]) -> str:
    """``value`` (an object of strings) written as a lenient writer might: single-quoted keys
    and strings (a ``"`` inside is a plain character), a ``// comment`` line, a trailing comma
    after the last member, and newlines inside strings left raw (other control characters are
    escaped)."""
    members = "".join(
        f"  '{key.translate(_SINGLE_QUOTED)}': '{text.translate(_SINGLE_QUOTED)}',\n"
        for key, text in value.items()
    )
    return "{\n  // the file to write\n" + members + "}\n"


def spoiled(wl: Workload) -> Workload:
    """The document of a B workload spoiled (:func:`spoiled_text`), cut as B is cut."""
    text = spoiled_text(json.loads(wl.text))
    rng = random.Random(f"{SEED}-{wl.name}-spoiled-cut")
    return Workload(
        name=f"{wl.name} spoiled",
        group=wl.group,
        description=f"{wl.description}, single quotes, a comment, a trailing comma, raw newlines",
        text=text,
        fragments=split_random(text, rng, 16, 64),
        fragment_sizes=wl.fragment_sizes,
    )


# --------------------------------------------------------------------------- the set


def _kb(size: int) -> str:
    return f"{size // 1_000_000} MB" if size >= 1_000_000 else f"{size // 1000} KB"


def _rng(tag: str) -> random.Random:
    return random.Random(f"{SEED}-{tag}")


def _random_cuts(name: str, group: str, description: str, text: str, tag: str) -> Workload:
    """A workload of ``text`` cut at random into 16-64 char fragments."""
    fragments = split_random(text, _rng(f"{tag}-cut"), 16, 64)
    return Workload(name, group, description, text, fragments, "16-64 chars")


def _tool_call(quick: bool) -> list[Workload]:
    text = tool_call(_rng("A"))
    fragments = split_random(text, _rng("A-cut"), 5, 20)
    description = "small write_file-like tool call argument"
    return [Workload("A tool call", "A", description, text, fragments, "5-20 chars")]


def _file_writes(quick: bool) -> list[Workload]:
    return [
        _random_cuts(
            f"B {_kb(size)}",
            "B",
            f"file write, {size:,} chars of source-like content",
            file_write(size, _rng(f"B{size}")),
            f"B{size}",
        )
        for size in ((10_000,) if quick else (10_000, 100_000, 1_000_000))
    ]


def _records(quick: bool) -> list[Workload]:
    return [
        _random_cuts(
            f"C {count:,}",
            "C",
            f"array of {count:,} small records",
            records(count, _rng(f"C{count}")),
            f"C{count}",
        )
        for count in ((2_000,) if quick else (2_000, 20_000))
    ]


def _deep(quick: bool) -> list[Workload]:
    description = "objects and arrays alternating, nested 500 deep"
    return [_random_cuts("D deep 500", "D", description, deep(500, _rng("D")), "D")]


def _escapes(quick: bool) -> list[Workload]:
    size = 10_000 if quick else 100_000
    text = escapes(size, _rng(f"E{size}"))
    description = "strings dense in \\uXXXX escapes and surrogate pairs"
    fragments = split_cycle(text, range(1, 14))
    return [
        Workload(
            f"E escapes {_kb(size)}", "E", description, text, fragments, "1..13 chars, cycling"
        )
    ]


def _one_char(quick: bool) -> list[Workload]:
    size = 10_000 if quick else 100_000
    text = file_write(size, _rng(f"F{size}"))
    description = f"file write, {size:,} chars of content, one character at a time"
    return [Workload(f"F 1-char {_kb(size)}", "F", description, text, tuple(text), "1 char")]


#: What makes each group's workloads (``quick``: only the small sizes).
BUILDERS: dict[str, Callable[[bool], list[Workload]]] = {
    "A": _tool_call,
    "B": _file_writes,
    "C": _records,
    "D": _deep,
    "E": _escapes,
    "F": _one_char,
}


def build(quick: bool = False, groups: Iterable[str] = GROUPS) -> list[Workload]:
    """All workloads of the given groups (``quick``: only the small sizes)."""
    wanted = {g.upper() for g in groups}
    return [wl for group in GROUPS if group in wanted for wl in BUILDERS[group](quick)]


if __name__ == "__main__":
    for w in build():
        print(f"{w.name:<16} {w.chars:>10,} chars {w.size:>10,} bytes {len(w.fragments):>9,} frags")
