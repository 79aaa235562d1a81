"""The collective engines' decisions from a call's annotations (comm_size, call, bytes).

Since 0.3 a queued element keeps only what matching needs: `col+pnp` and `col+ll` read
the communicator size, the call number and the message size of a collective element from
the entry of the call in progress (mm_engine.coll_entry, api.c), no longer from the
element. Their profiles (operation, size class, communicator size; a call's end from its
call number) decide which queues they open, and so the compares, queue counts and
profiling events each side shows. The numbers below are what main e65abe3 (whose
elements kept the three fields) gave on these streams, with the stream's entries and with
entries written fresh before each call: the same calls must give the same decisions.
Behaviour only (no timing); the bytes are left out (elements are 16 bytes smaller).
Each of the three fields matters somewhere below: read as 0, `bytes` changes the gather at
1024 and the allreduce of 64 KiB, `call` every stream, `comm_size` the profiling events of
the two gathers of different sizes (checked with builds that did so, 2026-11-26)."""
import json

import pytest

from conftest import run

KEYS = ("searches", "hits", "traversed", "max_depth", "max_length", "queues", "max_queues")

# workload -> engine -> (PRQ's KEYS, UMQ's KEYS, overhead.events)
MAIN_E65ABE3 = {
    "allreduce:n=64,rank=0,calls=20": {
        "col+pnp": ([120, 100, 116, 1, 1, 4, 4], [120, 20, 21, 1, 1, 3, 3], 6),
        "col+ll": ([120, 100, 116, 1, 1, 3, 3], [120, 20, 21, 1, 1, 3, 3], 6),
    },
    "gather:n=1024,rank=0,calls=4": {
        "col+pnp": ([40, 11, 22, 1, 1, 4, 4], [40, 29, 62, 7, 19, 11, 11], 44),
        "col+ll": ([40, 11, 22, 1, 1, 3, 3], [40, 29, 62, 7, 19, 11, 11], 44),
    },
    "allreduce:n=256,rank=3,calls=10,bytes=65536": {
        "col+pnp": ([160, 144, 160, 1, 1, 4, 4], [160, 16, 19, 2, 2, 3, 3], 34),
        "col+ll": ([160, 144, 160, 1, 1, 3, 3], [160, 16, 19, 2, 2, 3, 3], 34),
    },
    "gather:n=256,rank=0,calls=6,nonblocking=1": {
        "col+pnp": ([1530, 274, 15756, 227, 251, 65, 65], [1530, 1256, 30954, 93, 357, 5, 5], 6),
        "col+ll": ([1530, 274, 15756, 227, 251, 64, 64], [1530, 1256, 30954, 93, 357, 5, 5], 6),
    },
}


def decisions(replay_exe, workload, entries, engines):
    proc = run([replay_exe, "--workload", workload, "--engine", engines, "--reps", "1",
                "--entries", entries, "--json", "-", "--quiet"])
    assert proc.returncode == 0, proc.stderr
    out = {}
    for r in json.loads(proc.stdout)["results"]:
        s = r["stats"]
        out[r["engine"]] = ([s["prq"][k] for k in KEYS], [s["umq"][k] for k in KEYS],
                            s["overhead"]["events"])
    return out


@pytest.mark.parametrize("entries", ["array", "fresh"])
@pytest.mark.parametrize("workload", sorted(MAIN_E65ABE3))
def test_col_decisions_are_main_s(replay_exe, workload, entries):
    assert decisions(replay_exe, workload, entries, "col+pnp,col+ll") == MAIN_E65ABE3[workload]


# Two gathers one after the other, at 64 and at 256 processes, on one communicator with the
# same call numbers: told apart by their communicator size only (each its own profile).
MIXED = ("gather:n=64,rank=0,calls=3", "gather:n=256,rank=0,calls=3")
MIXED_MAIN_E65ABE3 = {
    "col+pnp": ([42, 17, 22, 1, 1, 4, 4], [42, 25, 31, 3, 10, 3, 3], 58),
    "col+ll": ([42, 17, 22, 1, 1, 3, 3], [42, 25, 31, 3, 10, 3, 3], 58),
}


def mixed_stream(gen_exe, tmp_path):
    lines, n = ["# mpimatch stream v1\n", "# np=256\n"], 0
    for i, spec in enumerate(MIXED):
        out = tmp_path / f"part{i}.mms"
        proc = run([gen_exe, spec, "-o", out, "--format", "text"])
        assert proc.returncode == 0, proc.stderr
        events = [ln for ln in out.read_text().splitlines(keepends=True) if not ln.startswith("#")]
        assert events and all(ln[0] in "RM" for ln in events)  # no id is referred to
        for ln in events:
            f = ln.split(" ")
            f[1] = str(int(f[1]) + n)
            lines.append(" ".join(f))
        n += len(events)
    path = tmp_path / "mixed.mms"
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("entries", ["array", "fresh"])
def test_col_decisions_by_communicator_size(replay_exe, gen_exe, tmp_path, entries):
    stream = mixed_stream(gen_exe, tmp_path)
    proc = run([replay_exe, stream, "--engine", "col+pnp,col+ll", "--reps", "1", "--entries",
                entries, "--json", "-", "--quiet"])
    assert proc.returncode == 0, proc.stderr
    got = {}
    for r in json.loads(proc.stdout)["results"]:
        s = r["stats"]
        got[r["engine"]] = ([s["prq"][k] for k in KEYS], [s["umq"][k] for k in KEYS],
                            s["overhead"]["events"])
    assert got == MIXED_MAIN_E65ABE3


def test_the_profiles_decide_something(replay_exe):
    """The numbers above are the profiles' work: the same stream through pnp, which
    files collectives with point-to-point and profiles nothing, compares more on the
    gather root's UMQ and records no profiling event."""
    got = decisions(replay_exe, "gather:n=1024,rank=0,calls=4", "array", "pnp")["pnp"]
    col = MAIN_E65ABE3["gather:n=1024,rank=0,calls=4"]["col+pnp"]
    assert got[1][2] > col[1][2] and got[2] == 0
