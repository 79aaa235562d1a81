"""A small SST DUMPI trace writer for tests (docs/dumpi.md).

Written from the format's description (sst-dumpi docs/traceformat.dox and
the argument layouts listed in tools/dumpi/dumpi_calls.c), not from
sst-dumpi code. Everything is big-endian. It writes what libdumpi writes at
MPI_Finalize: magic, call stream (time biases, records, end label),
header, footer, key/values, counter labels, datatype sizes, function
addresses, and the index.

    run = Run(prefix="dumpi-2024.01.01.00.00.00", nranks=2)
    run.rank(0).call("MPI_Send", [i32(2), i16(INT), i32(1), i32(5), i16(WORLD)])
    run.write(directory)

Regenerate the committed fixtures with
    python3 tests/dumpi/dumpi_writer.py tests/dumpi/data
Write the two-host run with skewed clocks (two_host_program, docs/convert.md) with
    python3 tests/dumpi/dumpi_writer.py --two-hosts DIR
and an N-rank 3-D halo exchange on hosts of 32 ranks (stencil_program) with
    python3 tests/dumpi/dumpi_writer.py --stencil N DIR
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

MAGIC = bytes([0xFF, 0xAA, 0xDD]) + b"DUMPI"
FOOT_MAGIC = 0xF007FEE7
ALL_FUNCTIONS = 290
END_OF_STREAM = 293

LABELS = {
    "MPI_Send": 0, "MPI_Recv": 1, "MPI_Isend": 8, "MPI_Irecv": 12, "MPI_Wait": 13,
    "MPI_Test": 14, "MPI_Waitall": 18, "MPI_Iprobe": 22, "MPI_Probe": 23, "MPI_Cancel": 24,
    "MPI_Bcast": 53, "MPI_Comm_rank": 82, "MPI_Comm_split": 86, "MPI_Comm_free": 87,
    "MPI_Init": 124, "MPI_Finalize": 125, "MPI_Barrier": 52, "MPI_Allreduce": 65,
}

# DUMPI's predefined handles and datatypes.
COMM_NULL, WORLD, SELF = 1, 2, 3
CHAR, INT, DOUBLE = 2, 9, 14
SUM = 3
ANY_SOURCE = ANY_TAG = -1
TYPE_SIZES = {CHAR: 1, INT: 4, DOUBLE: 8}

MASK_STATUS, MASK_WALL, MASK_THREAD = 0x03, 0x08, 0x40


def i8(v: int) -> bytes:
    return struct.pack(">b", v)


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def u64(v: int) -> bytes:
    return struct.pack(">Q", v)


def arr32(values: Sequence[int]) -> bytes:
    return i32(len(values)) + b"".join(i32(v) for v in values)


def string32(s: bytes) -> bytes:
    return i32(len(s)) + s


def str16(s: str) -> bytes:
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def status(bytes_: int, source: int, tag: int, cancelled: int = 0, error: int = 0) -> Tuple:
    return (bytes_, source, tag, cancelled, error)


def statuses(items: Sequence[Tuple]) -> bytes:
    """A 't' token (written only when the record's mask has a status bit)."""
    out = i32(len(items))
    for b, s, t, c, e in items:
        out += i32(b) + i32(s) + bytes([c, e]) + i32(t)
    return out


class RankFile:
    def __init__(self, wall_bias: int = 1000) -> None:
        self.records: List[bytes] = []
        self.wall_bias = wall_bias
        self.t = 0  # ns since the bias
        # the footer: label -> (calls made, calls not recorded); all 0 unless set
        self.footer: Dict[int, Tuple[int, int]] = {}

    def call(self, name: str, args: Sequence[bytes], dur: int = 1000,
             mask: int = MASK_STATUS | MASK_WALL | MASK_THREAD, gap: int = 1000) -> "RankFile":
        t0 = self.t + gap
        t1 = t0 + dur
        self.t = t1
        rec = struct.pack(">HB", LABELS[name], mask)
        if mask & MASK_THREAD:
            rec += struct.pack(">H", 0)
        if mask & MASK_WALL:
            for t in (t0, t1):
                rec += struct.pack(">HI", t // 10**9, t % 10**9)
        rec += b"".join(args)
        self.records.append(rec)
        return self

    def stream(self) -> bytes:
        return struct.pack(">II", 0, self.wall_bias) + b"".join(self.records)


class Run:
    def __init__(self, prefix: str, nranks: int, version: Tuple[int, int, int] = (8, 1, 0),
                 starttime: int = 1700000000, hosts: Optional[Sequence[str]] = None) -> None:
        self.prefix = prefix
        self.hosts = list(hosts) if hosts else ["node%d" % r for r in range(nranks)]
        self.nranks = nranks
        self.version = version
        self.starttime = starttime
        self.ranks: Dict[int, RankFile] = {r: RankFile() for r in range(nranks)}

    def rank(self, r: int) -> RankFile:
        return self.ranks[r]

    def file_bytes(self, r: int) -> bytes:
        out = bytearray(MAGIC)
        body = len(out)
        out += self.ranks[r].stream()
        out += struct.pack(">H", END_OF_STREAM)
        header = len(out)
        out += bytes(self.version) + u64(self.starttime) + str16(self.hosts[r]) + str16("tester")
        out += i32(0) + i32(0)  # mesh coordinates and sizes: no mesh
        footer = len(out)
        foot = self.ranks[r].footer
        out += u64(FOOT_MAGIC)
        out += b"".join(i32(foot.get(i, (0, 0))[0]) for i in range(ALL_FUNCTIONS + 1))
        out += b"".join(i32(foot.get(i, (0, 0))[1]) for i in range(ALL_FUNCTIONS + 1))
        keyval = len(out)
        out += i32(0)
        perf = len(out)
        out += i32(0)
        sizes = len(out)
        n = max(TYPE_SIZES) + 1
        out += i32(n) + b"".join(i32(TYPE_SIZES.get(i, 0)) for i in range(n))
        addr = len(out)
        out += i32(0)
        out += MAGIC + b"".join(u64(o) for o in (sizes, addr, perf, header, body, footer, keyval))
        return bytes(out)

    def meta(self) -> str:
        v = self.version
        return ("hostname=node0\nnumprocs=%d\nusername=tester\nstartime=%d\nfileprefix=%s\n"
                "version=%d\nsubversion=%d\nsubsubversion=%d\n"
                % (self.nranks, self.starttime, self.prefix, v[0], v[1], v[2]))

    def write(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / (self.prefix + ".meta")).write_text(self.meta())
        for r in range(self.nranks):
            (directory / ("%s-%04d.bin" % (self.prefix, r))).write_bytes(self.file_bytes(r))


def p2p_program() -> Run:
    """The fixture program, 3 ranks (docs/dumpi.md, tests/python/test_import_dumpi.py):
    rank 0 sends 2 ints (tag 5) then 1 int (tag 6) to rank 1; rank 2 sends 1 int (tag 9)
    to rank 1. Rank 1 posts a wildcard MPI_Irecv (any source, tag 6), receives tag 5 from
    0, probes, receives anything (rank 2's tag 9), then waits for the Irecv (matched by
    rank 0's tag 6). Then rank 0 broadcasts 4 ints; the ranks split the world by colour
    rank % 2 with key -rank (so {2, 0} in that order, and {1}); rank 0 sends 1 double to
    rank 0 of the new communicator (world rank 2) with MPI_Isend + MPI_Waitall.
    """
    run = Run("dumpi-2024.01.02.03.04.05", 3)
    init = [i32(0)]  # argc 0
    for r in range(3):
        run.rank(r).call("MPI_Init", init)
        run.rank(r).call("MPI_Comm_rank", [i16(WORLD), i32(r)])
    r0, r1, r2 = run.rank(0), run.rank(1), run.rank(2)
    r0.call("MPI_Send", [i32(2), i16(INT), i32(1), i32(5), i16(WORLD)])
    r0.call("MPI_Send", [i32(1), i16(INT), i32(1), i32(6), i16(WORLD)])
    r2.call("MPI_Send", [i32(1), i16(INT), i32(1), i32(9), i16(WORLD)])
    r1.call("MPI_Irecv", [i32(1), i16(INT), i32(ANY_SOURCE), i32(6), i16(WORLD), i32(7)])
    r1.call("MPI_Recv", [i32(2), i16(INT), i32(0), i32(5), i16(WORLD),
                         statuses([status(8, 0, 5)])])
    r1.call("MPI_Iprobe", [i32(ANY_SOURCE), i32(ANY_TAG), i16(WORLD), i32(1),
                           statuses([status(4, 2, 9)])])
    r1.call("MPI_Recv", [i32(1), i16(INT), i32(ANY_SOURCE), i32(ANY_TAG), i16(WORLD),
                         statuses([status(4, 2, 9)])])
    r1.call("MPI_Wait", [i32(7), statuses([status(4, 0, 6)])])
    for r in range(3):
        run.rank(r).call("MPI_Bcast", [i32(4), i16(INT), i32(0), i16(WORLD)])
        run.rank(r).call("MPI_Comm_split", [i16(WORLD), i32(r % 2), i32(-r), i16(4)])
    r0.call("MPI_Isend", [i32(1), i16(DOUBLE), i32(0), i32(3), i16(4), i32(9)])
    r0.call("MPI_Waitall", [i32(1), arr32([9]), statuses([status(0, 0, 0)])])
    r2.call("MPI_Recv", [i32(1), i16(DOUBLE), i32(1), i32(3), i16(4),
                         statuses([status(8, 1, 3)])])
    for r in range(3):
        run.rank(r).call("MPI_Comm_free", [i16(4)])
        run.rank(r).call("MPI_Finalize", [])
    return run


# two_host_program(): host n1's clock is ahead of n0's by TWO_HOST_OFF ns, and n1 enters
# MPI_Init TWO_HOST_LATE ns later (true time).
TWO_HOST_OFF = 130_000_000 + 4321
TWO_HOST_LATE = 5_000_000


def _at(rf: RankFile, start: int, name: str, args: Sequence[bytes], dur: int) -> None:
    """A call of rank file rf entered at `start` (its own clock, ns) lasting dur."""
    assert start >= rf.t, (start, rf.t)
    rf.t = start
    rf.call(name, args, dur=dur, gap=0)


def two_host_program() -> Tuple[Run, int, int]:
    """4 ranks on hosts n0 (ranks 0, 1) and n1 (ranks 2, 3) with skewed clocks
    (docs/convert.md, "Clocks"): 12 ping-pongs between the hosts with one-way times
    of 1.5-2.4 us (n0 to n1) and 1.8-2.5 us (n1 to n0). Returns the run and the least
    one-way times each way: causality pins n1's offset to [TWO_HOST_OFF - the second,
    TWO_HOST_OFF + the first]."""
    run = Run("dumpi-2024.05.06.07.08.09", 4, hosts=["n0", "n0", "n1", "n1"])
    clock = [0, 0, TWO_HOST_OFF, TWO_HOST_OFF]
    for r in range(4):
        _at(run.rank(r), 1_000_000 + (TWO_HOST_LATE if r >= 2 else 0) + clock[r], "MPI_Init",
            [i32(0)], 2000)

    def send(dst: int, tag: int) -> List[bytes]:
        return [i32(1), i16(INT), i32(dst), i32(tag), i16(WORLD)]

    def recv(src: int, tag: int) -> List[bytes]:
        return [i32(1), i16(INT), i32(src), i32(tag), i16(WORLD), statuses([status(4, src, tag)])]

    min_ab = min_ba = 1 << 62
    for k in range(12):
        t = 20_000_000 + k * 200_000
        lab, lba = 1500 + (k * 37) % 900, 1800 + (k * 53) % 700
        a, b = k % 2, 2 + (k // 2) % 2
        min_ab, min_ba = min(min_ab, lab), min(min_ba, lba)
        _at(run.rank(a), t + clock[a], "MPI_Send", send(b, k), 400)
        _at(run.rank(b), t + clock[b] + lab - 300, "MPI_Recv", recv(a, k), 300)  # ends at t + lab
        t2 = t + lab + 500
        _at(run.rank(b), t2 + clock[b], "MPI_Send", send(a, k), 400)
        _at(run.rank(a), t2 + clock[a] + lba - 300, "MPI_Recv", recv(b, k), 300)
    for r in range(4):
        rf = run.rank(r)
        _at(rf, rf.t + 1000, "MPI_Finalize", [], 1000)
    return run, min_ab, min_ba


def stencil_program(nranks: int, iters: int = 4, per_host: int = 32,
                    skew_ns: int = 7_000_000) -> Run:
    """A 3-D halo exchange, the point-to-point pattern of stencil codes (AMG, LAMMPS,
    LULESH) scaled to nranks (a px x py x pz grid, periodic): every iteration each rank
    posts MPI_Irecv from its 6 neighbours, MPI_Isend to them, and MPI_Waitall. per_host
    ranks share a host; host h's clock is h * skew_ns ahead (for convert's clock
    alignment, docs/convert.md). Used for convert's scaling numbers (docs/convert.md)."""
    dims = [1, 1, 1]
    n, f = nranks, 2
    while n > 1:  # spread the prime factors over the three dimensions
        while n % f:
            f += 1
        dims[dims.index(min(dims))] *= f
        n //= f
    px, py, pz = dims
    hosts = ["h%04d" % (r // per_host) for r in range(nranks)]
    run = Run("dumpi-2024.07.08.09.10.11", nranks, hosts=hosts)

    def coords(r: int) -> Tuple[int, int, int]:
        return r % px, (r // px) % py, r // (px * py)

    def rank_of(x: int, y: int, z: int) -> int:
        return (x % px) + (y % py) * px + (z % pz) * px * py

    for r in range(nranks):
        rf = run.rank(r)
        rf.t = (r // per_host) * skew_ns + (r % 7) * 1000   # MPI_Init entries not synchronised
        rf.call("MPI_Init", [i32(0)], dur=20_000)
        x, y, z = coords(r)
        nbrs = [rank_of(x + dx, y + dy, z + dz) for dx, dy, dz in
                ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]
        for it in range(iters):
            rf.t = max(rf.t, (r // per_host) * skew_ns + 100_000 + it * 200_000)
            reqs = []
            for k, nb in enumerate(nbrs):   # from the neighbour in direction k: tag k ^ 1
                req = 100 + 2 * k
                rf.call("MPI_Irecv", [i32(8), i16(DOUBLE), i32(nb), i32(k ^ 1), i16(WORLD),
                                      i32(req)], dur=300, gap=100)
                reqs.append((req, status(64, nb, k ^ 1)))
            for k, nb in enumerate(nbrs):
                req = 101 + 2 * k
                rf.call("MPI_Isend", [i32(8), i16(DOUBLE), i32(nb), i32(k), i16(WORLD),
                                      i32(req)], dur=400, gap=100)
                reqs.append((req, status(0, 0, 0)))
            rf.call("MPI_Waitall", [i32(len(reqs)), arr32([q for q, _ in reqs]),
                                    statuses([st for _, st in reqs])], dur=40_000, gap=100)
        rf.call("MPI_Finalize", [], dur=1000)
    return run


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--stencil":
        stencil_program(int(sys.argv[2])).write(Path(sys.argv[3]))
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "--two-hosts":
        two_host_program()[0].write(Path(sys.argv[2]))
        sys.exit(0)
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("tests/dumpi/data")
    p2p_program().write(out / "p2p")
