"""`mpimatch report DIR`: the provider's queue samples over time, per rank.

With FI_MPIMATCH_STATS=DIR and FI_MPIMATCH_STATS_INTERVAL=MS (mpimatch run --stats DIR
--stats-interval MS) every endpoint appends a sample to DIR/mpimatch-samples-<host>-<pid>-<ep>.jsonl
every MS milliseconds of progress: a header line, then one JSON object per line (t in
seconds since the endpoint was enabled, PRQ and UMQ lengths, posts, arrivals, matches, the
searches and elements compared on each side so far, unexpected bytes; docs/queues.md).
This command reads them all and prints one line per rank; with --out it also plots queue
lengths, the mean search depth of each interval and the match rate against time, one
line per rank, into PNG files and a self-contained report.html."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

from rich.console import Console
from rich.table import Table

from .atomic import check_writable_dir, write_atomic
from .errors import MpimatchError

SAMPLES_GLOB = "mpimatch-samples-*.jsonl"
FIELDS = ("t", "prq", "umq", "matches", "prq_searches", "prq_traversed", "umq_searches",
          "umq_traversed")
PLOTS = {
    "queue_lengths.png": "Posted receives (PRQ) and unexpected messages (UMQ) queued, per rank",
    "search_depth.png": "Mean search depth in each interval (elements compared per search), per rank",
    "match_rate.png": "Matches per second in each interval, per rank",
}


def load_samples(path: Path) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """A samples file's header and samples; a bad line is an error naming file:line."""
    try:
        lines = path.read_text().splitlines()
    except OSError as err:
        raise MpimatchError(f"{path}: cannot read: {err.strerror or err}") from None
    if not lines:
        raise MpimatchError(f"{path}: empty (no header line)")
    rows: List[Dict[str, Any]] = []
    header: Dict[str, Any] = {}
    for no, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise MpimatchError(f"{path}:{no}: not a complete sample ({err.msg})") from None
        if no == 1:
            if not isinstance(obj, dict) or obj.get("kind") != "samples":
                raise MpimatchError(f"{path}:1: not a samples header (no \"kind\": \"samples\")")
            header = obj
            continue
        if not isinstance(obj, dict):
            raise MpimatchError(f"{path}:{no}: a sample is an object")
        missing = [f for f in FIELDS if not isinstance(obj.get(f), (int, float))]
        if missing:
            raise MpimatchError(f"{path}:{no}: sample without {', '.join(missing)}")
        if rows and obj["t"] < rows[-1]["t"]:
            raise MpimatchError(f"{path}:{no}: time goes back ({obj['t']} after {rows[-1]['t']})")
        rows.append(obj)
    return header, rows


def load_dir(d: Path) -> List[Dict[str, Any]]:
    """Every samples file of d, sorted by rank (then pid): {rank, pid, engine, file, rows}."""
    if not d.is_dir():
        raise MpimatchError(f"{d}: not a directory")
    files = sorted(d.glob(SAMPLES_GLOB))
    if not files:
        raise MpimatchError(f"{d}: no samples ({SAMPLES_GLOB}): run the job with "
                            f"mpimatch run --stats {d} --stats-interval MS")
    out = []
    for f in files:
        head, rows = load_samples(f)
        out.append({"rank": head.get("rank", -1), "pid": head.get("pid"), "engine": head.get("engine"),
                    "interval_ms": head.get("interval_ms"), "file": f.name, "rows": rows})
    return sorted(out, key=lambda r: (r["rank"], r["pid"] or 0))


def _label(r: Dict[str, Any]) -> str:
    return f"rank {r['rank']}" if r["rank"] >= 0 else f"pid {r['pid']}"


def intervals(rows: List[Dict[str, Any]]) -> Dict[str, List[float]]:
    """Per interval (between consecutive samples): its end time, the mean depth of each
    side's searches in it (NaN without searches: a gap in the plot), matches per second."""
    out: Dict[str, List[float]] = {"t": [], "prq_depth": [], "umq_depth": [], "rate": []}
    for a, b in zip(rows, rows[1:]):
        out["t"].append(b["t"])
        for side in ("prq", "umq"):
            ds = b[f"{side}_searches"] - a[f"{side}_searches"]
            dt = b[f"{side}_traversed"] - a[f"{side}_traversed"]
            out[f"{side}_depth"].append(dt / ds if ds else float("nan"))
        span = b["t"] - a["t"]
        out["rate"].append((b["matches"] - a["matches"]) / span if span > 0 else 0.0)
    return out


def summary(ranks: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    rows = []
    for r in ranks:
        s = r["rows"]
        last = s[-1] if s else {}
        depth = {side: (last.get(f"{side}_traversed", 0) / last[f"{side}_searches"]
                        if last.get(f"{side}_searches") else 0.0) for side in ("prq", "umq")}
        rows.append({"rank": r["rank"], "pid": r["pid"], "engine": r["engine"], "samples": len(s),
                     "seconds": last.get("t", 0.0), "prq_max": max((x["prq"] for x in s), default=0),
                     "umq_max": max((x["umq"] for x in s), default=0),
                     "matches": last.get("matches", 0), "prq_mean_depth": depth["prq"],
                     "umq_mean_depth": depth["umq"],
                     "unexpected_bytes_max": max((x.get("unexpected_bytes", 0) for x in s), default=0)})
    return rows


def table(d: Path, rows: List[Dict[str, Any]]) -> Table:
    t = Table(title=f"{d}: queue samples of {len(rows)} endpoint(s)", title_justify="left")
    for col in ("rank", "pid", "engine", "samples", "seconds", "PRQ max", "UMQ max", "matches",
                "PRQ mean depth", "UMQ mean depth", "unexp. bytes max"):
        t.add_column(col, justify="left" if col == "engine" else "right", no_wrap=True)
    for r in rows:
        t.add_row(str(r["rank"]), str(r["pid"]), str(r["engine"]), str(r["samples"]),
                  f"{r['seconds']:.2f}", str(r["prq_max"]), str(r["umq_max"]), str(r["matches"]),
                  f"{r['prq_mean_depth']:.2f}", f"{r['umq_mean_depth']:.2f}",
                  str(r["unexpected_bytes_max"]))
    return t


def _two_panels(plt, ranks: List[Dict[str, Any]], title: str, draw, path: Path) -> None:
    """PRQ and UMQ side by side, one line per rank: draw(ax, side, rank) plots one."""
    from .dir_report import _savefig
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
    for ax, side in zip(axes, ("prq", "umq")):
        for r in ranks:
            draw(ax, side, r)
        ax.set_title(title.format(side=side.upper()))
        ax.set_xlabel("seconds since the endpoint opened")
        ax.set_ylim(bottom=0)
    axes[1].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    _savefig(plt, fig, path)


def plots(ranks: List[Dict[str, Any]], out: Path) -> None:
    from .dir_report import _plt, _savefig
    plt = _plt()
    _two_panels(plt, ranks, "{side} length", lambda ax, side, r: ax.step(
        [x["t"] for x in r["rows"]], [x[side] for x in r["rows"]], where="post", linewidth=1,
        label=_label(r)), out / "queue_lengths.png")

    def depth(ax, side, r):
        iv = intervals(r["rows"])
        ax.plot(iv["t"], iv[f"{side}_depth"], linewidth=1, marker=".", markersize=3,
                label=_label(r))
    _two_panels(plt, ranks, "{side}: elements compared per search, per interval", depth,
                out / "search_depth.png")
    fig, ax = plt.subplots(figsize=(7, 4))
    for r in ranks:
        iv = intervals(r["rows"])
        ax.plot(iv["t"], iv["rate"], linewidth=1, label=_label(r))
    ax.set_title("matches per second")
    ax.set_xlabel("seconds since the endpoint opened")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    fig.tight_layout()
    _savefig(plt, fig, out / "match_rate.png")


def render_html(d: Path, rows: List[Dict[str, Any]], out: Path) -> str:
    head = ("rank", "pid", "engine", "samples", "seconds", "prq_max", "umq_max", "matches",
            "prq_mean_depth", "umq_mean_depth", "unexpected_bytes_max")
    body = "".join("<tr>" + "".join(f"<td>{html.escape(f'{r[k]:.2f}' if isinstance(r[k], float) else str(r[k]))}</td>"
                                    for k in head) + "</tr>" for r in rows)
    figs = "".join(f"<figure><img alt='{html.escape(t)}' src='data:image/png;base64,"
                   f"{base64.b64encode((out / n).read_bytes()).decode()}'><figcaption>"
                   f"{html.escape(t)}</figcaption></figure>" for n, t in PLOTS.items())
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>mpimatch report: "
            f"{html.escape(str(d))}</title><style>body{{font-family:sans-serif;margin:2em}}"
            f"table{{border-collapse:collapse}}td,th{{padding:2px 8px;border-bottom:1px solid #ddd;"
            f"text-align:right}}img{{max-width:100%}}</style></head><body><h1>Queue samples: "
            f"{html.escape(str(d))}</h1><table><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr>"
            f"{body}</table>{figs}</body></html>\n")


def cmd_report(args: Any, out: Console) -> int:
    d = Path(args.dir)
    ranks = load_dir(d)
    rows = summary(ranks)
    out.print(table(d, rows))
    if args.out:
        o = Path(args.out)
        check_writable_dir(o, create=True)
        plots(ranks, o)
        write_atomic(o / "report.json", json.dumps({"dir": str(d), "ranks": rows}, indent=1) + "\n")
        write_atomic(o / "report.html", render_html(d, rows, o))
        out.print(f"wrote {', '.join(PLOTS)}, report.json and report.html to {o}", highlight=False)
    return 0


def register(sub: Any) -> None:
    from .command import add_command
    p = add_command(
        sub, "report", cmd_report,
        help="plot the provider's queue samples over time, per rank",
        description="Read DIR/mpimatch-samples-*.jsonl (written by the provider with "
                    "FI_MPIMATCH_STATS=DIR and FI_MPIMATCH_STATS_INTERVAL=MS, or mpimatch run "
                    "--stats DIR --stats-interval MS) and print one line per rank; --out "
                    "writes PRQ/UMQ lengths, per-interval search depth and match rate against "
                    "time (PNG, one line per rank), report.json and report.html. docs/queues.md.",
        exit_one="internal error")
    p.add_argument("dir", metavar="DIR", help="the statistics directory (FI_MPIMATCH_STATS)")
    p.add_argument("--out", metavar="OUTDIR", help="write the plots, report.json and report.html")
