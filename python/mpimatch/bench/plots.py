"""PNG plots of a bench document (matplotlib, Agg backend: no display needed).

  ns-vs-queue.png        median ns/event against the longest queue (PRQ or
                         UMQ, elements), one colour per engine; points of one
                         sweep are joined
  depth-vs-n.png         mean PRQ and UMQ search depth against the workload's
                         size parameter (the item's x), per engine
  sweep-<fig>-<wl>-<x>.png  for each sweep (figure label, workload, x): ns/event
                         and mean PRQ/UMQ search depth against x, per engine
  memory-vs-speedup.png  peak bytes against speed-up vs list, per engine
  bars-<fig>-<wl>.png    for a figure label with runs on generated cluster files
                         (clusters.py; Ghazimirsaeed and Afsahi, HPCS 2017 fig. 3): one bar per
                         run, median ns/event and mean UMQ search depth

  speedup-heatmap.png    first: speed-up against list, workload (rows) by engine
                         (columns); the best of each row boxed, engines within
                         noise of it (spreads overlap) boxed too, as ties

plot_all() returns [(file name, caption)] in the order a report shows them.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

DPI = 110


def _colours(records: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    runs = list(dict.fromkeys(r["run"] for r in records))
    cmap = plt.get_cmap("tab10" if len(runs) <= 10 else "tab20")
    return {run: cmap(i % cmap.N) for i, run in enumerate(runs)}


MARKERS = ["o", "s", "^", "D", "v", "<", ">", "P", "X", "*", "p", "h", "8", "d", "H",
           "1", "2", "3", "4", "+", "x"]


def _scatter_legend(ax: Any, records: Sequence[Mapping[str, Any]], colours: Mapping[str, Any],
                    xy: Any, legend: bool = True) -> None:
    """Scatter xy(r) of every record: colour = engine run, marker = workload name;
    one legend for both, outside the axes on the right."""
    names = list(dict.fromkeys(r["workload"]["name"] for r in records))
    marker = {n: MARKERS[i % len(MARKERS)] for i, n in enumerate(names)}
    for r in records:
        x, y = xy(r)
        ax.scatter([x], [y], color=colours[r["run"]], marker=marker[r["workload"]["name"]], s=24)
    if not legend:
        return
    runs = [run for run in colours if any(r["run"] == run for r in records)]
    handles = ([Line2D([], [], ls="", label="engine:")]
               + [Line2D([], [], color=colours[run], marker="o", ls="", label=run) for run in runs]
               + [Line2D([], [], ls="", label="workload:")]
               + [Line2D([], [], color="grey", marker=marker[n], ls="", label=n) for n in names])
    leg = ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                    ncol=1 if len(handles) <= 22 else 2)
    # savefig(bbox_inches="tight") must see a legend placed outside the axes.
    ax.figure.mm_outside = [leg]


def longest_queue(r: Mapping[str, Any]) -> int:
    return max(r["prq"].get("max_length") or 0, r["umq"].get("max_length") or 0)


def sweeps(records: Sequence[Mapping[str, Any]]) -> Dict[Tuple[str, str, str], List[Mapping[str, Any]]]:
    """(figure, workload name, x) -> the records of that sweep (x numeric)."""
    out: Dict[Tuple[str, str, str], List[Mapping[str, Any]]] = {}
    for r in records:
        x = r.get("x")
        if not x or not isinstance(r["workload"]["params"].get(x), (int, float)):
            continue
        for fig in r["figures"] or [""]:
            out.setdefault((fig, r["workload"]["name"], x), []).append(r)
    # A sweep has at least two values of x.
    return {k: v for k, v in out.items() if len({r["workload"]["params"][k[2]] for r in v}) >= 2}


def _xscale(ax: Any, xs: Sequence[float]) -> None:
    """log2 for positive values spread over a factor of 8 or more (n = 64 .. 16384),
    linear otherwise (a ping-pong's 0 .. 200 dead receives)."""
    if xs and min(xs) > 0 and max(xs) >= 8 * min(xs):
        ax.set_xscale("log", base=2)


def _by_run(records: Sequence[Mapping[str, Any]]) -> Dict[str, List[Mapping[str, Any]]]:
    out: Dict[str, List[Mapping[str, Any]]] = {}
    for r in records:
        out.setdefault(r["run"], []).append(r)
    return out


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, format="png", bbox_inches="tight", metadata={"Software": None},
                bbox_extra_artists=getattr(fig, "mm_outside", None))
    plt.close(fig)


def plot_ns_vs_queue(records: Sequence[Mapping[str, Any]], path: Path) -> None:
    colours = _colours(records)
    fig, ax = plt.subplots(figsize=(9, 4.8))
    _scatter_legend(ax, records, colours,
                    lambda r: (max(longest_queue(r), 1), r["ns_per_event"]["median"]))
    for key, rs in sweeps(records).items():
        for run, mine in _by_run(rs).items():
            mine = sorted(mine, key=longest_queue)
            ax.plot([max(longest_queue(r), 1) for r in mine],
                    [r["ns_per_event"]["median"] for r in mine], color=colours[run], lw=1, alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("longest queue (PRQ or UMQ, elements)")
    ax.set_ylabel("median ns per event")
    ax.set_title("time per event against queue length")
    ax.grid(True, which="both", alpha=0.3)
    _save(fig, path)


def plot_sweep(key: Tuple[str, str, str], records: Sequence[Mapping[str, Any]],
               colours: Mapping[str, Any], path: Path) -> None:
    figure, workload, x = key
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    for run, rs in _by_run(records).items():
        rs = sorted(rs, key=lambda r: r["workload"]["params"][x])
        xs = [r["workload"]["params"][x] for r in rs]
        ns = [r["ns_per_event"] for r in rs]
        left.errorbar(xs, [n["median"] for n in ns],
                      yerr=[[n["median"] - n["q1"] for n in ns], [n["q3"] - n["median"] for n in ns]],
                      color=colours[run], label=run, marker="o", ms=3, capsize=2)
        right.plot(xs, [r["prq"]["mean_depth"] for r in rs], color=colours[run], marker="o", ms=3,
                   label=f"{run} PRQ")
        right.plot(xs, [r["umq"]["mean_depth"] for r in rs], color=colours[run], marker="x", ms=3,
                   ls="--", label=f"{run} UMQ")
    for ax in (left, right):
        _xscale(ax, [r["workload"]["params"][x] for r in records])
        ax.set_xlabel(x)
        ax.grid(True, which="both", alpha=0.3)
    left.set_yscale("log")
    left.set_ylabel("median ns per event (bars: q1–q3)")
    right.set_yscale("symlog", linthresh=1)
    right.set_ylim(bottom=0, top=max(1.0, right.get_ylim()[1]))
    right.set_ylabel("mean search depth (elements)")
    left.legend(fontsize=8)
    right.legend(fontsize=7, ncol=2)
    title = f"{workload} against {x}" + (f"  [{figure}]" if figure else "")
    fig.suptitle(title)
    _save(fig, path)


def plot_depth_vs_n(records: Sequence[Mapping[str, Any]], path: Path) -> bool:
    rs = [r for r in records if r.get("x") and isinstance(r["workload"]["params"].get(r["x"]), (int, float))]
    if not rs:
        return False
    colours = _colours(records)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, side in zip(axes, ("prq", "umq")):
        _scatter_legend(ax, rs, colours, lambda r: (r["workload"]["params"][r["x"]], r[side]["mean_depth"]),
                        legend=side == "umq")
        for (_, _, x), sweep_rs in sweeps(rs).items():
            for run, mine in _by_run(sweep_rs).items():
                mine = sorted(mine, key=lambda r: r["workload"]["params"][x])
                ax.plot([r["workload"]["params"][x] for r in mine], [r[side]["mean_depth"] for r in mine],
                        color=colours[run], lw=1, alpha=0.6)
        _xscale(ax, [r["workload"]["params"][r["x"]] for r in rs])
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylim(bottom=0, top=max(1.0, ax.get_ylim()[1]))     # all-zero UMQs too
        ax.set_xlabel(", ".join(sorted({r["x"] for r in rs})) + " (workload parameter)")
        ax.set_ylabel(f"mean {side.upper()} search depth (elements)")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("search depth against workload size")
    _save(fig, path)
    return True


def plot_memory_vs_speedup(records: Sequence[Mapping[str, Any]], path: Path) -> bool:
    rs = [r for r in records if r["speedup_vs_list"] and r["peak_bytes"]]
    if not rs:
        return False
    colours = _colours(records)
    fig, ax = plt.subplots(figsize=(9, 4.8))
    _scatter_legend(ax, rs, colours, lambda r: (r["speedup_vs_list"], r["peak_bytes"]))
    ax.axvline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("speed-up against list (median ns/event)")
    ax.set_ylabel("peak bytes")
    ax.set_title("memory against speed-up (one point per workload and engine)")
    ax.grid(True, which="both", alpha=0.3)
    _save(fig, path)
    return True


def clustering_groups(records: Sequence[Mapping[str, Any]]) -> Dict[Tuple[str, str], List[Mapping[str, Any]]]:
    """(figure, workload spec) -> its records, where some run used a generated cluster file."""
    out: Dict[Tuple[str, str], List[Mapping[str, Any]]] = {}
    for r in records:
        for fig in r["figures"] or [""]:
            out.setdefault((fig, r["workload"]["spec"]), []).append(r)
    return {k: v for k, v in out.items() if any(r.get("clustering") for r in v)}


def plot_bars(key: Tuple[str, str], records: Sequence[Mapping[str, Any]], path: Path) -> None:
    """One bar per run, in run order: median ns/event (q1-q3) and mean UMQ search depth."""
    labels = [r["run"] + (f" = {r['clustering']['description']}"
                          if (r.get("clustering") or {}).get("learned") else "") for r in records]
    ys = list(range(len(records)))[::-1]
    ns = [r["ns_per_event"] for r in records]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 1.2 + 0.32 * len(records)), sharey=True)
    left.barh(ys, [n["median"] for n in ns], color="tab:blue",
              xerr=[[n["median"] - n["q1"] for n in ns], [n["q3"] - n["median"] for n in ns]],
              capsize=2)
    left.set_xlabel("median ns per event (bars: q1–q3)")
    right.barh(ys, [r["umq"]["mean_depth"] or 0 for r in records], color="tab:orange")
    right.set_xlabel("mean UMQ search depth (elements)")
    left.set_yticks(ys, labels, fontsize=8)
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(f"{key[1]}" + (f"  [{key[0]}]" if key[0] else ""), fontsize=9)
    _save(fig, path)


def heatmap_cells(records: Sequence[Mapping[str, Any]]
                  ) -> Tuple[List[str], List[str], List[List[Any]], List[List[str]]]:
    """Rows (workload specs), columns (engine runs), speed-ups (None: no run) and marks:
    "best" for the fastest median of a row, "tie" for the runs whose q1..q3 spread
    overlaps the best's (the best is not faster in every repetition's spread), "" else."""
    rows = list(dict.fromkeys(r["workload"]["spec"] for r in records))
    cols = list(dict.fromkeys(r["run"] for r in records))
    at = {(r["workload"]["spec"], r["run"]): r for r in records}
    values: List[List[Any]] = []
    marks: List[List[str]] = []
    for w in rows:
        rs = [at.get((w, c)) for c in cols]
        values.append([r["speedup_vs_list"] if r else None for r in rs])
        present = [r for r in rs if r and r["ns_per_event"]["median"]]
        best = min(present, key=lambda r: r["ns_per_event"]["median"]) if present else None
        row_marks = []
        for r in rs:
            if not r or best is None:
                row_marks.append("")
            elif r is best:
                row_marks.append("best")
            else:
                b, m = best["ns_per_event"], r["ns_per_event"]
                clear = (b.get("q3") or b["median"]) < (m.get("q1") or m["median"])
                row_marks.append("" if clear else "tie")
        marks.append(row_marks)
    return rows, cols, values, marks


def plot_speedup_heatmap(records: Sequence[Mapping[str, Any]], path: Path) -> bool:
    """Which engine where: speed-up against list, workload by engine, on a log colour scale
    centred on 1 (green faster, red slower); the best of each row and its ties boxed."""
    import math

    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle
    rows, cols, values, marks = heatmap_cells(records)
    if not rows or not any(v for row in values for v in row):
        return False
    logs = [[math.log10(v) if v else float("nan") for v in row] for row in values]
    span = max([abs(x) for row in logs for x in row if x == x] + [0.05])
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 + 0.75 * len(cols)),
                                    max(2.5, 1.2 + 0.38 * len(rows))))
    im = ax.imshow(logs, cmap="RdYlGn", norm=TwoSlopeNorm(0.0, -span, span), aspect="auto")
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if v is None:
                ax.text(j, i, "–", ha="center", va="center", fontsize=7, color="grey")
                continue
            ax.text(j, i, f"{v:.0f}x" if v >= 10 else f"{v:.2g}x", ha="center", va="center",
                    fontsize=7)
            if marks[i][j]:
                ax.add_patch(Rectangle((j - 0.48, i - 0.48), 0.96, 0.96, fill=False,
                                       lw=2.2 if marks[i][j] == "best" else 1.2,
                                       ls="-" if marks[i][j] == "best" else "--", ec="black"))
    ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    cb = fig.colorbar(im, ax=ax, fraction=0.04)
    factors = [f for f in (0.001, 0.01, 0.1, 0.5, 1, 2, 10, 100, 1000)
               if abs(math.log10(f)) <= span]
    cb.set_ticks([math.log10(f) for f in factors], labels=[f"{f:g}x" for f in factors])
    cb.ax.tick_params(labelsize=7)
    cb.set_label("speed-up against list (median ns/event)", fontsize=8)
    ax.set_title("Which engine where: speed-up against list.\nSolid box: fastest of the row; "
                 "dashed: within noise of it (q1–q3 spreads overlap)", fontsize=8)
    _save(fig, path)
    return True


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-") or "all"


def plot_all(doc: Mapping[str, Any], directory: Path) -> List[Tuple[str, str]]:
    """Write every plot of the document into directory; return (file name, caption)."""
    records = [r for r in doc["records"] if r["ns_per_event"]["median"]]
    if not records:
        return []
    made: List[Tuple[str, str]] = []
    if plot_speedup_heatmap(records, directory / "speedup-heatmap.png"):
        made.append(("speedup-heatmap.png",
                     "Which engine where: speed-up against list (median ns/event), workload by "
                     "engine; solid box the fastest of each row, dashed boxes the engines within "
                     "noise of it (their q1–q3 spreads overlap), which tie with it."))
    plot_ns_vs_queue(records, directory / "ns-vs-queue.png")
    made.append(("ns-vs-queue.png", "Median ns per event against the longest queue, per engine."))
    if plot_depth_vs_n(records, directory / "depth-vs-n.png"):
        made.append(("depth-vs-n.png", "Mean search depth against the workload's size "
                                       "parameter, per engine: PRQ left, UMQ right."))
    colours = _colours(records)
    for key, rs in sweeps(records).items():
        name = f"sweep-{_slug(key[0])}-{_slug(key[1])}-{_slug(key[2])}.png"
        plot_sweep(key, rs, colours, directory / name)
        made.append((name, f"{key[1]} against {key[2]}"
                           + (f" ({key[0]})" if key[0] else "") + ": ns per event and search depth."))
    for key, rs in clustering_groups(records).items():
        name = f"bars-{_slug(key[0])}-{_slug(rs[0]['workload']['name'])}.png"
        plot_bars(key, rs, directory / name)
        made.append((name, f"{key[1]}" + (f" ({key[0]})" if key[0] else "")
                           + ": ns per event and mean UMQ search depth per run (clusterings)."))
    if plot_memory_vs_speedup(records, directory / "memory-vs-speedup.png"):
        made.append(("memory-vs-speedup.png", "Peak bytes against speed-up vs list."))
    return made
