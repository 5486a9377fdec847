"""The ``jsonsnap`` command line (``python -m jsonsnap``).

``replay FILE`` plays an event stream back with live tool-argument panels, ``parse [FILE]``
watches JSON text grow into a value, ``demo`` shows a parser's snapshots fragment by fragment.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence

from . import JSONDecodeError, Parser
from ._cli import add_commands

_DEMO_DOCUMENT = {
    "path": "calc.py",
    "content": (
        "def add(a, b):\n"
        '    """Return a + b."""\n'
        "    return a + b\n\n\n"
        'if __name__ == "__main__":\n'
        '    print(add(1, 2), "\\u2713 \u6b63\u786e \U0001f600")\n'
    ),
    "mode": "overwrite",
    "tags": ["demo", 1, 2.5, True, None],
}


def _fragments(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    pos = 0
    while pos < len(text):
        step = rng.randint(3, 12)
        out.append(text[pos : pos + step])
        pos += step
    return out


def _demo(args: argparse.Namespace) -> int:
    text = json.dumps(_DEMO_DOCUMENT, indent=2, ensure_ascii=False)
    parser = Parser()
    live = sys.stdout.isatty() and not args.no_delay
    print("Streaming a tool call's arguments in fragments; after each one, parser.snapshot():\n")
    previous = ""
    for fragment in _fragments(text, args.seed):
        parser.feed(fragment)
        shown = repr(parser.snapshot())
        if live:
            width = max(20, os.get_terminal_size().columns - 12)
            tail = shown if len(shown) <= width else "..." + shown[-(width - 3) :]
            sys.stdout.write(f"\r\x1b[2Kfed {fragment!r:<16.16} -> {tail}")
            sys.stdout.flush()
            time.sleep(args.delay)
        elif shown != previous:
            print(f"fed {fragment!r:<18} -> {shown}")
        previous = shown
    if live:
        print()
    try:
        final = parser.close()
    except JSONDecodeError as err:  # pragma: no cover - the demo document is valid
        print(f"error: {err}", file=sys.stderr)
        return 1
    print("\nparser.close() (strict, identical to json.loads):")
    print(json.dumps(final, indent=2, ensure_ascii=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="jsonsnap",
        description="Turn a stream of JSON fragments into a live value: replay an LLM event "
        "stream with live tool-argument panels, or watch JSON text grow into a value.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="stream a tool call and show live snapshots")
    demo.add_argument("--seed", type=int, default=7, help="how the fragments are cut")
    demo.add_argument("--delay", type=float, default=0.04, help="seconds between fragments")
    demo.add_argument("--no-delay", action="store_true", help="print every change at once")
    demo.set_defaults(handler=_demo)
    add_commands(commands)
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except KeyboardInterrupt:  # between the commands' own handlers: stop quietly
        return 130
    except BrokenPipeError:  # `| head`: the reader has gone
        sys.stderr.close()  # nothing more can be said, and Python must not complain at exit
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
