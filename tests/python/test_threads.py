"""`mpimatch threads`: the Python front end passes through to mpimatch-threads
(Schonbein et al.'s stencil benchmark with real threads) and propagates its exit status."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import REPO, run_cli
from mpimatch import mpistack


def test_threads_passes_through(tmp_path):
    out = tmp_path / "t.json"
    p = run_cli("threads", "--case", "stencil3d:lx=2,ly=2,lz=2,points=27pt", "--phases", "2",
                "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "M_t" in p.stdout
    d = json.loads(out.read_text())
    (case,) = d["cases"]
    assert d["tool"] == "mpimatch-threads" and d["engine"] == "list"
    assert case["msgs"] == 152 and case["recv_threads"] == 8 and case["send_threads"] == 56
    assert case["threads"]["depth"] >= 1 and case["modelled"]["depth"] >= 1


def test_hashed_engines_get_the_lab_seed(tmp_path):
    out = tmp_path / "t.json"
    for extra, want in (([], 1), (["--seed", "7"], 7)):
        p = run_cli("threads", "--case", "stencil3d:lx=2,ly=2,lz=2,points=7pt", "--phases", "1",
                    "--engine", "hash", *extra, "--json", str(out))
        assert p.returncode == 0, p.stderr
        assert json.loads(out.read_text())["seed"] == want
    p = run_cli("threads", "--case", "stencil3d:lx=2,ly=2,lz=2,points=7pt", "--phases", "1",
                "--json", str(out))
    assert p.returncode == 0 and "seed" not in json.loads(out.read_text())   # list: no hash
    p = run_cli("threads", "--seed", "-1")
    assert p.returncode == 2 and "--seed" in p.stderr


def test_threads_help_and_errors():
    p = run_cli("threads", "--help")
    assert p.returncode == 0 and "usage: mpimatch-threads" in p.stdout
    p = run_cli("threads", "--case", "shuffle")
    assert p.returncode == 2 and "is not a stencil workload" in p.stderr


MPI_BENCH = REPO / "build" / "bin" / "openmpi" / "mpimatch-threads-mpi"
CASE = "stencil3d:lx=2,ly=2,lz=2,points=7pt"   # M_t 24, T_r 8, T_s 24


def _mpi_bench_or_skip(stack):
    why = mpistack.unavailable(stack)
    if why or not MPI_BENCH.is_file():
        pytest.skip(why or f"{MPI_BENCH} is not built")


def test_mpi_benchmark_under_ob1():
    """mpimatch-threads-mpi under MPI_THREAD_MULTIPLE on ob1: every message checked."""
    _mpi_bench_or_skip(mpistack.Stack("ob1", "", ()))
    p = subprocess.run([mpistack.MPIRUN, *mpistack.MPIRUN_BASE, "-np", "2", *mpistack.OB1.mca,
                        str(MPI_BENCH), "--case", CASE, "--phases", "2"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert CASE in p.stdout and "M_t     24" in p.stdout and "FAILED" not in p.stdout
    p = subprocess.run([mpistack.MPIRUN, *mpistack.MPIRUN_BASE, "-np", "3", str(MPI_BENCH)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "needs exactly 2 processes" in p.stderr


def test_mpi_benchmark_under_the_provider(tmp_path):
    """The same under the mpimatch provider (engine list): the receiving endpoint's PRQ
    searched once per message of every phase (warm-up included)."""
    _mpi_bench_or_skip(mpistack.Stack("mpimatch", "", ()))
    stats = tmp_path / "stats"
    p = run_cli("run", "--engine", "list", "--stats", str(stats), "--", mpistack.MPIRUN,
                *mpistack.MPIRUN_BASE, "-np", "2", str(MPI_BENCH), "--case", CASE, "--phases", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert CASE in p.stdout and "FAILED" not in p.stdout
    prq = max((json.loads(f.read_text())["results"][0]["stats"]["prq"]
               for f in stats.glob("mpimatch-fi-*.json")), key=lambda s: s["searches"])
    assert prq["searches"] >= 24 * 3 and prq["mean_depth"] >= 1
