"""How the benchmarks write numbers in their tables: times, ratios, sizes, table cells."""

from __future__ import annotations


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1e-5:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    if seconds < 100:
        return f"{seconds:.3g} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def fmt_ratio(ratio: float | None, projected: bool = False) -> str:
    if ratio is None:
        return "—"
    if ratio < 0.1:
        text = f"{ratio:.2g}x"
    elif ratio < 10:
        text = f"{ratio:.2f}x"
    elif ratio < 100:
        text = f"{ratio:.1f}x"
    else:
        text = f"{ratio:,.0f}x"
    return f"~{text}" if projected else text


def fmt_bytes(size: int | None) -> str:
    if size is None:
        return "—"
    if size < 10_000:
        return f"{size:,} B"
    if size < 10_000_000:
        return f"{size / 1000:,.0f} KB"
    return f"{size / 1e6:,.1f} MB"


def cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
