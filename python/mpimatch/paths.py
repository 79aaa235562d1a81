"""Per-path timing (mpimatch-replay --paths, docs/replay.md "Matching paths").

mpimatch-replay --paths adds a "paths" object to each result: the events of
the stream classified by the path they take through the engine (a receive
that fails or succeeds to find an unexpected message, a message that fails
or succeeds to find a posted receive, probes, matched probes, cancels),
each path timed over its own segments. This module reads that object: the
table `mpimatch replay --paths` prints, and the compact form the bench
records carry.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from rich.console import Group
from rich.table import Table
from rich.text import Text

# In mpimatch-replay's order (enum mm_path); the first four are paper 002's
# Table I columns.
PATHS = ("fail_from_recv", "success_from_recv", "fail_from_send", "success_from_send",
         "probe", "mprobe", "cancel")
TABLE1 = PATHS[:4]


def _fmt(v: Any, spec: str = ".2f") -> str:
    return format(v, spec) if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def compact(paths: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """The record form (docs/bench.md): only the paths that have events."""
    if not paths:
        return None
    by = paths.get("by_path") or {}
    return {"clock_ns": paths.get("clock_ns"), "segments": paths.get("segments"),
            "timer_share_limit": paths.get("timer_share_limit"),
            "by_path": {name: dict(by[name]) for name in PATHS
                        if name in by and (by[name].get("events") or 0) > 0}}


def table(engine: str, paths: Mapping[str, Any]) -> Table:
    t = Table(title=f"paths of {engine}: {paths.get('segments')} segments, one clock read "
                    f"({_fmt(paths.get('clock_ns'), '.1f')} ns) subtracted per segment",
              title_justify="left")
    t.add_column("path", no_wrap=True)      # the names must stay readable on narrow terminals
    for head in ("events", "segments", "ns/event", "q1", "q3", "ns/segment", "timer"):
        t.add_column(head, justify="left" if head == "timer" else "right")
    by = paths.get("by_path") or {}
    for name in PATHS:
        p = by.get(name) or {}
        if not p.get("events"):
            continue
        ns = p.get("ns_per_event") or {}
        t.add_row(name, str(p["events"]), str(p.get("segments")), _fmt(ns.get("median")),
                  _fmt(ns.get("q1")), _fmt(ns.get("q3")), _fmt(p.get("ns_per_segment"), ".1f"),
                  "dominated" if p.get("timer_dominated") else "")
    return t


def view(data: Mapping[str, Any]) -> Optional[Group]:
    """One table per engine result that has paths; None when none has."""
    tables: List[Any] = [table(r.get("engine", "?"), r["paths"])
                         for r in data.get("results") or [] if r.get("paths")]
    if not tables:
        return None
    limit = next((r["paths"].get("timer_share_limit") for r in data["results"] if r.get("paths")), None)
    note = Text(f"timer 'dominated': the clock reads subtracted exceed {_fmt(limit, '.0%')} of "
                f"the path's time (its segments are too short to time)", style="dim")
    return Group(*tables, note)
