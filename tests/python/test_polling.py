"""The polling suite and `mpimatch tune` (docs/bench.md#the-polling-suite,
docs/provider.md#thresholds): the crossover rule and the tables on made-up records,
the argument errors, and short real runs: mpimatch-pollbench's four modes under the
static scheme with the provider's counters checked (the network polled once per
ratio calls of the measured rank), and `mpimatch tune --quick` writing a file the
provider then runs with. The numbers themselves are benchmarks, not tests."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

from conftest import run_cli
from mpimatch import mpistack, tools
from mpimatch.bench import polling
from mpimatch.tune import NEVER, crossovers, tune_plan



def test_crossover_rule():
    lat = {"eager": {64: 5, 1024: 6, 4032: 9},
           "segmented": {64: 20, 1024: 21, 4032: 8, 8192: 30, 65536: 300, 1 << 20: 4000},
           "cma": {64: 25, 1024: 26, 4032: 30, 8192: 31, 65536: 40, 1 << 20: 900}}
    # eager loses at 4032 (9 > 8): the largest size before; cma wins from 65536 on
    assert crossovers(lat) == (1024, 65536)
    lat["cma"][8192] = 29
    assert crossovers(lat) == (1024, 8192)
    lat["cma"][4032] = 7   # cma wins at 4032 too, and on from there
    assert crossovers(lat) == (1024, 4032)
    # a win that does not hold at every larger size does not count
    lat["cma"][1 << 20] = 5000
    assert crossovers(lat)[1] == NEVER
    # a loss at a small size before wins at larger ones: the last win counts
    lat2 = {"eager": {64: 30, 256: 5, 4032: 6}, "segmented": {64: 20, 256: 20, 4032: 20},
            "cma": {64: 25, 256: 25, 4032: 25}}
    assert crossovers(lat2)[0] == 4032
    # eager never wins: 0; eager everywhere: its largest size
    assert crossovers({"eager": {64: 30}, "segmented": {64: 20}, "cma": {64: 40}})[0] == 0
    assert crossovers({"eager": {64: 1, 4032: 2}, "segmented": {64: 20, 4032: 20},
                       "cma": {}})[0] == 4032


def _r(bench: str, config: str, spec: str, median: float) -> Dict[str, Any]:
    return {"bench": bench, "config": config, "spec": spec, "median": median,
            "samples": [median]}


def test_tables_set_each_scheme_against_rr():
    recs: List[Dict[str, Any]] = []
    for cfg, scale in (("rr", 1.0), ("static:50", 0.5)):
        for peer in ("shm", "net"):
            for size in (4, 2048):
                recs.append(_r("latency", cfg, f"latency:peer={peer},size={size}", 1000 * scale))
        recs.append(_r("discovery", cfg, "discovery:burst=200,rounds=4", 2000 * scale))
    recs.append(_r("channels", "cma", "latency:peer=shm,size=65536", 10000))
    recs.append(_r("channels", "cma", "bandwidth:peer=shm,size=65536,window=16", 65536))
    recs.append(_r("channels", "cma", "overlap:peer=shm,size=4,compute_us=100", 0.5))
    tabs = polling.tables(recs)
    head, rows = tabs["1 latency"]
    assert rows[1][0] == "static:50" and rows[1][1] == "0.50 us" and rows[1][6] == "-50%"
    assert rows[1][5] == "-" and rows[1][-1] == "-"   # no idle measurement given
    assert tabs["2 discovery"][1][1][-1] == "-50%"
    assert tabs["3 channels"][1][0][1:] == ["10.00 us", "1000"]   # 65536 B per 65.5 us
    assert tabs["4 overlap"][1][0] == ["4", "100 us", "0.500"]
    text = polling.markdown(tabs)
    assert "### 1 latency" in text and "| static:50 |" in text


def test_plans_are_short_and_complete():
    quick = polling.make_plan(True, None)
    full = polling.make_plan(False, None)
    assert {c.bench for c in quick.configs} == {"latency", "discovery", "channels"}
    names = [c.name for c in full.configs if c.bench == "latency"]
    assert names == ["rr", "static:1", "static:10", "static:50", "static:100", "static:1000",
                     "dynamic:8"]
    assert [c.name for c in full.configs if c.bench == "discovery"][-1] == "dynamic:64"
    eager = [c for c in full.configs if c.name == "eager"][0]
    assert all("size=65536" not in s for s in eager.specs)   # eager carries one cell at most
    assert quick.passes == 1 and full.passes == 2
    assert [c.name for c in tune_plan(True, None).configs] == ["eager", "segmented", "cma"]


def test_argument_errors():
    r = run_cli("bench", "--suite", "polling", "--engines", "list")
    assert r.returncode != 0 and "--suite polling takes" in r.stderr
    r = run_cli("bench", "--suite", "polling", "--reps", "0", "--out", "/tmp/none-polling")
    assert r.returncode != 0 and "--reps must be >= 1" in r.stderr
    r = run_cli("tune", "--passes", "0")
    assert r.returncode != 0 and "--passes must be >= 1" in r.stderr
    r = run_cli("tune", "--out", "/nonexistent/dir/t.conf")
    assert r.returncode != 0 and "/nonexistent/dir" in r.stderr


def test_pollbench_modes_and_static_counters(tmp_path: Path):
    stats = tmp_path / "stats"
    stats.mkdir()
    stack = mpistack.provider_stack(name="polling", stats=stats, env_extra=polling.BASE_ENV + (
        ("FI_MPIMATCH_POLL", "static"), ("FI_MPIMATCH_POLL_RATIO", "20")))
    specs = ["latency:peer=shm,size=4,iters=200,reps=1", "latency:peer=net,size=2048,iters=50,reps=1",
             "bandwidth:peer=shm,size=65536,window=4,reps=1", "discovery:burst=20,rounds=2,reps=1",
             "overlap:peer=net,size=4,compute_us=300,reps=2", "idle:iters=1000,reps=1"]
    o = mpistack.run(stack, 3, [str(tools.find_tool(polling.PROGRAM)), *specs], 120)
    assert o.returncode == 0, o.stderr[-2000:]
    lines = polling.parse_lines(o.stdout)
    assert [line["mode"] for line in lines] == ["latency", "latency", "bandwidth", "discovery",
                                                "overlap", "idle"]
    assert all(x > 0 for i in (0, 1, 2, 3, 5) for x in lines[i]["samples_ns"])
    assert all(0 < x <= 1 for x in lines[4]["samples"])
    files = sorted(stats.glob("mpimatch-fi-*.json"))
    assert len(files) == 3
    by_rank = {d["rank"]: d for d in (json.loads(f.read_text()) for f in files)}
    p = by_rank[0]["polling"]
    assert p["scheme"] == "static" and p["ratio"] == 20
    # rank 0 talks to both: messages found on each channel, each with a discovery time
    assert p["shm"]["found"] > 200 and p["net"]["found"] > 50
    assert p["shm"]["discovered"] == p["shm"]["found"]
    assert p["net"]["polls"] <= p["shm"]["polls"] // 20 + 1
    # rank 1, as if on another host, receives everything over the network
    assert by_rank[1]["polling"]["shm"]["found"] == 0 and by_rank[1]["polling"]["net"]["found"] > 0


def test_tune_writes_a_file_the_provider_takes(tmp_path: Path):
    conf = tmp_path / "t.conf"
    r = run_cli("tune", "--quick", "--quiet", "--out", str(conf))
    assert r.returncode == 0, r.stderr
    text = conf.read_text()
    values = dict(line.split(" = ") for line in text.splitlines() if " = " in line
                  and not line.startswith("#"))
    assert set(values) == {"shm_eager", "cma_min"}
    assert 0 <= int(values["shm_eager"]) <= 4032
    stats = tmp_path / "stats"
    stats.mkdir()
    stack = mpistack.provider_stack(name="tuned", stats=stats, env_extra=polling.BASE_ENV + (
        ("FI_MPIMATCH_TUNING", str(conf)),))
    o = mpistack.run(stack, 3, [str(tools.find_tool(polling.PROGRAM)),
                                "latency:peer=shm,size=8192,iters=20,reps=1"], 60)
    assert o.returncode == 0, o.stderr[-2000:]
    d = json.loads(sorted(stats.glob("mpimatch-fi-*.json"))[0].read_text())
    assert d["polling"]["tuning"] == str(conf)
    assert d["polling"]["shm_eager"] == int(values["shm_eager"])
    assert d["polling"]["cma_min"] == int(values["cma_min"])


def test_bench_programs_help():
    """--help answers without mpirun (it was the 'run it on N ranks' abort, exit 1)
    and names every mode the program dispatches."""
    from mpimatch.bench import mpi as bench_mpi
    for program, modes in ((bench_mpi.PROGRAM, ("match", "pingpong", "bandwidth", "unexpected")),
                           (polling.PROGRAM, ("latency", "bandwidth", "discovery", "idle",
                                              "overlap"))):
        exe = tools.find_tool(program)
        for flag in ("--help", "-h"):
            p = subprocess.run([str(exe), flag], capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, (program, p.stderr)
            assert p.stdout.startswith("usage: mpirun -np "), program
            for m in modes:
                assert f"  {m}:" in p.stdout, (program, m)
