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
from typing import Tuple

from conftest import REPO, run_cli

sys.path.insert(0, str(REPO / "tests" / "dumpi"))
import dumpi_writer as dw  # noqa: E402

OFF, LATE = dw.TWO_HOST_OFF, dw.TWO_HOST_LATE


def skewed_run():
    return dw.two_host_program()


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
