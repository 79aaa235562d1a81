"""Per-path timing (mpimatch-replay --paths, docs/replay.md "Matching paths").

mpimatch-replay --paths adds a "paths" object to each result: the events of
the stream classified by the path they take through the engine (a receive
that fails or succeeds to find an unexpected message, a message that fails
or succeeds to find a posted receive, probes, matched probes, cancels),
each path timed over its own segments (mpimatch-replay prints it as a table).
This module reads that object into the compact form the bench records carry.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

# In mpimatch-replay's order (enum mm_path); the first four are the MPC-MPI hints paper's
# Table I columns.
PATHS = ("fail_from_recv", "success_from_recv", "fail_from_send", "success_from_send",
         "probe", "mprobe", "cancel")
TABLE1 = PATHS[:4]


CLASSES = ("p2p", "coll")
# The paths whose calls search each side: a receive searches the unexpected
# messages (UMQ), a message the posted receives (PRQ).
SIDE_PATHS = {"umq": ("fail_from_recv", "success_from_recv"),
              "prq": ("fail_from_send", "success_from_send")}


def compact_classes(classes: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """The record form of mpimatch-replay --classes: per class (p2p, coll), the exact
    counts of each side (searches, traversed, mean_depth) and the paths with events."""
    if not classes:
        return None
    by = classes.get("by_class") or {}
    out: Dict[str, Any] = {"clock_ns": classes.get("clock_ns"), "segments": classes.get("segments"),
                           "by_class": {}}
    for c in CLASSES:
        cl = by.get(c) or {}
        out["by_class"][c] = {"prq": dict(cl.get("prq") or {}), "umq": dict(cl.get("umq") or {}),
                              **(compact({"by_path": cl.get("by_path")}) or {"by_path": {}})}
        for k in ("clock_ns", "segments", "timer_share_limit"):
            out["by_class"][c].pop(k, None)
    return out


def side_search_ns(classes: Optional[Mapping[str, Any]], cls: Optional[str],
                   side: str) -> Optional[float]:
    """Time per search of one side by one class's calls (cls None: both classes): the
    paths that search the side, their total time over their events (None without
    such events)."""
    by = (classes or {}).get("by_class") or {}
    total, events = 0.0, 0
    for c in (CLASSES if cls is None else (cls,)):
        paths = (by.get(c) or {}).get("by_path") or {}
        for name in SIDE_PATHS[side]:
            p = paths.get(name)
            if p and p.get("events") and p.get("ns_total") is not None:
                total += p["ns_total"]
                events += p["events"]
    return total / events if events else None


def search_total_ns(classes: Optional[Mapping[str, Any]]) -> Optional[float]:
    """Time of every search of both sides by both classes (receives and messages),
    clock reads subtracted: the denominator of the overhead ratio."""
    by = (classes or {}).get("by_class") or {}
    total, any_ = 0.0, False
    for c in CLASSES:
        paths = (by.get(c) or {}).get("by_path") or {}
        for side in SIDE_PATHS.values():
            for name in side:
                p = paths.get(name)
                if p and p.get("ns_total") is not None:
                    total += p["ns_total"]
                    any_ = True
    return total if any_ else None


def compact(paths: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """The record form (docs/bench.md): only the paths that have events."""
    if not paths:
        return None
    by = paths.get("by_path") or {}
    return {"clock_ns": paths.get("clock_ns"), "segments": paths.get("segments"),
            "timer_share_limit": paths.get("timer_share_limit"),
            "by_path": {name: dict(by[name]) for name in PATHS
                        if name in by and (by[name].get("events") or 0) > 0}}
