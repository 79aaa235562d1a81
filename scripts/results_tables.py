#!/usr/bin/env python3
"""Markdown tables for docs/RESULTS.md from an `mpimatch bench --suite paper` JSON.

    python scripts/results_tables.py paper-out/results.json [more.json ...] > tables.md

One table per suite figure label (p000-fig5a, p002-fig3, ...): a row per
workload, for every engine the median ns per event, the speed-up against
`list` from the same run, and the queue numbers the papers report (mean
search depth, queues opened). Then the speed targets. Nothing is computed
that is not in the JSON, so the doc's numbers can be checked against it.

Several runs: a JSON of `mpimatch bench --runs K` holds K runs (each record's
`per_run`), and several JSONs (bench rounds of the same items) add theirs; all
of them are combined as the bench combines its runs (python/mpimatch/bench/
runs.py): a time is the median of the runs' medians, a ratio the median of the
runs' ratios (each run's list ran in the same pass) with its min-max, and the
text under each table states a comparison only when it holds in every run
("within noise" otherwise); a speed target is met or missed only when it is so
in every run, "mixed" otherwise.

The whole of docs/RESULTS.md:

    python scripts/results_tables.py --doc paper-out/results.json > docs/RESULTS.md

fills the template scripts/RESULTS.template.md: its hand-written text (what the
papers report, how we measure, no number of ours) around placeholders on lines of
their own, `{{header}}` (command, machine, dates, duration, load average and
whether the run was made under load), `{{figure NAME}}` (a figure's tables and
comparison lines as above), `{{fig5-share}}`, `{{fds-why}}`, `{{queue-contents}}`,
`{{paths}}`, `{{targets}}` and `{{unplaced}}` (every figure of the JSON the
template does not name), so every number of ours on that page comes from the run.
"""
from __future__ import annotations

import datetime
import json
import re
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from results_paths import path_tables  # the MPC-MPI hints paper's Table I and Schonbein et al., Euro-Par 2018 drain times, by path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpimatch.bench import core as bench        # noqa: E402  (check_targets)
from mpimatch.bench import runs as multi        # noqa: E402  (the every-run rule)
from mpimatch import paths as mpaths            # noqa: E402  (per-class search times)


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
            cells += [fmt(r["ns_per_event"]["median"]) if r else "-", ratio_cell(r)]
        base = by_run.get("list")
        cells += [fmt(base["prq"]["mean_depth"]) if base else "-",
                  fmt(base["umq"]["mean_depth"]) if base else "-"]
        for run in extra:
            r = by_run.get(run)
            cells.append(f"{r['prq']['queues']}/{r['umq']['queues']}" if r else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ratio_cell(r: Optional[dict]) -> str:
    """The speed-up against list; over several runs, median (min–max)."""
    if not r:
        return "-"
    sp = (r.get("spread") or {}).get("speedup_vs_list")
    if r["run"] == "list":
        return fmt(r.get("speedup_vs_list"), 2)
    if not sp or len(sp["values"]) < 2:
        return fmt(r.get("speedup_vs_list"), 2)
    return f"{sp['median']:.2f} ({sp['min']:.2f}–{sp['max']:.2f})"


def split_runs(doc: dict) -> List[List[dict]]:
    """The runs of one bench JSON, each a list of records carrying that run's numbers."""
    recs = doc["records"]
    k = max((len(r.get("per_run") or []) for r in recs), default=0)
    bare = [{key: v for key, v in r.items() if key not in ("per_run", "spread")} for r in recs]
    if k <= 1:
        return [bare]
    return [[dict(b, **r["per_run"][i]) for b, r in zip(bare, recs)] for i in range(k)]


def combine(runs: Sequence[Sequence[dict]]) -> List[dict]:
    """One record per (workload spec, run) present in every run, combined (runs.py)."""
    by: Dict[tuple, List[dict]] = OrderedDict()
    for recs in runs:
        for r in recs:
            by.setdefault((r["workload"]["spec"], r["run"]), []).append(r)
    return [multi.combine_records(rs) for rs in by.values() if len(rs) == len(runs)]


def every_run_note(k: int) -> str:
    return (f"in every one of the {k} runs" if k > 1 else
            "in the one run (a single run: nothing here is checked against a rerun)")


def comparisons(recs: List[dict], k: int, pairs: Sequence[Tuple[str, str]] = ()) -> str:
    """The comparisons the text may state: each run against list, faster or slower
    in every run, else within noise; then the named pairs of runs against each other."""
    groups: Dict[str, List[str]] = OrderedDict((w, []) for w in (multi.FASTER, multi.SLOWER, multi.NOISE))
    one = len({row_key(r) for r in recs}) == 1          # one workload: no need to name it
    for r in recs:
        d = (r.get("spread") or {}).get("vs_list")
        if d:
            groups[d].append(f"{short(r)}{'' if one else ' on ' + line_key(r, recs)} ({ratio_cell(r)})")
    lines = []
    for word, what in groups.items():
        if what:
            head = (f"within noise in ns per event (faster than list in some runs, not in others)"
                    if word == multi.NOISE else f"{word} than list in ns per event, {every_run_note(k)}")
            lines.append(f"- {head}: " + "; ".join(what))
    by = {(row_key(r), r["run"]): r for r in recs}
    for a, b in pairs:
        for key in OrderedDict.fromkeys(row_key(r) for r in recs):
            ra, rb = by.get((key, a)), by.get((key, b))
            if ra and rb:
                lines.append(pair_line(ra, rb, line_key(ra, recs), k))
    return "\n".join(lines)


def line_key(r: dict, recs: Sequence[dict]) -> str:
    """The workload as a comparison line names it: its row key, or its name alone
    when the row key is the whole spec and no other workload has the name."""
    key = row_key(r)
    name = r["workload"]["name"]
    if key == r["workload"]["spec"] and len({x["workload"]["spec"] for x in recs
                                             if x["workload"]["name"] == name}) == 1:
        return name
    return key


def short(r: dict) -> str:
    """A run's name without its queue description (`clustering 3`, not
    `clustering 3: {Ps,Pvl}|{Pm,Pl}`)."""
    c = r.get("clustering")
    return r["run"].split(":")[0] if c and not c.get("learned") else r["run"]


def search_ns(run: dict) -> Optional[float]:
    """Time per UMQ search of one run: ns per event of the success_from_recv path (a
    receive that takes an unexpected message), when the run was timed by path."""
    path = ((run.get("paths") or {}).get("by_path") or {}).get("success_from_recv") or {}
    return (path.get("ns_per_event") or {}).get("median")


def search_median(r: dict) -> Optional[float]:
    """The median across runs of the time per UMQ search."""
    sp = multi.span([search_ns(x) for x in r.get("per_run") or [r]])
    return sp["median"] if sp else None


def span_text(sp: Optional[dict], k: int, unit: str = "") -> str:
    if not sp:
        return "-"
    return f"{sp['median']:.2f}{unit} ({sp['min']:.2f}–{sp['max']:.2f})" if k > 1 else f"{sp['median']:.2f}{unit}"


def pair_line(a: dict, b: dict, key: Optional[str], k: int, measure=multi.ns_median,
              what: str = "time") -> str:
    """a against b, run by run: b's measure over a's."""
    ratios = multi.pair_ratios(a, b, measure)
    d = multi.direction(ratios)
    na, nb = short(a), short(b)
    if d is None:
        return f"- {key + ': ' if key else ''}{na} against {nb}: not measured in every run"
    verdict = (f"{na} is {d} than {nb} {every_run_note(k)}" if d != multi.NOISE
               else f"{na} against {nb}: within noise")
    return (f"- {key + ': ' if key else ''}{verdict} ({nb}'s {what} / {na}'s: "
            f"{span_text(multi.span(ratios), k, 'x')})")


def search_vs_list(base: Optional[dict], r: dict, k: int) -> Tuple[str, str]:
    """The speed-up of the UMQ search against list's, run by run: the cell (median,
    min–max) and the verdict (faster, slower, within noise)."""
    if not base:
        return "-", "-"
    ratios = multi.pair_ratios(r, base, search_ns)
    if any(x is None for x in ratios):
        return "-", "-"
    if r is base:
        return "1.00", "-"
    return span_text(multi.span(ratios), k), multi.direction(ratios) or "-"


# Pairs of runs the papers compare with each other, stated run by run.
PAIRS = {"p002-fig3": [("hash", "nm")], "p002-fig5": [("hash", "nm")],
         "p000-fig7-8": [("col+pnp", "col+ll")], "p000-fig9": [("col+pnp", "col+ll")]}


P001_QUEUES = {"list": "one list", "rank": "one per peer"}


def p001_fig3(recs: List[dict]) -> str:
    """Ghazimirsaeed and Afsahi, HPCS 2017 fig. 3: a row per run in the suite's order (the paper's: one queue,
    Table 1's clusterings 1-7, four queues), then what K-means learned and rank."""
    rounds = max((r.get("spread") or {}).get("runs", 1) for r in recs)
    spread = f"range of {rounds} runs' medians" if rounds > 1 else "q1–q3"
    base = next((r for r in recs if r["run"] == "list"), None)
    timed = any(search_median(r) is not None for r in recs)
    head = ["run", "queues (groups per queue)", "ns/event", spread, "×list",
            *(["UMQ search ns", "search ×list", "every run"] if timed else []),
            "UMQ mean depth", "depth ×list", "UMQ queues"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in recs:
        c = r.get("clustering")
        name = r["run"].split(":")[0] if c and not c["learned"] else r["run"]
        queues = c["description"].replace("|", "\\|") if c else P001_QUEUES.get(r["engine"], "-")
        ns = r["ns_per_event"]
        meds = ((r.get("spread") or {}).get("ns_median") or {})
        rng = (f"{fmt(meds['min'])}–{fmt(meds['max'])}" if rounds > 1
               else f"{fmt(ns['q1'])}–{fmt(ns['q3'])}")
        depth, bdepth = r["umq"]["mean_depth"], base["umq"]["mean_depth"] if base else None
        search = [fmt(search_median(r)), *search_vs_list(base, r, rounds)] if timed else []
        lines.append("| " + " | ".join([
            name, queues, fmt(ns["median"]), rng, ratio_cell(r), *search, fmt(depth),
            fmt(bdepth / depth, 2) if depth and bdepth else "-", str(r["umq"]["queues"])]) + " |")
    four = next((r for r in recs if r["run"].startswith("4 queues")), None)
    twos = [r for r in recs if (r.get("clustering") or {}).get("k") == 2]
    extra = [comparisons(recs, rounds)]
    # The paper compares UMQ search times: per search when the runs were timed by path.
    how = dict(measure=search_ns, what="time per UMQ search") if timed else {}
    if four:
        extra += [pair_line(four, r, None, rounds, **how) for r in twos]
    c3, c4 = (next((r for r in recs if r["run"].startswith(f"clustering {i}:")), None) for i in (3, 4))
    if c3 and c4:
        extra.append(pair_line(c3, c4, None, rounds, **how))
    return "\n".join(lines) + "\n\n" + "\n".join(e for e in extra if e)


def p001_fig2_paper(recs: List[dict]) -> str:
    """Ghazimirsaeed and Afsahi, HPCS 2017 fig. 2 as the paper defines it: one queue (list)
    against two, the last half of the queue in the second; time per UMQ search."""
    k = max((r.get("spread") or {}).get("runs", 1) for r in recs)
    rows: Dict[str, Dict[str, dict]] = OrderedDict()
    for r in recs:
        rows.setdefault(row_key(r), {})["list" if r["run"] == "list" else "two"] = r
    head = ["workload", "list search ns", "two queues search ns", "search ×list", "every run",
            "UMQ mean depth list", "two queues", "ns/event ×list"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, by in rows.items():
        base, two = by.get("list"), by.get("two")
        if not base or not two:
            continue
        cell, verdict = search_vs_list(base, two, k)
        lines.append("| " + " | ".join([
            key, fmt(search_median(base)), fmt(search_median(two)), cell, verdict,
            fmt(base["umq"]["mean_depth"]), fmt(two["umq"]["mean_depth"]), ratio_cell(two)]) + " |")
    return "\n".join(lines)


def class_measure(cls: Optional[str], side: str):
    """A run's time per search of one side by one element class (None: both)."""
    return lambda run: mpaths.side_search_ns(run.get("classes"), cls, side)


def overhead_ratio(run: dict) -> Optional[float]:
    """Ghazimirsaeed et al., ParCo 2019 Table 2: the engine's overhead (allocating
    queues, extracting partners, profiling collectives; its own clock) over its
    search time: the time of every receive and message call (--classes, clock
    reads subtracted) less that overhead."""
    o = run.get("overhead") or {}
    total = mpaths.search_total_ns(run.get("classes"))
    over = sum(o.get(k) or 0 for k in ("alloc_ns", "extract_ns", "profile_ns"))
    if total is None or not o:
        return None
    return over / (total - over) if total > over else None


def depth_cell(r: dict, cls: str) -> str:
    by = ((r.get("classes") or {}).get("by_class") or {}).get(cls) or {}
    u, p = by.get("umq") or {}, by.get("prq") or {}
    if not u.get("searches") and not p.get("searches"):
        return "-"
    return f"{fmt(u.get('mean_depth'))}/{fmt(p.get('mean_depth'))}"


CLASS_COLS = [("coll", "umq"), ("coll", "prq"), ("p2p", "umq"), ("p2p", "prq"),
              (None, "umq"), (None, "prq")]


def p000_classes(recs: List[dict]) -> str:
    """Ghazimirsaeed et al., ParCo 2019 figs. 6-8 and Table 2, per workload: each
    design's time per UMQ and PRQ search of collective, point-to-point and all
    elements against list's (run by run: median, min–max; the verdict under the
    table only when it holds in every run), the mean depth of each class's searches
    (exact), and the overhead-to-search-time ratio."""
    k = max((r.get("spread") or {}).get("runs", 1) for r in recs)
    out = [table(recs), "", comparisons(recs, k, PAIRS.get("p000-fig7-8", ())), ""]
    rows: Dict[str, Dict[str, dict]] = OrderedDict()
    for r in recs:
        if r.get("classes"):
            rows.setdefault(row_key(r), {})[r["run"]] = r
    for key, by in rows.items():
        base = by.get("list")
        if not base:
            continue
        name = lambda c, s: f"{c or 'all'} {s.upper()}"  # noqa: E731
        head = (["design"] + [f"{name(c, s)} ×list" for c, s in CLASS_COLS] +
                ["coll UMQ/PRQ depth", "p2p UMQ/PRQ depth", "overhead / search"])
        lines = [f"Per element class, `{key}` (time per search; ×list = list's / the design's):",
                 "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        verdicts = []
        for run, r in by.items():
            cells = [run]
            for c, side in CLASS_COLS:
                m = class_measure(c, side)
                if r is base:
                    ns = multi.span([m(x) for x in r.get("per_run") or [r]])
                    cells.append(f"{ns['median']:.0f} ns" if ns else "-")
                    continue
                ratios = multi.pair_ratios(r, base, m)
                if any(x is None for x in ratios):
                    cells.append("-")
                    continue
                cells.append(span_text(multi.span(ratios), k, "x"))
                d = multi.direction(ratios)
                verdicts.append((d, f"{run} {name(c, side)} ({span_text(multi.span(ratios), k, 'x')})"))
            ov = multi.span([overhead_ratio(x) for x in r.get("per_run") or [r]])
            cells += [depth_cell(r, "coll"), depth_cell(r, "p2p"),
                      (f"{ov['median']:.4f}" + (f" ({ov['min']:.4f}–{ov['max']:.4f})" if k > 1 else ""))
                      if ov else "-"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.append("list's cells: its time per search (ns); depth: mean elements compared per "
                     "search, UMQ/PRQ, exact.")
        for word in (multi.FASTER, multi.SLOWER, multi.NOISE):
            what = [t for d, t in verdicts if d == word]
            if what:
                head = ("within noise (faster than list in some runs, not in others)"
                        if word == multi.NOISE else f"{word} per search than list {every_run_note(k)}")
                lines.append(f"- {head}: " + "; ".join(what))
        out += lines + [""]
    return "\n".join(out).rstrip()


TABLES = {"p000-fig7-8": p000_classes, "p000-fig9": p000_classes,
          "p001-fig3": p001_fig3, "p001-fig3-seq": p001_fig3,   # figures with a table of their own
          "p001-fig2-paper-m10": p001_fig2_paper, "p001-fig2-paper-m50": p001_fig2_paper}


def targets(runs: Sequence[Sequence[dict]]) -> str:
    """The speed targets (docs/bench.md) as `mpimatch bench` checks them, run by run,
    then combined: met or missed only when so in every run."""
    ts = multi.combine_targets([bench.check_targets(recs) for recs in runs])
    out = ["| target | measured: median (min–max) | runs | status |", "|---|---|---|---|"]
    if all(t["status"] == "not measured" for t in ts):
        return ""
    for t in ts:
        if t["status"] == "not measured":
            continue
        unit = {"events/s": " M events/s", "ns/event": " ns/event", "B": " B"}.get(t["unit"], "×")
        scale = 1e-6 if t["unit"] == "events/s" else 1.0
        rng = (f" ({t['measured_min'] * scale:.2f}–{t['measured_max'] * scale:.2f})"
               if len(runs) > 1 else "")
        out.append(f"| {t['description']} | {t['measured'] * scale:.2f}{unit}{rng} | {len(runs)} | "
                   f"{t['status']}{': ' + t['note'] if t['status'] == 'mixed' else ''} |")
    return "\n".join(out)


def load_docs(paths: Sequence[str]) -> List[dict]:
    docs = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            raise SystemExit(f"{path}: {e}")
    return docs


def figure_text(fig: str, recs: List[dict], k: int) -> str:
    """One figure's tables and the comparison lines under them."""
    mine = [r for r in recs if fig in r["figures"]]
    if not mine:
        return f"*{fig} is not in this run.*"
    if fig in TABLES:
        return TABLES[fig](mine)
    return (table(mine) + "\n\n" + comparisons(mine, k, PAIRS.get(fig, ()))).rstrip()


def run_line(docs: List[dict], k: int) -> str:
    data = docs[0]
    m = data.get("machine", {})
    load = data.get("load_average") or {}
    return (f"Run: suite {data.get('suite')}, {k} run{'s' if k > 1 else ''} ({len(docs)} JSON file"
            f"{'s' if len(docs) > 1 else ''}), reps {data.get('reps')}, {data.get('started')} to "
            f"{docs[-1].get('finished')}; CPU {m.get('cpu')}, {m.get('cores')} cores, {m.get('os')}, "
            f"{m.get('compiler')}, build {m.get('build_type')}"
            + (f"; load average (1, 5, 15 min) {load.get('before')} before, {load.get('after')} after"
               if load else "") + ".")


def _when(text: Optional[str]) -> Optional[datetime.datetime]:
    try:
        return datetime.datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _nums(v) -> str:
    return ", ".join(str(x) for x in v) if isinstance(v, list) else str(v)


def loaded(docs: List[dict]) -> Tuple[Optional[float], int]:
    """The highest 1-minute load average the JSONs recorded (before, after, and
    at each run's start and end) and the machine's cores."""
    seen: List[float] = []
    for d in docs:
        load = d.get("load_average") or {}
        for key in ("before", "after"):
            if load.get(key):
                seen.append(load[key][0])
        for t in d.get("run_times") or []:
            for key in ("load_before", "load_after"):
                if t.get(key):
                    seen.append(t[key][0])
    cores = int((docs[0].get("machine") or {}).get("cores") or 1)
    return (max(seen) if seen else None), cores


def header(docs: List[dict], k: int) -> str:
    """Where the numbers come from: command, machine, dates and duration, load."""
    data = docs[0]
    m = data.get("machine", {})
    lines = [f"- **Command:** " + "; ".join(
        f"`{c}`" for c in OrderedDict.fromkeys(d.get("command") or "(not recorded)" for d in docs))
        + f", then `python scripts/results_tables.py --doc` on its JSON ({k} run{'s' if k > 1 else ''}"
        f" of every item, {data.get('reps')} timed repetitions each)."]
    lines.append(f"- **Machine:** CPU {m.get('cpu')}, {m.get('cores')} cores, {m.get('os')}, "
                 f"{m.get('compiler')}, build {m.get('build_type')}.")
    t0, t1 = _when(data.get("started")), _when(docs[-1].get("finished"))
    took = f" ({(t1 - t0).total_seconds() / 60:.0f} min)" if t0 and t1 else ""
    lines.append(f"- **Date:** {data.get('started')} to {docs[-1].get('finished')}{took}.")
    loads = []
    for d in docs:
        load = d.get("load_average") or {}
        if load:
            loads.append(f"{_nums(load.get('before'))} before, {_nums(load.get('after'))} after")
        per = [f"run {i + 1}: {t['load_before'][0]} to {t['load_after'][0]}"
               for i, t in enumerate(d.get("run_times") or []) if t.get("load_before") and t.get("load_after")]
        if per:
            loads.append("1 min at each run's start and end: " + ", ".join(per))
    top, cores = loaded(docs)
    lines.append("- **Load average** (1, 5, 15 min): " + ("; ".join(loads) if loads else "not recorded") + ".")
    if top is None:
        lines.append("- The load was not recorded: read every timing comparison with care.")
    elif top > 0.5 * cores:
        lines.append(f"- **Made under load:** the 1-minute load average reached {top} on {cores} cores, "
                     "so other jobs shared the machine while the engines were timed. Depths and queue "
                     "counts do not depend on it; times and ratios do, and a comparison that does not "
                     "hold in every run reads \"within noise\" below. Rerun the same command on a quiet "
                     "machine before reading much into a ratio.")
    else:
        lines.append(f"- The machine was quiet: the 1-minute load average stayed at or under {top} "
                     f"on {cores} cores.")
    return "\n".join(lines)


# Ghazimirsaeed et al., ParCo 2019 sec. 5.2: the latency reductions of Fig. 5, by
# figure and process count (None: "up to", no process count given).
PAPER_FIG5 = {"p000-fig5a": {1024: 1.5, 2048: 2.4, 4096: 5.4}, "p000-fig5b": {None: 1.16},
              "p000-fig5c": {None: 1.26}}


def fig5_share(recs: List[dict], k: int) -> str:
    """The share f of the list's latency that matching would have to take for our
    matching-only speed-up S to give the paper's latency reduction L:
    L = 1 / ((1 - f) + f / S), so f = (1 - 1/L) / (1 - 1/S), per run."""
    lines = ["| figure | workload | design | matching ×list: median (min–max) | paper's latency "
             "reduction | matching's share of the latency it needs |", "|---|---|---|---|---|---|"]
    for fig, paper in PAPER_FIG5.items():
        for r in (x for x in recs if fig in x["figures"] and x["run"] != "list"):
            n = (r["workload"].get("params") or {}).get("n")
            L = paper.get(n, paper.get(None))
            sp = (r.get("spread") or {}).get("speedup_vs_list") or {}
            values = sp.get("values") or ([r["speedup_vs_list"]] if r.get("speedup_vs_list") else [])
            if L is None or not values:
                continue
            if any(S <= L for S in values):
                need = ("not reachable in every run: needs a speed-up of matching above the "
                        f"paper's {L}x even if matching were all of the latency")
            else:
                f = multi.span([(1 - 1 / L) / (1 - 1 / S) for S in values])
                need = (f"{100 * f['median']:.0f}% ({100 * f['min']:.0f}–{100 * f['max']:.0f}%)"
                        if k > 1 else f"{100 * f['median']:.0f}%")
            lines.append(f"| {fig} | {row_key(r)} | {r['run']} | {ratio_cell(r)} | "
                         f"{'' if n in paper else 'up to '}{L}x | {need} |")
    return "\n".join(lines) if len(lines) > 2 else "*Fig. 5 is not in this run.*"


def fds_why(recs: List[dict], target: float = 42.0) -> str:
    """Why our FDS collective speed-up falls short of the paper's ~42x: per side, list's
    and col+pnp's time and elements compared per collective search (medians over the
    runs), list's time per element compared, col+pnp's time beyond walking its elements
    at that cost, and the list depth a 42x speed-up would need at these costs."""
    lines = ["| workload | side | list ns/search | list depth | col+pnp ns/search | col+pnp depth | "
             "fewer elements | faster (by run) | list ns per element | col+pnp ns beyond its walk | "
             f"list depth for {target:.0f}x |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    by: Dict[str, Dict[str, dict]] = OrderedDict()
    for r in recs:
        if r.get("classes") and r["workload"]["name"] == "fds":
            by.setdefault(r["workload"]["spec"], {})[r["run"]] = r
    for spec, runs in by.items():
        base, col = runs.get("list"), runs.get("col+pnp")
        if not base or not col:
            continue
        n = (base["workload"].get("params") or {}).get("n")
        for side in ("umq", "prq"):
            m = class_measure("coll", side)
            tl = multi.span([m(x) for x in base.get("per_run") or [base]])
            tc = multi.span([m(x) for x in col.get("per_run") or [col]])
            dl = (((base["classes"].get("by_class") or {}).get("coll") or {}).get(side) or {}).get("mean_depth")
            dc = (((col["classes"].get("by_class") or {}).get("coll") or {}).get(side) or {}).get("mean_depth")
            if not tl or not tc or not dl or not dc:
                continue
            per = tl["median"] / dl
            beyond = tc["median"] - per * dc
            up = multi.span(multi.pair_ratios(col, base, m))   # as the per-class table: by run
            lines.append(f"| fds n={n} | {side.upper()} | {tl['median']:.0f} | {dl:.1f} | {tc['median']:.0f} | "
                         f"{dc:.1f} | {dl / dc:.1f}x | {span_text(up, len(up['values']), 'x') if up else '-'} | "
                         f"{per:.2f} | {beyond:.0f} | {target * tc['median'] / per:.0f} |")
    return "\n".join(lines) if len(lines) > 2 else "*No fds item with per-class timing in this run.*"


def queue_contents() -> str:
    """Ghazimirsaeed and Afsahi's fig. 3 stream walked queue by queue (exact counts;
    scripts/p001_queue_contents.py, which needs mpimatch-gen)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import p001_queue_contents as q                       # noqa: E402
    try:
        return q.table(16, "sequential")
    except Exception as e:                                # the generator missing or failing
        return f"*The queue contents could not be computed here: {e}.*"


def paths_text(recs: List[dict]) -> str:
    return "\n\n".join(f"### {title}\n\n{text}" for title, text in path_tables(recs))


PLACEHOLDER = re.compile(r"^\{\{([a-z0-9-]+)(?: ([^}]+))?\}\}$")


def render(template: str, docs: List[dict]) -> str:
    """The template with every placeholder line replaced (module docstring)."""
    runs = [run for d in docs for run in split_runs(d)]
    recs, k = combine(runs), len(runs)
    figs = [f for f in OrderedDict.fromkeys(f for r in recs for f in r["figures"]) if f != "targets"]
    named = {m.group(2).strip() for line in template.splitlines()
             if (m := PLACEHOLDER.match(line.strip())) and m.group(1) == "figure"}
    out = []
    for i, line in enumerate(template.splitlines(), 1):
        m = PLACEHOLDER.match(line.strip())
        if not m:
            out.append(line)
            continue
        what, arg = m.group(1), (m.group(2) or "").strip()
        if what == "header":
            out.append(header(docs, k))
        elif what == "figure":
            out.append(f"**{arg}**\n\n{figure_text(arg, recs, k)}")
        elif what == "fig5-share":
            out.append(fig5_share(recs, k))
        elif what == "fds-why":
            out.append(fds_why(recs))
        elif what == "queue-contents":
            out.append(queue_contents())
        elif what == "paths":
            out.append(paths_text(recs) or "*No item timed by path in this run.*")
        elif what == "targets":
            out.append(targets(runs) or "*No speed target in this run.*")
        elif what == "unplaced":
            rest = [f for f in figs if f not in named]
            out.append("\n\n".join(f"### {f}\n\n{figure_text(f, recs, k)}" for f in rest)
                       if rest else "*Every figure of the run is placed above.*")
        else:
            raise SystemExit(f"template line {i}: unknown placeholder {{{{{what}}}}}")
    return "\n".join(out).rstrip() + "\n"


TEMPLATE = Path(__file__).resolve().parent / "RESULTS.template.md"


def main(argv: List[str]) -> int:
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    template: Optional[Path] = None
    if args and args[0] == "--doc":
        template, args = TEMPLATE, args[1:]
        if args and args[0] == "--template" and len(args) > 1:
            template, args = Path(args[1]), args[2:]
    if not args:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        docs = load_docs(args)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    if template is not None:
        try:
            text = template.read_text(encoding="utf-8")
        except OSError as e:
            print(f"{template}: {e}", file=sys.stderr)
            return 2
        try:
            sys.stdout.write(render(text, docs))
        except SystemExit as e:
            print(f"{template}: {e}", file=sys.stderr)
            return 2
        return 0
    runs = [run for d in docs for run in split_runs(d)]
    recs = combine(runs)
    k = len(runs)
    print(run_line(docs, k))
    commands = list(OrderedDict.fromkeys(d.get("command") for d in docs if d.get("command")))
    if commands:
        print("Command: " + "; ".join(f"`{c}`" for c in commands) + ".")
    print(f"\nEach ×list cell is the median across the runs with the min–max; under each table, "
          f"a comparison is stated only when it holds {every_run_note(k)}, and called within "
          f"noise otherwise.\n")
    figs = list(OrderedDict.fromkeys(f for r in recs for f in r["figures"]))
    for fig in figs:
        if fig == "targets":
            continue
        print(f"### {fig}\n")
        print(figure_text(fig, recs, k))
        print()
    for title, text in path_tables(recs):
        print(f"### {title}\n")
        print(text)
        print()
    text = targets(runs)
    if text:                                              # none in a --figure run
        print("### speed targets\n")
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
