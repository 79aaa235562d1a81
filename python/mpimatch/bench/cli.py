"""`mpimatch bench`: its options, the progress display and the outputs.

Order of work: check the arguments and the output places (nothing runs when
one is wrong), plan every run (unknown workloads, engines or parameters fail
here, listing what is allowed), run with a progress bar, then write
results.json, results.csv, plots/*.png and report.html into --out, each
atomically, and print the table.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from .. import specs, tools
from . import core
from .html import Results, html_report
from ..command import ENGINES_DISAGREE, add_command
from ..atomic import check_writable, check_writable_dir, umask_mode, write_atomic
from .output import csv_text, fnum, json_text, terminal_report
from ..errors import MpimatchError, raise_broken_pipe
from ..replay import list_engines
from .suites import SUITES, Item, StreamFile, Suite

DEFAULT_SUITE = "default"
MPI_SUITE = "mpi"       # MPI programs on the MPI stacks (bench/mpi.py)
POLLING_SUITE = "polling"   # channel polling and thresholds on the provider (bench/polling.py)
DEFAULT_OUT = "bench-out"
WIDE = 140           # columns of the table when the output is not a terminal

DESCRIPTION = """\
Run a benchmark suite: every workload through every engine that accepts it
(engines that need the no-wildcard hints skip wildcard workloads, and say so).
mpimatch-replay does the timing: the stream is built in memory first, each
engine runs it R times after a warm-up on a fresh engine each time, and the
median and quartiles of ns per event are reported with the queue depths and
memory from the engine counters.

Outputs, in --out DIR: results.json (schema: docs/bench.md), results.csv,
plots/*.png and report.html (self-contained). The terminal shows a table with
the speed-up against list, and the speed targets met or missed.

With --runs K the whole suite runs K times, each run a full pass in fresh
processes: every time and ratio is the median across the runs with their min
and max, and a comparison is stated only when it holds in every run ("within
noise" otherwise); a speed target is met or MISSED only when it is so in every
run, "mixed" otherwise. The JSON keeps every run's numbers.

suites:
""" + "".join(f"  {s.name:<8} {s.summary} (reps {s.reps}, runs {s.runs})\n" for s in SUITES.values()) + """\
  mpi      MPI programs at np 2 under ob1, pml ucx and the provider with each
           engine (mpimatch-mpibench): request benchmarks, ping-pong with dead
           receives, latency, bandwidth, bytes per unexpected message; a few
           minutes (--quick: seconds per stack)
"""


def register(sub: Any) -> None:
    p = add_command(sub, "bench", cmd_bench,
                    help="run a benchmark suite: tables, plots, HTML report",
                    description=DESCRIPTION, exit_one=ENGINES_DISAGREE)
    p.add_argument("--suite", choices=sorted([*SUITES, MPI_SUITE, POLLING_SUITE]),
                   metavar="|".join([*SUITES, MPI_SUITE, POLLING_SUITE]),
                   help=f"the suite to run (default: {DEFAULT_SUITE}); {MPI_SUITE}: MPI programs "
                        f"under ob1, pml ucx and the provider; {POLLING_SUITE}: channel polling "
                        "and thresholds on the provider (docs/bench.md)")
    p.add_argument("--quick", action="store_true",
                   help=f"with --suite {MPI_SUITE}: its short form (the targets' measurements, "
                        f"one pass); with --suite {POLLING_SUITE}: fewer ratios, rates, bursts "
                        "and sizes, one pass")
    p.add_argument("--workload", action="append", default=[], metavar="NAME[:k=v,...]",
                   help="run this workload instead of a suite (repeatable)")
    p.add_argument("--stream", action="append", default=[], metavar="FILE",
                   help="run this stream file instead of a suite (repeatable)")
    p.add_argument("--engines", metavar="a,b,...",
                   help=f"only these engines (default: all; with --suite {MPI_SUITE}: the "
                        "provider's engines)")
    p.add_argument("--param", action="append", default=[], metavar="ENGINE:KEY=VALUE",
                   help="engine parameter for every run of ENGINE (repeatable)")
    p.add_argument("--reps", type=int, metavar="R",
                   help=f"timed repetitions (default: the suite's; with --suite {MPI_SUITE}: "
                        "passes over the stacks)")
    p.add_argument("--seed", type=int, default=core.LAB_SEED, metavar="N",
                   help="seed of the hashed engines' key hash in every run (their parameter "
                        f"seed=; default {core.LAB_SEED}, so depths and probe counts repeat; 0: "
                        "each engine draws a secret one); --param ENGINE:seed=N overrides it")
    p.add_argument("--runs", type=int, metavar="K",
                   help="independent runs of the whole suite; ratios are reported as the median "
                        "with min-max across runs, and stated only when they hold in every run "
                        "(default: the suite's; 3, quick 1)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help=f"directory for the outputs (default: {DEFAULT_OUT})")
    p.add_argument("--json", metavar="FILE", help="also write the JSON results to FILE")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--figure", action="append", default=[], metavar="LABEL",
                   help="only the suite's items whose figure label starts with LABEL, "
                        "e.g. p003 or p002-table1 (repeatable)")
    p.add_argument("--paths", action="store_true",
                   help="time each matching path in every run (mpimatch-replay --paths); "
                        "items of the suite may ask for it themselves")


def _overrides(values: List[str]) -> Dict[str, Dict[str, str]]:
    """--param ENGINE:KEY=VALUE, read by the one spec parser (one key per option)."""
    out: Dict[str, Dict[str, str]] = {}
    for v in values:
        try:
            engine, raw = specs.parse(v, "--param")
        except MpimatchError:
            raw = {}
        if len(raw) != 1 or ":" not in v:
            raise MpimatchError(f"--param '{v}': expected ENGINE:KEY=VALUE")
        out.setdefault(engine, {}).update(raw)
    return out


def choose_suite(args: argparse.Namespace) -> Suite:
    custom = [*args.workload, *(StreamFile(Path(s)) for s in args.stream)]
    if custom and args.suite:
        raise MpimatchError("give --suite, or --workload/--stream, not both")
    if custom and args.figure:
        raise MpimatchError("--figure selects items of a suite; it does not go with "
                            "--workload/--stream")
    if not custom:
        return with_paths(select_figures(SUITES[args.suite or DEFAULT_SUITE], args.figure),
                          args.paths)
    return Suite("custom", "workloads and streams named on the command line",
                 SUITES[DEFAULT_SUITE].reps,
                 [Item(c, figure="custom", paths=args.paths) for c in custom], runs=1)


def select_figures(suite: Suite, prefixes: List[str]) -> Suite:
    """The suite's items whose figure label starts with one of prefixes (all without any);
    a prefix that selects nothing is an error listing the labels."""
    if not prefixes:
        return suite
    labels = list(dict.fromkeys(i.figure for i in suite.items if i.figure))
    unknown = [p for p in prefixes if not any(label.startswith(p) for label in labels)]
    if unknown:
        raise MpimatchError(f"--figure {unknown[0]}: no item of suite {suite.name} has such a "
                            f"figure label; labels: {', '.join(labels)}")
    items = [i for i in suite.items if any(i.figure.startswith(p) for p in prefixes)]
    return dataclasses.replace(suite, summary=f"{suite.summary}; only {', '.join(prefixes)}",
                               items=items)


def with_paths(suite: Suite, paths: bool) -> Suite:
    """--paths: every item of the suite times its matching paths."""
    if not paths:
        return suite
    return dataclasses.replace(suite, items=[dataclasses.replace(i, paths=True) for i in suite.items])


class Display:
    """Progress while it runs: a rich bar with ETA on a terminal, one line per
    finished run otherwise, nothing with --quiet."""

    def __init__(self, total: int, quiet: bool, runs: int = 1) -> None:
        self.err = Console(stderr=True, highlight=False)
        self.total, self.done = total, 0
        self.runs, self.current = runs, 1           # run `current` of `runs` of the suite
        self.bar: Optional[Progress] = None
        self.lines = not quiet and not self.err.is_terminal
        if not quiet and self.err.is_terminal:
            self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False),
                                BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("eta"), TimeRemainingColumn(), console=self.err,
                                transient=True)
            self.task = self.bar.add_task("starting", total=total)

    def __enter__(self) -> "Display":
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar:
            self.bar.stop()

    def start(self, run: core.Run) -> None:
        if self.bar:
            self.bar.update(self.task, description=f"{self._which()}{run.source.spec} · {run.label}")

    def _which(self) -> str:
        return f"run {self.current}/{self.runs} · " if self.runs > 1 else ""

    def finish(self, o: core.Outcome) -> None:
        self.done += 1
        if self.bar:
            self.bar.advance(self.task)
        if self.lines:
            what = (f"skipped ({o.skipped})" if o.skipped else
                    f"{fnum(o.record['ns_per_event']['median'])} ns/event")
            print(f"[{self.done}/{self.total}] {self._which()}{o.run.source.spec} {o.run.label}: {what}",
                  file=self.err.file, flush=True)


def plotter() -> Callable[[Dict[str, Any], Path], List[Tuple[str, str]]]:
    """plots.plot_all, imported only by the bench (matplotlib is slow to load),
    and before any work: a missing matplotlib must not waste a run."""
    try:
        from .plots import plot_all
    except ImportError as err:
        raise MpimatchError(f"the bench plots need matplotlib ({err}); install the pinned "
                            f"requirements: pip install -r requirements.txt") from None
    return plot_all


def write_outputs(doc: Dict[str, Any], out: Path, json_copy: Optional[Path],
                  plot_all: Optional[Callable[[Dict[str, Any], Path], List[Tuple[str, str]]]] = None,
                  results: Optional[Results] = None) -> Path:
    """results.json, results.csv, plots/, report.html in out (and the JSON copy).
    A suite with records of its own gives its plots and its results table (suite mpi)."""
    plot_all = plot_all or plotter()
    text = json_text(doc)
    fresh = Path(tempfile.mkdtemp(prefix=".plots-", dir=out))
    try:
        os.chmod(fresh, umask_mode(0o777))
        plots = plot_all(doc, fresh)
        report = html_report(doc, plots, fresh, results)
        old = out / "plots"
        if old.exists():
            stale = Path(tempfile.mkdtemp(prefix=".plots-old-", dir=out))
            os.replace(old, stale / "plots")
            shutil.rmtree(stale)
        os.replace(fresh, old)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    write_atomic(out / "results.json", text)
    write_atomic(out / "results.csv", csv_text(doc["records"]))
    write_atomic(out / "report.html", report)
    if json_copy is not None:
        write_atomic(json_copy, text)
    return out / "report.html"


def output_places(args: argparse.Namespace) -> Tuple[Path, Optional[Path]]:
    """--out (created) and --json, both checked writable before any work."""
    outdir = Path(args.out)
    check_writable_dir(outdir, create=True)
    json_copy = Path(args.json) if args.json else None
    if json_copy is not None:
        check_writable(json_copy)
    return outdir, json_copy


def cmd_bench(args: argparse.Namespace, out: Console) -> int:
    if args.suite == POLLING_SUITE:
        if args.workload or args.stream or args.figure or args.param or args.paths or args.engines:
            raise MpimatchError(f"--suite {POLLING_SUITE} takes --quick, --reps (passes), --out, "
                                "--json and --quiet only")
        from .polling import cmd_polling
        return cmd_polling(args, out)
    if args.suite == MPI_SUITE:
        if args.workload or args.stream or args.figure or args.param or args.paths \
                or args.runs is not None:
            raise MpimatchError(f"--suite {MPI_SUITE} takes --quick, --engines, --reps, --out, "
                                "--json and --quiet only (one run: --reps sets its passes over "
                                "the stacks; for several runs, invoke it several times)")
        from .mpi import cmd_mpi
        return cmd_mpi(args, out)
    if args.quick:
        raise MpimatchError(f"--quick goes with --suite {MPI_SUITE} or {POLLING_SUITE}")
    suite = choose_suite(args)
    reps = suite.reps if args.reps is None else args.reps
    if reps < 1:
        raise MpimatchError("--reps must be >= 1")
    if args.seed < 0:
        raise MpimatchError("--seed must be >= 0")
    tools.find_tool(tools.REPLAY)
    plotter()
    workloads, generator = core.workload_catalogue()
    cat = core.Catalogues(list_engines(), workloads, generator)
    only = [e.strip() for e in args.engines.split(",") if e.strip()] if args.engines else None
    if only is not None and not only:
        raise MpimatchError("--engines: no engine named")
    runs = core.plan(suite.items, cat, only, _overrides(args.param))
    if not runs:
        raise MpimatchError("nothing to run: no engine of the selection runs these workloads")
    outdir, json_copy = output_places(args)
    k = suite.runs if args.runs is None else args.runs
    if k < 1:
        raise MpimatchError("--runs must be >= 1")
    started, t0, load_before = core.now(), time.perf_counter(), core.load_average()
    passes, times = [], []
    with Display(len(runs) * k, args.quiet, k) as display:
        for i in range(1, k + 1):
            display.current = i
            begun, load_then = core.now(), core.load_average()
            passes.append(core.execute(runs, reps, display.start, display.finish,
                                       files_dir=outdir / "clusters", seed=args.seed))
            times.append({"started": begun, "finished": core.now(), "load_before": load_then,
                          "load_after": core.load_average()})
    extra = {"command": "mpimatch " + " ".join(shlex.quote(str(a)) for a in getattr(args, "argv", sys.argv[1:])),
             "run_times": times, "load_average": {"before": load_before, "after": core.load_average()}}
    doc = core.document(suite, reps, generator, started, passes[0], args.seed, passes, extra)
    report = write_outputs(doc, outdir, json_copy)
    if not out.is_terminal:                 # a log or a pipe: no reason to wrap at 80
        out = Console(width=max(out.width, WIDE), highlight=False)
        out.on_broken_pipe = raise_broken_pipe  # type: ignore[method-assign]
    out.print(terminal_report(doc, out.width))
    out.print(f"\n{len(doc['records'])} runs in {time.perf_counter() - t0:.0f} s "
              f"(workloads built by {generator}). Outputs in {outdir}/: results.json, "
              f"results.csv, plots/ ({len(list((outdir / 'plots').glob('*.png')))} PNG)",
              highlight=False)
    out.print(f"report: {report}", highlight=False)
    return 0
