"""`mpimatch bench --suite mpi`: the plan (which stack runs what, skips under the
hints), the targets' evaluation (met, MISSED, not measured) on made-up records,
and the quick form end to end under ob1, pml ucx and the provider with two
engines (rank, the default; hash, which needs the hints): the JSON, the
targets evaluated, the outputs. The numbers themselves are benchmarks, not
tests: only their shape is checked here."""
from __future__ import annotations

import json
import math
from typing import Any, Dict, List

import pytest

from conftest import run_cli
from mpimatch import mpistack
from mpimatch.bench import mpi
from mpimatch.errors import MpimatchError


def _rec(run: str, spec: str, median: float) -> Dict[str, Any]:
    return {"run": run, "workload": {"spec": spec}, "ns_per_event": {"median": median}}


def test_plan_runs_every_measurement_on_every_stack_but_wildcards_under_hints():
    stacks = mpi.stacks(["rank", "hash"])
    assert [s.name for s in stacks] == ["ob1", "ucx", "mpimatch:rank", "mpimatch:hash"]
    hashed = stacks[-1]
    assert ("FI_MPIMATCH_HINTS", "no_any_source,no_any_tag") in hashed.env
    launches, skipped = mpi.launches(mpi.QUICK, stacks)
    assert len(launches) == mpi.QUICK.passes * len(stacks) + len(stacks)   # passes, then floods
    for launch in launches:
        if launch.label == "flood":
            assert launch.measurements == [mpi.QUICK.flood]
        elif launch.stack is hashed:
            assert not any(m.wildcard for m in launch.measurements)
        else:
            assert launch.measurements == list(mpi.QUICK.measurements)
    assert [(s["engine"], s["workload"]) for s in skipped] == [("mpimatch:hash", "any:n=64")]
    with pytest.raises(MpimatchError, match="not an engine of the mpi suite"):
        mpi.stacks(["nope"])


@pytest.mark.parametrize("extra", [["--runs", "3"], ["--figure", "p003"], ["--paths"]])
def test_options_of_other_suites_are_refused(extra):
    """--runs is not silently ignored: the mpi suite makes one run (its --reps are passes)."""
    proc = run_cli("bench", "--suite", "mpi", "--quick", *extra, "--out", "/nonexistent/never")
    assert proc.returncode == 2
    assert "--suite mpi takes --quick" in proc.stderr and "--reps sets its passes" in proc.stderr


def test_arguments_are_the_programs():
    m = mpi._match(("shuffle",), [4096], 3)[0]
    assert (m.spec, m.argument()) == ("shuffle:n=4096", "match:kind=shuffle,n=4096,reps=3")
    lat = mpi._latency([8], 2)[0]
    assert lat.spec == "latency:size=8" and lat.argument().startswith("pingpong:size=8,dead=0,")
    assert mpi._bandwidth([4 * mpi.MIB], 1)[0].argument() == "bandwidth:size=4194304,window=16,reps=1"


def test_targets_met_missed_and_not_measured():
    records = [_rec("ob1", "shuffle:n=4096", 50000.0), _rec("ucx", "shuffle:n=4096", 100.0),
               _rec("mpimatch:rank", "shuffle:n=4096", 1000.0),     # 50x ob1, slower than ucx
               _rec("mpimatch:hash", "shuffle:n=4096", 90.0),       # both
               _rec("ucx", "latency:size=8", 300.0), _rec("mpimatch:rank", "latency:size=8", 500.0),
               _rec("ob1", "bandwidth:size=1048576", 1000.0)]       # no provider run: not measured
    got = {t["name"]: t for t in mpi.check_targets(records)}
    assert got["shuffle-4096-vs-ob1-mpimatch:rank"]["met"] is True
    assert got["shuffle-4096-vs-ob1-mpimatch:rank"]["measured"] == pytest.approx(50.0)
    assert got["shuffle-4096-vs-ucx-mpimatch:rank"]["met"] is False
    assert got["shuffle-4096-vs-ucx-mpimatch:rank"]["note"] == "MISSED"
    assert got["shuffle-4096-vs-ucx-mpimatch:hash"]["met"] is True
    assert got["latency-8B-vs-ucx"]["measured"] == pytest.approx(0.6)   # 500 > 1.5 * 300
    assert got["latency-8B-vs-ucx"]["met"] is False
    assert got["bandwidth-1MiB-vs-ob1"]["met"] is None
    assert got["bandwidth-1MiB-vs-ob1"]["note"].startswith("not measured")


def test_ratios_against_ob1_and_ucx():
    records = [_rec("ob1", "x:n=1", 100.0), _rec("ucx", "x:n=1", 50.0), _rec("m", "x:n=1", 25.0)]
    mpi.set_ratios(records)
    assert [r["vs_ob1"] for r in records] == [1.0, 2.0, 4.0]
    assert [r["vs_ucx"] for r in records] == [0.5, 1.0, 2.0]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    for stack in mpi.stacks(["rank"]):
        why = mpistack.unavailable(stack)
        assert why is None, f"{stack.name}: {why} (scripts/setup.sh --dev installs it)"
    d = tmp_path_factory.mktemp("bench-mpi")
    proc = run_cli("bench", "--suite", "mpi", "--quick", "--engines", "rank,hash",
                   "--out", d / "out", "--json", d / "copy.json")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return d, proc, json.loads((d / "copy.json").read_text())


def _numbers(x: Any) -> List[float]:
    if isinstance(x, dict):
        return [v for y in x.values() for v in _numbers(y)]
    if isinstance(x, list):
        return [v for y in x for v in _numbers(y)]
    return [x] if isinstance(x, (int, float)) and not isinstance(x, bool) else []


def test_quick_json(quick):
    _, _, doc = quick
    # no failures: every launch exited 0 and left no process or /dev/shm file (mpistack.run)
    assert doc["suite"] == "mpi" and doc["failures"] == [] and doc["passes"] == 1
    runs = ["ob1", "ucx", "mpimatch:rank", "mpimatch:hash"]
    assert [s["name"] for s in doc["stacks"]] == runs
    specs = [m.spec for m in (*mpi.QUICK.measurements, mpi.QUICK.flood)]
    arguments = {m.spec: m.argument() for m in (*mpi.QUICK.measurements, mpi.QUICK.flood)}
    for run in runs:
        mine = [r["workload"]["spec"] for r in doc["records"] if r["run"] == run]
        want = [s for s in specs if not (run == "mpimatch:hash" and s.startswith("any:"))]
        assert mine == want, run
    for r in doc["records"]:
        assert all(math.isfinite(v) for v in _numbers(r)), r
        ns = r["ns_per_event"]
        if r["workload"]["name"] == "unexpected":
            assert ns["median"] is None and r["rss_after"] >= r["rss_before"] > 0
            assert r["bytes_per_message"] == pytest.approx((r["rss_after"] - r["rss_before"]) / 5000,
                                                           abs=1e-3)
        else:
            assert 0 < ns["min"] <= ns["q1"] <= ns["median"] <= ns["q3"], r
            assert r["reps"] > 0
        assert r["stack"]["command"][-1] == arguments[r["workload"]["spec"]]
        if r["run"] == "ob1" and ns["median"]:
            assert r["vs_ob1"] == pytest.approx(1.0)
    assert set(doc["unexpected_bytes_per_message"]) == set(runs)
    assert doc["skipped"] == [{"workload": "any:n=64", "engine": "mpimatch:hash",
                               "reason": "requires hints no_any_source,no_any_tag; the workload "
                                         "uses ANY_SOURCE"}]


def test_quick_targets_evaluated(quick):
    _, proc, doc = quick
    names = [t["name"] for t in doc["targets"]]
    assert names == ["shuffle-4096-vs-ob1-mpimatch:rank", "shuffle-4096-vs-ucx-mpimatch:rank",
                     "shuffle-4096-vs-ob1-mpimatch:hash", "shuffle-4096-vs-ucx-mpimatch:hash",
                     "latency-8B-vs-ucx", "bandwidth-1MiB-vs-ob1"]
    by_run = {(r["run"], r["workload"]["spec"]): r["ns_per_event"]["median"] for r in doc["records"]}
    for t in doc["targets"]:
        assert t["met"] in (True, False) and t["measured"] > 0, t
        assert t["met"] == (t["measured"] >= t["wanted"]) and t["note"] == ("met" if t["met"] else "MISSED")
    lat = next(t for t in doc["targets"] if t["name"] == "latency-8B-vs-ucx")
    assert lat["measured"] == pytest.approx(by_run[("ucx", "latency:size=8")]
                                            / by_run[("mpimatch:rank", "latency:size=8")])
    for t in doc["targets"]:
        assert ("MISSED" if t["met"] is False else "met") in proc.stdout


def test_quick_outputs(quick):
    d, proc, doc = quick
    out = d / "out"
    assert json.loads((out / "results.json").read_text()) == doc
    assert len((out / "results.csv").read_text().splitlines()) == 1 + len(doc["records"])
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert "mpi-unexpected-bytes.png" in pngs and "mpi-latency-size.png" in pngs
    assert (out / "report.html").read_text().count("data:image/png;base64,") == len(pngs)
    assert "[1/" in proc.stderr                # progress: one line per launch
    assert "vs ob1" in proc.stdout and "B/msg" in proc.stdout
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "temporary files left"
