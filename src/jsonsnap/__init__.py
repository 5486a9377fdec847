"""jsonsnap: turn a stream of JSON fragments into a live value.

>>> import jsonsnap
>>> p = jsonsnap.Parser()
>>> p.feed('{"path": "ca')  # True: the snapshot changed
True
>>> p.snapshot()
{'path': 'ca'}
>>> p.feed('lc.py", "con')
True
>>> p.snapshot()
{'path': 'calc.py'}
>>> p.feed('tent": "print(1)\\\\n"}')
True
>>> p.close()
{'path': 'calc.py', 'content': 'print(1)\\n'}

:class:`Parser` keeps its state between fragments, so ``feed()`` costs time proportional to the
fragment; :meth:`Parser.snapshot` shows the best-effort value so far, and :meth:`Parser.close`
returns the strict final value, identical to ``json.loads`` of the whole text.

>>> jsonsnap.parse_partial('[1, 2, {"a": "unfini')
[1, 2, {'a': 'unfini'}]
>>> jsonsnap.loads('[1,]')
Traceback (most recent call last):
  ...
jsonsnap.JSONDecodeError: Illegal trailing comma before end of array: line 1 column 4 (char 3)
"""

from typing import TYPE_CHECKING, Any

from ._errors import (
    JSONDecodeError,
    ParserStateError,
    SchemaDefinitionError,
    SchemaError,
    SchemaWarning,
)
from ._parse import automaton as _automaton
from ._parse.changes import ANY, Appended, Change, Completed, Path, Started, matches, replay
from ._parse.oneshot import loads, parse_partial
from ._parse.parser import Parser
from ._parse.repairs import REPAIRS, Repair
from ._parse.values import aiter_values, iter_values

if TYPE_CHECKING:
    from ._schema.from_types import NOT_YET
    from ._schema.schema import Schema
    from ._schema.side import FieldState

__all__ = [
    "ANY",
    "NOT_YET",
    "REPAIRS",
    "Appended",
    "Change",
    "Completed",
    "FieldState",
    "JSONDecodeError",
    "Parser",
    "ParserStateError",
    "Path",
    "Repair",
    "Schema",
    "SchemaDefinitionError",
    "SchemaError",
    "SchemaWarning",
    "Started",
    "aiter_values",
    "iter_values",
    "loads",
    "matches",
    "parse_partial",
    "replay",
]
__version__ = "0.1.0"

#: The names of the schema layer, loaded when first asked for: ``import jsonsnap`` loads no
#: schema module until a schema is given (or one of these is used).
_LAZY = {
    "FieldState": "side",
    "NOT_YET": "from_types",
    "Schema": "schema",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"._schema.{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY} - {"Any", "TYPE_CHECKING"})


#: Which build is imported: ``"compiled"`` when the parser's modules are compiled extension
#: modules, ``"pure"`` when they are the Python source (the same behaviour either way).
__build__ = "pure" if _automaton.__file__.endswith(".py") else "compiled"
