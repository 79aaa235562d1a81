"""`mpimatch tables REPORT_DIR`: Markdown tables of one report of `mpimatch replay
STREAM_DIR --out REPORT_DIR` (docs/APPLICATIONS.md, "Runs", is written with them).

Prints: the run's size (ranks, events, converter warnings); the aggregate table
(one row per engine, sorted by ns/event, speed-up against list); when the report
holds MPI_T samples (queue_series.measured), the modelled queue lengths of the
busiest rank at the instants of the samples against the measured ones; with
--wildcards, how many receives and probes of the stream directory name
MPI_ANY_SOURCE and/or MPI_ANY_TAG (read with `mpimatch-stream cat`).
"""
from __future__ import annotations

import argparse
import bisect
import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from rich.console import Console

from . import tools
from .command import add_command
from .errors import MpimatchError
from .report import probes_cell

REPORT = "report.json"


def register(sub: Any) -> None:
    p = add_command(
        sub, "tables", cmd_tables,
        help="Markdown tables of a replay report (engines; MPI_T samples against the model)",
        description="Print Markdown tables from REPORT_DIR/report.json, written by "
                    "'mpimatch replay STREAM_DIR --out REPORT_DIR': the run's size, one row "
                    "per engine (ns/event, speed-up against list, search depths, queue "
                    "lengths, memory), and, when the trace held MPI_T queue samples, the "
                    "busiest rank's measured queue lengths against the model's at the same "
                    "instants (docs/APPLICATIONS.md).")
    p.add_argument("report_dir", metavar="REPORT_DIR", help="the --out directory of a replay")
    p.add_argument("--wildcards", action="store_true",
                   help="also count the receives and probes of the report's stream directory "
                        "that use MPI_ANY_SOURCE and/or MPI_ANY_TAG")


def kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB"


def table(head: Sequence[str], rows: List[Sequence[str]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def aggregate_table(rep: Dict[str, Any]) -> str:
    agg = rep["aggregate"]
    base = agg.get("list", {}).get("ns_per_event")
    rows = []
    for name, a in sorted(agg.items(), key=lambda kv: kv[1]["ns_per_event"]):
        p, u = a["prq"], a["umq"]
        speed = f"{base / a['ns_per_event']:.2f}" if base and a["ns_per_event"] else "-"
        rows.append((name, f"{a['ns_per_event']:.1f}", speed, f"{p['mean_depth']:.2f}",
                     str(p["max_depth"]), f"{u['mean_depth']:.2f}", str(u["max_depth"]),
                     str(p["max_length"]), str(u["max_length"]),
                     str(max(p["max_queues"], u["max_queues"])),
                     kib(a["peak_bytes_max"]), kib(a["peak_bytes_sum"]), probes_cell(p, u)))
    return table(("engine", "ns/event", "vs list", "PRQ mean", "PRQ max", "UMQ mean", "UMQ max",
                  "PRQ len max", "UMQ len max", "queues max", "peak (max rank)",
                  "peak (sum)", "probes/op"), rows)


def at(times: List[int], values: List[int], t: int) -> int:
    """The modelled value in force at time t (step function; 0 before the first event)."""
    i = bisect.bisect_right(times, t) - 1
    return values[i] if i >= 0 else 0


def measured_table(rep: Dict[str, Any]) -> str:
    """The busiest rank's MPI_T samples against the model at the same instants ("" when
    the report has none, or its series is not on the time axis)."""
    s = rep["queue_series"]
    meas = s.get("measured") or {}
    if not meas or s.get("x") != "t":
        return ""
    rows_in = s["rows"]
    times = [r[1] for r in rows_in]
    rows = []
    for key, col, label in (("posted", 2, "PRQ"), ("unexpected", 3, "UMQ")):
        pts = meas.get(key) or []
        if not pts:
            continue
        model = [at(times, [r[col] for r in rows_in], t) for t, _ in pts]
        got = [v for _, v in pts]
        same = sum(1 for m, g in zip(model, got) if m == g)
        rows.append((label, str(len(pts)), f"{sum(got) / len(got):.2f}", str(max(got)),
                     f"{sum(model) / len(model):.2f}", str(max(model)),
                     f"{same} of {len(pts)}",
                     str(max(r[col] for r in rows_in))))
    return (f"Rank {s['rank']} (busiest), MPI_T samples against the model at the same instants:\n\n"
            + table(("queue", "samples", "measured mean", "measured max", "model mean",
                     "model max", "equal", "model max (all events)"), rows))


def wildcards(stream_dir: Path) -> Tuple[Dict[str, int], int]:
    """Counts of R/P/X records by wildcard kind over all ranks, and of ranks having any."""
    files = sorted(stream_dir.glob("rank-*.mms"))
    if not files:
        raise MpimatchError(f"--wildcards: {stream_dir}: no rank-*.mms stream files (the "
                            f"report's stream_dir; was the directory moved?)")
    tool = str(tools.find_tool(tools.STREAM))
    counts = {"R": 0, "R any_source": 0, "R any_tag": 0, "R both": 0,
              "P/X": 0, "P/X wildcard": 0}
    ranks_with = 0
    for f in files:
        proc = subprocess.run([tool, "cat", str(f)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise MpimatchError(f"--wildcards: {tools.STREAM} cat {f} failed (exit "
                                f"{proc.returncode}): {proc.stderr.strip()}",
                                proc.returncode)
        before = counts["R any_source"] + counts["R any_tag"] + counts["R both"]
        for line in proc.stdout.splitlines():
            fld = line.split()
            if not fld or fld[0] not in ("R", "P", "X"):
                continue
            src, tag = fld[3] == "*", fld[4] == "*"
            if fld[0] == "R":
                counts["R"] += 1
                if src and tag:
                    counts["R both"] += 1
                elif src:
                    counts["R any_source"] += 1
                elif tag:
                    counts["R any_tag"] += 1
            else:
                counts["P/X"] += 1
                counts["P/X wildcard"] += src or tag
        ranks_with += (counts["R any_source"] + counts["R any_tag"] + counts["R both"]) > before
    return counts, ranks_with


def load_report(report_dir: Path) -> Dict[str, Any]:
    path = report_dir / REPORT
    if not report_dir.is_dir():
        raise MpimatchError(f"{report_dir}: not a directory (the --out DIR of 'mpimatch replay "
                            f"STREAM_DIR --out DIR')")
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise MpimatchError(f"{path}: no such file; write it with 'mpimatch replay STREAM_DIR "
                            f"--out {report_dir}'") from None
    except (OSError, UnicodeDecodeError) as err:
        raise MpimatchError(f"{path}: cannot read: {err}") from None
    try:
        rep = json.loads(text)
    except json.JSONDecodeError as err:
        raise MpimatchError(f"{path}:{err.lineno}: not valid JSON: {err.msg}") from None
    missing = [k for k in ("tool", "ranks", "events", "aggregate", "queue_series", "stream_dir")
               if not isinstance(rep, dict) or k not in rep]
    if missing or rep.get("tool") != "mpimatch replay":
        raise MpimatchError(f"{path}: not a report of 'mpimatch replay STREAM_DIR --out'"
                            + (f" (no {', '.join(missing)})" if missing else
                               f" (tool {rep.get('tool')!r})"))
    return rep


def cmd_tables(args: argparse.Namespace, out: Console) -> int:
    report_dir = Path(args.report_dir)
    rep = load_report(report_dir)
    try:
        parts = [f"{rep['ranks']} ranks, {rep['events']:,} events (all ranks); converter "
                 f"warnings: " + ("; ".join(rep.get("warnings") or []) or "none"),
                 aggregate_table(rep)]
        measured = measured_table(rep)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise MpimatchError(f"{report_dir / REPORT}: malformed report ({type(err).__name__}: "
                            f"{err}); rewrite it with 'mpimatch replay STREAM_DIR --out "
                            f"{report_dir}'") from None
    if measured:
        parts.append(measured)
    if args.wildcards:
        stream_dir = Path(rep["stream_dir"])
        if not stream_dir.is_absolute() and not stream_dir.is_dir():
            # a relative stream_dir is relative to where replay ran; try the report's parent
            stream_dir = report_dir.parent / stream_dir.name
        c, ranks_with = wildcards(stream_dir)
        parts.append(f"Receives: {c['R']:,}, of which ANY_SOURCE only {c['R any_source']:,}, "
                     f"ANY_TAG only {c['R any_tag']:,}, both {c['R both']:,} (on {ranks_with} "
                     f"of {rep['ranks']} ranks); probes {c['P/X']:,}, with a wildcard "
                     f"{c['P/X wildcard']:,}.")
    # plain text (Markdown), not rich markup: '|' and '[' must pass as written
    print("\n\n".join(parts))
    return 0
