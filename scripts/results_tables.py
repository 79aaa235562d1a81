#!/usr/bin/env python3
"""Markdown tables for docs/RESULTS.md from an `mpimatch bench --suite paper` JSON.

    python scripts/results_tables.py paper-out/results.json > tables.md

One table per suite figure label (p000-fig5a, p002-fig3, ...): a row per
workload, for every engine the median ns per event, the speed-up against
`list` from the same run, and the queue numbers the papers report (mean
search depth, queues opened). Then the speed targets. Nothing is computed
that is not in the JSON, so the doc's numbers can be checked against it.
"""
from __future__ import annotations

import json
import sys
from collections import OrderedDict
from typing import Dict, List

from results_paths import path_tables  # paper 002 Table I and paper 003 drain times, by path


def fmt(v, digits=1) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def row_key(rec: dict) -> str:
    x = rec.get("x")
    params = rec["workload"].get("params") or {}
    if x and x in params:
        return f"{rec['workload']['name']} {x}={params[x]}"
    return rec["workload"]["spec"]


def table(recs: List[dict]) -> str:
    runs = list(OrderedDict.fromkeys(r["run"] for r in recs))
    rows: Dict[str, Dict[str, dict]] = OrderedDict()
    for r in recs:
        rows.setdefault(row_key(r), {})[r["run"]] = r
    head = ["workload"]
    for run in runs:
        head += [f"{run} ns/ev", f"{run} ×list"]
    head += ["PRQ depth (list)", "UMQ depth (list)"]
    extra = [run for run in runs if run != "list"]
    head += [f"{run} PRQ/UMQ queues" for run in extra]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, by_run in rows.items():
        cells = [key]
        for run in runs:
            r = by_run.get(run)
            cells += [fmt(r["ns_per_event"]["median"]) if r else "-",
                      fmt(r.get("speedup_vs_list"), 2) if r else "-"]
        base = by_run.get("list")
        cells += [fmt(base["prq"]["mean_depth"]) if base else "-",
                  fmt(base["umq"]["mean_depth"]) if base else "-"]
        for run in extra:
            r = by_run.get(run)
            cells.append(f"{r['prq']['queues']}/{r['umq']['queues']}" if r else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def targets(recs: List[dict]) -> str:
    """The issue's three speed targets (docs/bench.md), from the 'targets' runs."""
    by = {(r["workload"]["name"], r["engine"]): r for r in recs if "targets" in r["figures"]}
    out = ["| target | measured | met |", "|---|---|---|"]

    def ratio(w, e):
        r = by.get((w, e))
        return r.get("speedup_vs_list") if r else None

    for e in ("hash", "nm"):
        s = ratio("shuffle", e)
        out.append(f"| shuffle n=4096: {e} ≥ 50× list | {fmt(s, 1)}× | "
                   f"{'yes' if s is not None and s >= 50 else 'no'} |")
    s = ratio("burst", "hash")
    slow = 1 / s if s else None
    out.append(f"| burst n=4096: hash at most 1.5× slower than list | {fmt(slow, 2)}× list's time | "
               f"{'yes' if slow is not None and slow <= 1.5 else 'no'} |")
    r = by.get(("shuffle", "hash"))
    eps = r["events_per_second"] / 1e6 if r else None
    out.append(f"| shuffle n=4096: hash ≥ 10 M events/s | {fmt(eps, 1)} M events/s | "
               f"{'yes' if eps is not None and eps >= 10 else 'no'} |")
    return "\n".join(out)


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 2
    recs = data["records"]
    m = data.get("machine", {})
    print(f"Run: suite {data.get('suite')}, reps {data.get('reps')}, {data.get('started')} to "
          f"{data.get('finished')}; CPU {m.get('cpu')}, {m.get('cores')} cores, {m.get('os')}, "
          f"{m.get('compiler')}, build {m.get('build_type')}.\n")
    figs = list(OrderedDict.fromkeys(f for r in recs for f in r["figures"]))
    for fig in figs:
        if fig == "targets":
            continue
        print(f"### {fig}\n")
        print(table([r for r in recs if fig in r["figures"]]))
        print()
    for title, text in path_tables(recs):
        print(f"### {title}\n")
        print(text)
        print()
    print("### speed targets\n")
    print(targets(recs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
