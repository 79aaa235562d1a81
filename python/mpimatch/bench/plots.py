"""PNG plots of a bench document (matplotlib, Agg backend: no display needed).

A dozen engines never share one panel: every plot but the heat map is small
multiples, one panel per engine run (shared axes, four a row), with the list
baseline drawn in grey in every other panel; an engine has one colour in every
plot (ENGINE_COLOURS), the marker is the workload, and one legend outside the
panels says so.

  speedup-heatmap.png    first: speed-up against list, workload (rows) by engine
                         (columns); the best of each row boxed, engines within
                         noise of it (spreads overlap) boxed too, as ties
  ns-vs-queue.png        median ns/event against the longest queue (PRQ or
                         UMQ, elements); points of one sweep are joined
  depth-vs-n.png         mean PRQ (filled, solid) and UMQ (open, dashed) search
                         depth against the workload's size parameter (the item's x)
  sweep-<fig>-<wl>-<x>.png  for each sweep (figure label, workload, x): ns/event
                         (top block) and mean PRQ/UMQ search depth (bottom block)
                         against x
  memory-vs-speedup.png  peak bytes against speed-up vs list (no panel of its own
                         for list: it is the 1x line of every panel)
  bars-<fig>-<wl>.png    for a figure label with runs on generated cluster files
                         (clusters.py; Ghazimirsaeed and Afsahi, HPCS 2017 fig. 3): one bar per
                         run, median ns/event and mean UMQ search depth

The figure_* functions build a figure (its structure is tested); plot_* save it.
plot_all() returns [(file name, caption)] in the order a report shows them.
"""
from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

DPI = 110
BASELINE = "list"

# One colour per engine, the same in every plot (the README's engine table order): a
# dozen engines never share a hue, and list, the baseline, is black.
ENGINE_COLOURS = {"list": "black", "rank": "tab:blue", "bins": "tab:orange", "hash": "tab:green",
                  "nm": "tab:red", "kmeans": "tab:purple", "adaptive": "tab:brown",
                  "simd": "tab:pink", "pnp": "tab:olive", "col+pnp": "tab:cyan",
                  "col+ll": "navy", "ll+pnp": "darkgoldenrod", "auto": "magenta"}
# An engine the table does not know yet: a stable pick from its name.
EXTRA_COLOURS = ["teal", "crimson", "slateblue", "darkorange", "seagreen", "indigo"]
# The list baseline as drawn in every other engine's panel.
BASE_STYLE = {"color": "0.6", "alpha": 0.9, "zorder": 1}
PANEL_COLUMNS = 4
PANEL_SIZE = (3.1, 2.4)          # inches, one small multiple


def engine_colour(engine: str) -> str:
    if engine in ENGINE_COLOURS:
        return ENGINE_COLOURS[engine]
    return EXTRA_COLOURS[zlib.crc32(engine.encode()) % len(EXTRA_COLOURS)]


MARKERS = ["o", "s", "^", "D", "v", "<", ">", "P", "X", "*", "p", "h", "8", "d", "H",
           "1", "2", "3", "4", "+", "x"]


def _markers(records: Sequence[Mapping[str, Any]]) -> Dict[str, str]:
    """Workload name -> marker, in order of appearance."""
    names = list(dict.fromkeys(r["workload"]["name"] for r in records))
    return {n: MARKERS[i % len(MARKERS)] for i, n in enumerate(names)}


def _runs(records: Sequence[Mapping[str, Any]]) -> List[Tuple[str, str]]:
    """(run, engine) in order of appearance: one panel each."""
    return list(dict.fromkeys((r["run"], r["engine"]) for r in records))


def _panels(fig: Any, runs: Sequence[Tuple[str, str]], sharey: bool = True) -> List[Any]:
    """One small multiple per run in fig (a figure or subfigure), PANEL_COLUMNS a row,
    axes shared; each titled with its run in its engine's colour. Tick labels stay on
    every panel that has no panel below it."""
    ncols = min(PANEL_COLUMNS, len(runs))
    nrows = -(-len(runs) // ncols)
    grid = fig.subplots(nrows, ncols, sharex=True, sharey=sharey, squeeze=False)
    flat = list(grid.ravel())
    for ax in flat[len(runs):]:
        fig.delaxes(ax)
    axes = flat[:len(runs)]
    for i, (ax, (run, engine)) in enumerate(zip(axes, runs)):
        ax.set_title(run, fontsize=9, color=engine_colour(engine), fontweight="bold")
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", alpha=0.3)
        if i + ncols >= len(runs):
            ax.xaxis.set_tick_params(labelbottom=True)
    return axes


def _figure(nruns: int, blocks: int = 1) -> Any:
    ncols = min(PANEL_COLUMNS, max(nruns, 1))
    nrows = -(-max(nruns, 1) // ncols)
    return plt.figure(figsize=(1.0 + PANEL_SIZE[0] * ncols, 0.9 + blocks * (0.4 + PANEL_SIZE[1] * nrows)),
                      layout="constrained")


def _legend(fig: Any, handles: List[Any]) -> None:
    """One legend for every panel, outside them on the right."""
    fig.legend(handles=handles, loc="outside right upper", fontsize=8,
               ncol=1 if len(handles) <= 24 else 2)


def _workload_handles(marker: Mapping[str, str]) -> List[Any]:
    return ([Line2D([], [], ls="", label="workload:")]
            + [Line2D([], [], color="0.3", marker=m, ls="", label=n) for n, m in marker.items()])


def _baseline_handles(records: Sequence[Mapping[str, Any]], runs: Sequence[Tuple[str, str]],
                      what: str = "") -> List[Any]:
    """The legend's entry for the grey list baseline, when some panel shows it."""
    if not any(r["run"] == BASELINE for r in records) or all(run == BASELINE for run, _ in runs):
        return []
    return [Line2D([], [], marker="o", ms=4, ls="-", lw=1, label=f"{BASELINE}{what}, in every panel",
                   **BASE_STYLE)]


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
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    fig.savefig(path, dpi=DPI, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def _draw(ax: Any, rs: Sequence[Mapping[str, Any]], xy: Any, marker: Mapping[str, str],
          sweep_rs: Mapping[Any, Sequence[Mapping[str, Any]]], style: Mapping[str, Any],
          size: float = 22, ls: str = "-", fill: bool = True) -> None:
    """The points xy(r) of one run's records, a marker per workload, and the points of
    each sweep joined in x order."""
    points: Dict[str, List[Tuple[float, float]]] = {}
    for r in rs:
        points.setdefault(marker[r["workload"]["name"]], []).append(xy(r))
    for m, xys in points.items():       # one scatter per marker: a dozen panels stay fast
        ax.scatter([p[0] for p in xys], [p[1] for p in xys], marker=m, s=size,
                   color=style["color"], zorder=style.get("zorder", 2),
                   facecolors=style["color"] if fill or m in "1234+x" else "none")
    mine = {id(r) for r in rs}
    for srs in sweep_rs.values():
        line = sorted((xy(r) for r in srs if id(r) in mine), key=lambda p: p[0])
        if len(line) >= 2:
            ax.plot([p[0] for p in line], [p[1] for p in line], color=style["color"], lw=1, ls=ls,
                    alpha=0.7, zorder=style.get("zorder", 2))


def _baseline(records: Sequence[Mapping[str, Any]]) -> List[Mapping[str, Any]]:
    return [r for r in records if r["run"] == BASELINE]


def _small_multiples(records: Sequence[Mapping[str, Any]], runs: Sequence[Tuple[str, str]],
                     draw: Any, xlabel: str, ylabel: str, title: str) -> Tuple[Any, List[Any]]:
    """A figure of one panel per run: draw(ax, records, style, size) draws list's records
    in grey (in every panel but list's own), then the run's in its engine's colour."""
    base, by_run = _baseline(records), _by_run(records)
    fig = _figure(len(runs))
    axes = _panels(fig, runs)
    for ax, (run, engine) in zip(axes, runs):
        if run != BASELINE:
            draw(ax, base, BASE_STYLE, 12)
        draw(ax, by_run[run], {"color": engine_colour(engine)}, 22)
    fig.supxlabel(xlabel, fontsize=9)
    fig.supylabel(ylabel, fontsize=9)
    fig.suptitle(title, fontsize=10)
    return fig, axes


def figure_ns_vs_queue(records: Sequence[Mapping[str, Any]]) -> Any:
    """Median ns/event against the longest queue: one panel per run (shared log axes),
    list in grey in every other panel; marker = workload."""
    runs, marker, sw = _runs(records), _markers(records), sweeps(records)

    def xy(r: Mapping[str, Any]) -> Tuple[float, float]:
        return max(longest_queue(r), 1), r["ns_per_event"]["median"]

    fig, axes = _small_multiples(
        records, runs, lambda ax, rs, style, size: _draw(ax, rs, xy, marker, sw, style, size),
        "longest queue (PRQ or UMQ, elements)", "median ns per event",
        "Time per event against queue length, one panel per engine run")
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    _legend(fig, _baseline_handles(records, runs) + _workload_handles(marker))
    return fig


def plot_ns_vs_queue(records: Sequence[Mapping[str, Any]], path: Path) -> None:
    _save(figure_ns_vs_queue(records), path)


def _depth_handles() -> List[Any]:
    return [Line2D([], [], color="0.3", marker="o", ls="-", label="PRQ (filled, solid)"),
            Line2D([], [], color="0.3", marker="o", mfc="none", ls="--", label="UMQ (open, dashed)")]


def _draw_depths(ax: Any, rs: Sequence[Mapping[str, Any]], x: Any, marker: Mapping[str, str],
                 sw: Mapping[Any, Sequence[Mapping[str, Any]]], style: Mapping[str, Any],
                 size: float = 22) -> None:
    """Mean PRQ (filled, solid) and UMQ (open, dashed) search depth against x(r)."""
    _draw(ax, rs, lambda r: (x(r), r["prq"]["mean_depth"] or 0), marker, sw, style, size)
    _draw(ax, rs, lambda r: (x(r), r["umq"]["mean_depth"] or 0), marker, sw, style, size,
          ls="--", fill=False)


def _depth_axis(ax: Any) -> None:
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(bottom=0, top=max(1.0, ax.get_ylim()[1]))     # all-zero UMQs too


def figure_depth_vs_n(records: Sequence[Mapping[str, Any]]) -> Any:
    """Mean PRQ and UMQ search depth against the workload's x, one panel per run; None
    when no record has a numeric x."""
    rs = [r for r in records if r.get("x") and isinstance(r["workload"]["params"].get(r["x"]), (int, float))]
    if not rs:
        return None
    runs, marker, sw = _runs(rs), _markers(rs), sweeps(rs)

    def x(r: Mapping[str, Any]) -> float:
        return r["workload"]["params"][r["x"]]

    fig, axes = _small_multiples(
        rs, runs, lambda ax, rs, style, size: _draw_depths(ax, rs, x, marker, sw, style, size),
        ", ".join(sorted({r["x"] for r in rs})) + " (workload parameter)",
        "mean search depth (elements)",
        "Search depth against workload size, one panel per engine run")
    _xscale(axes[0], [x(r) for r in rs])
    _depth_axis(axes[0])
    _legend(fig, _depth_handles() + _baseline_handles(rs, runs) + _workload_handles(marker))
    return fig


def plot_depth_vs_n(records: Sequence[Mapping[str, Any]], path: Path) -> bool:
    fig = figure_depth_vs_n(records)
    if fig is None:
        return False
    _save(fig, path)
    return True


def figure_sweep(key: Tuple[str, str, str], records: Sequence[Mapping[str, Any]]) -> Any:
    """One sweep: top, ns/event (q1-q3 bars) against x, one panel per run; below, the
    mean PRQ and UMQ search depths, one panel per run; list in grey in every panel."""
    figure, workload, x = key
    runs = _runs(records)
    by_run = _by_run(records)
    fig = _figure(len(runs), blocks=2)
    top, bottom = fig.subfigures(2, 1)
    xs_all = [r["workload"]["params"][x] for r in records]

    def series(rs: Sequence[Mapping[str, Any]]) -> List[Mapping[str, Any]]:
        return sorted(rs, key=lambda r: r["workload"]["params"][x])

    def times(ax: Any, rs: Sequence[Mapping[str, Any]], style: Mapping[str, Any], ms: float) -> None:
        rs = series(rs)
        ns = [r["ns_per_event"] for r in rs]
        ax.errorbar([r["workload"]["params"][x] for r in rs], [n["median"] for n in ns],
                    yerr=[[n["median"] - n["q1"] for n in ns], [n["q3"] - n["median"] for n in ns]],
                    marker="o", ms=ms, capsize=2, lw=1, **style)

    def depths(ax: Any, rs: Sequence[Mapping[str, Any]], style: Mapping[str, Any], ms: float) -> None:
        rs = series(rs)
        xs = [r["workload"]["params"][x] for r in rs]
        ax.plot(xs, [r["prq"]["mean_depth"] or 0 for r in rs], marker="o", ms=ms, lw=1, **style)
        ax.plot(xs, [r["umq"]["mean_depth"] or 0 for r in rs], marker="o", mfc="none", ms=ms,
                ls="--", lw=1, **style)

    for sub, draw, ylabel in ((top, times, "median ns per event (bars: q1–q3)"),
                              (bottom, depths, "mean search depth (elements)")):
        axes = _panels(sub, runs)
        for ax, (run, engine) in zip(axes, runs):
            if run != BASELINE and BASELINE in by_run:
                draw(ax, by_run[BASELINE], BASE_STYLE, 2)
            draw(ax, by_run[run], {"color": engine_colour(engine), "zorder": 2}, 3)
        _xscale(axes[0], xs_all)
        if draw is times:
            axes[0].set_yscale("log")
        else:
            _depth_axis(axes[0])
        sub.supxlabel(x, fontsize=9)
        sub.supylabel(ylabel, fontsize=8)
    fig.suptitle(f"{workload} against {x}" + (f"  [{figure}]" if figure else "")
                 + ": time (top) and search depth (bottom), one panel per engine run", fontsize=10)
    _legend(fig, _baseline_handles(records, runs) + _depth_handles())
    return fig


def plot_sweep(key: Tuple[str, str, str], records: Sequence[Mapping[str, Any]], path: Path) -> None:
    _save(figure_sweep(key, records), path)


def figure_memory_vs_speedup(records: Sequence[Mapping[str, Any]]) -> Any:
    """Peak bytes against speed-up vs list, one panel per engine run but list's (list, at
    1x, is drawn in grey in every panel); None when no record has both."""
    rs = [r for r in records if r["speedup_vs_list"] and r["peak_bytes"]]
    others = [r for r in rs if r["run"] != BASELINE]
    if not others:
        return None
    runs, marker = _runs(others), _markers(rs)

    def draw(ax: Any, mine: Sequence[Mapping[str, Any]], style: Mapping[str, Any], size: float) -> None:
        _draw(ax, mine, lambda r: (r["speedup_vs_list"], r["peak_bytes"]), marker, {}, style, size)
        ax.axvline(1.0, color="grey", lw=0.8, ls=":")

    fig, axes = _small_multiples(
        rs, runs, draw, "speed-up against list (median ns/event)", "peak bytes",
        "Memory against speed-up, one panel per engine run (a point per workload)")
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    _legend(fig, _baseline_handles(rs, runs, " (1x)") + _workload_handles(marker))
    return fig


def plot_memory_vs_speedup(records: Sequence[Mapping[str, Any]], path: Path) -> bool:
    fig = figure_memory_vs_speedup(records)
    if fig is None:
        return False
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
    colours = [engine_colour(r["engine"]) for r in records]
    left.barh(ys, [n["median"] for n in ns], color=colours,
              xerr=[[n["median"] - n["q1"] for n in ns], [n["q3"] - n["median"] for n in ns]],
              capsize=2)
    left.set_xlabel("median ns per event (bars: q1–q3)")
    right.barh(ys, [r["umq"]["mean_depth"] or 0 for r in records], color=colours, alpha=0.6)
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
    made.append(("ns-vs-queue.png", "Median ns per event against the longest queue (PRQ or "
                                    "UMQ), one panel per engine run, list in grey in every "
                                    "panel; marker: workload."))
    if plot_depth_vs_n(records, directory / "depth-vs-n.png"):
        made.append(("depth-vs-n.png", "Mean search depth against the workload's size "
                                       "parameter, one panel per engine run: PRQ filled and "
                                       "solid, UMQ open and dashed; list in grey in every panel."))
    for key, rs in sweeps(records).items():
        name = f"sweep-{_slug(key[0])}-{_slug(key[1])}-{_slug(key[2])}.png"
        plot_sweep(key, rs, directory / name)
        made.append((name, f"{key[1]} against {key[2]}" + (f" ({key[0]})" if key[0] else "")
                           + ": median ns per event (top, q1–q3 bars) and mean search depth "
                             "(bottom), one panel per engine run, list in grey in every panel."))
    for key, rs in clustering_groups(records).items():
        name = f"bars-{_slug(key[0])}-{_slug(rs[0]['workload']['name'])}.png"
        plot_bars(key, rs, directory / name)
        made.append((name, f"{key[1]}" + (f" ({key[0]})" if key[0] else "")
                           + ": ns per event and mean UMQ search depth per run (clusterings)."))
    if plot_memory_vs_speedup(records, directory / "memory-vs-speedup.png"):
        made.append(("memory-vs-speedup.png", "Peak bytes against speed-up vs list, one panel "
                                              "per engine run, list (1x) in grey in every "
                                              "panel; marker: workload."))
    return made
