"""A build hook that leaves the source tree as it found it once the compiled wheel is made.

The mypyc hook (``[tool.hatch.build.targets.wheel.hooks.mypyc]`` in ``pyproject.toml``)
compiles the modules in place: their extension modules land in ``src/`` beside the source,
and the wheel takes them from there. Left behind, Python would import them instead of the
source, so that a checkout that built the compiled wheel would silently run the compiled build
from ``src/``. Once the wheel is written, this hook removes them: the files the build recorded
as its artefacts and forced inclusions under ``src/``. An editable install keeps them (it runs
from them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED_SUFFIXES = (".so", ".pyd")


class CompiledInPlace(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "compiled-in-place"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if version == "editable" or build_data.get("pure_python", True):
            return
        source = Path(self.root, "src").resolve()
        found = {
            path
            for pattern in build_data.get("artifacts", ())
            for path in Path(self.root).glob(pattern.lstrip("/"))
        }
        found.update(Path(path) for path in build_data.get("force_include", {}))
        for path in (p.resolve() for p in found):
            if path.name.endswith(COMPILED_SUFFIXES) and path.is_relative_to(source):
                path.unlink(missing_ok=True)
