"""`mpimatch threads`: the Python front end passes through to mpimatch-threads
(Schonbein et al.'s stencil benchmark with real threads) and propagates its exit status."""
from __future__ import annotations

import json

from conftest import run_cli


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


def test_threads_help_and_errors():
    p = run_cli("threads", "--help")
    assert p.returncode == 0 and "usage: mpimatch-threads" in p.stdout
    p = run_cli("threads", "--case", "shuffle")
    assert p.returncode == 2 and "is not a stencil workload" in p.stderr
