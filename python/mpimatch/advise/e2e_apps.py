"""End-to-end samples of the traced applications (group "e2e_apps", docs/advise.md): LAMMPS
`lj` and HPCC (docs/APPLICATIONS.md), run unmodified under Open MPI (`pml cm`, `mtl ofi`) on
the libfabric provider, once with each candidate engine their calls allow, and labelled from
those runs' times. The features come from the provider's run-time profile (FI_MPIMATCH_PROFILE,
every rank's matching operations, profiled with list semantics and pooled), as for the
end-to-end ping-pong (e2e.py).

Times: the application's own timer where it prints one (LAMMPS's "Loop time"), else the
wall time of the whole `mpirun` (HPCC). ROUNDS rounds; in each, every other engine runs once,
each run between two `list` runs (schedule()), and is compared with their mean. On 2 shared
cores one run of the same program varies by a factor of 2 or more, with loads that last tens of
seconds, so the rule is paired: an engine counts as a switch only when its run was at least 5 %
faster than the `list` runs around it in every round (the MPI 4.0 hints paper's 5 % rule, held
over the repetitions); among those, the usual preference and tie rule on the median times
(dataset.label_of). Otherwise the label is `list`, and the sample's note says whether the
engines were within noise of it or slower in every round.
"""
from __future__ import annotations

import re
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import mpistack, tools
from ..bench.mpi import HINTED as HINTS
from ..errors import EXIT_FAILURE, MpimatchError
from .features import PHASE_EVENTS, Pool, profile_stream

GROUP = "e2e_apps"
ROUNDS = 5          # rounds of schedule() (quick: QUICK_ROUNDS)
QUICK_ROUNDS = 2
GAIN_RULE = 0.05    # as dataset.GAIN_RULE (the paper's 5 %)
LJ = tools.REPO_ROOT / "examples" / "apps" / "in.lj"
HPCC_INPUT = tools.REPO_ROOT / "examples" / "apps" / "hpccinf.txt"


@dataclass(frozen=True)
class App:
    """One application run: its sample name, ranks, program and arguments, input files
    written into the run's working directory, and the regular expression of its own timer
    in standard output (seconds; None: the wall time of mpirun)."""
    name: str
    np: int
    argv: Tuple[str, ...]
    files: Tuple[Tuple[str, str], ...] = ()
    timer: Optional[str] = None
    timeout: float = 300.0


def hpcc_input(ps: int, qs: int, n: Optional[int] = None, text: Optional[str] = None) -> str:
    """examples/apps/hpccinf.txt with its process grid set to ps x qs and, if n is given,
    its HPL problem size (which also sizes the other tests' data) set to n."""
    text = HPCC_INPUT.read_text() if text is None else text
    values = {"Ps": ps, "Qs": qs, "Ns": n}
    out, seen = [], set()
    for line in text.splitlines():
        m = re.match(r"^(\s*)\d+(\s+)(Ps|Qs|Ns)\s*$", line)
        if m and m.group(3) not in seen:
            seen.add(m.group(3))
            if values[m.group(3)] is not None:
                head = m.group(1) + str(values[m.group(3)])     # the name stays in its column
                line = head + " " * max(m.start(3) - len(head), 1) + m.group(3)
        out.append(line)
    if not {"Ps", "Qs", "Ns"} <= seen:
        raise MpimatchError(f"{HPCC_INPUT}: no 'Ns', 'Ps' and 'Qs' lines to set the problem "
                            f"size and process grid")
    return "\n".join(out) + "\n"


LOOP_TIME = r"Loop time of ([0-9.eE+-]+) on"


def apps(quick: bool = False) -> List[App]:
    """The runs of the group: LAMMPS lj (4,000 atoms: its 20^3-cell box halved each way,
    100 steps) on 2 and 4 ranks, HPCC (examples/apps/hpccinf.txt) on 2 ranks (grid 1x2,
    N = 1000) and 4 ranks (2x2, N = 400: at N = 1000 one run takes 20 s on 2 cores);
    quick: LAMMPS on 2 ranks only."""
    lmp = ("lmp", "-in", str(LJ), "-log", "none", "-var", "x", "0.5",
           "-var", "y", "0.5", "-var", "z", "0.5")
    out = [App(f"lammps lj 4000 atoms np{np}", np, lmp, timer=LOOP_TIME, timeout=120.0)
           for np in ((2,) if quick else (2, 4))]
    if not quick:
        out += [App(f"hpcc N={n} np{ps * qs} ({ps}x{qs})", ps * qs, ("hpcc",),
                    (("hpccinf.txt", hpcc_input(ps, qs, n)),))
                for ps, qs, n in ((1, 2, 1000), (2, 2, 400))]
    return out


def launch(stack: mpistack.Stack, app: App, env_extra: Sequence[Tuple[str, str]] = ()) -> \
        Tuple[float, mpistack.Outcome]:
    """Run `app` once under `stack` in a fresh working directory: (seconds by its timer or
    the wall time, the outcome). A failed run is an error naming the command."""
    with tempfile.TemporaryDirectory(prefix="mpimatch-e2e-apps-") as tmp:
        for name, text in app.files:
            (Path(tmp) / name).write_text(text)
        o = mpistack.run(stack, app.np, list(app.argv), app.timeout, cwd=Path(tmp))
        if o.returncode != 0:
            raise MpimatchError(f"{app.name}: {o.summary()}: {o.stderr.strip()[-500:]}\n"
                                f"  command: {' '.join(o.command)}", EXIT_FAILURE)
        if app.timer is None:
            return o.seconds, o
        m = re.search(app.timer, o.stdout)
        if not m:
            raise MpimatchError(f"{app.name}: no timer line ({app.timer!r}) in its output\n"
                                f"  command: {' '.join(o.command)}", EXIT_FAILURE)
        return float(m.group(1)), o


def profile(app: App, phase_events: int = PHASE_EVENTS) -> Pool:
    """The run-time profile of one untimed run on the provider's list engine, every rank
    pooled (FI_MPIMATCH_PROFILE)."""
    with tempfile.TemporaryDirectory(prefix="mpimatch-e2e-apps-prof-") as prof:
        stack = mpistack.provider_stack("list", env_extra=(("FI_MPIMATCH_PROFILE", prof),))
        launch(stack, app)
        files = sorted(Path(prof).glob("mpimatch-fi-*.mms"))
        if len(files) < app.np:
            raise MpimatchError(f"profile of {app.name}: {len(files)} profile files for "
                                f"{app.np} ranks", EXIT_FAILURE)
        pool = Pool()
        for f in files:
            pool.add(profile_stream(f, phase_events))
        return pool


def paired_label(times: Mapping[str, Sequence[float]], refs: Mapping[str, Sequence[float]],
                 label_of: Callable[[Mapping[str, float]], str]) -> Tuple[str, str]:
    """The label of one application and a note saying why (module docstring). times: per
    engine, its run in each round (list: every list run); refs: per engine but list, the
    list time its run of that round is compared with (the mean of the list runs just before
    and after it). label_of: the dataset's rule on times (preference among engines within
    5 %), applied to the medians of the engines that beat list by 5 % in every round."""
    if not times.get("list") or any(len(refs.get(e, ())) != len(ts) or not ts
                                    for e, ts in times.items() if e != "list"):
        raise MpimatchError("paired rounds: every engine needs one list reference per run")
    med = {e: statistics.median(ts) for e, ts in times.items()}
    ratios = {e: [t / b for t, b in zip(ts, refs[e])] for e, ts in times.items() if e != "list"}
    holds = [e for e, r in ratios.items() if max(r) <= 1 - GAIN_RULE]
    span = ", ".join(f"{e} {min(r):.2f}-{max(r):.2f}" for e, r in ratios.items())
    n = min(len(r) for r in ratios.values()) if ratios else 0
    if holds:
        label = label_of({"list": med["list"], **{e: med[e] for e in holds}})
        return label, (f"{', '.join(holds)} at least {100 * GAIN_RULE:.0f}% faster than list in "
                       f"all {n} rounds (time / list's, per round: {span})")
    slower = [e for e, r in ratios.items() if min(r) > 1]
    if len(slower) == len(ratios):
        return "list", f"every other engine slower than list in all {n} rounds ({span})"
    return "list", (f"no engine {100 * GAIN_RULE:.0f}% faster than list in every one of {n} "
                    f"rounds: within noise (time / list's, per round: {span})")


def schedule(engines: Sequence[str], n_rounds: int) -> List[str]:
    """The order of the timed runs: list first, then in each round every other engine
    followed by list (so every run of an engine sits between two list runs), the engines'
    order rotated by one each round (no engine runs twice in a row, and each takes every
    place in turn)."""
    others = [e for e in engines if e != "list"]
    out = ["list"]
    for r in range(n_rounds):
        k = r % len(others) if others else 0
        for e in others[k:] + others[:k]:
            out += [e, "list"]
    return out


def measure(engines: Sequence[str], quick: bool = False,
            progress: Optional[Callable[[str], None]] = None,
            phase_events: int = PHASE_EVENTS) -> List[Tuple[App, Pool, Dict[str, List[float]],
                                                        Dict[str, List[float]]]]:
    """(application, profile pool, seconds of every run per engine, list reference of each
    run per engine) of every application. One untimed run on list records the profile; hash
    runs only if the profile saw no wildcard (its hints hold); then the runs of schedule():
    each engine's run is compared with the mean of the list runs on either side of it, so a
    load that changes over tens of seconds on a shared machine hits both sides alike."""
    why = mpistack.unavailable(mpistack.provider_stack("list"))
    if why:
        raise MpimatchError(f"end-to-end application samples: the provider cannot run here: "
                            f"{why}", EXIT_FAILURE)
    out = []
    n_rounds = QUICK_ROUNDS if quick else ROUNDS
    for app in apps(quick):
        if progress:
            progress(f"[e2e_apps] profile of {app.name}")
        pool = profile(app, phase_events)
        run_engines = [e for e in engines if e not in HINTS or pool.hints_hold()]
        times: Dict[str, List[float]] = {e: [] for e in run_engines}
        refs: Dict[str, List[float]] = {e: [] for e in run_engines if e != "list"}
        order = schedule(run_engines, n_rounds)
        pending = None
        for i, e in enumerate(order):
            stack = mpistack.provider_stack(e, hints=HINTS.get(e, ()))
            seconds, _ = launch(stack, app)
            times[e].append(seconds)
            if e == "list" and pending is not None:
                refs[pending].append((times["list"][-2] + seconds) / 2)
            pending = e if e != "list" else None
            if progress:
                progress(f"[e2e_apps] {app.name}, run {i + 1}/{len(order)}, {e}: {seconds:.3f} s")
        out.append((app, pool, times, refs))
    return out
