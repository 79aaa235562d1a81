"""End-to-end samples of the classifier's dataset (group "e2e", docs/advise.md): the MPI
4.0 hints paper's preposted ping-pong (section V-B: N receives that never match, then a
ping-pong of B-byte messages) run as a real MPI program, `mpimatch-mpibench`, under Open
MPI on the libfabric provider, once with each candidate engine. The label comes from those
runs' times (the same 5 % rule as the replayed samples), the features from the provider's
run-time profile (FI_MPIMATCH_PROFILE: the matching operations each rank handed its
engine, profiled with list semantics): the labels the issue asked for "from end-to-end runs,
once the provider exists".

The time of an engine is its fastest repetition (half a round trip, averaged over the
iterations of one repetition) over PASSES launches, the engines taking turns: on a shared
machine the slower repetitions measure the other jobs (a launch whose every repetition was
preempted happens at a load of 5 on 2 cores), and the fastest is what the engine can do.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .. import mpistack, tools
from ..bench.mpi import HINTED as HINTS, PROGRAM, parse_lines   # the MPI suite's program and hints
from ..errors import EXIT_FAILURE, MpimatchError
from .features import PHASE_EVENTS, Pool, profile_stream

GROUP = "e2e"
DEAD = (0, 5, 20, 50, 100, 200)
SIZES = (8, 2048)   # eager on the provider (up to 4032 B); 8 KiB goes by rendezvous (CMA),
                    # whose times on 2 shared cores vary by 5x between runs
ITERS = 500
TIMEOUT = 300.0
PASSES = 2      # launches per engine, the engines in turn (the second pass in reverse order)


def points(quick: bool = False) -> List[Tuple[int, int]]:
    """(dead receives, message bytes) of every sample."""
    if quick:
        return [(0, 8), (200, 8)]
    return [(d, b) for d in DEAD for b in SIZES]


def spec(dead: int, size: int, reps: int) -> str:
    return f"pingpong:dead={dead},size={size},iters={ITERS},reps={reps}"


def _run(stack: mpistack.Stack, argv: Sequence[str], expect: int, what: str) -> List[dict]:
    o = mpistack.run(stack, 2, argv, TIMEOUT)
    lines = parse_lines(o.stdout)
    if o.returncode != 0 or len(lines) != expect:
        raise MpimatchError(f"{what}: {o.summary()} ({len(lines)} of {expect} results): "
                            f"{o.stderr.strip()[-500:]}\n  command: {' '.join(o.command)}",
                            EXIT_FAILURE)
    return lines


def _profile(exe: Path, s: str, phase_events: int) -> Pool:
    """The run-time profile of one ping-pong on the provider's list engine, both ranks
    pooled (FI_MPIMATCH_PROFILE; untimed)."""
    with tempfile.TemporaryDirectory(prefix="mpimatch-e2e-") as tmp:
        stack = mpistack.provider_stack("list", env_extra=(("FI_MPIMATCH_PROFILE", tmp),))
        _run(stack, [str(exe), s], 1, f"profile of {s}")
        files = sorted(Path(tmp).glob("mpimatch-fi-*.mms"))
        if len(files) != 2:
            raise MpimatchError(f"profile of {s}: {len(files)} profile files, expected 2",
                                EXIT_FAILURE)
        pool = Pool()
        for f in files:
            pool.add(profile_stream(f, phase_events))
        return pool


def measure(engines: Sequence[str], reps: int, quick: bool = False,
            progress: Optional[Callable[[str], None]] = None,
            phase_events: int = PHASE_EVENTS) -> List[Tuple[str, Pool, Dict[str, float]]]:
    """(sample name, profile pool, ns per repetition per engine) of every point. First one
    untimed launch per point on `list` records its profile; then, PASSES times, one launch
    per engine times every point (mpibench runs its specs in order in one process pair).
    hash runs only if no profile saw a wildcard (its hints hold)."""
    exe = tools.find_tool(PROGRAM)
    why = mpistack.unavailable(mpistack.provider_stack("list"))
    if why:
        raise MpimatchError(f"end-to-end samples: the provider cannot run here: {why}",
                            EXIT_FAILURE)
    pts = points(quick)
    specs = [spec(d, b, reps) for d, b in pts]
    pools = []
    for s in specs:
        if progress:
            progress(f"[e2e] profile of {s}")
        pools.append(_profile(exe, s, phase_events))
    if not all(p.hints_hold() for p in pools):
        engines = [e for e in engines if e not in HINTS]
    times: List[Dict[str, float]] = [{} for _ in pts]
    for p in range(PASSES):
        for e in engines if p % 2 == 0 else reversed(engines):
            stack = mpistack.provider_stack(e, hints=HINTS.get(e, ()))
            if progress:
                progress(f"[e2e] pass {p + 1}/{PASSES}, {e}: {len(specs)} ping-pongs on the "
                         f"provider")
            for i, line in enumerate(_run(stack, [str(exe), *specs], len(specs),
                                          f"{e} on the provider")):
                samples = line.get("samples_ns") or []
                if not samples:
                    raise MpimatchError(f"{e}: {specs[i]} gave no samples", EXIT_FAILURE)
                t = min(samples) * 2 * ITERS     # one repetition: ITERS round trips
                times[i][e] = min(t, times[i].get(e, t))
    return [(f"mpibench {s}", pool, t) for s, pool, t in zip(specs, pools, times)]
