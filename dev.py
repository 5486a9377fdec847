#!/usr/bin/env python3
"""Project tasks that work on a fresh clone with only Python and pip.

    python3 dev.py demo    # replay a recorded tool call that writes a file, with its live preview
    python3 dev.py test    # the test suite on the pure build, then on the compiled build when
                           # a C compiler is there; then mypy --strict and ruff
    python3 dev.py bench   # the benchmarks against json.loads and the peers (see README),
                           # with the pure and the compiled build side by side when a C
                           # compiler is there; --build pure|compiled|both chooses

Each task creates ``.venv`` in the checkout on first use and installs jsonsnap into it
(editable), with the dependency groups of ``pyproject.toml`` the task needs (``test`` and
``lint`` for ``test``, ``bench`` for ``bench``, with ``compile`` too when it builds the
compiled build). It installs again only when what it installed
from changes: the ``[build-system]``, ``[project]`` or ``[dependency-groups]`` tables (on
Python 3.10, which has no ``tomllib``, any change to ``pyproject.toml``). ``test`` also
installs, where it can, what the tests of the web front end use: the node packages of
``tests/js`` (``npm ci``) and Chromium (apt-get, as root); without them those tests skip.
After the suite passes on the pure build (the source), ``test`` builds the compiled wheel
(mypyc, through the build backend's hook) into ``build/compiled`` and runs the suite's tests
again against it; without a C compiler it says so and tests the pure build only. ``bench``
builds it too and measures it beside the pure build (``--build both``, the default when it can
be built; else the pure build only, saying why); ``--build pure`` measures the pure build only,
``--build compiled`` the compiled build only (the whole run on it).
``pip install --group``
needs pip 25.1, so the pip inside ``.venv`` (never another) is upgraded first when it is older.
``JSONSNAP_VENV`` names another environment folder (relative to the checkout), for another
Python beside the first: ``JSONSNAP_VENV=.venv-3.13 python3.13 dev.py bench``.
Extra arguments go to the tool (``pytest`` for ``test``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / (os.environ.get("JSONSNAP_VENV") or ".venv")
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
#: The first pip with ``pip install --group`` (PEP 735 dependency groups).
PIP_WITH_GROUPS = (25, 1)


def install_inputs(groups: tuple[str, ...]) -> bytes:
    """What an install of ``groups`` depends on, to tell when it must be done again."""
    text = (ROOT / "pyproject.toml").read_bytes()
    if sys.version_info >= (3, 11):
        import tomllib

        config = tomllib.loads(text.decode())
        tables = ("build-system", "project", "dependency-groups")
        text = json.dumps({name: config.get(name) for name in tables}, sort_keys=True).encode()
    return text + json.dumps(groups).encode()


def pip_version() -> tuple[int, ...]:
    """The version of the pip in ``.venv``, as ``(major, minor)``."""
    out = subprocess.run(
        [str(PYTHON), "-m", "pip", "--version"], capture_output=True, text=True, check=True
    ).stdout  # "pip 23.2.1 from ... (python 3.11)"
    return tuple(int(part) for part in re.findall(r"\d+", out.split()[1])[:2])


def ensure_env(*groups: str) -> None:
    """Create the virtual environment, and install the project with ``groups`` when needed."""
    if not PYTHON.exists():
        print(f"creating {VENV.relative_to(ROOT)} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256(install_inputs(groups)).hexdigest()
    stamp = VENV / f".installed-{'+'.join(groups) or 'base'}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    pip = [str(PYTHON), "-m", "pip", "--disable-pip-version-check", "-q"]
    if groups and pip_version() < PIP_WITH_GROUPS:
        print(f"upgrading pip in {VENV.name} (dependency groups need pip 25.1) ...", flush=True)
        subprocess.run([*pip, "install", "--upgrade", "pip>=25.1"], cwd=ROOT, check=True)
    options = [arg for group in groups for arg in ("--group", group)]
    print(f"installing {' '.join(['jsonsnap', *options])} into {VENV.name} ...", flush=True)
    subprocess.run([*pip, "install", "-e", ".", *options], cwd=ROOT, check=True)
    stamp.write_text(digest)


def ensure_browser_tools() -> None:
    """What the tests of the web front end use, each when it can be had (else those tests
    skip and say why): the ``ai`` package and ``playwright-core`` in ``tests/js`` (``npm ci``,
    again when ``package-lock.json`` changes), and Chromium (Debian's ``chromium``, installed
    with apt-get when running as root)."""
    js = ROOT / "tests" / "js"
    npm = shutil.which("npm")
    if npm and shutil.which("node"):
        lock = (js / "package-lock.json").read_bytes()
        stamp = js / "node_modules" / ".installed-lock"
        digest = hashlib.sha256(lock).hexdigest()
        if not (stamp.exists() and stamp.read_text() == digest):
            print("installing the test packages of tests/js (npm ci) ...", flush=True)
            env = {**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
            done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=js, env=env)
            if done.returncode == 0:
                stamp.write_text(digest)
            else:
                print("npm ci failed: the tests that need node will skip", flush=True)
    chromium = Path("/usr/bin/chromium")
    apt = shutil.which("apt-get")
    if not chromium.exists() and apt and hasattr(os, "geteuid") and os.geteuid() == 0:
        print("installing chromium (apt-get) ...", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for step in (["update", "-q"], ["install", "-y", "-q", "chromium"]):
            done = subprocess.run([apt, *step], env=env, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            print("chromium could not be installed: the browser test will skip", flush=True)


def run(*cmd: str, env: dict[str, str] | None = None) -> int:
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def build_compiled() -> Path | None:
    """The compiled build, unpacked into ``build/compiled`` (the wheel the build backend makes
    with its mypyc hook on); ``None``, saying why, when it cannot be made (no C compiler)."""
    out = ROOT / "build" / "compiled"
    wheels = ROOT / "build" / "compiled-wheel"
    # A copy of the source: mypy's cache and the build's own files stay out of the checkout.
    source = ROOT / "build" / "compiled-source"
    for folder in (out, wheels, source):
        shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "hatch_build.py"):
        shutil.copy2(ROOT / name, source / name)
    print("building the compiled wheel (mypyc) ...", flush=True)
    env = {**os.environ, "HATCH_BUILD_HOOK_ENABLE_MYPYC": "1"}
    cmd = [str(PYTHON), "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    done = subprocess.run(
        [*cmd, "-w", str(wheels), "."], cwd=source, env=env, capture_output=True, text=True
    )
    built = sorted(wheels.glob("jsonsnap-*.whl"))
    if done.returncode != 0 or not built:
        lines = done.stderr.strip().splitlines() or ["(no output)"]
        # The compiler's failure, rather than pip's own lines about a failed subprocess.
        said = [line.strip() for line in lines if line.strip().startswith("error: command")]
        said = said or [line.strip() for line in lines if "error" in line.lower()] or lines
        print(f"no compiled build, the pure one only (a C compiler?): {said[-1]}", flush=True)
        return None
    shutil.unpack_archive(built[0], out, "zip")
    return out


def _build_option(args: list[str]) -> tuple[str | None, list[str]]:
    """``--build pure|compiled|both`` taken out of ``args`` (``None`` when not given: ``both``
    when the compiled build can be made, else ``pure``)."""
    rest = list(args)
    build: str | None = None
    for i, arg in enumerate(rest):
        if arg == "--build" and i + 1 < len(rest):
            build = rest[i + 1]
            del rest[i : i + 2]
            break
        if arg.startswith("--build="):
            build = arg.split("=", 1)[1]
            del rest[i]
            break
    if build not in (None, "pure", "compiled", "both"):
        raise SystemExit(f"--build is pure, compiled or both, not {build!r}")
    return build, rest


def main(argv: list[str]) -> int:
    task, args = (argv[0], argv[1:]) if argv else ("help", [])
    if task == "demo":
        ensure_env()
        fixture = "fixtures/anthropic/text_then_write_file.sse"
        return run(str(PYTHON), "-m", "jsonsnap", "replay", fixture, *args)
    if task == "test":
        ensure_env("test", "lint")
        ensure_browser_tools()
        # One worker per core (pytest-xdist), unless the arguments say how many.
        told = any(arg.startswith(("-n", "--numprocesses")) for arg in args)
        workers = [] if told else ["-n", "auto"]
        print("== the tests, on the pure build ==", flush=True)
        env = {**os.environ, "JSONSNAP_EXPECT_BUILD": "pure"}
        status = run(str(PYTHON), "-m", "pytest", *workers, *args, env=env)
        compiled = build_compiled() if status == 0 else None
        if compiled is not None:
            print(f"== the tests, on the compiled build ({compiled}) ==", flush=True)
            path = os.pathsep.join(filter(None, [str(compiled), os.environ.get("PYTHONPATH")]))
            env = {**env, "JSONSNAP_EXPECT_BUILD": "compiled", "PYTHONPATH": path}
            # tests/ only: the docstrings' examples are of the source, run on the pure build.
            status = run(str(PYTHON), "-m", "pytest", *workers, *args, "tests", env=env)
        if status == 0:
            status = run(str(PYTHON), "-m", "mypy")
        if status == 0:
            status = run(str(PYTHON), "-m", "ruff", "check", ".")
        if status == 0:
            status = run(str(PYTHON), "-m", "ruff", "format", "--check", ".")
        return status
    if task == "bench":
        asked, args = _build_option(args)
        listing = any(arg in ("--list", "-h", "--help") for arg in args)
        build = asked or ("pure" if listing else "both")
        # The compiled build needs the build backend, its hook and mypy (the compile group).
        ensure_env("bench", *(("compile",) if build != "pure" else ()))
        env = {**os.environ, "JSONSNAP_EXPECT_BUILD": "pure"}
        compiled = build_compiled() if build != "pure" else None
        if compiled is None and build != "pure":
            if asked is not None:
                return 1
            print("measuring the pure build only (no compiled build, see above)", flush=True)
        elif compiled is not None and build == "compiled":
            path = os.pathsep.join(filter(None, [str(compiled), os.environ.get("PYTHONPATH")]))
            env = {**env, "JSONSNAP_EXPECT_BUILD": "compiled", "PYTHONPATH": path}
        elif compiled is not None:
            args = ["--compiled", str(compiled.relative_to(ROOT)), *args]
        return run(str(PYTHON), "benchmarks/run.py", *args, env=env)
    print(__doc__)
    return 0 if task in ("help", "-h", "--help") else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
