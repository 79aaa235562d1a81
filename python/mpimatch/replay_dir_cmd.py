"""The `mpimatch replay STREAM_DIR` command: run, aggregate, print, write reports."""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Dict, List, Sequence

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                           TextColumn, TimeElapsedColumn)
from rich.text import Text

from . import __version__, tools
from .errors import MpimatchError
from .replay_dir import (aggregate, busiest_rank, compare, heat_maps, load_dir, pvar_samples,
                         rank_record, run_dir, trace_dir_of)


def partial_trace(index: Dict[str, Any]) -> Dict[str, Any]:
    """What the trace lacks, from convert's index.json "partial_trace" (docs/convert.md):
    {"partial": bool, "not_recorded": {call: count}, "files_cut_short": n}."""
    p = index.get("partial_trace")
    if not isinstance(p, dict):
        return {"partial": False, "not_recorded": {}, "files_cut_short": 0}
    return {"partial": bool(p.get("partial")), "not_recorded": dict(p.get("not_recorded") or {}),
            "files_cut_short": int(p.get("files_cut_short") or 0)}


def build_report(directory: Path, index: Dict[str, Any], results: List[Dict[str, Any]],
                 replay_args: Sequence[str], every: int) -> Dict[str, Any]:
    numbers = index.get("rank_numbers") or list(range(len(results)))
    ranks = [rank_record(numbers[i], r) for i, r in enumerate(results)]
    agg = aggregate(ranks)
    busiest = busiest_rank(ranks)
    rows = results[numbers.index(busiest)]["series"]
    series: Dict[str, Any] = {"rank": busiest, "every": every,
                              "x": "t" if any(row[1] for row in rows) else "event", "rows": rows}
    warnings = list(index.get("warnings") or [])
    trace = trace_dir_of(directory, index)
    if trace is not None:
        samples = pvar_samples(trace / ("rank-%06d.mmt" % busiest))
        if samples["posted"] or samples["unexpected"]:
            series["measured"] = samples
            series["measured_from"] = str(trace)
    return {"tool": "mpimatch replay", "version": __version__, "stream_dir": str(directory),
            "ranks": len(ranks), "world_ranks": int(index.get("ranks") or len(ranks)),
            "events": sum(r["events"] for r in ranks),
            "args": list(replay_args),
            # the hashed engines' seed= as mpimatch-replay gave it (--seed; docs/replay.md)
            "seed": next((r["replay"].get("seed") for r in results if "replay" in r), None),
            "index": {k: index.get(k) for k in ("source", "mpi", "model", "clock") if k in index},
            "partial_trace": partial_trace(index),
            "warnings": warnings, "aggregate": agg, "comparison": compare(ranks, agg),
            "per_rank": ranks,
            "heat_map": heat_maps(results, int(index.get("ranks") or len(ranks))),
            "queue_series": series}


def replay_dir(args: argparse.Namespace, replay_args: List[str], out: Console) -> int:
    directory = Path(args.stream)
    if args.matches or args.json:
        raise MpimatchError("--matches and --json apply to a single stream; for a stream "
                            "directory use --out DIR (report.json)")
    if args.every < 1:
        raise MpimatchError("--every must be >= 1")
    jobs = args.jobs if args.jobs else (os.cpu_count() or 1)
    if jobs < 1:
        raise MpimatchError("--jobs must be >= 1")
    index, files = load_dir(directory)
    tools.find_tool(tools.REPLAY)
    err = Console(stderr=True)
    failed: List[str] = []
    with Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True) as progress:
        task = progress.add_task(f"replaying {len(files)} rank(s)", total=len(files))

        def done(rank: int, res: Dict[str, Any]) -> None:
            if res["exit_code"] != 0:
                failed.append(res["stream"])
                progress.console.print(Text(f"{res['stream']}: mpimatch-replay failed "
                                            f"(exit {res['exit_code']})", style="red"))
            progress.update(task, advance=1, description=f"replayed rank {rank}")

        if getattr(args, "distributed", False):
            from .replay_mpi import run_distributed
            gathered = run_distributed(files, run_dir, replay_args, args.every, jobs,
                                       on_done=done)
            if gathered is None:  # not process 0: process 0 writes the report
                return 0
            results = gathered
        else:
            results = run_dir(files, replay_args, args.every, jobs, on_done=done)
    worst = max(r["exit_code"] for r in results)
    if worst:
        failed = [r["stream"] for r in results if r["exit_code"]]  # all processes' failures
        err.print(f"mpimatch: error: {len(failed)} rank stream(s) failed: {', '.join(failed)}",
                  highlight=False, markup=False)
        return worst
    report = build_report(directory, index, results, replay_args, args.every)
    if not args.quiet:
        from .dir_report import terminal_view
        out.print(terminal_view(report, args.per_rank))
    if args.out:
        from .dir_report import write_outputs
        write_outputs(report, Path(args.out))
    return 0
