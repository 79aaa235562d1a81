"""mpimatch-coll (one collective call's transfers) and the collective oracle
(python/mpimatch/oracle.py): Open MPI's pml monitoring counts per (src, dst) pair
against mpimatch's expansion, for a sample of calls that match today. The whole grid
is scripts/coll_oracle_sweep.py. Open MPI is required when CI=true or
MPIMATCH_REQUIRE_TOOLS=1."""
from __future__ import annotations

import json

import pytest

from conftest import _find, _tools_required, run, run_cli
from mpimatch import oracle


@pytest.fixture(scope="module")
def coll():
    return _find("mpimatch-coll")


def test_coll_transfers_and_pairs_agree(coll):
    t = run([coll, "--op", "allgather", "--n", "6", "--bytes", "24", "--alg", "ring", "--json"])
    p = run([coll, "--op", "allgather", "--n", "6", "--bytes", "24", "--alg", "ring", "--pairs",
             "--json"])
    assert t.returncode == 0 and p.returncode == 0, t.stderr + p.stderr
    xs, ps = json.loads(t.stdout)["transfers"], json.loads(p.stdout)["pairs"]
    assert len(xs) == 30 and all(x["bytes"] == 24 and x["tag"] == -10 for x in xs)
    assert {(x["src"], x["dst"]) for x in xs} == {(r, (r + 1) % 6) for r in range(6)}
    assert ps == [{"src": r, "dst": (r + 1) % 6, "msgs": 5, "bytes": 120} for r in range(6)]


def test_coll_auto_names_rule(coll):
    p = run([coll, "--op", "bcast", "--n", "8", "--bytes", "100"])
    assert p.returncode == 0, p.stderr
    assert "algorithm knomial" in p.stdout
    assert "rule      openmpi: tuned 4.1.4 bcast: n < 16, total < 4096 B: algorithm 7" in p.stdout


@pytest.mark.parametrize("argv,msg", [
    (["--op", "nope", "--n", "4"], "'nope' is not a collective operation"),
    (["--op", "bcast", "--n", "4", "--alg", "ring"], "valid: auto, linear, binomial"),
    (["--op", "bcast"], "--op and --n are required"),
    (["--op", "bcast", "--n", "4", "--root", "4"], "root 4 outside 0..3"),
    (["--op", "allgather", "--n", "3", "--alg", "recursive_doubling"], "power-of-two"),
    (["--op", "bcast", "--n", "4", "--lib", "lam"], "'lam' is not openmpi or mpich"),
    (["--op", "bcast", "--n", "4", "--sub", "x"], "two algorithm names"),
])
def test_coll_bad_input(coll, argv, msg):
    p = run([coll, *argv])
    assert p.returncode == 2 and msg in p.stderr and p.stdout == "", p.stderr


def test_cli_coll_passes_through(coll):
    p = run_cli("coll", "--op", "bcast", "--n", "4", "--bytes", "10", "--alg", "linear",
                "--pairs")
    assert p.returncode == 0, p.stderr
    assert "3 pair(s), 3 message(s)" in p.stdout
    assert run_cli("coll", "--op", "bcast").returncode == 2


def test_parse_prof(tmp_path):
    (tmp_path / "prof.0.prof").write_text(
        "# POINT TO POINT\nE\t0\t1\t4 bytes\t1 msgs sent\t0,1\n"
        "I\t0\t1\t4096 bytes\t2 msgs sent\t0,0\nI\t0\t2\t0 bytes\t1 msgs sent\t1,0\n")
    (tmp_path / "prof.1.prof").write_text("# POINT TO POINT\nI\t1\t0\t8 bytes\t1 msgs sent\n")
    # E lines count too: Open MPI's persistent-request algorithms show as external
    assert oracle.parse_prof(tmp_path) == {(0, 1): (3, 4100), (0, 2): (1, 0), (1, 0): (1, 8)}
    (tmp_path / "prof.1.prof").write_text("I\t1\tx\n")
    with pytest.raises(oracle.OracleError, match=r"prof\.1\.prof:1"):
        oracle.parse_prof(tmp_path)


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    why = oracle.unavailable()
    if why:
        if _tools_required():
            pytest.fail(f"Open MPI is required here: {why}")
        pytest.skip(why)
    return oracle.build(tmp_path_factory.mktemp("oracle"))


def test_oracle_sees_linear_bcast(prog):
    """The oracle itself: a forced basic-linear bcast from root 2 is n-1 messages."""
    got = oracle.observe(oracle.Call("bcast", 4, 100, 1, 2, "linear"), prog)
    assert got == {(2, 0): (1, 100), (2, 1): (1, 100), (2, 3): (1, 100)}


# Calls whose expansion matches Open MPI 4.1.4 today (scripts/coll_oracle_sweep.py
# checks the whole grid; add a line when an algorithm is fixed or added).
SAMPLE = [
    oracle.Call("allreduce", 4, 100, 8, 0, "auto"),
    oracle.Call("allreduce", 5, 1000, 8, 0, "recursive_doubling"),
    oracle.Call("barrier", 8, 0, 1, 0, "recursive_doubling"),
    oracle.Call("reduce", 5, 1000, 8, 4, "linear"),
    oracle.Call("gather", 6, 1000, 8, 0, "linear"),
    oracle.Call("scatter", 5, 1, 8, 3, "linear"),
    oracle.Call("allgather", 5, 1000, 8, 0, "ring"),
    oracle.Call("allgather", 8, 1, 1, 0, "auto"),
    oracle.Call("alltoall", 5, 1000, 8, 0, "pairwise"),
    oracle.Call("scan", 5, 100, 8, 0, "auto"),
    oracle.Call("exscan", 4, 100, 1, 0, "auto"),
    # Open MPI 4.1.4's own choice (tuned's fixed decision, libnbc) on each kind of
    # algorithm: trees, pieces, forwards, persistent requests, libnbc schedules
    oracle.Call("bcast", 8, 4096, 1, 0, "auto"),                 # binary tree
    oracle.Call("bcast", 6, 100, 1, 3, "auto"),                  # knomial
    oracle.Call("reduce", 7, 5000, 8, 2, "auto"),                # binary
    oracle.Call("allreduce", 6, 5000, 8, 0, "auto"),             # rabenseifner
    oracle.Call("alltoall", 5, 8192, 1, 0, "auto"),              # linear_sync ("E")
    oracle.Call("reduce_scatter_block", 5, 1, 8, 0, "auto"),     # recursive doubling
    oracle.Call("reduce_scatter_block", 8, 7, 8, 0, "auto"),     # butterfly
    oracle.Call("barrier", 6, 0, 1, 0, "auto"),                  # linear
    oracle.Call("ibcast", 6, 4096, 1, 2, "auto"),                # libnbc binomial
    oracle.Call("ireduce", 5, 5000, 8, 1, "auto"),               # libnbc redscat
    oracle.Call("iallreduce", 5, 100, 8, 0, "auto"),             # libnbc binomial
    oracle.Call("alltoall", 6, 10, 8, 0, "modified_bruck"),
    oracle.Call("bcast", 7, 1000, 8, 2, "split_binary"),
]


@pytest.mark.parametrize("call", SAMPLE, ids=lambda c: c.label().replace(" ", ","))
def test_oracle_matches(prog, coll, call):
    r = oracle.check(call, prog, coll)
    assert r.status == "match", "\n".join(r.detail)
