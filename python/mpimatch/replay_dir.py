"""`mpimatch replay STREAM_DIR`: replay every rank's stream of a run and aggregate.

A stream directory holds one event stream per rank and an index
(docs/replay.md, "Stream directories"):

    STREAM_DIR/index.json   {"format": "mpimatch-streams", "version": 1, "ranks": N,
                             "source": ..., "mpi": ..., "model": {...},
                             "files": ["rank-000000.mms", ...], "warnings": [...]}
    STREAM_DIR/rank-000000.mms ...

Without index.json the rank-*.mms files are used, in name order. Each rank's
stream is replayed by mpimatch-replay (--json, plus the untimed list-semantics
analyses --peer-traversal and --queue-series), in parallel up to the core count.
"""
from __future__ import annotations

import csv
import json
import re
import struct
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import tools
from .errors import EXIT_FAILURE, MpimatchError
from .replay import run_tool

INDEX_FORMAT = "mpimatch-streams"
INDEX_VERSION = 1
RANK_FILE = re.compile(r"rank-(\d+)\.mms$")


def load_dir(directory: Path) -> Tuple[Dict[str, Any], List[Path]]:
    """The index (or a minimal one) and the rank stream files, rank order. The index's
    "rank_numbers" (added here) gives each file's rank: all ranks 0..ranks-1, or the ranks
    `mpimatch convert --rank` wrote (files named rank-NNNNNN.mms)."""
    index_path = directory / "index.json"
    if not directory.is_dir():
        raise MpimatchError(f"{directory}: not a directory")
    if not index_path.exists():
        files = sorted(p for p in directory.iterdir() if RANK_FILE.match(p.name))
        if not files:
            raise MpimatchError(f"{directory}: no index.json and no rank-*.mms stream files")
        return {"format": INDEX_FORMAT, "version": INDEX_VERSION, "ranks": len(files),
                "files": [p.name for p in files], "warnings": [],
                "rank_numbers": list(range(len(files)))}, files
    try:
        index = json.loads(index_path.read_text())
    except (OSError, ValueError) as err:
        raise MpimatchError(f"{index_path}: not valid JSON: {err}") from None
    if not isinstance(index, dict) or index.get("format") != INDEX_FORMAT:
        raise MpimatchError(f"{index_path}: not a stream directory index "
                            f"(format is not '{INDEX_FORMAT}')")
    if index.get("version") != INDEX_VERSION:
        raise MpimatchError(f"{index_path}: unsupported version {index.get('version')!r} "
                            f"(this reader knows {INDEX_VERSION})")
    ranks, names = index.get("ranks"), index.get("files")
    if not isinstance(ranks, int) or ranks < 1:
        raise MpimatchError(f"{index_path}: 'ranks' must be a positive integer")
    if not isinstance(names, list) or not 1 <= len(names) <= ranks or \
            not all(isinstance(n, str) and n for n in names):
        raise MpimatchError(f"{index_path}: 'files' must list 1 to {ranks} file names: "
                            f"one per rank, or those of the ranks converted (--rank)")
    if len(names) == ranks:
        numbers = list(range(ranks))
    else:  # a subset (convert --rank): each file's rank is in its name
        found = [RANK_FILE.match(Path(n).name) for n in names]
        numbers = [int(m.group(1)) if m else -1 for m in found]
        if any(r < 0 or r >= ranks for r in numbers) or len(set(numbers)) != len(numbers) \
                or numbers != sorted(numbers):
            raise MpimatchError(f"{index_path}: 'files' lists {len(names)} of {ranks} ranks; "
                                f"their names must be rank-NNNNNN.mms, distinct ranks below "
                                f"{ranks}, in rank order")
    index = {**index, "rank_numbers": numbers}
    files = []
    for name in names:
        path = directory / name
        if not path.is_file():
            raise MpimatchError(f"{path}: missing (listed in {index_path})")
        files.append(path)
    return index, files


def replay_rank(stream: Path, replay_args: Sequence[str], every: int,
                work: Path) -> Dict[str, Any]:
    """Run mpimatch-replay on one rank's stream; its JSON, traversal counts and series."""
    out_json, peer, series = work / "replay.json", work / "peer.json", work / "series.csv"
    code = run_tool(tools.REPLAY, [str(stream), *replay_args, "--json", str(out_json), "--quiet",
                                   "--peer-traversal", str(peer), "--queue-series", str(series),
                                   "--every", str(every)])
    if code != 0:
        return {"stream": str(stream), "exit_code": code}
    try:
        data = json.loads(out_json.read_text())
        traversal = json.loads(peer.read_text())
        with series.open() as f:
            rows = [[int(x) for x in row] for row in list(csv.reader(f))[1:]]
    except (OSError, ValueError) as err:
        raise MpimatchError(f"{stream}: mpimatch-replay output unreadable: {err}",
                            EXIT_FAILURE) from None
    return {"stream": str(stream), "exit_code": 0, "replay": data, "traversal": traversal,
            "series": rows}


def run_dir(files: Sequence[Path], replay_args: Sequence[str], every: int, jobs: int,
            on_done: Optional[Callable[[int, Dict[str, Any]], None]] = None
            ) -> List[Dict[str, Any]]:
    """Replay every rank in parallel (jobs at a time); results in rank order."""
    results: List[Optional[Dict[str, Any]]] = [None] * len(files)
    with tempfile.TemporaryDirectory(prefix="mpimatch-dir-") as tmp:
        def one(rank: int) -> Tuple[int, Dict[str, Any]]:
            work = Path(tmp) / str(rank)
            work.mkdir()
            return rank, replay_rank(files[rank], replay_args, every, work)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for rank, res in pool.map(one, range(len(files))):
                results[rank] = res
                if on_done is not None:
                    on_done(rank, res)
    return [r for r in results if r is not None]


# ------------------------------------------------------------------ aggregation

# What the report keeps of each side's statistics (mpimatch-replay's JSON): probes and
# max_probes are hash-table slots inspected (0 for engines without tables).
QSTATS = ("searches", "traversed", "max_depth", "max_length", "max_queues", "peak_bytes",
          "probes", "max_probes")


def rank_record(rank: int, res: Dict[str, Any]) -> Dict[str, Any]:
    """One rank's numbers per engine (the report's per-rank rows)."""
    data = res["replay"]
    engines = {}
    for r in data.get("results", []):
        st = r.get("stats", {})
        prq, umq = st.get("prq", {}), st.get("umq", {})
        ns = r.get("ns_per_event") or {}
        engines[r["engine"]] = {
            "ns_per_event": ns.get("median"),
            "ns_q1": ns.get("q1"), "ns_q3": ns.get("q3"),
            "prq": {k: prq.get(k) for k in QSTATS},
            "umq": {k: umq.get(k) for k in QSTATS},
            "peak_bytes": st.get("peak_bytes"),
        }
        for side in ("prq", "umq"):
            s = engines[r["engine"]][side]
            s["mean_depth"] = s["traversed"] / s["searches"] if s["searches"] else 0.0
    return {"rank": rank, "stream": res["stream"], "events": data.get("events", 0),
            "np": data.get("np"), "engines": engines,
            "skipped": [s.get("engine") for s in data.get("skipped", [])],
            "skipped_why": {s.get("engine"): s.get("reason") for s in data.get("skipped", [])}}


def aggregate(ranks: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Per engine over all ranks: sums of searches/traversed/events and time, maxima of
    depths and lengths; means are ratios of the sums. Only engines that ran on every rank."""
    names = set.intersection(*(set(r["engines"]) for r in ranks)) if ranks else set()
    out: Dict[str, Any] = {}
    events = sum(r["events"] for r in ranks)
    for name in sorted(names):
        agg: Dict[str, Any] = {"events": events}
        total_ns = sum((r["engines"][name]["ns_per_event"] or 0.0) * r["events"] for r in ranks)
        agg["ns_per_event"] = total_ns / events if events else None
        agg["total_ns"] = total_ns
        for side in ("prq", "umq"):
            rows = [r["engines"][name][side] for r in ranks]
            s = {k: sum(x[k] or 0 for x in rows) for k in ("searches", "traversed", "probes")}
            s.update({k: max(x[k] or 0 for x in rows)
                      for k in ("max_depth", "max_length", "max_queues", "peak_bytes",
                                "max_probes")})
            s["sum_peak_bytes"] = sum(x["peak_bytes"] or 0 for x in rows)
            s["mean_depth"] = s["traversed"] / s["searches"] if s["searches"] else 0.0
            agg[side] = s
        agg["peak_bytes_max"] = max(r["engines"][name]["peak_bytes"] or 0 for r in ranks)
        agg["peak_bytes_sum"] = sum(r["engines"][name]["peak_bytes"] or 0 for r in ranks)
        out[name] = agg
    return out


def _clearly_faster(a: Dict[str, float], b: Dict[str, float]) -> bool:
    """a beats b only if a's whole spread (q3) is below b's (q1): the repetitions decide."""
    return a["q3"] < b["q1"]


def compare(ranks: List[Dict[str, Any]], agg: Dict[str, Any]) -> Dict[str, Any]:
    """Which engine? Engines that ran on every rank, sorted by total time (sum over ranks of
    median ns/event x events), with speed-up against list, ranks won (lowest median; "clear"
    when its spread is below every other engine's), engines skipped and why, and a
    recommendation that names a winner only if its total time's spread (sum of q3) is below
    every other engine's (sum of q1); otherwise the engines within noise of it."""
    totals: Dict[str, Dict[str, float]] = {}
    for name in agg:
        t = {"median": 0.0, "q1": 0.0, "q3": 0.0}
        for r in ranks:
            e = r["engines"][name]
            med = e["ns_per_event"] or 0.0
            t["median"] += med * r["events"]
            t["q1"] += (e.get("ns_q1") if e.get("ns_q1") is not None else med) * r["events"]
            t["q3"] += (e.get("ns_q3") if e.get("ns_q3") is not None else med) * r["events"]
        totals[name] = t
    won = {n: 0 for n in totals}
    clear = {n: 0 for n in totals}
    for r in ranks:
        if not r["events"] or not totals:
            continue
        per = {n: r["engines"][n] for n in totals}
        best = min(per, key=lambda n: (per[n]["ns_per_event"] or 0.0, n))
        won[best] += 1
        spread = {n: {"q1": per[n].get("ns_q1") or per[n]["ns_per_event"] or 0.0,
                      "q3": per[n].get("ns_q3") or per[n]["ns_per_event"] or 0.0} for n in per}
        if all(_clearly_faster(spread[best], spread[o]) for o in per if o != best):
            clear[best] += 1
    order = sorted(totals, key=lambda n: (totals[n]["median"], n))
    base = totals.get("list", {}).get("median")
    rows = [{"engine": n, "total_ns": totals[n]["median"], "total_ns_q1": totals[n]["q1"],
             "total_ns_q3": totals[n]["q3"],
             "speedup_vs_list": (base / totals[n]["median"]) if base and totals[n]["median"]
             else None,
             "ranks_won": won[n], "ranks_won_clear": clear[n]} for n in order]
    skipped: Dict[str, Dict[str, Any]] = {}
    for r in ranks:
        for name in r.get("skipped", []):
            why = (r.get("skipped_why") or {}).get(name) or "skipped by mpimatch-replay"
            s = skipped.setdefault(name, {"engine": name, "reason": why, "ranks": 0})
            s["ranks"] += 1
    ran_somewhere = set().union(*(set(r["engines"]) for r in ranks)) if ranks else set()
    for name in sorted(ran_somewhere - set(totals)):
        n_ran = sum(1 for r in ranks if name in r["engines"])
        skipped.setdefault(name, {"engine": name, "ranks": len(ranks) - n_ran,
                                  "reason": f"ran on {n_ran} of {len(ranks)} ranks only: "
                                            "not comparable on the whole directory"})
    if not order:
        rec, tied = "no engine ran on every rank: nothing to compare", []
    elif len(order) == 1:
        rec, tied = f"only {order[0]} ran on every rank: nothing to compare", [order[0]]
    else:
        first = order[0]
        tied = [first] + [n for n in order[1:] if not _clearly_faster(totals[first], totals[n])]
        sp = rows[0]["speedup_vs_list"]
        if len(tied) == 1:
            rec = (f"{first} is fastest on this directory"
                   + (f": {sp:.2f}x list's total time" if first != "list" and sp else "")
                   + f", beyond the repetitions' spread against every other engine "
                     f"(fastest on {won[first]} of {len(ranks)} ranks)")
        else:
            rec = (f"within noise: {', '.join(tied)} (their totals' spreads overlap; "
                   f"{first} has the lowest median). No winner among them; rerun with more "
                   f"--reps to separate them")
    return {"order": rows, "skipped": sorted(skipped.values(), key=lambda s: s["engine"]),
            "recommendation": rec, "within_noise": tied}


def heat_maps(results: List[Dict[str, Any]], nranks: int) -> Dict[str, List[List[int]]]:
    """matrix[destination][source]: queue elements from `source` traversed at rank
    `destination` (list semantics), for the UMQ and the PRQ (ANY_SOURCE receives
    are in their own column, prq_any)."""
    umq, prq, prq_any = [], [], []
    for res in results:
        t = res["traversal"]
        row_u = list(t["umq_traversed_by_source"])[:nranks]
        row_p = list(t["prq_traversed_by_source"])[:nranks]
        umq.append(row_u + [0] * (nranks - len(row_u)))
        prq.append(row_p + [0] * (nranks - len(row_p)))
        prq_any.append(t["prq_traversed_any_source"])
    return {"umq": umq, "prq": prq, "prq_any": prq_any}


def busiest_rank(ranks: List[Dict[str, Any]]) -> int:
    """The rank with the most events (the lowest such rank)."""
    return max(ranks, key=lambda r: (r["events"], -r["rank"]))["rank"]


# ------------------------------------------------------------------ MPI_T samples

TRACE_HEADER, TRACE_RECORD, PVAR, PVAR_UNEXPECTED, PVAR_POSTED = 256, 80, 19, 0, 1


def trace_dir_of(directory: Path, index: Dict[str, Any]) -> Optional[Path]:
    """The original trace directory named by index.json "source", if it exists."""
    src = index.get("source")
    if isinstance(src, dict):
        src = src.get("trace") or src.get("dir") or src.get("path")
    if not isinstance(src, str) or not src:
        return None
    # `mpimatch convert` records the trace directory as it was given, so a
    # relative path is relative to where convert ran; a hand-written index may
    # mean the stream directory instead. Take the first that exists.
    path = Path(src)
    for candidate in ([path] if path.is_absolute() else [directory / path, path]):
        if candidate.is_dir():
            return candidate
    return None


def pvar_samples(trace_file: Path) -> Dict[str, List[Tuple[int, int]]]:
    """(ns since the trace's t0, value) of each PVAR record of one rank's trace file
    (docs/trace-format.md): 'unexpected' and 'posted' queue lengths."""
    out: Dict[str, List[Tuple[int, int]]] = {"unexpected": [], "posted": []}
    try:
        data = trace_file.read_bytes()
    except OSError:
        return out
    if len(data) < TRACE_HEADER or not data.startswith(b"MMTRACE\0"):
        return out
    t0 = struct.unpack_from("<Q", data, 32)[0]
    for off in range(TRACE_HEADER, len(data) - TRACE_RECORD + 1, TRACE_RECORD):
        if data[off] != PVAR:
            continue
        sub = data[off + 1]
        t = struct.unpack_from("<Q", data, off + 32)[0]
        value = struct.unpack_from("<Q", data, off + 72)[0]
        key = "unexpected" if sub == PVAR_UNEXPECTED else "posted" if sub == PVAR_POSTED else None
        if key:
            out[key].append((t - t0 if t >= t0 else 0, value))
    return out
