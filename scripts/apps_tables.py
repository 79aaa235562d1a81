#!/usr/bin/env python3
"""Markdown tables for docs/APPLICATIONS.md ("Runs") from one report of
`mpimatch replay STREAM_DIR --out REPORT_DIR`.

    scripts/apps_tables.py REPORT_DIR [--wildcards]

Prints: the run's size (ranks, events, converter warnings); the aggregate
table (one row per engine, sorted by ns/event); when the report holds MPI_T
samples (queue_series.measured), the modelled queue lengths of the busiest
rank at the instants of the samples against the measured ones; with
--wildcards, how many receives and probes in the stream directory name
MPI_ANY_SOURCE and/or MPI_ANY_TAG (read with `mpimatch-stream cat`, found in
$MPIMATCH_BIN_DIR, build/bin or PATH).
"""
from __future__ import annotations

import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent


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
        speed = f"{base / a['ns_per_event']:.2f}" if base else "-"
        rows.append((name, f"{a['ns_per_event']:.1f}", speed, f"{p['mean_depth']:.2f}",
                     str(p["max_depth"]), f"{u['mean_depth']:.2f}", str(u["max_depth"]),
                     str(p["max_length"]), str(u["max_length"]),
                     str(max(p["max_queues"], u["max_queues"])),
                     kib(a["peak_bytes_max"]), kib(a["peak_bytes_sum"])))
    return table(("engine", "ns/event", "vs list", "PRQ mean", "PRQ max", "UMQ mean", "UMQ max",
                  "PRQ len max", "UMQ len max", "queues max", "peak (max rank)",
                  "peak (sum)"), rows)


def at(times: List[int], values: List[int], t: int) -> int:
    """The modelled value in force at time t (step function; 0 before the first event)."""
    i = bisect.bisect_right(times, t) - 1
    return values[i] if i >= 0 else 0


def measured_table(rep: Dict[str, Any]) -> str:
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


def stream_tool() -> str:
    for d in (os.environ.get("MPIMATCH_BIN_DIR"), str(ROOT / "build" / "bin")):
        if d and os.access(Path(d) / "mpimatch-stream", os.X_OK):
            return str(Path(d) / "mpimatch-stream")
    found = shutil.which("mpimatch-stream")
    if not found:
        sys.exit("apps_tables: mpimatch-stream not found (build/bin, $MPIMATCH_BIN_DIR, PATH)")
    return found


def wildcards(stream_dir: Path) -> Tuple[Dict[str, int], int]:
    """Counts of R/P/X records by wildcard kind over all ranks, and of ranks having any."""
    tool = stream_tool()
    counts = {"R": 0, "R any_source": 0, "R any_tag": 0, "R both": 0,
              "P/X": 0, "P/X wildcard": 0}
    ranks_with = 0
    for f in sorted(stream_dir.glob("rank-*.mms")):
        text = subprocess.run([tool, "cat", str(f)], check=True, capture_output=True,
                              text=True).stdout
        before = counts["R any_source"] + counts["R any_tag"] + counts["R both"]
        for line in text.splitlines():
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report_dir", type=Path)
    ap.add_argument("--wildcards", action="store_true")
    args = ap.parse_args()
    rep = json.loads((args.report_dir / "report.json").read_text())
    print(f"{rep['ranks']} ranks, {rep['events']:,} events (all ranks); converter warnings: "
          + ("; ".join(rep.get("warnings") or []) or "none") + "\n")
    print(aggregate_table(rep) + "\n")
    m = measured_table(rep)
    if m:
        print(m + "\n")
    if args.wildcards:
        c, ranks_with = wildcards(Path(rep["stream_dir"]))
        print(f"Receives: {c['R']:,}, of which ANY_SOURCE only {c['R any_source']:,}, ANY_TAG only "
              f"{c['R any_tag']:,}, both {c['R both']:,} (on {ranks_with} of {rep['ranks']} "
              f"ranks); probes {c['P/X']:,}, with a wildcard {c['P/X wildcard']:,}.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
