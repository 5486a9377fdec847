"""The groups of the path users take, for ``run.py``: ``U``, ``N`` and ``K``.

- ``U`` (``accumulator.py``): a provider's stream read by the accumulator, per event, against
  the hand-written loop and the bare parser;
- ``N`` (``gateway.py``): many streams open at once, interleaved: streams per core and memory
  per open stream;
- ``K`` (``sdk.py``): the official ``anthropic`` SDK's own stream accumulation on the same
  bytes.

Each runs on the pure build in ``run.py``'s process and, with ``--compiled DIR``, on the
compiled build in a worker process beside it (``sides.py``), in interleaved rounds. This module
runs those asked for, in that order, and gives ``run.py`` their sections, their target lines
(one per group and build) and their records for ``docs/benchmarks.json``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import accumulator
import gateway
import sdk
from builds import expected_build
from sides import rounds_for
from targets import Target

GROUPS = (accumulator.GROUP, gateway.GROUP, sdk.GROUP)
SDK_MODULES = ("anthropic", "httpx2")
"""What group ``K`` imports (the ``anthropic`` SDK and its HTTP client)."""


def sdk_missing() -> str | None:
    """Why group ``K`` cannot run here, if it cannot."""
    absent = [name for name in SDK_MODULES if importlib.util.find_spec(name) is None]
    return f"not installed: {', '.join(absent)}" if absent else None


@dataclass
class Found:
    """What the groups found: their rows, the builds measured, what was not run and why."""

    builds: list[str] = field(default_factory=lambda: ["pure"])
    accumulator: list[accumulator.Row] | None = None
    gateway: list[gateway.Row] | None = None
    sdk: list[sdk.Row] | None = None
    skipped: dict[str, str] = field(default_factory=dict)

    def targets(self) -> list[Target]:
        """One line per group asked for and build; ``N/A`` for a group not run."""
        out: list[Target] = []
        for build in self.builds:
            out.append(
                line(
                    f"accumulator / hand loop <= {accumulator.LIMIT:g}x (Anthropic and Chat "
                    f"Completions, A and B 1 MB), {build} build",
                    None
                    if self.accumulator is None
                    else accumulator.summary(self.accumulator, build),
                )
            )
            out.append(
                line(
                    f"streams per core at {gateway.RATE} tokens / s >= "
                    f"{gateway.TARGETS[build]:,} (100 and 1,000 streams), {build} build",
                    None if self.gateway is None else gateway.summary(self.gateway, build),
                )
            )
            out.append(
                line(
                    f"against the anthropic SDK: >= {sdk.SMALL_LIMIT:g}x faster on A, a lower "
                    f"growth exponent on B, {build} build",
                    None if self.sdk is None else sdk.summary(self.sdk, build),
                    self.skipped.get(sdk.GROUP),
                )
            )
        return out

    def record(self) -> dict[str, Any]:
        """For ``docs/benchmarks.json``."""

        def rows(found: Sequence[Any] | None) -> list[dict[str, Any]] | None:
            return None if found is None else [asdict(r) for r in found]

        return {
            "builds": self.builds,
            "accumulator": rows(self.accumulator),
            "gateway": rows(self.gateway),
            "sdk": rows(self.sdk),
            "skipped": self.skipped,
        }


def line(name: str, found: tuple[bool | None, str] | None, why: str | None = None) -> Target:
    if found is None:
        return Target(name, None, f"not run ({why})" if why else "not run")
    return Target(name, *found)


def run(
    groups: Sequence[str],
    quick: bool,
    folder: Path | None,
    add: Callable[[str], None],
    progress: Callable[[str], None],
) -> Found:
    """The groups asked for among :data:`GROUPS`; each section goes to ``add`` once measured."""
    found = Found(builds=[expected_build(), *(["compiled"] if folder is not None else [])])
    rounds = rounds_for(quick)
    if accumulator.GROUP in groups:
        progress("the accumulator path (benchmarks/accumulator.py) ...")
        found.accumulator = accumulator.measure(quick, folder, rounds, progress)
        add(accumulator.section(found.accumulator))
    if gateway.GROUP in groups:
        progress("many streams per core (benchmarks/gateway.py) ...")
        found.gateway = gateway.measure(quick, folder, rounds, progress)
        add(gateway.section(found.gateway))
    if sdk.GROUP in groups:
        missing = sdk_missing()
        if missing is not None:
            found.skipped[sdk.GROUP] = missing
            progress(f"against the anthropic SDK: not run ({missing})")
        else:
            progress("against the anthropic SDK (benchmarks/sdk.py) ...")
            found.sdk, builds = sdk.measure(quick, folder, rounds, progress)
            add(sdk.section(found.sdk, builds))
    return found


def listing(groups: Sequence[str], quick: bool) -> list[str]:
    """For ``run.py --list``: what each group asked for reads."""
    lines = []
    if accumulator.GROUP in groups:
        lines += [
            f"{accumulator.GROUP} {body.name:<40} {body.events:>9,} events"
            for body in accumulator.make_bodies(quick)
        ]
    if gateway.GROUP in groups:
        lines += [f"{gateway.GROUP} {n:,} streams of A, interleaved" for n in gateway.STREAMS]
    if sdk.GROUP in groups:
        why = sdk_missing()
        for wl in sdk.calls(quick):
            state = f" (not run: {why})" if why else ""
            lines.append(f"{sdk.GROUP} {wl.name:<40} the anthropic SDK and jsonsnap{state}")
    return lines
