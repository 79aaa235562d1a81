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


def compact(paths: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """The record form (docs/bench.md): only the paths that have events."""
    if not paths:
        return None
    by = paths.get("by_path") or {}
    return {"clock_ns": paths.get("clock_ns"), "segments": paths.get("segments"),
            "timer_share_limit": paths.get("timer_share_limit"),
            "by_path": {name: dict(by[name]) for name in PATHS
                        if name in by and (by[name].get("events") or 0) > 0}}
