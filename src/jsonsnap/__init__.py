"""jsonsnap: turn a stream of JSON fragments into a live value.

>>> import jsonsnap
>>> p = jsonsnap.Parser()
>>> p.feed('{"path": "ca')
>>> p.snapshot()
{'path': 'ca'}
>>> p.feed('lc.py", "con')
>>> p.snapshot()
{'path': 'calc.py'}
>>> p.feed('tent": "print(1)\\\\n"}')
>>> p.close()
{'path': 'calc.py', 'content': 'print(1)\\n'}

:class:`Parser` keeps its state between fragments, so ``feed()`` costs time proportional to the
fragment; :meth:`Parser.snapshot` shows the best-effort value so far, and :meth:`Parser.close`
returns the strict final value, identical to ``json.loads`` of the whole text.
"""

from ._changes import ANY, Appended, Change, Completed, Path, Started, matches, replay
from ._errors import JSONDecodeError
from ._parser import Parser, loads, parse_partial

__all__ = [
    "ANY",
    "Appended",
    "Change",
    "Completed",
    "JSONDecodeError",
    "Parser",
    "Path",
    "Started",
    "loads",
    "matches",
    "parse_partial",
    "replay",
]
__version__ = "0.1.0"
