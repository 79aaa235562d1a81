"""Causal clock alignment of a DUMPI import (docs/convert.md, "Clocks"): a DUMPI run
on two hosts whose clocks differ by OFF, written with tests/dumpi/dumpi_writer.py,
imported with `mpimatch import dumpi` and converted with `mpimatch convert`. The
second host enters MPI_Init 5 ms after the first, so lining the hosts up on their
first records (what DUMPI offers) is 5 ms off; causality recovers OFF within the
window the messages allow."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Tuple

from conftest import REPO, run_cli

sys.path.insert(0, str(REPO / "tests" / "dumpi"))
import dumpi_writer as dw  # noqa: E402

OFF = 130_000_000 + 4321      # host n1's clock is ahead by this (ns)
LATE = 5_000_000              # n1 enters MPI_Init this much later (true time)
HOSTS = ["n0", "n0", "n1", "n1"]


def at(rf: dw.RankFile, start: int, name: str, args, dur: int) -> None:
    """A call of rank file rf entered at `start` (its own clock, ns) lasting dur."""
    assert start >= rf.t, (start, rf.t)
    rf.t = start
    rf.call(name, args, dur=dur, gap=0)


def skewed_run() -> Tuple[dw.Run, int, int]:
    """Ping-pongs between the hosts; returns the run and the least one-way times
    n0 -> n1 and n1 -> n0 (the causal window of n1's offset is OFF - the second,
    OFF + the first)."""
    run = dw.Run("dumpi-2024.05.06.07.08.09", 4, hosts=HOSTS)
    clock = [0, 0, OFF, OFF]
    for r in range(4):
        at(run.rank(r), 1_000_000 + (LATE if r >= 2 else 0) + clock[r], "MPI_Init", [dw.i32(0)],
           2000)
    one_way_ab: List[int] = []
    one_way_ba: List[int] = []
    for k in range(12):
        t = 20_000_000 + k * 200_000
        lab, lba = 1500 + (k * 37) % 900, 1800 + (k * 53) % 700
        a, b = k % 2, 2 + (k // 2) % 2
        one_way_ab.append(lab)
        one_way_ba.append(lba)
        send = lambda dst, tag: [dw.i32(1), dw.i16(dw.INT), dw.i32(dst), dw.i32(tag), dw.i16(dw.WORLD)]
        recv = lambda src, tag: [dw.i32(1), dw.i16(dw.INT), dw.i32(src), dw.i32(tag),
                                 dw.i16(dw.WORLD), dw.statuses([dw.status(4, src, tag)])]
        at(run.rank(a), t + clock[a], "MPI_Send", send(b, k), 400)
        at(run.rank(b), t + clock[b] + lab - 300, "MPI_Recv", recv(a, k), 300)  # ends at t + lab
        t2 = t + lab + 500
        at(run.rank(b), t2 + clock[b], "MPI_Send", send(a, k), 400)
        at(run.rank(a), t2 + clock[a] + lba - 300, "MPI_Recv", recv(b, k), 300)
    for r in range(4):
        rf = run.rank(r)
        at(rf, rf.t + 1000, "MPI_Finalize", [], 1000)
    return run, min(one_way_ab), min(one_way_ba)


def convert(tmp_path: Path, clock: str) -> Tuple[dict, str]:
    trace = tmp_path / "trace"
    if not trace.exists():
        p = run_cli("import", "dumpi", tmp_path / "dumpi", "--out", trace)
        assert p.returncode == 0, p.stderr
    out = tmp_path / ("streams-" + clock)
    p = run_cli("convert", trace, "--out", out, "--clock", clock)
    assert p.returncode == 0, p.stderr
    return json.loads((out / "index.json").read_text())["clock"], p.stdout


def test_skew_recovered_in_the_causal_window(tmp_path):
    run, min_ab, min_ba = skewed_run()
    run.write(tmp_path / "dumpi")
    clock, stdout = convert(tmp_path, "causal")
    assert clock["result"] == "causal"
    n1 = clock["hosts"][1]
    assert n1["host"] == "n1" and n1["first_rank"] == 2
    lo, hi = OFF - min_ba, OFF + min_ab
    assert n1["window_ns"] == [lo, hi]
    assert n1["uncertainty_ns"] == hi - lo
    assert n1["offset_ns"] == lo + (hi - lo) // 2
    assert n1["trace_offset_ns"] == OFF + LATE   # DUMPI: each host's first record
    assert clock["messages_between_hosts"] == 24
    assert clock["received_before_sent"] == {"trace_alignment": 12, "converted": 0}
    assert "host n1 (from rank 2): offset +%d ns" % n1["offset_ns"] in stdout
    assert "uncertainty %d ns" % (hi - lo) in stdout


def test_first_record_alignment_is_kept_when_asked(tmp_path):
    run, _, _ = skewed_run()
    run.write(tmp_path / "dumpi")
    clock, stdout = convert(tmp_path, "first-record")
    assert clock["mode"] == "first-record" and clock["result"] == "as-traced"
    assert clock["hosts"][1]["offset_ns"] == OFF + LATE
    assert clock["received_before_sent"]["converted"] == 12
    assert "received before sent: 12 with the trace's alignment, 12 as converted" in stdout
