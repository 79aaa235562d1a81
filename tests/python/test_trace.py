"""The tracer end to end: `mpimatch trace` runs tests/mpi/ring_probe.c (4 ranks) under
libmpimatch-trace.so, and every rank's trace must hold exactly the records that program
makes (EXPECTED below follows its phases), with communicator ids that agree across ranks,
resolved wildcard sources and tags, and MPI_T queue samples under Open MPI. Then the
reader's handling of bad input on a real trace: truncated, corrupted, foreign.

Open MPI and MPICH are both required when CI=true or MPIMATCH_REQUIRE_TOOLS=1 (scripts/setup.sh
--dev installs them); elsewhere a missing one is a skip that names it."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import _find, _tools_required, run, run_cli
from mpimatch.trace import LIB_NAME, tracer_candidates

LAUNCH = {
    "openmpi": ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "4"],
    "mpich": ["mpirun.mpich", "-np", "4"],
}


def build_paths(mpi: str, prog: str = "mm_ring_probe"):
    """(tracer library, test program) for `mpi`, or None when not built."""
    for lib in tracer_candidates(mpi):
        exe = lib.parent.parent.parent / "bin" / mpi / prog
        if lib.is_file() and exe.is_file():
            return lib, exe
    return None


def trace_program(mpi: str, prog: str, tmp_path_factory) -> Dict:
    """Trace the project's MPI test program `prog` (4 ranks) under `mpi`; the dump of
    each rank. Skips when that MPI or build is missing (fails where tools are required)."""
    found = build_paths(mpi, prog)
    launcher = shutil.which(LAUNCH[mpi][0])
    if found is None or launcher is None:
        why = (f"{mpi}: the tracer or {prog} is not built ({LIB_NAME})" if found is None
               else f"{mpi}: {LAUNCH[mpi][0]} not found")
        if _tools_required():
            pytest.fail(f"{mpi} tracing is required here (scripts/setup.sh --dev installs it): {why}")
        pytest.skip(why)
    dump = _find("mpimatch-trace-dump")
    out = tmp_path_factory.mktemp(f"trace-{prog}-{mpi}")
    proc = run_cli("trace", "--out", str(out / "t"), "--", *LAUNCH[mpi], str(found[1]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{prog[3:]}: ok" in proc.stdout
    assert "traced 4 rank(s)" in proc.stdout
    ranks = []
    for r in range(4):
        f = out / "t" / f"rank-{r:06d}.mmt"
        d = run([dump, f])
        assert d.returncode == 0 and d.stderr == "", d.stderr
        ranks.append(d.stdout.splitlines())
    return {"mpi": mpi, "dir": out / "t", "ranks": ranks, "dump": dump}


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def traced(request, tmp_path_factory) -> Dict:
    """Trace ring_probe once per MPI; the dump of each rank."""
    return trace_program(request.param, "mm_ring_probe", tmp_path_factory)


def body(line: str) -> str:
    """A dump line without its time and duration: 'TYPE key=value ...'."""
    t = line.split()
    return " ".join([t[1]] + t[3:])


def observed(lines: List[str]) -> List[str]:
    """The deterministic records: no header, clock or MPI_T records, no probe that found
    nothing (their number depends on timing), no END."""
    out = []
    for line in lines:
        if line.startswith("#"):
            continue
        b = body(line)
        if b.split()[0] in ("SYNC", "PVAR", "END") or " found=0" in b:
            continue
        out.append(b)
    return out


def canon(lines: List[str]) -> List[str]:
    """Rank 0's three wildcard receives may complete in any order: sort that run."""
    out, run_ = [], []
    for b in lines + [""]:
        if b.startswith("RECV comm=0.0 src=any tag=any "):
            run_.append(b)
            continue
        out += sorted(run_)
        run_ = []
        if b:
            out.append(b)
    return out


def expected(r: int) -> List[str]:
    """What ring_probe.c's rank r does, as mpimatch-trace-dump prints it."""
    left, right = (r + 3) % 4, (r + 1) % 4
    barrier = "COLL comm=0.0 op=barrier bytes=0 recv_bytes=0"
    e = [f"COMM comm=0.0 how=world parent=none rank={r} size=4 group=0,1,2,3 identity",
         f"COMM comm={r}.1 how=self parent=none rank=0 size=1 group={r}",
         # 1 ring
         f"IRECV comm=0.0 src={left} srcw={left} tag=10 bytes=32 req=1",
         f"ISEND comm=0.0 dest={right} destw={right} tag=10 bytes=32 mode=standard req=2",
         f"COMPLETE comm=0.0 of=IRECV got_bytes=32 got_src={left} got_srcw={left} got_tag=10 req=1",
         "COMPLETE comm=0.0 of=ISEND req=2", barrier]
    # 2 wildcards
    if r == 0:
        e += [f"RECV comm=0.0 src=any tag=any bytes=16 got_bytes={4 * s} got_src={s} "
              f"got_srcw={s} got_tag={100 + s}" for s in (1, 2, 3)]
    else:
        e.append(f"SEND comm=0.0 dest=0 destw=0 tag={100 + r} bytes={4 * r} mode=standard")
    e.append(barrier)
    # 3 probes
    nreq = 2
    if r in (1, 3):
        e.append(f"SEND comm=0.0 dest=2 destw=2 tag={20 if r == 1 else 21} bytes=4 mode=standard")
    if r == 2:
        e += ["PROBE comm=0.0 src=any tag=20 got_bytes=4 got_src=1 got_srcw=1 got_tag=20",
              "RECV comm=0.0 src=1 srcw=1 tag=20 bytes=4 got_bytes=4 got_src=1 got_srcw=1 got_tag=20",
              "IPROBE comm=0.0 src=3 srcw=3 tag=21 found=1 got_bytes=4 got_src=3 got_srcw=3 got_tag=21",
              "IRECV comm=0.0 src=any tag=21 bytes=4 req=3",
              "COMPLETE comm=0.0 of=IRECV got_bytes=4 got_src=3 got_srcw=3 got_tag=21 req=3"]
        nreq = 3
    e.append(barrier)
    # 4 matched probes
    if r in (0, 1):
        e.append(f"SEND comm=0.0 dest=3 destw=3 tag={30 + r} bytes=4 mode=standard")
    if r == 3:
        e += ["MPROBE comm=0.0 src=any tag=30 got_bytes=4 got_src=0 got_srcw=0 got_tag=30 msg=3",
              "MRECV comm=0.0 msg=3 got_bytes=4 got_src=0 got_srcw=0 got_tag=30",
              "IMPROBE comm=0.0 src=any tag=any found=1 got_bytes=4 got_src=1 got_srcw=1 got_tag=31 msg=4",
              "IMRECV comm=0.0 msg=4 req=5",
              "COMPLETE comm=0.0 of=IMRECV got_bytes=4 got_src=1 got_srcw=1 got_tag=31 req=5"]
        nreq = 5
    e.append(barrier)
    # 5 cancel
    k = nreq + 1
    e += [f"IRECV comm=0.0 src=any tag=999 bytes=4 req={k}", f"CANCEL req={k}",
          f"COMPLETE comm=0.0 of=IRECV cancelled req={k}", barrier]
    # 6 sendrecv
    e += [f"SEND comm=0.0 dest={right} destw={right} tag=40 bytes=4 mode=standard sendrecv",
          f"RECV comm=0.0 src=any tag=40 bytes=4 got_bytes=4 got_src={left} got_srcw={left} "
          f"got_tag=40 sendrecv",
          f"SEND comm=0.0 dest={left} destw={left} tag=41 bytes=4 mode=standard sendrecv replace",
          f"RECV comm=0.0 src={right} srcw={right} tag=41 bytes=4 got_bytes=4 got_src={right} "
          f"got_srcw={right} got_tag=41 sendrecv replace", barrier]
    # 7 communicators: the halves are {0,2} (id 0.2) and {1,3} (id 1.2)
    half, hr = f"{r % 2}.2", r // 2
    e.append(f"COMM comm={half} how=split parent=0.0 rank={hr} size=2 color={r % 2} "
             f"group={r % 2},{r % 2 + 2}")
    if hr == 0:
        e += [f"ISEND comm={half} dest=1 destw={r + 2} tag=50 bytes=12 mode=standard req={k + 1}",
              f"COMPLETE comm={half} of=ISEND req={k + 1}"]
    else:
        e += [f"IRECV comm={half} src=any tag=any bytes=12 req={k + 1}",
              f"COMPLETE comm={half} of=IRECV got_bytes=12 got_src=0 got_srcw={r - 2} got_tag=50 "
              f"req={k + 1}"]
    e += [f"COLL comm={half} op=barrier bytes=0 recv_bytes=0",
          f"COMM comm=0.3 how=dup parent=0.0 rank={r} size=4 group=0,1,2,3 identity",
          "COLL comm=0.3 op=allreduce bytes=4 recv_bytes=4 elem=4 commutative=1",
          "COMMFREE comm=0.3", f"COMMFREE comm={half}"]
    # 8 collectives, then the program's own check (an allreduce)
    e += [f"COLL comm=0.0 op=bcast root=0 rootw=0 bytes={64 if r == 0 else 0} "
          f"recv_bytes={0 if r == 0 else 64} elem=4",
          "COLL comm=0.0 op=allreduce bytes=8 recv_bytes=8 elem=8 commutative=1",
          f"COLL comm=0.0 op=gather root=2 rootw=2 bytes=8 recv_bytes={32 if r == 2 else 0} elem=4",
          f"ICOLL comm=0.0 op=allgather bytes=4 recv_bytes=16 elem=4 req={k + 2}",
          f"COMPLETE comm=0.0 of=ICOLL req={k + 2}",
          # a user-defined noncommutative op on 3 MPI_SHORTs
          f"COLL comm=0.0 op=reduce root=1 rootw=1 bytes=6 recv_bytes={6 if r == 1 else 0} "
          "elem=2 commutative=0",
          "COLL comm=0.0 op=allreduce bytes=4 recv_bytes=4 elem=4 commutative=1"]
    return e


@pytest.mark.parametrize("rank", range(4))
def test_records_exactly(traced, rank):
    got = canon(observed(traced["ranks"][rank]))
    want = canon(expected(rank))
    assert got == want, "\n".join(f"{'=' if a == b else '!'} got  {a}\n  want {b}"
                                  for a, b in zip(got + [""] * len(want), want + [""] * len(got)))


def test_header_clock_and_end(traced):
    mpi = traced["mpi"]
    for rank, lines in enumerate(traced["ranks"]):
        assert re.match(rf"# trace .*: rank {rank} of 4, mpi {mpi} ", lines[0]), lines[0]
        types = [line.split()[1] for line in lines if not line.startswith("#")]
        assert types.count("SYNC") == 2
        assert types[-1] == "END"
        size = (traced["dir"] / f"rank-{rank:06d}.mmt").stat().st_size
        assert lines[-1].split()[-1] == f"records={(size - 256) // 80 - 1}"
        # MPI_T: Open MPI's ob1 exposes the queue lengths, sampled at least at
        # MPI_Init and MPI_Finalize; MPICH has no such variables.
        pvars = [line for line in lines if not line.startswith("#") and line.split()[1] == "PVAR"]
        if mpi == "openmpi":
            assert "pvars yes" in lines[0]
            assert len(pvars) >= 4
            assert {re.search(r"pvar=(\w+)", p).group(1) for p in pvars} == {"unexpected", "posted"}
            assert all("elements=4" in p for p in pvars)
        else:
            assert "pvars no" in lines[0] and not pvars


def test_index(traced):
    index = json.loads((traced["dir"] / "index.json").read_text())
    assert index["ranks"] == 4 and index["mpi"] == traced["mpi"]
    assert index["files"] == [f"rank-{r:06d}.mmt" for r in range(4)]
    assert index["pvars"] == (traced["mpi"] == "openmpi")


def test_bad_input(traced, tmp_path):
    """A real trace, damaged three ways."""
    dump = traced["dump"]
    src = (traced["dir"] / "rank-000001.mmt").read_bytes()
    whole = (len(src) - 256) // 80
    assert whole * 80 + 256 == len(src)

    cut = tmp_path / "cut.mmt"
    cut.write_bytes(src[:256 + 10 * 80 + 33])
    d = run([dump, cut])
    assert d.returncode == 0, d.stderr
    assert f"{cut}: offset {256 + 800}: partial record (33 of 80 bytes)" in d.stderr
    assert "warning" in d.stderr
    records = [x for x in d.stdout.splitlines() if not x.startswith("#")]
    # the first 10 records, GROUP records folded into their COMM (self has one)
    assert len(records) == 9

    bad = tmp_path / "magic.mmt"
    bad.write_bytes(b"X" + src[1:])
    d = run([dump, bad])
    assert d.returncode == 2 and d.stdout == ""
    assert f"{bad}: offset 0: not an mpimatch trace" in d.stderr

    rec = tmp_path / "record.mmt"
    off = 256 + 5 * 80
    rec.write_bytes(src[:off] + b"\x63" + src[off + 1:])
    d = run([dump, rec])
    assert d.returncode == 2
    assert f"{rec}: offset {off}: record 6: unknown record type 99" in d.stderr

    foreign = tmp_path / "foreign.mmt"
    foreign.write_bytes(Path(os.__file__).read_bytes()[:4096])
    d = run([dump, foreign])
    assert d.returncode == 2 and "not an mpimatch trace" in d.stderr


def test_trace_cli_errors(tmp_path):
    """Usage errors of `mpimatch trace` name what to do."""
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "rank-000000.mmt").write_bytes(b"")
    if build_paths("openmpi") and shutil.which("mpirun.openmpi"):
        p = run_cli("trace", "--out", str(tmp_path / "old"), "--mpi", "openmpi", "--", "true")
        assert p.returncode == 2 and "already holds a trace" in p.stderr
    p = run_cli("trace", "--out", str(tmp_path / "x"), "--", "true")
    assert p.returncode == 2
    assert "cannot tell which MPI" in p.stderr and "LD_PRELOAD" in p.stderr
    p = run_cli("trace", "--out", str(tmp_path / "x"), "--", "no-such-launcher-here")
    assert p.returncode == 2 and "not found" in p.stderr
    p = run_cli("trace", "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and "no command to trace" in p.stderr
