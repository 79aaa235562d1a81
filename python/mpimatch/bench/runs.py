"""`mpimatch bench --runs K`: K independent runs of a suite, and the rule that
decides what may be said of them.

A run is a full pass over the plan (every replay a fresh mpimatch-replay
process, cluster files written again). The records of one (workload, engine
run) are then combined: the timing is the median over the runs of each run's
median, with the min and max across runs, and every run's numbers are kept
(`per_run`). The depth and queue counters do not depend on the machine; the
runs must agree on the outcomes, or the bench stops as when two engines
disagree.

The rule (`every_run`, `direction`): a comparison is stated only when it holds
in every run. A ratio against list is "faster" when it is above 1 in every run,
"slower" when below 1 in every run, "within noise" otherwise. A speed target is
"met" when met in every run, "MISSED" when missed in every run, and "mixed"
(naming the runs) otherwise.
"""
from __future__ import annotations

import statistics
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ..errors import EXIT_FAILURE, MpimatchError

# What changes from one run to the next: kept per run; the rest is the same in every run.
TIMING_KEYS = ("ns_per_event", "events_per_second", "speedup_vs_list", "paired_list",
               "floor_ns_per_event", "paired_with", "wall_seconds", "paths", "classes",
               "overhead")
FASTER, SLOWER, NOISE = "faster", "slower", "within noise"


# ---------------------------------------------------------------- the rule

def every_run(flags: Sequence[Optional[bool]]) -> Optional[bool]:
    """True when it holds in every run, False when it fails in every run, None when
    the runs disagree or one has no value (nothing may be stated)."""
    if not flags or any(f is None for f in flags):
        return None
    if all(flags):
        return True
    if not any(flags):
        return False
    return None


def direction(values: Sequence[Optional[float]], pivot: float = 1.0) -> Optional[str]:
    """FASTER when every value is above pivot, SLOWER when every one is below,
    NOISE when they straddle it (or touch it); None without values."""
    if not values or any(v is None for v in values):
        return None
    above = every_run([v > pivot for v in values])      # type: ignore[operator]
    below = every_run([v < pivot for v in values])      # type: ignore[operator]
    return FASTER if above else SLOWER if below else NOISE


def span(values: Sequence[Optional[float]]) -> Optional[Dict[str, Any]]:
    """median, min and max of the values (None if one is missing), and the values."""
    if not values or any(v is None for v in values):
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),  # type: ignore[type-var]
            "values": list(values)}


def runs_text(numbers: Sequence[int], of: int) -> str:
    return f"run{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))} of {of}"


# ---------------------------------------------------------------- records

def _median_of(recs: Sequence[Mapping[str, Any]], key: str) -> Optional[float]:
    vals = [r["ns_per_event"].get(key) for r in recs]
    return statistics.median(vals) if vals and all(v is not None for v in vals) else None


def _median_run(recs: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The run whose median ns/event is the median of the runs' (the lower one for
    an even count): its per-path timings stand for the record's."""
    order = sorted(recs, key=lambda r: r["ns_per_event"]["median"])
    return order[(len(order) - 1) // 2]


def combine_records(recs: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """One record from the K runs' records of one (workload, engine run)."""
    first = recs[0]
    for i, r in enumerate(recs[1:], 2):
        if r["outcomes"] != first["outcomes"]:
            raise MpimatchError(f"runs disagree on {first['workload']['spec']} with {first['run']}: "
                                f"run 1 gives {first['outcomes']}, run {i} {r['outcomes']}",
                                EXIT_FAILURE)
    out = {k: v for k, v in first.items() if k not in TIMING_KEYS}
    med = _median_of(recs, "median")
    out["ns_per_event"] = {"median": med, "q1": _median_of(recs, "q1"), "q3": _median_of(recs, "q3"),
                           "min": min(r["ns_per_event"]["min"] for r in recs)}
    out["events_per_second"] = 1e9 / med if med else None
    ups = [r.get("speedup_vs_list") for r in recs]
    out["speedup_vs_list"] = statistics.median(ups) if all(u is not None for u in ups) else None  # type: ignore[type-var]
    floors = [r.get("floor_ns_per_event") for r in recs]
    out["floor_ns_per_event"] = (statistics.median(floors)  # type: ignore[type-var]
                                 if all(f is not None for f in floors) else None)
    if all("paired_list" in r for r in recs):
        out["paired_list"] = {"ns_per_event": {"median": statistics.median(
            r["paired_list"]["ns_per_event"]["median"] for r in recs)}}
    if all("paired_with" in r for r in recs):    # the engines every run timed beside it
        every = [p["run"] for p in recs[0]["paired_with"]
                 if all(any(q["run"] == p["run"] for q in r["paired_with"]) for r in recs)]
        out["paired_with"] = [{"run": name, "ns_per_event": {"median": statistics.median(
            next(q for q in r["paired_with"] if q["run"] == name)["ns_per_event"]["median"]
            for r in recs)}} for name in every]
    for key in ("paths", "classes", "overhead"):
        if key in first:
            out[key] = _median_run(recs)[key]
    out["wall_seconds"] = round(sum(r["wall_seconds"] for r in recs), 3)
    out["spread"] = {"runs": len(recs),
                     "ns_median": span([r["ns_per_event"]["median"] for r in recs]),
                     "speedup_vs_list": span(ups),
                     "vs_list": direction(ups) if first["run"] != "list" else None}
    out["per_run"] = [{k: r[k] for k in TIMING_KEYS if k in r} for r in recs]
    return out


def ns_median(run: Mapping[str, Any]) -> Optional[float]:
    """A run's median ns per event (the default measure of pair_ratios)."""
    return run["ns_per_event"]["median"]


def pair_ratios(a: Mapping[str, Any], b: Mapping[str, Any],
                measure: Callable[[Mapping[str, Any]], Optional[float]] = ns_median
                ) -> List[Optional[float]]:
    """b's measure over a's, run by run (> 1: a is faster), for two combined records of
    the same runs (a record without per_run is one run); None where one is missing."""
    out: List[Optional[float]] = []
    for ra, rb in zip(a.get("per_run") or [a], b.get("per_run") or [b]):
        x, y = measure(ra), measure(rb)
        out.append(y / x if x and y else None)
    return out


# ---------------------------------------------------------------- targets

def combine_targets(per_run: Sequence[Sequence[Mapping[str, Any]]]) -> List[Dict[str, Any]]:
    """One entry per target from each run's check: measured = the median across runs,
    met = every_run of the runs' verdicts, status and note say which runs."""
    out = []
    k = len(per_run)
    for i, first in enumerate(per_run[0]):
        ts = [run[i] for run in per_run]
        vals = [t["measured"] for t in ts]
        mets = [t["met"] for t in ts]
        met = every_run(mets)
        measured = span(vals)
        if all(m is None for m in mets):
            status, note = "not measured", first["note"]
        elif met is True:
            status, note = "met", f"met in every run ({k})" if k > 1 else "met"
        elif met is False:
            status, note = "MISSED", f"missed in every run ({k})" if k > 1 else "MISSED"
        else:
            yes = [j for j, m in enumerate(mets, 1) if m]
            no = [j for j, m in enumerate(mets, 1) if m is False]
            status = "mixed"
            note = f"met in {runs_text(yes, k)}; missed in {runs_text(no, k)}"
        out.append({**{key: v for key, v in first.items() if key not in ("measured", "met", "note")},
                    "measured": measured["median"] if measured else None,
                    "measured_min": measured["min"] if measured else None,
                    "measured_max": measured["max"] if measured else None,
                    "met": met, "status": status, "note": note,
                    "per_run": [{"measured": t["measured"], "met": t["met"]} for t in ts]})
    return out
