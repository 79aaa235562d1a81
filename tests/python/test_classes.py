"""Per element class (mpimatch-replay --classes; Ghazimirsaeed et al., ParCo 2019
figs. 6-8 and Table 2): the exact counts per class on a hand-made stream, the
JSON, the bench plumbing (items, command line, record) and the class table of
scripts/results_tables.py. Timing values are never checked, only their
presence."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import run
from mpimatch import paths
from mpimatch.bench import core as bench
from mpimatch.bench.suites import PAPER, Item

ROOT = Path(__file__).resolve().parents[2]

# Collective and point-to-point elements in one list; counts worked out by hand
# (tests/stream/test_paths.c has the same stream): list compares across classes.
STREAM = """# mpimatch stream v1
R 1 0 0 5
R 2 0 1 -1 coll=gather np=4 call=1
R 3 0 2 -1 coll=gather np=4 call=1
M 4 0 2 -1 coll=gather np=4 call=1
M 5 0 0 5
M 6 0 3 -1 coll=gather np=4 call=1
M 7 0 0 9
R 8 0 0 9
R 9 0 3 -1 coll=gather np=4 call=1
"""
# class -> side -> (searches, traversed)
LIST = {"p2p": {"prq": (2, 2), "umq": (2, 2)}, "coll": {"prq": (2, 4), "umq": (3, 1)}}
COL_LL = {"p2p": {"prq": (2, 1), "umq": (2, 1)}, "coll": {"prq": (2, 3), "umq": (3, 1)}}


def replay_classes(exe, f: Path, tmp: Path, engine: str) -> dict:
    out = tmp / "r.json"
    proc = run([exe, str(f), "--engine", engine, "--classes", "--reps", "2", "--json", out])
    assert proc.returncode == 0, proc.stderr
    assert "classes of " in proc.stdout and "coll PRQ searches" in proc.stdout
    return json.loads(out.read_text())


def test_counts_by_hand(tmp_path, replay_exe):
    f = tmp_path / "s.mms"
    f.write_text(STREAM)
    data = replay_classes(replay_exe, f, tmp_path, "list,col+ll,col+pnp,hash")
    for r in data["results"]:
        by = r["classes"]["by_class"]
        want = {"list": LIST, "col+ll": COL_LL, "col+pnp": COL_LL}.get(r["engine"])
        for side in ("prq", "umq"):
            # every engine: the classes add up to the engine's own totals
            assert sum(by[c][side]["searches"] for c in by) == r["stats"][side]["searches"]
            assert sum(by[c][side]["traversed"] for c in by) == r["stats"][side]["traversed"]
            for c in ("p2p", "coll"):
                if want:
                    assert (by[c][side]["searches"], by[c][side]["traversed"]) == want[c][side], \
                        (r["engine"], c, side)
        assert by["coll"]["by_path"]["fail_from_recv"]["events"] == 2
        assert by["p2p"]["by_path"]["success_from_recv"]["events"] == 1
        rec = paths.compact_classes(r["classes"])
        for c in ("p2p", "coll"):
            for side in ("umq", "prq"):
                assert paths.side_search_ns(rec, c, side) is not None
        assert paths.search_total_ns(rec) is not None
        assert "probe" not in rec["by_class"]["p2p"]["by_path"]       # no events: left out


def test_tool_refuses_classes_without_engines(tmp_path, replay_exe):
    f = tmp_path / "s.mms"
    f.write_text(STREAM)
    proc = run([replay_exe, str(f), "--classes"])
    assert proc.returncode == 2 and "--classes" in proc.stderr and "needs --engine" in proc.stderr
    proc = run([replay_exe, str(f), "--engine", "list,hash", "--classes", "--interleave"])
    assert proc.returncode == 2 and "not --classes" in proc.stderr


def test_side_search_ns_from_totals():
    rec = {"by_class": {
        "p2p": {"by_path": {"fail_from_recv": {"events": 2, "ns_total": 100.0},
                            "success_from_recv": {"events": 2, "ns_total": 300.0}}},
        "coll": {"by_path": {"success_from_send": {"events": 4, "ns_total": 400.0}}}}}
    assert paths.side_search_ns(rec, "p2p", "umq") == 100.0
    assert paths.side_search_ns(rec, "coll", "prq") == 100.0
    assert paths.side_search_ns(rec, "coll", "umq") is None
    assert paths.side_search_ns(rec, None, "umq") == 100.0
    assert paths.search_total_ns(rec) == 800.0
    assert paths.compact_classes(None) is None


def test_paper_suite_times_the_profiles_by_class():
    fig = [i for i in PAPER.items if i.figure in ("p000-fig7-8", "p000-fig9")]
    assert len(fig) == 5 and all(i.classes for i in fig)
    assert not any(i.classes for i in PAPER.items if i.figure not in ("p000-fig7-8", "p000-fig9"))


def test_bench_record_and_table(tmp_path, replay_exe):
    from mpimatch.bench.cli import list_engines
    workloads, generator = bench.workload_catalogue()
    cat = bench.Catalogues(list_engines(), workloads, generator)
    items = [Item("fds:n=64,iters=10", ("list", "col+ll"), figure="p000-fig7-8", classes=True)]
    runs = bench.plan(items, cat)
    assert all(r.classes for r in runs)
    argv = bench.replay_command(Path("mpimatch-replay"), runs[1], 2, tmp_path / "o.json")
    assert "--classes" in argv and "--interleave" not in argv
    outcomes = bench.execute(runs, 2)
    recs = [o.record for o in outcomes]
    for r in recs:
        assert r["classes"]["by_class"]["coll"]["prq"]["searches"] > 0
        assert set(r["overhead"]) >= {"alloc_ns", "extract_ns", "profile_ns"}
    # the class table: one row per design, Table 2's ratio, depths per class
    doc = {"suite": "paper", "reps": 2, "records": recs, "machine": {}}
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "results_tables.py"), str(f)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Per element class, `fds:n=64" in proc.stdout
    assert "| col+ll |" in proc.stdout and "coll UMQ ×list" in proc.stdout
    assert "overhead / search" in proc.stdout
