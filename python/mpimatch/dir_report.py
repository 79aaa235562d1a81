"""Reports of `mpimatch replay STREAM_DIR`: rich tables, PNG plots, a self-contained
HTML page (docs/APPLICATIONS.md, "Reports" says how to read each plot)."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .atomic import write_atomic
from .errors import MpimatchError
from .report import human_bytes, probes_cell

PLOTS = {
    "heatmap_umq.png": "UMQ elements traversed, by source (columns) and receiving rank (rows)",
    "heatmap_prq.png": "PRQ elements traversed, by posted source and receiving rank",
    "depth_by_rank.png": "Mean search depth of every engine on every rank: elements each "
                         "engine inspects per search of its posted-receive (left) and "
                         "unexpected-message (right) queue; one colour per engine",
    "queue_series.png": "Queue lengths over time, busiest rank",
}


def human_ns(ns: float) -> str:
    """A total time with a unit that keeps 3-4 significant digits."""
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= div:
            return f"{ns / div:.3g} {unit}" if ns / div < 100 else f"{ns / div:.0f} {unit}"
    return f"{ns:.0f} ns"


def aggregate_table(report: Dict[str, Any]) -> Table:
    """Engines sorted by total time (fastest first), with speed-up against list and the
    ranks each wins; engines that did not run on every rank are listed below the table."""
    world = report.get("world_ranks", report["ranks"])
    which = "all ranks" if world == report["ranks"] else \
        f"{report['ranks']} of {world} ranks: " + ",".join(str(r["rank"]) for r in report["per_rank"])
    t = Table(title=f"{report['stream_dir']}: {report['ranks']} ranks, "
                    f"{report['events']} events ({which})", title_justify="left")
    for col in ("engine", "total time", "vs list", "ranks won", "ns/event", "PRQ mean",
                "PRQ max", "UMQ mean", "UMQ max", "PRQ len max", "UMQ len max", "queues max",
                "peak bytes max", "peak bytes sum", "probes/op"):
        t.add_column(col, justify="left" if col == "engine" else "right", no_wrap=True)
    comp = report.get("comparison") or {}
    rows = comp.get("order") or [{"engine": n} for n in sorted(report["aggregate"])]
    for row in rows:
        name = row["engine"]
        a = report["aggregate"][name]
        sp = row.get("speedup_vs_list")
        won = (f"{row['ranks_won']} ({row['ranks_won_clear']} clear)"
               if "ranks_won" in row else "-")
        t.add_row(name, human_ns(row["total_ns"]) if "total_ns" in row else "-",
                  f"{sp:.2f}x" if sp else "-", won,
                  f"{a['ns_per_event']:.1f}" if a["ns_per_event"] is not None else "-",
                  f"{a['prq']['mean_depth']:.2f}", str(a["prq"]["max_depth"]),
                  f"{a['umq']['mean_depth']:.2f}", str(a["umq"]["max_depth"]),
                  str(a["prq"]["max_length"]), str(a["umq"]["max_length"]),
                  str(max(a["prq"]["max_queues"], a["umq"]["max_queues"])),
                  human_bytes(a["peak_bytes_max"]), human_bytes(a["peak_bytes_sum"]),
                  probes_cell(a["prq"], a["umq"]))
    return t


def comparison_lines(report: Dict[str, Any]) -> List[str]:
    """The recommendation and the skipped engines, one line each."""
    comp = report.get("comparison") or {}
    lines = []
    if comp.get("recommendation"):
        lines.append("recommendation: " + comp["recommendation"])
    for s in comp.get("skipped", []):
        lines.append(f"skipped: {s['engine']} on {s['ranks']} rank(s): {s['reason']}")
    return lines


def rank_table(report: Dict[str, Any]) -> Table:
    t = Table(title="per rank", title_justify="left")
    t.add_column("rank", justify="right")
    t.add_column("events", justify="right")
    t.add_column("engine")
    for col in ("ns/event", "PRQ mean", "PRQ max", "UMQ mean", "UMQ max", "peak bytes"):
        t.add_column(col, justify="right")
    for r in report["per_rank"]:
        for i, (name, e) in enumerate(sorted(r["engines"].items())):
            t.add_row(str(r["rank"]) if i == 0 else "", str(r["events"]) if i == 0 else "",
                      name, f"{e['ns_per_event']:.1f}" if e["ns_per_event"] is not None else "-",
                      f"{e['prq']['mean_depth']:.2f}", str(e["prq"]["max_depth"]),
                      f"{e['umq']['mean_depth']:.2f}", str(e["umq"]["max_depth"]),
                      human_bytes(e["peak_bytes"]))
    return t


def partial_note(report: Dict[str, Any]) -> Optional[str]:
    """One line saying what the trace lacks, or None for a complete trace."""
    p = report.get("partial_trace") or {}
    if not p.get("partial"):
        return None
    calls = ", ".join(f"{k} {v}" for k, v in sorted(p.get("not_recorded", {}).items(),
                                                      key=lambda kv: -kv[1]))
    parts = []
    if calls:
        parts.append(f"calls made but not recorded by the trace's source: {calls}")
    if p.get("files_cut_short"):
        parts.append(f"{p['files_cut_short']} rank file(s) cut short")
    return ("PARTIAL TRACE: " + "; ".join(parts) +
            ". Queues and timings cover only what was recorded.")


def clock_note(report: Dict[str, Any]) -> Optional[str]:
    """A line when the hosts' clocks could not be aligned by causality (docs/convert.md)."""
    c = (report.get("index") or {}).get("clock") or {}
    viol = (c.get("received_before_sent") or {}).get("converted", 0)
    if c.get("result") == "inconsistent" or viol:
        return (f"CLOCKS: {viol} of {c.get('messages_between_hosts', 0)} messages between hosts "
                f"are received before they were sent (clock alignment: {c.get('result')}); "
                f"queues may hold entries that never existed.")
    return None


def terminal_view(report: Dict[str, Any], per_rank: bool) -> Group:
    parts: List[Any] = [Text(n, style="bold red") for n in (partial_note(report),
                                                            clock_note(report)) if n]
    parts.append(aggregate_table(report))
    parts.extend(Text(line) for line in comparison_lines(report))
    if per_rank:
        parts.append(rank_table(report))
    return Group(*parts)


# ------------------------------------------------------------------ plots

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _heat(plt, matrix: List[List[int]], title: str, path: Path, extra: Optional[List[int]] = None):
    import numpy as np
    m = np.array(matrix, dtype=float)
    labels = [str(i) for i in range(m.shape[1])]
    if extra is not None:
        m = np.hstack([m, np.array(extra, dtype=float).reshape(-1, 1)])
        labels.append("any")
    n = max(m.shape)
    fig, ax = plt.subplots(figsize=(max(5.5, min(12, 2 + 0.4 * n)), max(4, min(10, 1.5 + 0.35 * n))))
    im = ax.imshow(m, cmap="RdYlGn_r", aspect="auto", interpolation="nearest")
    ax.set_xlabel("source rank")
    ax.set_ylabel("receiving rank")
    ax.set_title(title)
    if m.shape[1] <= 32:
        ax.set_xticks(range(m.shape[1]), labels)
    if m.shape[0] <= 32:
        ax.set_yticks(range(m.shape[0]))
    fig.colorbar(im, ax=ax, label="elements traversed")
    fig.tight_layout()
    _savefig(plt, fig, path)


def _savefig(plt, fig, path: Path) -> None:
    """Save as PNG through the one atomic writer: never a half-written picture."""
    try:
        write_atomic(path, lambda f: fig.savefig(f, dpi=100, format="png"))
    finally:
        plt.close(fig)


MARKERS = "os^vD<>pPX*h"


def engine_styles(names: List[str]) -> Dict[str, Dict[str, Any]]:
    """One colour and marker per engine (tab20: 20 distinct colours), in the given order."""
    import matplotlib
    cmap = matplotlib.colormaps["tab20"] if hasattr(matplotlib, "colormaps") \
        else matplotlib.cm.get_cmap("tab20")
    return {n: {"color": cmap(i % 20), "marker": MARKERS[i % len(MARKERS)]}
            for i, n in enumerate(names)}


def _depth_by_rank(plt, report: Dict[str, Any], path: Path) -> None:
    """Two panels (PRQ, UMQ): each engine's mean search depth on every rank, one colour and
    marker per engine, the legend outside the axes, integer rank ticks."""
    from matplotlib.ticker import MaxNLocator
    order = [row["engine"] for row in (report.get("comparison") or {}).get("order", [])] \
        or sorted(report["aggregate"])
    styles = engine_styles(order)
    ranks = [r["rank"] for r in report["per_rank"]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
    for ax, side in zip(axes, ("prq", "umq")):
        for name in order:
            ax.plot(ranks, [r["engines"][name][side]["mean_depth"] for r in report["per_rank"]],
                    linestyle="-", linewidth=1, markersize=4, label=name, **styles[name])
        ax.set_title(f"{side.upper()}: elements inspected per search")
        ax.set_xlabel("rank")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(bottom=0)
    axes[0].set_ylabel("mean search depth")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(0.86, 0.5), fontsize="small",
               title="engine (fastest first)", title_fontsize="small")
    fig.tight_layout(rect=(0, 0, 0.85, 1))
    _savefig(plt, fig, path)


def write_plots(report: Dict[str, Any], out: Path) -> List[str]:
    """PNG files into out; returns their names."""
    plt = _plt()
    names = []
    hm = report["heat_map"]
    _heat(plt, hm["umq"], "UMQ elements traversed (list semantics)", out / "heatmap_umq.png")
    _heat(plt, hm["prq"], "PRQ elements traversed (list semantics)", out / "heatmap_prq.png",
          hm["prq_any"])
    names += ["heatmap_umq.png", "heatmap_prq.png"]

    _depth_by_rank(plt, report, out / "depth_by_rank.png")
    names.append("depth_by_rank.png")

    s = report["queue_series"]
    fig, ax = plt.subplots(figsize=(8, 4))
    rows = s["rows"]
    use_t = s["x"] == "t"
    x = [row[1] / 1e6 if use_t else row[0] for row in rows]
    ax.plot(x, [row[2] for row in rows], label="PRQ (modelled)", drawstyle="steps-post")
    ax.plot(x, [row[3] for row in rows], label="UMQ (modelled)", drawstyle="steps-post")
    for key, label in (("posted", "PRQ (measured, MPI_T)"), ("unexpected", "UMQ (measured, MPI_T)")):
        pts = (s.get("measured") or {}).get(key) or []
        if pts and use_t:
            ax.plot([p[0] / 1e6 for p in pts], [p[1] for p in pts], ".", label=label)
    ax.set_xlabel("time (ms)" if use_t else "event")
    ax.set_ylabel("queue length")
    ax.set_title(f"Queue lengths, rank {s['rank']}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    _savefig(plt, fig, out / "queue_series.png")
    names.append("queue_series.png")
    return names


def write_html(report: Dict[str, Any], out: Path, images: List[str]) -> None:
    comp = report.get("comparison") or {}
    order = comp.get("order") or [{"engine": n} for n in sorted(report["aggregate"])]
    rows = ""
    for row in order:
        n, a = row["engine"], report["aggregate"][row["engine"]]
        if a["ns_per_event"] is None:
            continue
        sp = row.get("speedup_vs_list")
        rows += (f"<tr><td>{html.escape(n)}</td>"
                 f"<td>{html.escape(human_ns(row['total_ns'])) if 'total_ns' in row else '-'}</td>"
                 f"<td>{f'{sp:.2f}x' if sp else '-'}</td>"
                 f"<td>{row.get('ranks_won', '-')} ({row.get('ranks_won_clear', '-')} clear)</td>"
                 f"<td>{a['ns_per_event']:.1f}</td>"
                 f"<td>{a['prq']['mean_depth']:.2f}</td><td>{a['prq']['max_depth']}</td>"
                 f"<td>{a['umq']['mean_depth']:.2f}</td><td>{a['umq']['max_depth']}</td>"
                 f"<td>{a['prq']['max_length']}</td><td>{a['umq']['max_length']}</td>"
                 f"<td>{a['peak_bytes_max']}</td><td>{a['peak_bytes_sum']}</td>"
                 f"<td>{probes_cell(a['prq'], a['umq'])}</td></tr>")
    lines = "".join(f"<p>{html.escape(line)}</p>" for line in comparison_lines(report))
    figs = "".join(
        f"<figure><img alt='{html.escape(PLOTS.get(name, name))}' src='data:image/png;base64,"
        f"{base64.b64encode((out / name).read_bytes()).decode()}'>"
        f"<figcaption>{html.escape(PLOTS.get(name, name))}</figcaption></figure>"
        for name in images)
    warnings = "".join(f"<li>{html.escape(str(w))}</li>" for w in report.get("warnings", []))
    notes = "".join(f"<p style='color:#b00;font-weight:bold'>{html.escape(n)}</p>"
                    for n in (partial_note(report), clock_note(report)) if n)
    page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>mpimatch report: {html.escape(report['stream_dir'])}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}figure{{display:inline-block;margin:1em}}
img{{max-width:100%}}</style></head><body>
<h1>mpimatch replay report</h1>
<p>{html.escape(report['stream_dir'])}: {report['ranks']} ranks, {report['events']} events.
Read the plots with docs/APPLICATIONS.md, "Reports".</p>
{notes}<table><tr><th>engine</th><th>total time</th><th>vs list</th><th>ranks won</th><th>ns/event</th><th>PRQ mean depth</th><th>PRQ max depth</th>
<th>UMQ mean depth</th><th>UMQ max depth</th><th>PRQ max length</th><th>UMQ max length</th>
<th>peak bytes (max rank)</th><th>peak bytes (sum)</th><th>probes/op (mean/max)</th></tr>{rows}</table>
{lines}
{('<h2>Warnings</h2><ul>' + warnings + '</ul>') if warnings else ''}
{figs}
</body></html>
"""
    write_atomic(out / "report.html", page)


def write_outputs(report: Dict[str, Any], out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise MpimatchError(f"{out}: cannot create: {err.strerror}") from None
    write_atomic(out / "report.json", json.dumps(report, indent=2) + "\n")
    images = write_plots(report, out)
    write_html(report, out, images)
