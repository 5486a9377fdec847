"""The chart of ``docs/benchmarks.png``: total time against document size for the B workloads,
log-log, one line per parser (projected points hollow, joined by dashed lines), when
matplotlib is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from measuring import COMPILED, WorkloadResult, describe_error
from report import ROOT, Growth, b_sizes


def chart(results: list[WorkloadResult], rows: list[Growth], path: Path) -> str:
    """Draw the chart into ``path``; what was done (``chart written to ...``), or why not."""
    try:
        matplotlib: Any = __import__("matplotlib")
        matplotlib.use("Agg")
        plt: Any = __import__("matplotlib.pyplot", fromlist=["pyplot"])
    except Exception as exc:
        return f"no chart ({describe_error(exc)})"
    b = b_sizes(results)
    if len(b) < 2:
        return "no chart (needs at least two B sizes)"
    fig, ax = plt.subplots(figsize=(9, 6.5))
    sizes = [r.workload.size for r in b]
    ax.plot(
        sizes,
        [r.baseline.seconds for r in b],
        color="black",
        linestyle=":",
        marker="s",
        label="json.loads (complete document, once)",
    )
    cmap = plt.get_cmap("tab20")
    for i, g in enumerate(rows):
        if g.points:
            draw(ax, g, cmap(i % 20))
    ax.scatter([], [], facecolors="none", edgecolors="grey", label="projected (dashed)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("document size (bytes)")
    ax.set_ylabel("total time to stream with a snapshot per fragment (s)")
    ax.set_title("B: file write in 16-64 char fragments")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"chart written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"


def draw(ax: Any, g: Growth, color: Any) -> None:
    """One parser's line: solid between measured points, dashed to a projected one."""
    width = 2.8 if g.peer in ("jsonsnap", COMPILED) else 1.4
    if g.exponent is None:
        label = g.peer
    else:
        label = f"{g.peer} (slope {'~' if g.projected else ''}{g.exponent:.2f})"
    for (x0, y0, p0), (x1, y1, p1) in zip(g.points, g.points[1:], strict=False):
        ax.plot(
            [x0, x1],
            [y0, y1],
            color=color,
            linewidth=width,
            linestyle="--" if p0 or p1 else "-",
        )
    ax.plot([], [], color=color, linewidth=width, label=label)
    measured = [(x, y) for x, y, p in g.points if not p]
    guessed = [(x, y) for x, y, p in g.points if p]
    if measured:
        ax.scatter(*zip(*measured, strict=True), color=color, s=30, zorder=3)
    if guessed:
        ax.scatter(
            *zip(*guessed, strict=True), facecolors="none", edgecolors=[color], s=50, zorder=3
        )
