"""`mpimatch bench --suite mpi`: MPI programs at np 2 under Open MPI's stacks.

The program is mpimatch-mpibench (tools/mpibench/mpibench.c); the stacks are
mpistack's: ob1 over vader, pml ucx over UCX's posix transport, and the
mpimatch provider under pml cm + mtl ofi with each engine. Each measurement
(a MadMPI request benchmark at one N, a ping-pong with D dead receives, a
latency or bandwidth size) is one argument of the program, so one mpirun runs
a whole pass of them; the suite makes `passes` passes over the stacks in turn
(every pass runs every stack once, the same order), so a slow minute of a
shared machine lands on every stack, and pools each measurement's samples:
the record's median and quartiles are over all passes. The unexpected-message
flood runs in a process pair of its own (its resident-set growth must not see
memory an earlier measurement left behind).

Records have the bench's record shape (docs/bench.md), so results.csv, the
HTML report and the JSON are the other suites'; ns_per_event is the time per
message (match, bandwidth) or half a round trip (pingpong, latency). Targets:
TARGETS below, evaluated like the default suite's.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from rich import box
from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from .. import mpistack, tools
from ..errors import EXIT_FAILURE, MpimatchError
from ..report import human_bytes
from . import core
from .output import fnum, targets_table

PROGRAM = "mpimatch-mpibench"
DEFAULT_ENGINE = "rank"              # the provider's default engine (FI_MPIMATCH_ENGINE)
ENGINES = ("list", "rank", "hash", "nm", "bins")
HINTED = {"hash": ("no_any_source", "no_any_tag")}   # engines that run only under the hints
WILDCARD_KINDS = {"any"}             # workloads with ANY_SOURCE receives
LAUNCH_TIMEOUT = 600.0


@dataclass(frozen=True)
class Measurement:
    """One argument of mpimatch-mpibench and the record it becomes."""
    mode: str             # match, pingpong, bandwidth, unexpected
    name: str             # the record's workload name: shuffle, ..., pingpong, latency, ...
    params: Tuple[Tuple[str, int], ...]
    figure: str
    x: str
    extra: Tuple[Tuple[str, Any], ...] = ()    # program arguments not in the spec (reps, iters)

    @property
    def spec(self) -> str:
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params)

    def argument(self) -> str:
        kv = ([("kind", self.name)] if self.mode == "match" else []) + list(self.params) + list(self.extra)
        return self.mode + ":" + ",".join(f"{k}={v}" for k, v in kv)

    @property
    def wildcard(self) -> bool:
        return self.mode == "match" and self.name in WILDCARD_KINDS


@dataclass(frozen=True)
class Plan:
    name: str
    summary: str
    passes: int
    measurements: Tuple[Measurement, ...]
    flood: Measurement


KIB, MIB = 1024, 1024 * 1024


def _match(kinds: Sequence[str], ns: Sequence[int], reps: int) -> List[Measurement]:
    return [Measurement("match", k, (("n", n),), k, "n", (("reps", reps),)) for k in kinds for n in ns]


def _pingpong(deads: Sequence[int], iters: int, reps: int) -> List[Measurement]:
    return [Measurement("pingpong", "pingpong", (("dead", d),), "pingpong", "dead",
                        (("size", 8), ("iters", iters), ("reps", reps))) for d in deads]


def _latency(sizes: Sequence[int], reps: int) -> List[Measurement]:
    # enough iterations for ~a few ms per sample at any size
    return [Measurement("pingpong", "latency", (("size", s),), "latency", "size",
                        (("dead", 0), ("iters", max(20, min(2000, (64 * MIB) // max(s, 1) // 16))),
                         ("reps", reps))) for s in sizes]


def _bandwidth(sizes: Sequence[int], reps: int) -> List[Measurement]:
    # at most 64 MiB of receive buffers in flight
    return [Measurement("bandwidth", "bandwidth", (("size", s),), "bandwidth", "size",
                        (("window", max(1, min(64, (64 * MIB) // s))), ("reps", reps))) for s in sizes]


def _flood(n: int) -> Measurement:
    return Measurement("unexpected", "unexpected", (("n", n), ("size", 1)), "unexpected", "n")


POW4 = [64, 256, 1024, 4096]
FULL = Plan("mpi", "MPI programs at np 2 under ob1, pml ucx and the provider with each engine: "
                   "MadMPI request benchmarks, ping-pong with dead receives, latency, bandwidth, "
                   "bytes per unexpected message; a few minutes", 3, (
    *_match(("shuffle", "burst", "tags", "any"), POW4, 3),
    *_pingpong([0, 25, 50, 100, 150, 200], 2000, 3),
    *_latency([0, 8, 64, 512, 4 * KIB, 32 * KIB, 256 * KIB, MIB, 4 * MIB], 3),
    *_bandwidth([4 * KIB, 64 * KIB, MIB, 4 * MIB], 3)),
    # 50,000: below 65,536 (ob1 loses the order of more unexpected messages from one peer
    # than its 16-bit sequence numbers count, docs/provider.md)
    _flood(50000))
QUICK = Plan("mpi", "the mpi suite's targets and one of each other kind, one pass (--quick); "
                    "seconds per stack", 1, (
    *_match(("shuffle",), [64, 4096], 2), *_match(("any",), [64], 2),
    *_pingpong([0, 200], 500, 2),
    *_latency([8, MIB], 2), *_bandwidth([MIB], 2)),
    _flood(5000))


# ---------------------------------------------------------------- stacks

def stacks(engines: Optional[Sequence[str]]) -> List[mpistack.Stack]:
    """ob1, ucx, then the provider with each engine (all of ENGINES, or those named)."""
    chosen = list(ENGINES if engines is None else engines)
    bad = [e for e in chosen if e not in ENGINES]
    if bad:
        raise MpimatchError(f"--engines: {bad[0]} is not an engine of the mpi suite "
                            f"(known: {', '.join(ENGINES)})")
    out = [mpistack.OB1, mpistack.UCX]
    for e in chosen:
        out.append(mpistack.provider_stack(e, hints=HINTED.get(e, ()), name=f"mpimatch:{e}"))
    return out


# ---------------------------------------------------------------- running

@dataclass
class Launch:
    """One mpirun: a stack and the measurements it runs."""
    stack: mpistack.Stack
    measurements: List[Measurement]
    label: str


def launches(plan: Plan, stacks_: Sequence[mpistack.Stack]) -> Tuple[List[Launch], List[Dict[str, str]]]:
    """The passes (every stack in turn in each), then one flood per stack; and the skips."""
    skipped = []
    out: List[Launch] = []
    for p in range(plan.passes):
        for s in stacks_:
            ms = [m for m in plan.measurements if not (m.wildcard and s.engine in HINTED)]
            out.append(Launch(s, ms, f"pass {p + 1}/{plan.passes}"))
    for s in stacks_:
        out.append(Launch(s, [plan.flood], "flood"))
    for s in stacks_:
        if s.engine in HINTED:
            for m in plan.measurements:
                if m.wildcard:
                    skipped.append({"workload": m.spec, "engine": s.name,
                                    "reason": f"requires hints {','.join(HINTED[s.engine])}; "
                                              f"the workload uses ANY_SOURCE"})
    return out, skipped


def parse_lines(stdout: str) -> List[Dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def _quartiles(xs: Sequence[float]) -> Dict[str, Optional[float]]:
    if not xs:
        return {"median": None, "q1": None, "q3": None, "min": None}
    s = sorted(xs)
    if len(s) == 1:
        return {"median": s[0], "q1": s[0], "q3": s[0], "min": s[0]}
    q = statistics.quantiles(s, n=4, method="inclusive")
    return {"median": statistics.median(s), "q1": q[0], "q3": q[2], "min": s[0]}


def _none_queue() -> Dict[str, Any]:
    return {"mean_depth": None, "max_depth": None, "max_length": None, "queues": None,
            "peak_bytes": None}


def make_record(m: Measurement, stack: mpistack.Stack, samples: Sequence[float],
                extra: Mapping[str, Any], wall: float, exe: Path) -> Dict[str, Any]:
    """One record in the bench's shape (docs/bench.md, suite mpi)."""
    ns = _quartiles(samples)
    rec: Dict[str, Any] = {
        "workload": {"name": m.name, "params": dict(m.params), "synthetic": False, "spec": m.spec,
                     "origin": ORIGINS.get(m.name), "generator": PROGRAM, "file": None},
        "figures": [m.figure], "x": m.x,
        "engine": stack.engine or stack.name, "engine_params": {}, "run": stack.name,
        "stack": {"name": stack.name, "description": stack.description,
                  "command": stack.mpirun(2, [str(exe), m.argument()])},
        "events": None, "np": 2, "reps": len(samples),
        "ns_per_event": ns,
        "events_per_second": 1e9 / ns["median"] if ns["median"] else None,
        "speedup_vs_list": None, "vs_ob1": None, "vs_ucx": None,
        "prq": _none_queue(), "umq": _none_queue(), "peak_bytes": None,
        "outcomes": {}, "clustering": None, "wall_seconds": round(wall, 3),
    }
    if m.mode == "bandwidth" and ns["median"]:
        rec["bandwidth_mb_s"] = dict(m.params)["size"] / ns["median"] * 1e3
    if m.mode == "unexpected":
        rec["rss_before"] = extra.get("rss_before")
        rec["rss_after"] = extra.get("rss_after")
        rec["bytes_per_message"] = extra.get("bytes_per_message")
    return rec


ORIGINS = {
    "shuffle": "MadMPI benchmark reqs_shuffle; the MPC-MPI hints paper, figure 3",
    "burst": "MadMPI benchmark reqs_burst; the MPC-MPI hints paper, figure 5a",
    "tags": "MadMPI benchmark reqs_tags", "any": "MadMPI benchmark reqs_any",
    "pingpong": "the MPC-MPI hints paper, figure 6: ping-pong with preposted dead receives",
    "latency": "ping-pong, half a round trip", "bandwidth": "a window of nonblocking sends",
    "unexpected": "a flood of 1-byte unexpected messages: resident bytes per message",
}


def set_ratios(records: Sequence[Dict[str, Any]]) -> None:
    """vs_ob1 = ob1's median / the stack's; vs_ucx likewise (same measurement)."""
    for base, key in (("ob1", "vs_ob1"), ("ucx", "vs_ucx")):
        ref = {r["workload"]["spec"]: r["ns_per_event"]["median"] for r in records if r["run"] == base}
        for r in records:
            b, mine = ref.get(r["workload"]["spec"]), r["ns_per_event"]["median"]
            r[key] = b / mine if b and mine else None


def execute(plan: Plan, stacks_: Sequence[mpistack.Stack],
            on_start: Callable[[Launch], None] = lambda launch: None,
            on_done: Callable[[Launch, mpistack.Outcome], None] = lambda launch, o: None,
            timeout: float = LAUNCH_TIMEOUT) -> Tuple[List[Dict[str, Any]], List[Dict[str, str]],
                                                      List[Dict[str, Any]]]:
    """Run every launch; (records, skipped, failures). A failed launch (exit status,
    timeout, a wrong byte) is a failure of its stack, recorded; the others go on."""
    exe = tools.find_tool(PROGRAM)
    plan_launches, skipped = launches(plan, stacks_)
    samples: Dict[Tuple[str, str], List[float]] = {}
    extras: Dict[Tuple[str, str], Dict[str, Any]] = {}
    walls: Dict[Tuple[str, str], float] = {}
    failures: List[Dict[str, Any]] = []
    failed: set = set()
    for s in stacks_:
        why = mpistack.unavailable(s)
        if why:
            failed.add(s.name)
            skipped.append({"workload": "*", "engine": s.name, "reason": why})
    for launch in plan_launches:
        if launch.stack.name in failed:
            continue
        on_start(launch)
        o = mpistack.run(launch.stack, 2, [str(exe), *(m.argument() for m in launch.measurements)],
                         timeout)
        lines = parse_lines(o.stdout)
        if o.returncode != 0 or len(lines) != len(launch.measurements) or o.leftovers:
            failed.add(launch.stack.name)
            failures.append({"stack": launch.stack.name, "what": launch.label,
                             "reason": o.summary() + (f"; left {', '.join(o.leftovers)}"
                                                      if o.leftovers else ""),
                             "stderr": o.stderr[-2000:], "command": o.command})
        else:
            per = o.seconds / max(1, len(launch.measurements))
            for m, line in zip(launch.measurements, lines):
                key = (launch.stack.name, m.spec)
                samples.setdefault(key, []).extend(line.get("samples_ns") or [])
                extras[key] = {k: v for k, v in line.items() if k not in ("samples_ns", "params", "mode")}
                walls[key] = walls.get(key, 0.0) + per
        on_done(launch, o)
    records = []
    for s in stacks_:
        if s.name in failed:
            continue
        for m in (*plan.measurements, plan.flood):
            key = (s.name, m.spec)
            if key in extras:
                records.append(make_record(m, s, samples.get(key, []), extras[key], walls[key], exe))
    set_ratios(records)
    return records, skipped, failures


# ---------------------------------------------------------------- targets

def _median(records: Sequence[Mapping[str, Any]], run: str, spec: str) -> Optional[float]:
    for r in records:
        if r["run"] == run and r["workload"]["spec"] == spec:
            return r["ns_per_event"]["median"]
    return None


def check_targets(records: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """The issue's targets (docs/bench.md): shuffle n=4096 per provider engine against
    ob1 (>= 50x faster) and UCX (no slower); 8 B latency of the default engine within
    1.5x of UCX; 1 MiB bandwidth of the default engine at least 0.8x ob1's."""
    engines = [r["run"] for r in records if r["run"].startswith("mpimatch:")]
    engines = list(dict.fromkeys(engines)) or [f"mpimatch:{DEFAULT_ENGINE}"]
    wanted: List[Tuple[str, str, str, str, str, float]] = []   # name, description, base, mine, spec, x
    for e in engines:
        wanted.append((f"shuffle-4096-vs-ob1-{e}", f"shuffle n=4096: {e} per message >= 50x faster "
                       "than ob1", "ob1", e, "shuffle:n=4096", 50.0))
        wanted.append((f"shuffle-4096-vs-ucx-{e}", f"shuffle n=4096: {e} per message no slower "
                       "than pml ucx (ucx / mine)", "ucx", e, "shuffle:n=4096", 1.0))
    d = f"mpimatch:{DEFAULT_ENGINE}"
    wanted.append(("latency-8B-vs-ucx", f"8 B latency: {d} within 1.5x of pml ucx (ucx / mine)",
                   "ucx", d, "latency:size=8", 1 / 1.5))
    wanted.append(("bandwidth-1MiB-vs-ob1", f"1 MiB bandwidth: {d} at least 0.8x ob1's",
                   "ob1", d, "bandwidth:size=1048576", 0.8))
    out = []
    for name, desc, base, mine, spec, want in wanted:
        a, b = _median(records, base, spec), _median(records, mine, spec)
        got = a / b if a and b else None
        met = None if got is None else got >= want
        note = ("met" if met else "MISSED" if met is False
                else f"not measured: no {spec} run of {mine} and {base}")
        out.append({"name": name, "description": desc, "relation": ">=", "wanted": want,
                    "unit": "x", "measured": got, "met": met, "note": note,
                    "measure": f"{base} median / {mine} median ({spec})"})
    return out


# ---------------------------------------------------------------- the document and outputs

def document(plan: Plan, started: str, records: List[Dict[str, Any]],
             skipped: List[Dict[str, str]], failures: List[Dict[str, Any]],
             stacks_: Sequence[mpistack.Stack]) -> Dict[str, Any]:
    return {
        "tool": "mpimatch bench", "version": core.__version__, "suite": plan.name,
        "suite_summary": plan.summary, "reps": plan.passes, "passes": plan.passes,
        "generator": PROGRAM, "machine": core.machine(), "started": started,
        "finished": core.now(),
        "stacks": [{"name": s.name, "description": s.description, "engine": s.engine,
                    "mpirun": s.mpirun(2, [PROGRAM, "..."])} for s in stacks_],
        "records": records, "skipped": skipped, "failures": failures,
        "unexpected_bytes_per_message": {r["run"]: r.get("bytes_per_message") for r in records
                                         if r["workload"]["name"] == "unexpected"},
        "targets": check_targets(records),
    }


def _extra(r: Mapping[str, Any]) -> str:
    if "bandwidth_mb_s" in r:
        return f"{r['bandwidth_mb_s']:.0f} MB/s"
    if r.get("bytes_per_message") is not None:
        return f"{r['bytes_per_message']:.0f} B/msg (RSS +{human_bytes(r['rss_after'] - r['rss_before'])})"
    return ""


def _ratio(x: Any) -> str:
    return "-" if x is None else f"{x:.2f}×"


HEADERS = ["stack", "ns median", "ns q1–q3", "vs ob1", "vs ucx", ""]


def result_rows(records: Sequence[Mapping[str, Any]]) -> Dict[str, List[List[str]]]:
    groups: Dict[str, List[List[str]]] = {}
    for r in records:
        ns = r["ns_per_event"]
        groups.setdefault(r["workload"]["spec"], []).append([
            r["run"], fnum(ns["median"], ".0f"), f"{fnum(ns['q1'], '.0f')}–{fnum(ns['q3'], '.0f')}",
            _ratio(r["vs_ob1"]), _ratio(r["vs_ucx"]), _extra(r)])
    return groups


def terminal_report(doc: Mapping[str, Any]) -> Group:
    table = Table(title=Text(f"mpimatch bench: suite mpi, np 2, {doc['passes']} pass(es); ns per "
                             "message (match, bandwidth) or per half round trip (ping-pong, "
                             "latency); vs = the other's median / this one's"),
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for i, h in enumerate(HEADERS):
        table.add_column(h, justify="left" if i in (0, 5) else "right")
    for spec, rows in result_rows(doc["records"]).items():
        table.add_row(Text(spec, style="bold cyan"), *[""] * (len(HEADERS) - 1))
        for row in rows:
            table.add_row(*(Text(c) for c in row))
    parts: List[Any] = [table]
    for s in doc["skipped"]:
        parts.append(Text(f"skipped {s['engine']} on {s['workload']}: {s['reason']}", style="yellow"))
    for f in doc["failures"]:
        parts.append(Text(f"FAILED {f['stack']} ({f['what']}): {f['reason']}\n{f['stderr'][-600:]}",
                          style="bold red"))
    parts.append(targets_table(doc["targets"], "targets"))
    return Group(*parts)


def write_outputs(doc: Dict[str, Any], out: Path, json_copy: Optional[Path]) -> Path:
    """results.json, results.csv, plots/ and report.html, as the other suites write them."""
    from . import cli
    cli.plotter()
    from . import plots
    return cli.write_outputs(doc, out, json_copy, lambda d, where: plot_mpi(d, where, plots),
                             (HEADERS, result_rows(doc["records"]),
                              "Median ns per message (match, bandwidth) or per half round trip "
                              "(ping-pong, latency) over every pass's samples; vs ob1 = ob1's "
                              "median / this stack's (above 1: faster than ob1), vs ucx likewise."))


def plot_mpi(doc: Mapping[str, Any], directory: Path, plots: Any) -> List[Tuple[str, str]]:
    """One plot per sweep (ns against its x, one line per stack; bandwidth in MB/s), and
    the bytes per unexpected message per stack."""
    plt = plots.plt
    records = [r for r in doc["records"] if r["ns_per_event"]["median"]]
    made: List[Tuple[str, str]] = []
    stacks_seen = list(dict.fromkeys(r["run"] for r in doc["records"]))
    cmap = plt.get_cmap("tab10" if len(stacks_seen) <= 10 else "tab20")
    colours = {run: cmap(i % cmap.N) for i, run in enumerate(stacks_seen)}   # one per stack
    for (fig_label, name, x), rs in plots.sweeps(records).items():
        fig, ax = plt.subplots(figsize=(8, 4.4))
        bw = name == "bandwidth"
        for run, mine in plots._by_run(rs).items():
            mine = sorted(mine, key=lambda r: r["workload"]["params"][x])
            xs = [r["workload"]["params"][x] for r in mine]
            ys = [r["bandwidth_mb_s"] if bw else r["ns_per_event"]["median"] for r in mine]
            ax.plot([max(v, 1) for v in xs] if x == "size" else xs, ys, color=colours[run],
                    marker="o", ms=3, label=run)
        plots._xscale(ax, [max(r["workload"]["params"][x], 1) for r in rs])
        ax.set_yscale("log")
        ax.set_xlabel(x + (" (bytes)" if x == "size" else ""))
        ax.set_ylabel("MB/s" if bw else "median ns per message" if name not in ("pingpong", "latency")
                      else "median ns per half round trip")
        ax.set_title(f"{name} against {x}, np 2")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        file = f"mpi-{plots._slug(name)}-{plots._slug(x)}.png"
        plots._save(fig, directory / file)
        made.append((file, f"{name} against {x}: " + ("bandwidth" if bw else "median time")
                     + " per stack."))
    flood = [r for r in doc["records"] if r.get("bytes_per_message") is not None]
    if flood:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        ax.bar([r["run"] for r in flood], [r["bytes_per_message"] for r in flood],
               color=[colours[r["run"]] for r in flood])
        ax.set_ylabel("resident bytes per unexpected message")
        ax.set_title(f"{flood[0]['workload']['spec']}: receiver's RSS growth / n")
        ax.tick_params(axis="x", labelrotation=30)
        plots._save(fig, directory / "mpi-unexpected-bytes.png")
        made.append(("mpi-unexpected-bytes.png", "Resident bytes per queued unexpected 1-byte "
                                                 "message, per stack."))
    return made


class Display:
    """A progress bar on a terminal, one line per launch otherwise, nothing with --quiet."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.err = Console(stderr=True, highlight=False)
        self.total, self.done, self.t0 = total, 0, time.perf_counter()
        self.bar: Optional[Progress] = None
        self.lines = not quiet and not self.err.is_terminal
        if not quiet and self.err.is_terminal:
            self.bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn(), console=self.err,
                                transient=True)
            self.task = self.bar.add_task("starting", total=total)
            self.bar.start()

    def start(self, launch: Launch) -> None:
        if self.bar:
            self.bar.update(self.task, description=f"{launch.label} · {launch.stack.name} "
                                                   f"({len(launch.measurements)} measurements)")

    def finish(self, launch: Launch, o: mpistack.Outcome) -> None:
        self.done += 1
        if self.bar:
            self.bar.advance(self.task)
        if self.lines:
            print(f"[{self.done}/{self.total}] {launch.label} {launch.stack.name}: "
                  f"{o.summary()}", file=self.err.file, flush=True)

    def close(self) -> None:
        if self.bar:
            self.bar.stop()


def cmd_mpi(args: argparse.Namespace, out: Console) -> int:
    """mpimatch bench --suite mpi [--quick] [--engines a,b] [--out DIR] [--json FILE]."""
    plan = QUICK if args.quick else FULL
    if args.reps is not None:
        if args.reps < 1:
            raise MpimatchError("--reps must be >= 1")
        plan = Plan(plan.name, plan.summary + f"; {args.reps} passes", args.reps,
                    plan.measurements, plan.flood)
    only = [e.strip() for e in args.engines.split(",") if e.strip()] if args.engines else None
    if only is not None and not only:
        raise MpimatchError("--engines: no engine named")
    tools.find_tool(PROGRAM)
    from .cli import output_places, plotter
    plotter()
    stacks_ = stacks(only)
    outdir, json_copy = output_places(args)
    started, t0 = core.now(), time.perf_counter()
    nlaunch = len(launches(plan, stacks_)[0])
    display = Display(nlaunch, args.quiet)
    try:
        records, skipped, failures = execute(plan, stacks_, display.start, display.finish)
    finally:
        display.close()
    doc = document(plan, started, records, skipped, failures, stacks_)
    report = write_outputs(doc, outdir, json_copy)
    if not out.is_terminal:
        out = Console(width=max(out.width, 140), highlight=False)
    out.print(terminal_report(doc))
    out.print(f"\n{len(records)} records from {nlaunch} mpirun launches in "
              f"{time.perf_counter() - t0:.0f} s. Outputs in {outdir}/: results.json, results.csv, "
              f"plots/, report.html", highlight=False)
    out.print(f"report: {report}", highlight=False)
    if failures:
        raise MpimatchError(f"{len(failures)} stack(s) failed: "
                            + "; ".join(f"{f['stack']}: {f['reason']}" for f in failures),
                            EXIT_FAILURE)
    return 0
