"""The matching profile of a stream or of every rank of an application, and the
fixed-length feature vector the classifier reads (docs/advise.md, "Features").

The profile comes from `mpimatch-replay --match-profile` (list semantics, untimed). The
ranks of an application are pooled exactly: the C tool writes each distribution as
[value, count] pairs, merged here before any statistic is taken, so the vector has the
same length whatever the process count.
"""
from __future__ import annotations

import json
import math
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple

import numpy as np

from .. import tools
from ..errors import EXIT_FAILURE, MpimatchError

DISTRIBUTIONS = ("depth_success", "depth_failure", "bytes", "prq_length", "umq_length")
STATS = ("mean", "std", "var", "q1", "median", "q3")
PHASE = ("phase_peak_depth_success", "phase_spread_depth_success")
# The vector, in order, every entry log1p of: each statistic of each distribution, the
# elements traversed per event, the phase features. (Ratios such as the share of probes
# or of wildcard receives were tried and left out: with them the models extrapolated
# wildly on HPCC, whose ranks poll with MPI_Iprobe; docs/advise.md. Wildcards decide only
# whether hash may be chosen, by rule.)
FEATURES: Tuple[str, ...] = tuple(f"{d}.{s}" for d in DISTRIBUTIONS for s in STATS) \
    + ("traversed_per_event",) + PHASE
# The features a matcher can keep up to date in constant time per event (running sums over a
# window: no quartiles, no phase history): what the "online" model reads, for a rule in C.
ONLINE: Tuple[str, ...] = tuple(f"{d}.{s}" for d in DISTRIBUTIONS for s in ("mean", "std", "var")) \
    + ("traversed_per_event",)
COUNTS = ("events", "attempts", "successes", "failures", "prq_attempts", "prq_successes",
          "umq_attempts", "umq_successes", "receives", "any_source", "any_tag", "messages",
          "probes", "cancels")
PHASE_EVENTS = 1024


def profile_stream(stream: Path, phase_events: int = PHASE_EVENTS) -> Dict[str, Any]:
    """`mpimatch-replay STREAM --match-profile` as a dict (raises MpimatchError with the C
    tool's message when the stream is bad)."""
    return _profile([str(stream)], phase_events)


def _profile(target: Sequence[str], phase_events: int) -> Dict[str, Any]:
    exe = tools.find_tool(tools.REPLAY)
    with tempfile.TemporaryDirectory(prefix="mpimatch-advise-") as tmp:
        out = Path(tmp) / "profile.json"
        argv = [str(exe), *target, "--match-profile", str(out),
                "--phase-events", str(phase_events)]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise MpimatchError(proc.stderr.strip() or f"{exe} failed (exit {proc.returncode})",
                                proc.returncode if proc.returncode in (1, 2) else EXIT_FAILURE)
        return json.loads(out.read_text())


def profile_workload(spec: str, phase_events: int = PHASE_EVENTS) -> Dict[str, Any]:
    """The profile of a generated workload (mpimatch-replay --workload SPEC)."""
    return _profile(["--workload", spec], phase_events)


class Pool:
    """Profiles of one or more ranks merged: counts summed, distributions merged exactly,
    per-phase mean success depths kept (every rank's phases)."""

    def __init__(self) -> None:
        self.ranks = 0
        self.counts: Dict[str, int] = {k: 0 for k in COUNTS}
        self.dist: Dict[str, Dict[int, int]] = {d: {} for d in DISTRIBUTIONS}
        self.phase_means: List[float] = []

    def add(self, prof: Mapping[str, Any]) -> "Pool":
        total = prof["total"]
        for k in COUNTS:
            self.counts[k] += int(total[k])
        for d in DISTRIBUTIONS:
            merged = self.dist[d]
            for value, count in total["distributions"][d]:
                merged[int(value)] = merged.get(int(value), 0) + int(count)
        for ph in prof["phases"]:
            mean = ph["depth_success"]["mean"]
            if ph["depth_success"]["count"]:
                self.phase_means.append(float(mean))
        self.ranks += 1
        return self

    def stats(self, d: str) -> Dict[str, float]:
        """count, mean, std, var, min, q1, median, q3, max of a merged distribution, as the
        C profiler defines them (population variance; quantiles interpolate linearly
        between ranks); all 0 for an empty one."""
        items = sorted(self.dist[d].items())
        n = sum(c for _, c in items)
        if n == 0:
            return {k: 0.0 for k in ("count", "mean", "std", "var", "min", "q1", "median",
                                     "q3", "max")}
        values = np.array([v for v, _ in items], dtype=float)
        counts = np.array([c for _, c in items], dtype=float)
        mean = float((values * counts).sum() / n)
        var = float((counts * (values - mean) ** 2).sum() / n)
        cum = np.cumsum(counts)

        def at(rank: int) -> float:        # the rank-th smallest value, 0-based
            return float(values[int(np.searchsorted(cum, rank + 1))])

        def quantile(p: float) -> float:
            pos = p * (n - 1)
            lo = int(math.floor(pos))
            if lo + 1 >= n:
                return at(n - 1)
            a, b = at(lo), at(lo + 1)
            return a + (pos - lo) * (b - a)

        return {"count": float(n), "mean": mean, "std": math.sqrt(var), "var": var,
                "min": float(values[0]), "q1": quantile(0.25), "median": quantile(0.5),
                "q3": quantile(0.75), "max": float(values[-1])}

    def named_features(self) -> Dict[str, float]:
        """The feature vector with its names, before any scaling (log1p applied)."""
        out: Dict[str, float] = {}
        for d in DISTRIBUTIONS:
            st = self.stats(d)
            for s in STATS:
                out[f"{d}.{s}"] = math.log1p(st[s])
        traversed = sum(v * c for d in ("depth_success", "depth_failure")
                        for v, c in self.dist[d].items())
        events = self.counts["events"]
        out["traversed_per_event"] = math.log1p(traversed / events if events else 0.0)
        pm = self.phase_means or [0.0]
        out["phase_peak_depth_success"] = math.log1p(max(pm))
        out["phase_spread_depth_success"] = math.log1p(float(np.std(pm)))
        return out

    def hints_hold(self) -> bool:
        """No receive or probe uses MPI_ANY_SOURCE or MPI_ANY_TAG: the hash engine's
        hints (mpi_assert_no_any_source, mpi_assert_no_any_tag) hold."""
        return self.counts["any_source"] == 0 and self.counts["any_tag"] == 0

    def vector(self) -> List[float]:
        named = self.named_features()
        return [named[f] for f in FEATURES]

    def summary(self) -> Dict[str, Any]:
        """What a person reads: the counts and the raw statistics (no log1p)."""
        return {"ranks": self.ranks, "counts": dict(self.counts),
                "distributions": {d: self.stats(d) for d in DISTRIBUTIONS},
                "hints_hold": self.hints_hold()}


def load_checked(path: Path, fmt: str, version: int, what: str, remedy: str) -> Dict[str, Any]:
    """A dataset or model file: JSON with this format and version, written for this feature
    vector; otherwise an MpimatchError naming the file (remedy: how to remake it)."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise MpimatchError(f"{path}: no such {what} file ({remedy} creates it)") from None
    except OSError as err:
        raise MpimatchError(f"{path}: cannot read: {err.strerror}") from None
    except ValueError as err:
        raise MpimatchError(f"{path}: not valid JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise MpimatchError(f"{path}: not an mpimatch advise {what} (format is not '{fmt}')")
    if data.get("version") != version:
        raise MpimatchError(f"{path}: unsupported {what} version {data.get('version')!r}")
    if data.get("features") != list(FEATURES):
        raise MpimatchError(f"{path}: its features differ from this version's; {remedy} "
                            f"remakes it")
    return data
