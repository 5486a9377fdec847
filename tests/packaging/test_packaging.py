"""What the package ships, and the project's versions and commands that must agree.

- The wheel holds the library and its demo recording (package data), and nothing developers
  use: no dependencies, no extras.
- The sdist is the whole source, tests and fixtures included, and builds the same wheel.
- A compiled wheel built in a checkout leaves no extension module in ``src/`` (``hatch_build.py``).
- ``pyproject.toml``, ``jsonsnap.__version__`` and the CHANGELOG name the same version.

The wheel and the sdist are built by the build backend named in ``pyproject.toml`` through its
PEP 517 hooks, as pip and ``python -m build`` call them, in a subprocess: a fraction of a second
each, without a network or an isolated environment (``hatchling`` is in the ``test`` group).
"""

from __future__ import annotations

import configparser
import importlib.resources
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
from email.parser import HeaderParser
from pathlib import Path
from typing import Any, Final
from zipfile import ZipFile

import pytest

import jsonsnap
import paths

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT: Final = paths.ROOT
PYPROJECT: Final[dict[str, Any]] = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
#: The recording the demo plays, and its copy shipped in the package.
FIXTURE: Final = ROOT / "fixtures" / "anthropic" / "text_then_write_file.sse"
EXAMPLE: Final = ROOT / "src" / "jsonsnap" / "examples" / "text_then_write_file.sse"
#: What the sdist holds besides ``PKG-INFO``: these files, and every file in these folders.
SDIST_FILES: Final = (
    ".gitignore",  # (hatchling puts it in every sdist: it says what the build leaves out)
    "CHANGELOG.md",
    "LICENSE",
    "README.md",
    "dev.py",
    "hatch_build.py",  # (the build hook that cleans up after the compiled wheel)
    "pyproject.toml",
)
SDIST_FOLDERS: Final = ("benchmarks", "docs", "examples", "fixtures", "src", "tests")
#: What a checkout has that the sdist leaves out: CI, git's files, and what tools make.
NOT_IN_SDIST: Final = (".ci/", ".gitattributes")


def build(hook: str, directory: Path, source: Path = ROOT) -> Path:
    """Call the build backend's ``hook`` (``build_wheel``, ``build_sdist``) on the project in
    ``source``, as a build frontend does; the path of what it built."""
    backend = PYPROJECT["build-system"]["build-backend"]
    script = "import importlib, sys; print(getattr(importlib.import_module(sys.argv[1]), "
    script += "sys.argv[2])(sys.argv[3]))"
    out = subprocess.run(
        [sys.executable, "-c", script, backend, hook, str(directory)],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, f"{backend}.{hook} failed:\n{out.stderr}"
    return directory / out.stdout.splitlines()[-1]


def read_wheel(path: Path) -> dict[str, bytes]:
    with ZipFile(path) as wheel:
        return {name: wheel.read(name) for name in wheel.namelist()}


def tree_files(*folders: str) -> set[str]:
    """The files under ``folders`` of the checkout, as paths relative to it, without the
    bytecode Python writes there and the packages the test command installs for the tests that
    run a JavaScript client (``node_modules``)."""
    found = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*"):
            parts = path.parts
            if (
                path.is_file()
                and "__pycache__" not in parts
                and "node_modules" not in parts
                and ".hypothesis" not in parts
                and path.suffix != ".pyc"
            ):
                found.add(path.relative_to(ROOT).as_posix())
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The wheel built from the checkout: its files and their contents."""
    return read_wheel(build("build_wheel", tmp_path_factory.mktemp("wheel")))


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build("build_sdist", tmp_path_factory.mktemp("sdist"))


@pytest.fixture(scope="module")
def sdist_files(sdist: Path) -> set[str]:
    """The files in the sdist, relative to its top folder (``jsonsnap-VERSION/``)."""
    with tarfile.open(sdist) as archive:
        names = [member.name for member in archive.getmembers() if member.isfile()]
    top = f"jsonsnap-{jsonsnap.__version__}/"
    assert all(name.startswith(top) for name in names), names
    return {name.removeprefix(top) for name in names}


def test_the_shipped_recording_is_the_fixture() -> None:
    assert EXAMPLE.read_bytes() == FIXTURE.read_bytes(), (
        f"{EXAMPLE.relative_to(ROOT)} must be a copy of {FIXTURE.relative_to(ROOT)}: "
        f"cp {FIXTURE.relative_to(ROOT)} {EXAMPLE.relative_to(ROOT)}"
    )


def test_the_recording_is_package_data() -> None:
    # How the command line finds it in an install, a wheel or a checkout alike.
    example = importlib.resources.files("jsonsnap") / "examples" / "text_then_write_file.sse"
    assert example.read_bytes() == FIXTURE.read_bytes()


def test_the_wheel_holds_the_package_and_its_recording(wheel: dict[str, bytes]) -> None:
    dist_info = f"jsonsnap-{jsonsnap.__version__}.dist-info/"
    package = {name for name in wheel if not name.startswith(dist_info)}
    assert package == {path.removeprefix("src/") for path in tree_files("src/jsonsnap")}
    assert wheel["jsonsnap/examples/text_then_write_file.sse"] == FIXTURE.read_bytes()
    assert "jsonsnap/py.typed" in wheel


def test_the_wheel_publishes_no_dependencies_and_no_extras(wheel: dict[str, bytes]) -> None:
    dist_info = f"jsonsnap-{jsonsnap.__version__}.dist-info/"
    metadata = HeaderParser().parsestr(wheel[dist_info + "METADATA"].decode())
    assert metadata["Name"] == "jsonsnap"
    assert metadata["Version"] == jsonsnap.__version__
    assert metadata["Requires-Python"] == ">=3.10"
    assert metadata.get_all("Requires-Dist") is None
    assert metadata.get_all("Provides-Extra") is None
    # The developers' tools are dependency groups, which never reach the metadata.
    assert "optional-dependencies" not in PYPROJECT["project"]
    assert {"test", "lint", "bench"} <= set(PYPROJECT["dependency-groups"])
    entry_points = configparser.ConfigParser(delimiters=("=",))
    entry_points.read_string(wheel[dist_info + "entry_points.txt"].decode())
    assert entry_points["console_scripts"]["jsonsnap"] == "jsonsnap.__main__:main"


def test_the_sdist_is_the_whole_source(sdist_files: set[str]) -> None:
    expected = {"PKG-INFO", *SDIST_FILES} | tree_files(*SDIST_FOLDERS)
    assert sdist_files == expected, (
        f"missing: {sorted(expected - sdist_files)}; unexpected: {sorted(sdist_files - expected)}"
    )
    assert "tests/packaging/test_packaging.py" in sdist_files
    assert "fixtures/anthropic/text_then_write_file.sse" in sdist_files


def git_checkout() -> None:
    """Skip the test outside a git checkout (in an unpacked sdist)."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout (an unpacked sdist?)")


def test_the_sdist_misses_no_file_of_the_checkout(sdist_files: set[str]) -> None:
    # A folder added at the top (and needed by the tests) must be added to the sdist too.
    git_checkout()
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    tracked = {path for path in listed if path and (ROOT / path).is_file()}
    left_out = {path for path in tracked if path.startswith(NOT_IN_SDIST)}
    assert tracked - left_out - sdist_files == set()


def test_the_sdist_builds_the_same_wheel(
    sdist: Path, wheel: dict[str, bytes], tmp_path: Path
) -> None:
    # What pip does with an sdist: unpack it and build the wheel there.
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(tmp_path / "src", filter="data")
        else:  # Python 3.10 before 3.10.12
            archive.extractall(tmp_path / "src")
    (source,) = (tmp_path / "src").iterdir()
    (tmp_path / "wheel").mkdir()
    assert read_wheel(build("build_wheel", tmp_path / "wheel", source)) == wheel


def test_readme_images_fall_back_to_their_text(sdist_files: set[str]) -> None:
    # On a package index the relative links of the README's images would not resolve (there is
    # no public address for the repository yet), so the front page has none; the pictures are
    # on the pages of docs/. Each image's text must say what the image shows, and in the sdist
    # its link resolves.
    front = re.findall(r"!\[([^\]]*)\]\(([^)\s]+)\)", (ROOT / "README.md").read_text("utf-8"))
    assert all("://" in target for _, target in front), front
    images = [
        (text, str((page.parent / target).relative_to(ROOT)))
        for page in sorted((ROOT / "docs").glob("*.md"))
        for text, target in re.findall(r"!\[([^\]]*)\]\(([^)\s]+)\)", page.read_text("utf-8"))
    ]
    assert images
    for text, target in images:
        assert len(text.split()) >= 5, f"{target}: the image's text says too little: {text!r}"
        if "://" not in target:
            assert target in sdist_files, target


def test_versions_agree() -> None:
    assert PYPROJECT["project"]["version"] == jsonsnap.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text("utf-8")
    latest = re.search(r"^## \[(?P<version>[^\]]+)\]", changelog, re.MULTILINE)
    assert latest is not None
    # The newest entry names the version the code has (with "unreleased" for its date until
    # it is released), rather than "[Unreleased]" above a version the code already carries.
    assert latest["version"] == jsonsnap.__version__


def _group(name: str) -> set[str]:
    """A dependency group's requirements, with the groups it includes (PEP 735)."""
    out: set[str] = set()
    for entry in PYPROJECT["dependency-groups"][name]:
        out |= _group(entry["include-group"]) if isinstance(entry, dict) else {entry}
    return out


def test_the_tests_build_with_the_backend_pip_builds_with() -> None:
    # The test group (through the compile group) brings the build backend at the range
    # [build-system] requires, and what the compiled build needs.
    requires = PYPROJECT["build-system"]["requires"]
    assert set(requires) <= _group("compile") <= _group("test")


def test_ci_runs_the_readme_test_command() -> None:
    git_checkout()  # .ci/ is not in the sdist
    script = (ROOT / ".ci" / "run").read_text("utf-8")
    commands = [line.removeprefix("exec ") for line in script.splitlines() if line[:5] == "exec "]
    assert commands == ["python3 dev.py test"]
    readme = (ROOT / "README.md").read_text("utf-8")
    assert re.search(rf"^{re.escape(commands[0])}\s", readme, re.MULTILINE)
    assert os.access(ROOT / ".ci" / "run", os.X_OK) or os.name == "nt"


@pytest.mark.parametrize("version", ["standard", "editable"])
def test_a_compiled_wheel_leaves_no_extension_module_in_src(tmp_path: Path, version: str) -> None:
    # What the mypyc hook leaves in place (its artefacts and its shared library), as
    # hatch_build.py's hook sees them once the wheel is written: removed, but for an editable
    # install, which runs from them. A file the build did not make stays.
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook_module)
    compiled = (
        tmp_path / "src" / "jsonsnap" / "_parse" / "automaton.cpython-311-x86_64-linux-gnu.so"
    )
    shared = tmp_path / "src" / "abc__mypyc.cpython-311-x86_64-linux-gnu.so"
    other = tmp_path / "src" / "jsonsnap" / "kept.so"
    compiled.parent.mkdir(parents=True)
    for path in (compiled, shared, other):
        path.write_bytes(b"")
    build_data = {
        "pure_python": False,
        "artifacts": ["/src/jsonsnap/_parse/automaton.*.so", "/src/jsonsnap/_parse/grammar.*.so"],
        "force_include": {str(shared): shared.name},
    }
    hook = hook_module.CompiledInPlace(str(tmp_path), {}, None, None, str(tmp_path), "wheel")
    hook.finalize(version, build_data, str(tmp_path / "jsonsnap.whl"))
    left = {p.name for p in (compiled, shared, other) if p.exists()}
    assert left == (
        {other.name} if version == "standard" else {compiled.name, shared.name, other.name}
    )
