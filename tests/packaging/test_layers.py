"""The package's layers, as its imports and sizes show them.

* No import cycle at load time inside ``src/jsonsnap``. The imports a module runs when it is
  loaded (at its top level, in a class body, under ``try`` or ``if``; not inside a function,
  not under ``if TYPE_CHECKING:``) are read with ``ast``; each points at the module it names
  (``from . import sse``: ``jsonsnap.sse``) or, for a name that is no module, at the module it
  is read from (``from .. import loads``: ``jsonsnap``). They must form no cycle, and a cycle
  found is named module by module, with the line of each import.
* The imports point one way, down the layers of :data:`LAYERS`: the errors and the one JSON
  writer, the wire formats, the parser, the schemas, the accumulator contract, the providers,
  the command line. No provider imports another, but Bedrock may import Anthropic.
* ``import jsonsnap.<provider>``, in a fresh interpreter, loads no other provider (Bedrock may
  load Anthropic, whose messages it streams).
* ``import jsonsnap`` loads no module of ``jsonsnap._schema`` until a ``Parser(schema=...)`` is
  made.
* No module of ``src/`` or ``benchmarks/`` is over 500 lines, and no function over 60 (from its
  ``def`` to its last line, read with ``ast``).

The fresh interpreters import the build the tests run on (the pure one, or the compiled one on
``PYTHONPATH``); the imports and sizes are read from the source.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

import jsonsnap
import paths

SOURCE: Final = paths.ROOT / "src"
PACKAGE: Final = SOURCE / "jsonsnap"
#: The providers, each a module or a package of ``jsonsnap``, and the others each may load.
PROVIDERS: Final = ("anthropic", "bedrock", "gemini", "openai", "vercel")
MAY_LOAD: Final = {"bedrock": {"anthropic"}}
#: The layers, from the bottom: each module belongs to the first whose names (a module, or a
#: package and everything in it) hold it, and imports at load time only from its own layer or
#: those below. ``jsonsnap`` itself is the parser's public face.
LAYERS: Final = (
    ("errors and JSON text", ("jsonsnap._errors", "jsonsnap._jsontext")),
    ("wire formats", ("jsonsnap.sse", "jsonsnap._eventstream")),
    ("parser", ("jsonsnap", "jsonsnap._parse")),
    ("schemas", ("jsonsnap._schema",)),
    ("accumulator contract", ("jsonsnap._streams", "jsonsnap.streams")),
    ("providers", tuple(f"jsonsnap.{provider}" for provider in PROVIDERS)),
    ("command line", ("jsonsnap._cli", "jsonsnap.__main__")),
)
MODULE_LINES: Final = 500
FUNCTION_LINES: Final = 60

# --------------------------------------------------------------------------- import cycles


def module_name(path: Path) -> str:
    """``jsonsnap._parse.parser`` for src/jsonsnap/_parse/parser.py (a package: its folder)."""
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def load_time_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that run when the module is loaded (no function bodies, no
    ``if TYPE_CHECKING:`` branch), walked with a stack."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend(node.orelse)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def _base(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` reads from."""
    if not node.level:
        return node.module or ""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def import_graph() -> dict[str, dict[str, int]]:
    """For each module of the package, the modules of the package it imports when it is
    loaded, each with the line of the (first) import."""
    known = modules()
    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        edges: dict[str, int] = {}
        for node in load_time_imports(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(name, path, node)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in node.names
                ]
            for target in targets:
                if target in known and target != name:
                    edges.setdefault(target, node.lineno)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One shortest cycle through each module that is on a cycle (each cycle once)."""
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    for start in sorted(graph):
        paths_from: dict[str, list[str]] = {start: [start]}
        queue = [start]
        cycle: list[str] | None = None
        while queue and cycle is None:
            nxt: list[str] = []
            for here in queue:
                for there in sorted(graph[here]):
                    if there == start:
                        cycle = [*paths_from[here], start]
                        break
                    if there not in paths_from:
                        paths_from[there] = [*paths_from[here], there]
                        nxt.append(there)
                if cycle is not None:
                    break
            queue = nxt
        if cycle is not None and frozenset(cycle) not in seen:
            seen.add(frozenset(cycle))
            found.append(cycle)
    return found


def named(cycle: list[str], graph: dict[str, dict[str, int]]) -> str:
    steps = [f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(cycle)]
    return " -> ".join([*steps, cycle[-1]])


def test_the_imports_read_are_those_run_at_load_time() -> None:
    tree = ast.parse(
        "from __future__ import annotations\n"
        "import a\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import b\n"
        "else:\n"
        "    import c\n"
        "try:\n"
        "    import d\n"
        "except ImportError:\n"
        "    import e\n"
        "class K:\n"
        "    import f\n"
        "    def method(self):\n"
        "        import g\n"
        "def function():\n"
        "    import h\n"
    )
    names = {alias.name for node in load_time_imports(tree) for alias in node.names}
    assert names == {"annotations", "a", "TYPE_CHECKING", "c", "d", "e", "f"}


def test_a_cycle_is_named_with_its_lines() -> None:
    graph = {"p.a": {"p.b": 3}, "p.b": {"p.c": 5}, "p.c": {"p.a": 7}, "p.d": {"p.a": 1}}
    assert [named(cycle, graph) for cycle in cycles(graph)] == [
        "p.a (line 3) -> p.b (line 5) -> p.c (line 7) -> p.a"
    ]
    assert cycles({"p.a": {"p.b": 1}, "p.b": {}}) == []


def test_the_import_graph_is_the_packages() -> None:
    graph = import_graph()
    assert set(graph) == set(modules()) and "jsonsnap" in graph
    assert any(target.startswith("jsonsnap._cli") for target in graph["jsonsnap.__main__"])


def test_no_import_cycle_at_load_time() -> None:
    graph = import_graph()
    found = [named(cycle, graph) for cycle in cycles(graph)]
    assert not found, "import cycles at load time:\n" + "\n".join(found)


def layer_of(module: str) -> int | None:
    """The number of the layer that holds ``module``: the first naming it or a package it is
    in (``jsonsnap`` names the package's ``__init__`` only)."""
    for number, (_, names) in enumerate(LAYERS):
        for name in names:
            if module == name or (name != "jsonsnap" and module.startswith(f"{name}.")):
                return number
    return None


def test_every_module_is_in_a_layer() -> None:
    assert [name for name in modules() if layer_of(name) is None] == []


def test_imports_point_down_the_layers() -> None:
    graph = import_graph()
    up = []
    for module, edges in sorted(graph.items()):
        here = layer_of(module)
        for target, line in sorted(edges.items()):
            there = layer_of(target)
            if here is None or there is None:
                continue  # said by the test above
            mine, theirs = provider_of(module), provider_of(target)
            allowed = {mine, *MAY_LOAD.get(mine, ())} if mine is not None else set()
            if there > here or (mine is not None and theirs is not None and theirs not in allowed):
                up.append(f"{module} (line {line}, {LAYERS[here][0]}) imports {target} "
                          f"({LAYERS[there][0]})")  # fmt: skip
    assert not up, "imports against the layers:\n" + "\n".join(up)


# --------------------------------------------------------------------------- fresh interpreters


def loaded_after(code: str) -> object:
    """What ``code`` prints (as JSON) in a fresh interpreter that imports this jsonsnap."""
    where = Path(jsonsnap.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(where)}
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=where,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def provider_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "jsonsnap" and parts[1] in PROVIDERS else None


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_provider_loads_no_other(provider: str) -> None:
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module('jsonsnap.{provider}')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = loaded_after(code)
    assert isinstance(loaded, list)
    assert f"jsonsnap.{provider}" in loaded
    others = sorted(
        module
        for module in loaded
        if provider_of(module) not in (None, provider, *MAY_LOAD.get(provider, ()))
    )
    assert not others, f"import jsonsnap.{provider} loads {others}"


SCHEMA_LOADS: Final = """
import json, sys
import jsonsnap

def schema_modules():
    return sorted(m for m in sys.modules if m.split(".")[:2] == ["jsonsnap", "_schema"])

seen = {"import jsonsnap": schema_modules()}
parser = jsonsnap.Parser()
parser.feed('{"a": [1, "two"]}')
parser.close()
seen["Parser() without a schema"] = schema_modules()
jsonsnap.Parser(schema={"type": "object"})
seen["Parser(schema=...)"] = schema_modules()
print(json.dumps(seen))
"""


def test_no_schema_module_until_a_schema_is_given() -> None:
    seen = loaded_after(SCHEMA_LOADS)
    assert isinstance(seen, dict)
    assert seen["import jsonsnap"] == [], seen
    assert seen["Parser() without a schema"] == [], seen
    assert seen["Parser(schema=...)"], "a schema loads the schema side (else this proves nothing)"


# --------------------------------------------------------------------------- sizes


def sources() -> list[Path]:
    return sorted([*PACKAGE.rglob("*.py"), *(paths.ROOT / "benchmarks").rglob("*.py")])


def test_no_module_over_500_lines() -> None:
    long = {
        str(path.relative_to(paths.ROOT)): lines
        for path in sources()
        if (lines := len(path.read_text("utf-8").splitlines())) > MODULE_LINES
    }
    assert not long, f"modules over {MODULE_LINES} lines: {long}"


def test_no_function_over_60_lines() -> None:
    long = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LINES:
                    where = f"{path.relative_to(paths.ROOT)}:{node.lineno}"
                    long.append(f"{where} {node.name} ({lines} lines)")
    assert not long, f"functions over {FUNCTION_LINES} lines:\n" + "\n".join(long)
