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

from .atomic import write_atomic
from .errors import MpimatchError
from .report import human_bytes

PLOTS = {
    "heatmap_umq.png": "UMQ elements traversed, by source (columns) and receiving rank (rows)",
    "heatmap_prq.png": "PRQ elements traversed, by posted source and receiving rank",
    "depth_by_rank.png": "Mean search depth per rank (list semantics)",
    "queue_series.png": "Queue lengths over time, busiest rank",
}


def aggregate_table(report: Dict[str, Any]) -> Table:
    world = report.get("world_ranks", report["ranks"])
    which = "all ranks" if world == report["ranks"] else \
        f"{report['ranks']} of {world} ranks: " + ",".join(str(r["rank"]) for r in report["per_rank"])
    t = Table(title=f"{report['stream_dir']}: {report['ranks']} ranks, "
                    f"{report['events']} events ({which})", title_justify="left")
    for col in ("engine", "ns/event", "PRQ mean", "PRQ max", "UMQ mean", "UMQ max",
                "PRQ len max", "UMQ len max", "queues max", "peak bytes max", "peak bytes sum"):
        t.add_column(col, justify="left" if col == "engine" else "right")
    for name, a in report["aggregate"].items():
        t.add_row(name, f"{a['ns_per_event']:.1f}" if a["ns_per_event"] is not None else "-",
                  f"{a['prq']['mean_depth']:.2f}", str(a["prq"]["max_depth"]),
                  f"{a['umq']['mean_depth']:.2f}", str(a["umq"]["max_depth"]),
                  str(a["prq"]["max_length"]), str(a["umq"]["max_length"]),
                  str(max(a["prq"]["max_queues"], a["umq"]["max_queues"])),
                  human_bytes(a["peak_bytes_max"]), human_bytes(a["peak_bytes_sum"]))
    return t


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


def terminal_view(report: Dict[str, Any], per_rank: bool) -> Group:
    parts: List[Any] = [aggregate_table(report)]
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


def write_plots(report: Dict[str, Any], out: Path) -> List[str]:
    """PNG files into out; returns their names."""
    plt = _plt()
    names = []
    hm = report["heat_map"]
    _heat(plt, hm["umq"], "UMQ elements traversed (list semantics)", out / "heatmap_umq.png")
    _heat(plt, hm["prq"], "PRQ elements traversed (list semantics)", out / "heatmap_prq.png",
          hm["prq_any"])
    names += ["heatmap_umq.png", "heatmap_prq.png"]

    fig, ax = plt.subplots(figsize=(8, 4))
    ranks = [r["rank"] for r in report["per_rank"]]
    for name in report["aggregate"]:
        for side, style in (("prq", "-"), ("umq", "--")):
            ax.plot(ranks, [r["engines"][name][side]["mean_depth"] for r in report["per_rank"]],
                    style, marker=".", label=f"{name} {side.upper()}")
    ax.set_xlabel("rank")
    ax.set_ylabel("mean search depth")
    ax.set_title("Mean search depth per rank")
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    _savefig(plt, fig, out / "depth_by_rank.png")
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
    rows = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{a['ns_per_event']:.1f}</td>"
        f"<td>{a['prq']['mean_depth']:.2f}</td><td>{a['prq']['max_depth']}</td>"
        f"<td>{a['umq']['mean_depth']:.2f}</td><td>{a['umq']['max_depth']}</td>"
        f"<td>{a['prq']['max_length']}</td><td>{a['umq']['max_length']}</td>"
        f"<td>{a['peak_bytes_max']}</td><td>{a['peak_bytes_sum']}</td></tr>"
        for n, a in report["aggregate"].items() if a["ns_per_event"] is not None)
    figs = "".join(
        f"<figure><img alt='{html.escape(PLOTS.get(name, name))}' src='data:image/png;base64,"
        f"{base64.b64encode((out / name).read_bytes()).decode()}'>"
        f"<figcaption>{html.escape(PLOTS.get(name, name))}</figcaption></figure>"
        for name in images)
    warnings = "".join(f"<li>{html.escape(str(w))}</li>" for w in report.get("warnings", []))
    page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>mpimatch report: {html.escape(report['stream_dir'])}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}figure{{display:inline-block;margin:1em}}
img{{max-width:100%}}</style></head><body>
<h1>mpimatch replay report</h1>
<p>{html.escape(report['stream_dir'])}: {report['ranks']} ranks, {report['events']} events.
Read the plots with docs/APPLICATIONS.md, "Reports".</p>
<table><tr><th>engine</th><th>ns/event</th><th>PRQ mean depth</th><th>PRQ max depth</th>
<th>UMQ mean depth</th><th>UMQ max depth</th><th>PRQ max length</th><th>UMQ max length</th>
<th>peak bytes (max rank)</th><th>peak bytes (sum)</th></tr>{rows}</table>
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
