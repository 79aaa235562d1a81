#!/usr/bin/env python3
"""Markdown tables for docs/RESULTS.md from an `mpimatch bench --suite paper` JSON.

    python scripts/results_tables.py paper-out/results.json [more.json ...] > tables.md

One table per suite figure label (p000-fig5a, p002-fig3, ...): a row per
workload, for every engine the median ns per event, the speed-up against
`list` from the same run, and the queue numbers the papers report (mean
search depth, queues opened). Then the speed targets. Nothing is computed
that is not in the JSON, so the doc's numbers can be checked against it.

Several JSONs (bench rounds of the same items, e.g. `--figure p001-fig3` run
again and again on a noisy machine): a run's ns per event is the median of its
rounds' medians and its speed-up the median of its rounds' speed-ups (each
round's list ran beside it); p001-fig3 shows the range of the rounds' medians.
"""
from __future__ import annotations

import json
import sys
import statistics
from collections import OrderedDict
from typing import Dict, List

from results_paths import path_tables  # the MPC-MPI hints paper's Table I and Schonbein et al., Euro-Par 2018 drain times, by path


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


def merge_rounds(rounds: List[List[dict]]) -> List[dict]:
    """One record per (workload spec, run) of the first round, with the median over the
    rounds that have it of ns_per_event.median and speedup_vs_list, and "round_medians"."""
    by: Dict[tuple, List[dict]] = OrderedDict()
    for recs in rounds:
        for r in recs:
            by.setdefault((r["workload"]["spec"], r["run"]), []).append(r)
    out = []
    for rs in by.values():
        medians = [r["ns_per_event"]["median"] for r in rs]
        ups = [r["speedup_vs_list"] for r in rs if r.get("speedup_vs_list") is not None]
        out.append(dict(rs[0], ns_per_event=dict(rs[0]["ns_per_event"], median=statistics.median(medians)),
                        speedup_vs_list=statistics.median(ups) if ups else None,
                        round_medians=medians))
    return out


P001_QUEUES = {"list": "one list", "rank": "one per peer"}


def p001_fig3(recs: List[dict]) -> str:
    """Ghazimirsaeed and Afsahi, HPCS 2017 fig. 3: a row per run in the suite's order (the paper's: one queue,
    Table 1's clusterings 1-7, four queues), then what K-means learned and rank."""
    rounds = max(len(r.get("round_medians") or [1]) for r in recs)
    spread = f"range of {rounds} rounds' medians" if rounds > 1 else "q1–q3"
    base = next((r for r in recs if r["run"] == "list"), None)
    head = ["run", "queues (groups per queue)", "ns/event", spread, "×list",
            "UMQ mean depth", "depth ×list", "UMQ queues"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in recs:
        c = r.get("clustering")
        name = r["run"].split(":")[0] if c and not c["learned"] else r["run"]
        queues = c["description"].replace("|", "\\|") if c else P001_QUEUES.get(r["engine"], "-")
        ns = r["ns_per_event"]
        rng = (f"{fmt(min(r['round_medians']))}–{fmt(max(r['round_medians']))}" if rounds > 1
               else f"{fmt(ns['q1'])}–{fmt(ns['q3'])}")
        depth, bdepth = r["umq"]["mean_depth"], base["umq"]["mean_depth"] if base else None
        lines.append("| " + " | ".join([
            name, queues, fmt(ns["median"]), rng, fmt(r.get("speedup_vs_list"), 2), fmt(depth),
            fmt(bdepth / depth, 2) if depth and bdepth else "-", str(r["umq"]["queues"])]) + " |")
    return "\n".join(lines)


TABLES = {"p001-fig3": p001_fig3, "p001-fig3-seq": p001_fig3}   # figures with a table of their own


def targets(recs: List[dict]) -> str:
    """The issue's three speed targets (docs/bench.md), from the 'targets' runs."""
    by = {(r["workload"]["name"], r["engine"]): r for r in recs if "targets" in r["figures"]}
    out = ["| target | measured | met |", "|---|---|---|"]

    def ratio(w, e):
        """list's time over e's: from the run's own interleaved list timing
        (paired_list) when it has one, as `mpimatch bench` checks the targets."""
        r = by.get((w, e))
        if not r:
            return None
        base = (r.get("paired_list") or {}).get("ns_per_event", {}).get("median")
        mine = r["ns_per_event"]["median"]
        return base / mine if base and mine else r.get("speedup_vs_list")

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
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    docs = []
    for path in argv[1:]:
        try:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
    data = docs[0]
    recs = merge_rounds([d["records"] for d in docs]) if len(docs) > 1 else data["records"]
    m = data.get("machine", {})
    rounds = f"{len(docs)} rounds (medians of their medians), " if len(docs) > 1 else ""
    print(f"Run: suite {data.get('suite')}, {rounds}reps {data.get('reps')}, {data.get('started')} to "
          f"{docs[-1].get('finished')}; CPU {m.get('cpu')}, {m.get('cores')} cores, {m.get('os')}, "
          f"{m.get('compiler')}, build {m.get('build_type')}.\n")
    figs = list(OrderedDict.fromkeys(f for r in recs for f in r["figures"]))
    for fig in figs:
        if fig == "targets":
            continue
        print(f"### {fig}\n")
        print(TABLES.get(fig, table)([r for r in recs if fig in r["figures"]]))
        print()
    for title, text in path_tables(recs):
        print(f"### {title}\n")
        print(text)
        print()
    if any("targets" in r["figures"] for r in recs):     # not in a --figure run
        print("### speed targets\n")
        print(targets(recs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
