"""Shared renderers: the engine list (`mpimatch engines`), byte and rate units.

The table of one replay is mpimatch-replay's own; Python draws none beside it."""
from __future__ import annotations

from typing import Any, Dict, List

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .replay import hints_of

BASELINE = "list"


def probes_cell(prq: Dict[str, Any], umq: Dict[str, Any]) -> str:
    """Hash-table slots inspected per operation, "mean/max" (mm_qstats probes and
    max_probes, docs/replay.md): a post or an arrival searches one side and may insert
    into the other, so mean = both sides' probes / both sides' searches. "-" for an
    engine without hash tables (no probes)."""
    probes = (prq.get("probes") or 0) + (umq.get("probes") or 0)
    ops = (prq.get("searches") or 0) + (umq.get("searches") or 0)
    if not probes:
        return "-"
    most = max(prq.get("max_probes") or 0, umq.get("max_probes") or 0)
    return f"{probes / ops if ops else 0.0:.2f}/{most}"


def human_bytes(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def human_rate(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return "-"
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.2f} {unit}"
    return f"{n:.0f}"


def concurrency_line(c: Dict[str, Any]) -> str:
    """One set of hints of an engine's "concurrent" list (mm_concurrency_of, through
    `mpimatch-replay --list --json`): what MM_CFG_CONCURRENT makes of it."""
    hints = ",".join(c.get("hints") or []) or "none"
    if c.get("serialises"):
        return f"hints {hints}: serialises (one lock)"
    key = "(" + ", ".join(str(c.get("shard_key", "?")).split(",")) + ")"
    line = f"hints {hints}: {c.get('shards')} shards by {key}"
    if c.get("any_source") != "excluded":
        line += f"; ANY_SOURCE {c.get('any_source')}"
    return line


def engines_view(engines: List[Dict[str, Any]]) -> Group:
    """One block per engine: name and needed hints, then design, origin, parameters.
    A block reads well at any terminal width, where a five-column table does not."""
    parts: List[Any] = []
    for e in engines:
        head = Text(str(e.get("name", "?")), style="bold")
        hints = ", ".join(sorted(hints_of(e)))
        if hints:
            head.append(f"   needs hints: {hints}", style="yellow")
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column()
        grid.add_row("design", Text(str(e.get("summary", ""))))
        grid.add_row("from", Text(str(e.get("origin", ""))))
        for c in e.get("concurrent") or []:   # MM_CFG_CONCURRENT, per set of hints
            grid.add_row("concurrent", Text(concurrency_line(c)))
        for p in e.get("params") or []:
            if p.get("type") == "file":     # a path: no default, no range
                head_p = f"{p.get('name')}=FILE"
            else:
                head_p = f"{p.get('name')}={p.get('default')} [{p.get('min')}..{p.get('max')}]"
            grid.add_row("param", Text(head_p + (f"  {p['doc']}" if p.get("doc") else "")))
        parts += [head, Padding(grid, (0, 0, 1, 2))]
    return Group(*parts)
