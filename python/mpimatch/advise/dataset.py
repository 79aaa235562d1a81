"""The classifier's dataset: workloads and traced applications, each profiled (features)
and replayed through every candidate engine (timings), labelled by the MPI 4.0 hints
paper's rule extended to several engines (docs/advise.md, "Labels").

A sample's total time under engine e is its matching time, measured by
`mpimatch-replay --interleave` (median over repetitions, the harness floor removed), plus
the time its messages take to arrive under the LogGP model `mpimatch convert` uses for
ranks of one host (o + L per message, G per byte): the paper's total execution time, in
which the matching saving must be large enough against the transfers to count.
Label: `list` unless some engine cuts the total time by at least 5 %; then, of the engines
that do, the first in PREFERENCE whose time is within 5 % of the fastest.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

from .. import tools
from ..errors import EXIT_FAILURE, MpimatchError
from ..replay_dir import load_dir
from .features import FEATURES, PHASE_EVENTS, Pool, load_checked, profile_stream, profile_workload

DATASET_FORMAT = "mpimatch-advise-dataset"
VERSION = 1
CANDIDATES = ("list", "bins", "hash", "nm", "simd", "rank")
PREFERENCE = ("bins", "hash", "simd", "nm", "rank")   # among engines within 5 % of the best
GAIN_RULE = 0.05         # the paper: hash is better when it cuts total time by >= 5 %
TIE = 0.05               # engines this close to the fastest are equivalent
# mpimatch convert's intra-host LogGP defaults (tools/convert/convert.c)
TRANSFER = {"overhead_ns": 100, "latency_ns": 300, "ps_per_byte": 100}


@dataclass
class Sample:
    name: str                       # a workload spec, or APP/rank-N
    group: str                      # what leave-one-application-out holds out together
    kind: str                       # "benchmark" or "application"
    features: Dict[str, float]
    times_ns: Dict[str, float]      # total time (matching + transfers) per engine that ran
    match_ns: Dict[str, float]      # the matching part alone
    label: str = ""
    counts: Dict[str, int] = field(default_factory=dict)
    extra: Dict[str, Any] = field(default_factory=dict)   # further keys of this sample's row

    def row(self) -> Dict[str, Any]:
        """The sample as a row of the dataset file (extra's keys after the others)."""
        out = {k: v for k, v in vars(self).items() if k != "extra"}
        out.update(self.extra)
        return out

    def gains(self) -> Dict[str, float]:
        """Per engine: the fraction of list's total time it saves (negative: it costs)."""
        base = self.times_ns["list"]
        return {e: 1.0 - t / base for e, t in self.times_ns.items()}


def label_of(times: Mapping[str, float]) -> str:
    """The engine a sample's total times call for (module docstring)."""
    base = times["list"]
    good = {e: t for e, t in times.items() if e != "list" and t <= (1 - GAIN_RULE) * base}
    if not good:
        return "list"
    best = min(good.values())
    for e in PREFERENCE:
        if e in good and good[e] <= (1 + TIE) * best:
            return e
    return min(good, key=good.__getitem__)


def transfer_ns(counts: Mapping[str, int], bytes_total: float,
                transfer: Mapping[str, int] = TRANSFER) -> float:
    return counts["messages"] * (transfer["overhead_ns"] + transfer["latency_ns"]) \
        + bytes_total * transfer["ps_per_byte"] / 1000.0


def engines_for(pool: Pool) -> List[str]:
    """The candidates that can run the sample: hash only when its hints hold."""
    return [e for e in CANDIDATES if e != "hash" or pool.hints_hold()]


def replay_times(target: Sequence[str], engines: Sequence[str], reps: int) -> Dict[str, float]:
    """Matching time per candidate engine (ns for the whole stream): mpimatch-replay
    --interleave, median ns/event less the harness floor, times the events. Engines the
    stream's hints exclude (hash, with wildcards) are left out by the caller."""
    exe = tools.find_tool(tools.REPLAY)
    with tempfile.TemporaryDirectory(prefix="mpimatch-train-") as tmp:
        out = Path(tmp) / "replay.json"
        argv = [str(exe), *target, "--engine", ",".join(engines), "--reps", str(reps),
                "--interleave", "--quiet", "--json", str(out)]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise MpimatchError(f"{' '.join(target)}: replay failed: {proc.stderr.strip()}",
                                EXIT_FAILURE)
        data = json.loads(out.read_text())
    events = data["events"]
    return {r["engine"]: max(r["ns_per_event"]["median"] - data["floor_ns_per_event"], 0.0)
            * events for r in data["results"]}


def make_sample(name: str, group: str, kind: str, pool: Pool,
                match_ns: Dict[str, float]) -> Sample:
    st = pool.stats("bytes")
    xfer = transfer_ns(pool.counts, st["mean"] * st["count"])
    times = {e: t + xfer for e, t in match_ns.items()}
    s = Sample(name, group, kind, pool.named_features(), times, match_ns,
               counts=dict(pool.counts))
    s.label = label_of(times)
    return s


def workload_sample(spec: str, group: str, reps: int,
                    phase_events: int = PHASE_EVENTS) -> Sample:
    pool = Pool().add(profile_workload(spec, phase_events))
    return make_sample(spec, group, "benchmark", pool, replay_times(["--workload", spec], engines_for(pool), reps))


def stream_sample(path: Path, name: str, group: str, kind: str, reps: int,
                  phase_events: int = PHASE_EVENTS) -> Sample:
    pool = Pool().add(profile_stream(path, phase_events))
    return make_sample(name, group, kind, pool, replay_times([str(path)], engines_for(pool), reps))


def app_samples(app: str, stream_dir: Path, reps: int,
                phase_events: int = PHASE_EVENTS) -> List[Sample]:
    """One sample per rank of a directory of per-rank streams (mpimatch convert). app is
    GROUP or GROUP:RUN (runs of one application share a group)."""
    _, files = load_dir(stream_dir)
    group = app.split(":", 1)[0]
    return [stream_sample(f, f"{app}/{f.stem}", group, "application", reps, phase_events)
            for f in files]


# The bench default suite's stream file (python/mpimatch/bench/suites.py), when the
# checkout has it.
EXAMPLE_STREAMS = ("mixed-wildcards.mms",)


# ---------------------------------------------------------------- the workloads

def _specs(name: str, grid: Mapping[str, Iterable[Any]], **fixed: Any) -> List[str]:
    specs = [dict(fixed)]
    for key, values in grid.items():
        specs = [{**s, key: v} for s in specs for v in values]
    return [name + ":" + ",".join(f"{k}={v}" for k, v in s.items()) for s in specs]


def benchmark_workloads(quick: bool = False) -> List[tuple]:
    """(spec, group) of every benchmark sample: the paper's preposted ping-pong grid (N
    dead receives 0..200, 1 B..8 KiB), the MadMPI workloads of the bench suites swept over
    the queue length, reverse search, stencils, collide, and the synthetic applications."""
    if quick:
        return [(s, "pingpong") for s in _specs("pingpong", {"n": [0, 200], "bytes": [1, 8192]},
                                                iters=256)] + \
               [(s, "madmpi") for s in _specs("shuffle", {"n": [8, 1024]}, rounds=1)]
    n_dead = [0, 2, 5, 10, 20, 35, 50, 75, 100, 125, 150, 175, 200]
    items = [(s, "pingpong") for s in _specs(
        "pingpong", {"n": n_dead, "bytes": [1, 64, 512, 2048, 8192]}, iters=2048)]
    for wl in ("shuffle", "burst", "tags", "any"):
        items += [(s, "madmpi") for s in _specs(wl, {"n": [4, 16, 64, 256, 1024, 4096]},
                                                rounds=2)]
    items += [(s, "reverse") for s in _specs("reverse", {"n": [4, 16, 64], "m": [2, 10, 50]},
                                             rounds=2)]
    items += [(s, "reverse") for s in _specs("reverse_groups", {"per_group": [2, 8]}, rounds=2)]
    items += [(s, "stencil") for s in _specs("stencil_naive", {"threads": [8, 64],
                                                                "msgs": [8, 26]}, phases=4)]
    items += [(s, "stencil") for s in _specs("stencil3d", {"lx": [2, 4, 8]}, ly=4, lz=4)]
    items += [(s, "stencil") for s in _specs("stencil2d", {"lx": [4, 16]}, ly=8)]
    items += [(s, "random_keys") for s in _specs("random_keys", {"seed": [1, 2, 3]})]
    items += [(s, "collide") for s in _specs("collide", {"kind": ["tags", "bins"],
                                                          "n": [256, 2048]}, rounds=2)]
    for app, iters in (("radix", 40), ("nbody", 10), ("miniamr", 5), ("fds", 40)):
        items += [(s, app) for s in _specs(app, {"n": [64, 512], "rank": [0, 7]}, iters=iters)]
    return items


def e2e_samples(reps: int, quick: bool = False,
                progress: Optional[Callable[[str], None]] = None,
                phase_events: int = PHASE_EVENTS) -> List[Sample]:
    """The end-to-end group (e2e.py): the ping-pong grid run on the provider with every
    candidate engine (list and bins only with quick), labelled from those runs' times."""
    from . import e2e
    engines = ("list", "bins") if quick else CANDIDATES
    out = []
    for name, pool, times in e2e.measure(engines, reps, quick, progress, phase_events):
        s = Sample(name, e2e.GROUP, "application", pool.named_features(), times, {},
                   counts=dict(pool.counts))
        s.label = label_of(times)
        out.append(s)
    return out


def e2e_apps_samples(quick: bool = False, progress: Optional[Callable[[str], None]] = None,
                     phase_events: int = PHASE_EVENTS) -> List[Sample]:
    """The end-to-end application group (e2e_apps.py): LAMMPS and HPCC run on the provider
    with every candidate engine their calls allow (list and bins only with quick), labelled
    by the paired 5 % rule over the rounds. times_ns: each engine's median over its runs;
    runs_s: every run's seconds; list_ref_s: the list time each run was compared with (the
    mean of the list runs around it); note: why the label."""
    from . import e2e_apps
    engines = ("list", "bins") if quick else CANDIDATES
    out = []
    for app, pool, runs, refs in e2e_apps.measure(engines, quick, progress, phase_events):
        times = {e: statistics.median(ts) * 1e9 for e, ts in runs.items()}
        label, note = e2e_apps.paired_label(runs, refs, label_of)
        out.append(Sample(app.name, e2e_apps.GROUP, "application", pool.named_features(),
                          times, {}, label, dict(pool.counts),
                          extra={"np": app.np, "timer": "loop" if app.timer else "wall",
                                 "runs_s": {e: [round(t, 4) for t in ts] for e, ts in runs.items()},
                                 "list_ref_s": {e: [round(t, 4) for t in ts]
                                                for e, ts in refs.items()},
                                 "note": note}))
    return out


def groups_of(apps: Mapping[str, Path], quick: bool = False, e2e: bool = False,
              e2e_apps: bool = False) -> List[str]:
    """The groups a build with these arguments makes."""
    seen = {g: None for _, g in benchmark_workloads(quick)}
    if not quick:
        seen["examples"] = None
    for app in apps:
        seen[app.split(":", 1)[0]] = None
    if e2e:
        seen["e2e"] = None
    if e2e_apps:
        seen["e2e_apps"] = None
    return list(seen)


def build(apps: Mapping[str, Path], reps: int, quick: bool = False,
          progress: Optional[Callable[[str], None]] = None,
          phase_events: int = PHASE_EVENTS, e2e: bool = False,
          only: Optional[Sequence[str]] = None, e2e_apps: bool = False) -> Dict[str, Any]:
    """Profile and time every sample; the dataset as a JSON-ready dict. e2e adds the
    end-to-end ping-pong group, e2e_apps the end-to-end application group; only (group
    names) makes those groups alone."""
    def wanted(group: str) -> bool:
        return only is None or group in only
    samples: List[Sample] = []
    items = [(spec, group) for spec, group in benchmark_workloads(quick) if wanted(group)]
    for i, (spec, group) in enumerate(items):
        if progress:
            progress(f"[{i + 1}/{len(items)}] {spec}")
        samples.append(workload_sample(spec, group, reps, phase_events))
    for name in EXAMPLE_STREAMS if not quick and wanted("examples") else ():
        path = tools.REPO_ROOT / "examples" / name
        if path.is_file():
            samples.append(stream_sample(path, f"examples/{name}", "examples", "benchmark",
                                         reps, phase_events))
    for app, directory in apps.items():
        if not wanted(app.split(":", 1)[0]):
            continue
        if progress:
            progress(f"[app] {app}: {directory}")
        samples += app_samples(app, directory, reps, phase_events)
    if e2e and wanted("e2e"):
        samples += e2e_samples(reps, quick, progress, phase_events)
    if e2e_apps and wanted("e2e_apps"):
        samples += e2e_apps_samples(quick, progress, phase_events)
    return {"format": DATASET_FORMAT, "version": VERSION, "features": list(FEATURES),
            "candidates": list(CANDIDATES), "preference": list(PREFERENCE),
            "gain_rule": GAIN_RULE, "tie": TIE, "transfer": dict(TRANSFER), "reps": reps,
            "phase_events": phase_events,
            "samples": [s.row() for s in samples]}


def replace_groups(old: Mapping[str, Any], new: Mapping[str, Any],
                   groups: Sequence[str]) -> Dict[str, Any]:
    """old with the samples of `groups` replaced by new's (each group where its first
    sample was; groups old did not have, at the end)."""
    for key in ("features", "phase_events"):
        if old.get(key) != new.get(key):
            raise MpimatchError(f"the dataset's {key} differ from this build's: rebuild it "
                                f"whole (without --only)")
    fresh: Dict[str, List[Any]] = {}
    for s in new["samples"]:
        fresh.setdefault(s["group"], []).append(s)
    out: List[Any] = []
    for s in old["samples"]:
        g = s["group"]
        if g not in groups:
            out.append(s)
        elif g in fresh:
            out += fresh.pop(g)
    for g in groups:
        out += fresh.pop(g, [])
    return {**old, "samples": out}


def dumps(data: Mapping[str, Any]) -> str:
    """The dataset as JSON text, one sample per line (diffs stay readable)."""
    head = {k: v for k, v in data.items() if k != "samples"}
    text = json.dumps(head, indent=1)[:-2]
    rows = ",\n".join("  " + json.dumps(s, separators=(",", ":")) for s in data["samples"])
    return text + ',\n "samples": [\n' + rows + "\n ]\n}\n"


def load(path: Path) -> Dict[str, Any]:
    data = load_checked(path, DATASET_FORMAT, VERSION, "dataset", "mpimatch train --build")
    samples = data.get("samples")
    if not isinstance(samples, list) or not samples:
        raise MpimatchError(f"{path}: no samples")
    for i, s in enumerate(samples):
        if not isinstance(s, dict) or not all(k in s for k in ("name", "group", "features",
                                                                 "times_ns", "label")):
            raise MpimatchError(f"{path}: sample {i + 1} lacks name, group, features, "
                                f"times_ns or label")
    return data
