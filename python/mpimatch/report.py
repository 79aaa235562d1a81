"""Turn mpimatch-replay JSON into rich tables."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .replay import hints_of

BASELINE = "list"


def _num(value: Any, fmt: str = "{:.1f}") -> str:
    if value is None:
        return "-"
    try:
        return fmt.format(value)
    except (TypeError, ValueError):
        return str(value)


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


def median_ns(result: Dict[str, Any]) -> Optional[float]:
    value = (result.get("ns_per_event") or {}).get("median")
    return value if isinstance(value, (int, float)) else None


def speedups(results: List[Dict[str, Any]]) -> Dict[str, Optional[float]]:
    """engine -> (list's median ns/event) / (engine's), None when list did not run."""
    base = next((median_ns(r) for r in results if r.get("engine") == BASELINE), None)
    out: Dict[str, Optional[float]] = {}
    for r in results:
        mine = median_ns(r)
        out[r.get("engine", "?")] = base / mine if base and mine else None
    return out


def _params(result: Dict[str, Any]) -> str:
    params = result.get("params") or {}
    return " ".join(f"{k}={v}" for k, v in params.items()) or "-"


def _depth(result: Dict[str, Any], side: str, key: str, fmt: str) -> str:
    return _num(((result.get("stats") or {}).get(side) or {}).get(key), fmt)


def results_table(data: Dict[str, Any], title: str, detailed: bool = False) -> Table:
    """One row per engine that ran: timing, speed-up vs list, queue depths, memory."""
    results = data.get("results") or []
    ups = speedups(results)
    table = Table(title=Text(title), title_justify="left")
    table.add_column("engine", style="bold")
    table.add_column("params")
    table.add_column("ns/event\nmedian", justify="right")
    if detailed:
        table.add_column("ns/event\nq1–q3", justify="right")
        table.add_column("events/s", justify="right")
    table.add_column(f"speed-up\nvs {BASELINE}", justify="right")
    if detailed:
        table.add_column("matches", justify="right")
    table.add_column("PRQ depth\nmean", justify="right")
    table.add_column("UMQ depth\nmean", justify="right")
    if detailed:
        table.add_column("PRQ/UMQ\nmax depth", justify="right")
    table.add_column("peak\nbytes", justify="right")
    for r in results:
        ns = r.get("ns_per_event") or {}
        up = ups.get(r.get("engine", "?"))
        row = [r.get("engine", "?"), _params(r), _num(ns.get("median"), "{:.2f}")]
        if detailed:
            row += [f"{_num(ns.get('q1'), '{:.2f}')}–{_num(ns.get('q3'), '{:.2f}')}",
                    human_rate(r.get("events_per_second"))]
        row.append("-" if up is None else f"{up:.2f}×")
        if detailed:
            row.append(_num((r.get("outcomes") or {}).get("matches"), "{}"))
        row += [_depth(r, "prq", "mean_depth", "{:.2f}"), _depth(r, "umq", "mean_depth", "{:.2f}")]
        if detailed:
            row.append(f"{_depth(r, 'prq', 'max_depth', '{}')}/{_depth(r, 'umq', 'max_depth', '{}')}")
        row.append(human_bytes((r.get("stats") or {}).get("peak_bytes")))
        table.add_row(*(Text(str(c)) for c in row))
    return table


def skipped_text(data: Dict[str, Any]) -> Optional[Text]:
    skipped = data.get("skipped") or []
    if not skipped:
        return None
    text = Text("skipped: ", style="yellow")
    text.append("; ".join(f"{s.get('engine', '?')} ({s.get('reason', 'no reason given')})"
                          for s in skipped))
    return text


def stream_report(data: Dict[str, Any], title: str, detailed: bool = False) -> Group:
    """The results table of one replay, followed by the skipped engines, if any."""
    parts: List[Any] = [results_table(data, title, detailed)]
    skipped = skipped_text(data)
    if skipped is not None:
        parts.append(skipped)
    return Group(*parts)


def stream_title(data: Dict[str, Any], label: str) -> str:
    bits = [label]
    if data.get("events") is not None:
        bits.append(f"{data['events']} events")
    if data.get("np") is not None:
        bits.append(f"np={data['np']}")
    if data.get("reps") is not None:
        bits.append(f"reps={data['reps']}")
    return ", ".join(bits)


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
        for p in e.get("params") or []:
            if p.get("type") == "file":     # a path: no default, no range
                head_p = f"{p.get('name')}=FILE"
            else:
                head_p = f"{p.get('name')}={p.get('default')} [{p.get('min')}..{p.get('max')}]"
            grid.add_row("param", Text(head_p + (f"  {p['doc']}" if p.get("doc") else "")))
        parts += [head, Padding(grid, (0, 0, 1, 2))]
    return Group(*parts)
