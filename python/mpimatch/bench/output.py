"""Outputs of `mpimatch bench` that are not pictures: JSON, CSV,
and the terminal tables (results with speed-up against list; targets)."""
from __future__ import annotations

import csv
import io
import json
from typing import Any, Dict, Iterable, List, Mapping, Sequence, Tuple

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..report import BASELINE, human_bytes, human_rate, probes_cell

def json_text(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


CSV_COLUMNS = ["workload", "spec", "synthetic", "figures", "engine", "run", "events", "np", "reps",
               "ns_median", "ns_q1", "ns_q3", "ns_min", "events_per_second", "speedup_vs_list",
               "prq_mean_depth", "prq_max_depth", "prq_max_length", "prq_queues",
               "umq_mean_depth", "umq_max_depth", "umq_max_length", "umq_queues",
               "prq_peak_bytes", "umq_peak_bytes", "peak_bytes", "matches",
               "prq_searches", "prq_probes", "prq_max_probes",
               "umq_searches", "umq_probes", "umq_max_probes",
               "clustering", "cluster_file", "runs", "speedup_min", "speedup_max", "vs_list"]


def csv_row(r: Mapping[str, Any]) -> List[Any]:
    ns, prq, umq = r["ns_per_event"], r["prq"], r["umq"]
    return [r["workload"]["name"], r["workload"]["spec"], r["workload"]["synthetic"],
            " ".join(r["figures"]), r["engine"], r["run"], r["events"], r["np"], r["reps"],
            ns["median"], ns["q1"], ns["q3"], ns["min"], r["events_per_second"],
            r["speedup_vs_list"],
            prq["mean_depth"], prq["max_depth"], prq["max_length"], prq["queues"],
            umq["mean_depth"], umq["max_depth"], umq["max_length"], umq["queues"],
            prq["peak_bytes"], umq["peak_bytes"], r["peak_bytes"], r["outcomes"].get("matches"),
            *(q.get(k) for q in (prq, umq) for k in ("searches", "probes", "max_probes")),
            *_clustering_cells(r.get("clustering")), *_spread_cells(r.get("spread"))]


def _spread_cells(sp: Any) -> List[Any]:
    """Across runs (--runs): how many, the speed-up's min and max, and the verdict
    against list (faster, slower, within noise)."""
    if not sp:
        return [None] * 4
    up = sp.get("speedup_vs_list") or {}
    return [sp.get("runs"), up.get("min"), up.get("max"), sp.get("vs_list")]


def _clustering_cells(c: Any) -> List[Any]:
    """Which peers share a queue ("{Ps,Pm,Pl}|{Pvl}") and the cluster file, for runs
    whose cluster file the bench wrote (clusters.py)."""
    return [c["description"], c["file"]] if c else [None, None]


def csv_text(records: Iterable[Mapping[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in records:
        w.writerow(["" if v is None else v for v in csv_row(r)])
    return buf.getvalue()


# ---------------------------------------------------------------- formatting

def fnum(x: Any, spec: str = ".2f") -> str:
    return "-" if not isinstance(x, (int, float)) or isinstance(x, bool) else format(x, spec)


def fspeedup(x: Any) -> str:
    return "-" if x is None else f"{x:.2f}×"


def target_value(t: Mapping[str, Any], key: str) -> str:
    """The wanted or measured value; a measured value of several runs with their
    min-max."""
    def one(v: Any) -> str:
        if t["unit"] == "events/s":
            return "-" if v is None else f"{human_rate(v)}ev/s"
        if t["unit"] == "ns/event":
            return "-" if v is None else f"{v:.2f} ns"
        if t["unit"] == "B":
            return "-" if v is None else f"{v:.1f} B"
        return "-" if v is None else f"{v:.2f}×"
    lo, hi = t.get(f"{key}_min"), t.get(f"{key}_max")
    if t.get(key) is not None and len(t.get("per_run") or ()) > 1 and lo is not None:
        return f"{one(t[key])} ({one(lo)}–{one(hi)})"
    return one(t.get(key))


def target_status(t: Mapping[str, Any]) -> str:
    """met / MISSED (in every run), mixed (which runs), not measured."""
    status = t.get("status") or {True: "met", False: "MISSED"}.get(t["met"], "not measured")
    return f"mixed: {t['note']}" if status == "mixed" else status


def fspread(r: Mapping[str, Any]) -> str:
    """The speed-up against list; over several runs, the median (min–max)."""
    sp = (r.get("spread") or {}).get("speedup_vs_list")
    if not sp or len(sp["values"]) < 2:
        return fspeedup(r["speedup_vs_list"])
    return f"{fspeedup(sp['median'])} ({sp['min']:.2f}–{sp['max']:.2f})"


def verdict(r: Mapping[str, Any]) -> str:
    """faster / slower than list in every run, or within noise (runs.direction)."""
    return (r.get("spread") or {}).get("vs_list") or "-"


def results_rows(records: Sequence[Mapping[str, Any]]) -> Dict[str, List[List[str]]]:
    """Rows of the results table, grouped by workload spec (in run order); synthetic
    application profiles say so."""
    groups: Dict[str, List[List[str]]] = {}
    for r in records:
        ns, prq, umq = r["ns_per_event"], r["prq"], r["umq"]
        label = r["workload"]["spec"] + (" (synthetic)" if r["workload"]["synthetic"] else "")
        groups.setdefault(label, []).append([
            r["run"], fnum(ns["median"]), f"{fnum(ns['q1'])}–{fnum(ns['q3'])}",
            fspread(r), verdict(r),
            f"{fnum(prq['mean_depth'])}/{fnum(prq['max_depth'], 'd')}",
            f"{fnum(umq['mean_depth'])}/{fnum(umq['max_depth'], 'd')}",
            f"{fnum(prq['queues'], 'd')}/{fnum(umq['queues'], 'd')}",
            human_bytes(r["peak_bytes"]), probes_cell(prq, umq)])
    return groups


# Line breaks where the terminal table breaks its headings; the HTML puts spaces.
RESULT_HEADERS = ["engine", "ns/event\nmedian", "ns/event\nq1–q3", f"speed-up\nvs {BASELINE}",
                  f"vs {BASELINE}\nevery run", "PRQ depth\nmean/max", "UMQ depth\nmean/max",
                  "queues\nPRQ/UMQ", "peak\nbytes", "probes/op\nmean/max"]


def _skipped(skipped: Sequence[Mapping[str, Any]]) -> Text:
    """One line per (engine, reason): the workloads it skipped."""
    groups: Dict[Tuple[str, str], List[str]] = {}
    for s in skipped:
        groups.setdefault((s["engine"], s["reason"]), []).append(s["workload"])
    text = Text()
    for (engine, reason), workloads in groups.items():
        text.append(f"skipped {engine}", style="yellow")
        text.append(f" ({reason}): {', '.join(workloads)}\n")
    return text


NARROW = 140           # below this width the table leaves out the quartiles, queue counts, probes
NARROW_DROP = (2, 7, 9)  # their indexes in RESULT_HEADERS


def terminal_report(doc: Mapping[str, Any], width: int = NARROW) -> Group:
    """The results table (a heading row per workload), skipped runs, and the targets.
    On a narrow terminal the quartiles, queue counts and probes are left out (JSON, CSV and
    the HTML report have them)."""
    keep = [i for i in range(len(RESULT_HEADERS)) if width >= NARROW or i not in NARROW_DROP]
    runs = doc.get("runs", 1)
    title = (f"mpimatch bench: suite {doc['suite']}, reps={doc['reps']}, runs={runs}, "
             f"seed={doc.get('seed')}") + (
        ": median across runs (min–max); faster/slower only when so in every run" if runs > 1 else "")
    table = Table(title=Text(title),
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for i in keep:
        table.add_column(RESULT_HEADERS[i], justify="left" if i == 0 else "right", no_wrap=i > 0)
    for spec, rows in results_rows(doc["records"]).items():
        # Breakable at the commas, so a long spec does not widen the engine column.
        table.add_row(Text(spec.replace(",", ", "), style="bold cyan"), *[""] * (len(keep) - 1))
        for row in rows:
            table.add_row(*(Text(row[i]) for i in keep))
    parts: List[Any] = [table]
    if doc["skipped"]:
        parts.append(_skipped(doc["skipped"]))
    parts.append(targets_table(doc["targets"]))
    return Group(*parts)


def targets_table(targets: Sequence[Mapping[str, Any]], title: str = "speed targets") -> Table:
    """The targets, wanted and measured, met, MISSED or not measured."""
    table = Table(title=Text(f"{title} (targets, not tests)"), title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    for h in ("target", "wanted", "measured", "status"):
        table.add_column(h, justify="left" if h == "target" else "right")
    for t in targets:
        style = {True: "green", False: "bold red"}.get(t["met"], "yellow")
        table.add_row(Text(t["description"]), Text(f"{t['relation']} {target_value(t, 'wanted')}"),
                      Text(target_value(t, "measured"), no_wrap=True),
                      Text(target_status(t), style=style, no_wrap=True))
    return table
