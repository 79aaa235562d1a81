"""Persistent requests end to end: `mpimatch trace` runs tests/mpi/persistent.c (4 ranks)
under libmpimatch-trace.so; every rank's trace must hold exactly the records that program
makes (each MPI_Start or Startall of a persistent request is an ISEND or IRECV with a new
request id, completed, cancelled and freed like one; creating, completing an inactive one
and freeing an inactive one record nothing), and `mpimatch convert` must turn each
trace into streams whose persistent wildcard receives resolve to the known senders.

Open MPI and MPICH are both required when CI=true or MPIMATCH_REQUIRE_TOOLS=1 (as in
test_trace.py)."""
from __future__ import annotations

import json
from collections import Counter
from typing import Dict, List

import pytest

from conftest import _find, run, run_cli
from mpimatch import tools
from test_convert import _parse
from test_trace import observed, trace_program

ITERS = 4  # persistent.c's ITERS


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def traced(request, tmp_path_factory) -> Dict:
    """Trace persistent.c once per MPI; the dump of each rank."""
    return trace_program(request.param, "mm_persistent", tmp_path_factory)


def expected(r: int) -> List[str]:
    """What persistent.c's rank r does, as mpimatch-trace-dump prints it."""
    left, right = (r + 3) % 4, (r + 1) % 4
    barrier = "COLL comm=0.0 op=barrier bytes=0 recv_bytes=0"
    e = [f"COMM comm=0.0 how=world parent=none rank={r} size=4 group=0,1,2,3 identity",
         f"COMM comm={r}.1 how=self parent=none rank=0 size=1 group={r}"]
    k = 1
    # 1 halo: one Startall and one Waitall per iteration, a new id per start
    for it in range(ITERS):
        sender = 1 + it % 3
        e += [f"IRECV comm=0.0 src={left} srcw={left} tag=60 bytes=32 req={k}",
              f"ISEND comm=0.0 dest={right} destw={right} tag=60 bytes=32 mode=standard req={k + 1}"]
        done = [f"COMPLETE comm=0.0 of=IRECV got_bytes=32 got_src={left} got_srcw={left} "
                f"got_tag=60 req={k}", f"COMPLETE comm=0.0 of=ISEND req={k + 1}"]
        if r == 0:
            e.append(f"IRECV comm=0.0 src=any tag=61 bytes=16 req={k + 2}")
            done.append(f"COMPLETE comm=0.0 of=IRECV got_bytes={4 * sender} got_src={sender} "
                        f"got_srcw={sender} got_tag=61 req={k + 2}")
        elif r == sender:
            e.append(f"ISEND comm=0.0 dest=0 destw=0 tag=61 bytes={4 * r} mode=sync req={k + 2}")
            done.append(f"COMPLETE comm=0.0 of=ISEND req={k + 2}")
        e += done + [barrier]
        k += len(done)
    # the Wait on the inactive receive and the three frees record nothing
    e.append(barrier)
    # 2 ready and buffered modes
    e += [f"IRECV comm=0.0 src={left} srcw={left} tag=62 bytes=4 req={k}", barrier,
          f"ISEND comm=0.0 dest={right} destw={right} tag=62 bytes=4 mode=ready req={k + 1}",
          f"COMPLETE comm=0.0 of=IRECV got_bytes=4 got_src={left} got_srcw={left} got_tag=62 "
          f"req={k}", f"COMPLETE comm=0.0 of=ISEND req={k + 1}",
          f"ISEND comm=0.0 dest={left} destw={left} tag=63 bytes=4 mode=buffered req={k + 2}",
          f"REQFREE req={k + 2}",
          f"RECV comm=0.0 src={right} srcw={right} tag=63 bytes=4 got_bytes=4 got_src={right} "
          f"got_srcw={right} got_tag=63", barrier]
    k += 3
    # 3 cancel, twice on the same persistent receive
    for i in range(2):
        e += [f"IRECV comm=0.0 src=any tag=999 bytes=4 req={k + i}", f"CANCEL req={k + i}",
              f"COMPLETE comm=0.0 of=IRECV cancelled req={k + i}"]
    e += [barrier, "COLL comm=0.0 op=allreduce bytes=4 recv_bytes=4 elem=4 commutative=1"]
    return e


@pytest.mark.parametrize("rank", range(4))
def test_records_exactly(traced, rank):
    got, want = observed(traced["ranks"][rank]), expected(rank)
    assert got == want, "\n".join(f"{'=' if a == b else '!'} got  {a}\n  want {b}"
                                  for a, b in zip(got + [""] * len(want), want + [""] * len(got)))


@pytest.fixture(scope="module")
def converted(traced, tmp_path_factory):
    """The trace converted to streams (docs/convert.md)."""
    out = tmp_path_factory.mktemp("persistent-streams") / "s"
    proc = run_cli("convert", traced["dir"], "--out", out, "--text")
    assert proc.returncode == 0, proc.stderr
    return out


def test_convert_streams(converted):
    """Receives, messages and cancels per rank; rank 0's persistent wildcard receive
    resolves, start after start, to that iteration's sender; the streams check and
    replay on every engine."""
    index = json.loads((converted / "index.json").read_text())
    assert index["warnings"] == []
    for s in index["streams"]:
        assert s["resolved"]["unmatched"] == 0 and s["resolved"]["differ"] == 0
        assert s["left_queued"] == {"receives": 0, "messages": 0}
    for rank in range(4):
        ev = _parse(converted / f"rank-{rank:06d}.txt")
        kinds = Counter(e[0] for e in ev if "coll" not in e[1])
        # ring x ITERS, wildcard x ITERS on 0, ready, buffered (Recv), two cancelled
        assert kinds["R"] == ITERS + (ITERS if rank == 0 else 0) + 2 + 2, (rank, kinds)
        assert kinds["M"] == ITERS + (ITERS if rank == 0 else 0) + 2, (rank, kinds)
        assert kinds["C"] == 2
    ev0 = _parse(converted / "rank-000000.txt")
    wild = [e for e in ev0 if e[0] == "R" and e[2][3] == "*" and e[2][4] == "61"]
    assert [(int(e[1]["src_resolved"]), int(e[1]["tag_resolved"])) for e in wild] == \
        [(1 + it % 3, 61) for it in range(ITERS)]
    replay = _find(tools.REPLAY)
    for f in sorted(converted.glob("*.mms")):
        proc = run_cli("stream", "check", f, "--check-resolved")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        proc = run([replay, f, "--engine", "all", "--reps", "1"])
        assert proc.returncode == 0, proc.stderr
