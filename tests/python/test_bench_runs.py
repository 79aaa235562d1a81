"""`mpimatch bench --runs K`: the holds-in-every-run rule on constructed numbers,
the combination of K runs' records and targets (fake replay JSON), and a real
two-run bench of one small workload."""
from __future__ import annotations

import io
import json

import pytest

from conftest import run_cli
from mpimatch.bench import core as bench
from mpimatch.bench import runs
from mpimatch.bench.output import target_status, target_value, terminal_report
from mpimatch.bench.suites import QUICK
from mpimatch.errors import MpimatchError
from test_bench import fake_outcomes


# ---------------------------------------------------------------- the rule

@pytest.mark.parametrize("flags, want", [
    ([True, True, True], True), ([False, False], False), ([True], True),
    ([True, False, True], None), ([True, None], None), ([], None)])
def test_every_run(flags, want):
    assert runs.every_run(flags) is want


@pytest.mark.parametrize("values, want", [
    ([1.2, 1.5, 1.01], runs.FASTER),
    ([0.9, 0.5, 0.99], runs.SLOWER),
    ([1.21, 0.93, 0.96], runs.NOISE),      # the gather n=1024 claim of issue 15
    ([1.0, 1.3], runs.NOISE),              # equal in one run: not faster
    ([1.3, None], None)])
def test_direction_states_a_comparison_only_when_every_run_agrees(values, want):
    assert runs.direction(values) == want


# ---------------------------------------------------------------- combining runs

# list and hash on shuffle n=4096, three runs: hash is faster than list in runs 1
# and 3, slower in run 2; bins faster in all three. The burst target (hash at
# most 1.5x list's time) is met in run 1 only.
RUN_TIMES = [
    {"shuffle:4096": {"list": 1000.0, "hash": 10.0, "bins": 50.0}, "burst:4096": {"list": 20.0, "hash": 21.0}},
    {"shuffle:4096": {"list": 900.0, "hash": 1000.0, "bins": 60.0}, "burst:4096": {"list": 20.0, "hash": 40.0}},
    {"shuffle:4096": {"list": 1100.0, "hash": 20.0, "bins": 40.0}, "burst:4096": {"list": 20.0, "hash": 35.0}},
]


def three_run_doc():
    passes = [fake_outcomes(t) for t in RUN_TIMES]
    return bench.document(QUICK, 5, bench.GEN, bench.now(), passes[0], passes=passes)


def test_records_are_medians_with_every_run_kept():
    doc = three_run_doc()
    assert doc["runs"] == 3
    by = {(r["workload"]["name"], r["run"]): r for r in doc["records"]}
    h = by[("shuffle", "hash")]
    assert h["ns_per_event"]["median"] == 20.0
    assert [p["ns_per_event"]["median"] for p in h["per_run"]] == [10.0, 1000.0, 20.0]
    sp = h["spread"]["speedup_vs_list"]
    assert sp["values"] == pytest.approx([100.0, 0.9, 55.0])
    assert (sp["median"], sp["min"], sp["max"]) == pytest.approx((55.0, 0.9, 100.0))
    assert h["speedup_vs_list"] == pytest.approx(55.0)
    assert h["spread"]["vs_list"] == "within noise"
    assert by[("shuffle", "bins")]["spread"]["vs_list"] == "faster"
    assert by[("burst", "hash")]["spread"]["vs_list"] == "slower"
    assert by[("shuffle", "list")]["spread"]["vs_list"] is None
    q = h["ns_per_event"]
    assert q["q1"] <= q["median"] <= q["q3"] and q["min"] == pytest.approx(8.0)
    assert h["floor_ns_per_event"] == 2.0 and [p["floor_ns_per_event"] for p in h["per_run"]] == [2.0] * 3
    json.loads(json.dumps(doc, allow_nan=False))


def test_targets_met_missed_or_mixed_by_run():
    doc = three_run_doc()
    t = {x["name"]: x for x in doc["targets"]}
    burst = t["burst-hash-slowdown"]                 # 1.05, 2.0, 1.75 x list's time
    assert [p["measured"] for p in burst["per_run"]] == pytest.approx([1.05, 2.0, 1.75])
    assert burst["met"] is None and burst["status"] == "mixed"
    assert burst["note"] == "met in run 1 of 3; missed in runs 2, 3 of 3"
    assert target_status(burst).startswith("mixed")
    assert target_value(burst, "measured") == "1.75× (1.05×–2.00×)"
    rate = t["shuffle-hash-rate"]                    # 100, 1, 50 M events/s
    assert rate["status"] == "mixed" and rate["met"] is None
    speed = t["shuffle-hash-speedup"]                # 100, 0.9, 55: missed in run 2
    assert speed["status"] == "mixed" and speed["note"] == "met in runs 1, 3 of 3; missed in run 2 of 3"
    assert t["shuffle-nm-speedup"]["status"] == "not measured"


def test_targets_met_or_missed_in_every_run():
    good = [{"shuffle:4096": {"list": 1000.0, "hash": h}} for h in (10.0, 12.0)]
    passes = [fake_outcomes(x) for x in good]
    t = {x["name"]: x for x in bench.document(QUICK, 5, bench.GEN, bench.now(), passes[0],
                                              passes=passes)["targets"]}
    assert t["shuffle-hash-speedup"]["met"] is True and t["shuffle-hash-speedup"]["status"] == "met"
    bad = [{"shuffle:4096": {"list": 1000.0, "hash": h}} for h in (100.0, 50.0)]
    passes = [fake_outcomes(x) for x in bad]
    t = {x["name"]: x for x in bench.document(QUICK, 5, bench.GEN, bench.now(), passes[0],
                                              passes=passes)["targets"]}
    assert t["shuffle-hash-speedup"]["met"] is False and t["shuffle-hash-speedup"]["status"] == "MISSED"


def test_runs_that_disagree_on_outcomes_stop():
    a, b = fake_outcomes(RUN_TIMES[0]), fake_outcomes(RUN_TIMES[1])
    b[0].record["outcomes"] = {"matches": 1}
    with pytest.raises(MpimatchError, match="runs disagree on shuffle:n=4096,rounds=8,seed=1 with list: run 1 gives"):
        bench.combine_runs([a, b])


def test_terminal_report_says_within_noise_and_mixed():
    from rich.console import Console
    console = Console(width=250, record=True, file=io.StringIO())
    console.print(terminal_report(three_run_doc()))
    text = console.export_text()
    assert "runs=3" in text and "within noise" in text and "mixed: met in run 1 of 3" in text
    assert "55.00× (0.90–100.00)" in text


# ---------------------------------------------------------------- a real two-run bench

def test_two_real_runs(tmp_path, replay_exe):
    proc = run_cli("bench", "--workload", "shuffle:n=256,rounds=2", "--engines", "list,hash",
                   "--reps", "1", "--runs", "2", "--out", tmp_path / "o", "--json", tmp_path / "r.json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["runs"] == 2 and len(doc["run_times"]) == 2
    assert doc["command"].startswith("mpimatch bench --workload shuffle:n=256,rounds=2")
    assert len(doc["load_average"]["before"]) == 3
    assert all(len(t["load_before"]) == 3 and len(t["load_after"]) == 3 for t in doc["run_times"])
    assert "[4/4] run 2/2" in proc.stderr                   # progress: 2 runs of 2 replays
    h = next(r for r in doc["records"] if r["run"] == "hash")
    meds = [p["ns_per_event"]["median"] for p in h["per_run"]]
    assert len(meds) == 2 and h["ns_per_event"]["median"] == pytest.approx(sum(meds) / 2)
    ups = h["spread"]["speedup_vs_list"]["values"]
    assert h["spread"]["vs_list"] == runs.direction(ups)
    assert "runs=2" in proc.stdout


def test_runs_must_be_positive(tmp_path, replay_exe):
    proc = run_cli("bench", "--workload", "shuffle:n=16", "--runs", "0", "--out", tmp_path / "o")
    assert proc.returncode == 2 and "--runs must be >= 1" in proc.stderr


# ---------------------------------------------------------------- docs/RESULTS.md's tables

def test_results_tables_state_only_what_holds_in_every_run(tmp_path):
    import subprocess
    import sys
    from conftest import REPO
    js = tmp_path / "r.json"
    js.write_text(json.dumps(dict(three_run_doc(), command="mpimatch bench --suite quick --runs 3")))
    proc = subprocess.run([sys.executable, REPO / "scripts" / "results_tables.py", js],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "3 runs (1 JSON file)" in out and "`mpimatch bench --suite quick --runs 3`" in out
    assert "| shuffle n=4096 | 1000.0 | 1.00 | 50.0 | 20.00 (15.00–27.50) | 20.0 | 55.00 (0.90–100.00) |" in out
    assert ("- faster than list in ns per event, in every one of the 3 runs: bins on shuffle n=4096 "
            "(20.00 (15.00–27.50))") in out
    assert "- slower than list in ns per event, in every one of the 3 runs: hash on burst n=4096" in out
    assert "- within noise in ns per event (faster than list in some runs, not in others): hash on shuffle n=4096" in out
    assert ("| burst n=4096: hash at most 1.1x slower per event than list | 1.75× (1.05–2.00) | 3 | "
            "mixed: met in run 1 of 3; missed in runs 2, 3 of 3 |") in out
    # Three JSONs of one run each are three runs too.
    ones = []
    for i, t in enumerate(RUN_TIMES):
        p = tmp_path / f"one{i}.json"
        outs = fake_outcomes(t)
        p.write_text(json.dumps(bench.document(QUICK, 5, bench.GEN, bench.now(), outs)))
        ones.append(p)
    again = subprocess.run([sys.executable, REPO / "scripts" / "results_tables.py", *ones],
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "3 runs (3 JSON files)" in again.stdout
    assert "55.00 (0.90–100.00)" in again.stdout and "within noise" in again.stdout


def test_html_report_marks_mixed_targets(tmp_path):
    from mpimatch.bench.html import html_report
    html = html_report(three_run_doc(), [], tmp_path)
    assert 'class="mixed">mixed: met in run 1 of 3' in html
    assert "met in some runs only: shuffle-hash-speedup, burst-hash-slowdown" in html


def _search_run(ns: float) -> dict:
    return {"ns_per_event": {"median": ns * 2}, "paths": {"by_path": {
        "success_from_recv": {"events": 10, "ns_per_event": {"median": ns}}}}}


def test_per_search_comparisons_follow_the_rule(monkeypatch):
    """HPCS 2017's measure, the time per UMQ search (success_from_recv), compared run by run."""
    import sys
    from conftest import REPO
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    sys.modules.pop("results_tables", None)
    import results_tables as rt
    base = {"run": "list", "per_run": [_search_run(x) for x in (100.0, 120.0, 90.0)]}
    two = {"run": "two", "per_run": [_search_run(x) for x in (50.0, 60.0, 60.0)]}
    odd = {"run": "odd", "per_run": [_search_run(x) for x in (50.0, 130.0, 60.0)]}
    assert rt.search_vs_list(base, two, 3) == ("2.00 (1.50–2.00)", "faster")
    assert rt.search_vs_list(base, odd, 3)[1] == "within noise"
    line = rt.pair_line(two, odd, None, 3, measure=rt.search_ns, what="time per UMQ search")
    assert line == ("- two against odd: within noise (odd's time per UMQ search / two's: "
                    "1.00x (1.00–2.17))")
    assert rt.search_ns({"ns_per_event": {"median": 1.0}}) is None


def _paths_run(ns: dict) -> dict:
    return {"ns_per_event": {"median": 1.0}, "paths": {"clock_ns": 20.0, "by_path": {
        name: {"events": 4096, "segments": 4, "ns_per_event": {"median": v, "q1": v, "q3": v}}
        for name, v in ns.items()}}}


def test_table1_states_hash_against_nm_path_by_path_only_when_every_run_agrees(monkeypatch):
    import sys
    from conftest import REPO
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    sys.modules.pop("results_paths", None)
    import results_paths as rp
    # hash faster than nm on fail_from_send in both runs; success_from_recv flips.
    h = [{"fail_from_recv": 35.0, "success_from_recv": 36.0, "fail_from_send": 33.0, "success_from_send": 34.0},
         {"fail_from_recv": 35.0, "success_from_recv": 60.0, "fail_from_send": 30.0, "success_from_send": 34.0}]
    n = [{"fail_from_recv": 52.0, "success_from_recv": 100.0, "fail_from_send": 130.0, "success_from_send": 30.0},
         {"fail_from_recv": 50.0, "success_from_recv": 50.0, "fail_from_send": 120.0, "success_from_send": 30.0}]
    recs = []
    for run, per in (("hash", h), ("nm", n)):
        runs_ = [_paths_run(x) for x in per]
        recs.append(dict(runs_[0], run=run, figures=["p002-table1"], per_run=runs_,
                         workload={"spec": "random_keys:n=1024"}))
    text = rp.table1(recs)
    assert "- fail from send: hash is faster than nm in every one of the 2 runs" in text
    assert "- success from recv: hash against nm: within noise" in text
    assert "- success from send: hash is slower than nm in every one of the 2 runs" in text
    assert "| 0.25 (0.25–0.25) |" in text          # fail from send: 33/130 and 30/120


def test_csv_carries_the_spread():
    import csv as csvmod
    from mpimatch.bench.output import CSV_COLUMNS, csv_text
    rows = list(csvmod.DictReader(io.StringIO(csv_text(three_run_doc()["records"]))))
    h = next(r for r in rows if r["workload"] == "shuffle" and r["run"] == "hash")
    assert (h["runs"], h["vs_list"]) == ("3", "within noise")
    assert float(h["speedup_min"]) == pytest.approx(0.9) and float(h["speedup_max"]) == pytest.approx(100.0)
    assert CSV_COLUMNS[-4:] == ["runs", "speedup_min", "speedup_max", "vs_list"]


# ---------------------------------------------------------------- docs/RESULTS.md generated whole

def _results_tables():
    from conftest import load_script
    return load_script("results_tables")


def _doc(load):
    return dict(three_run_doc(), command="mpimatch bench --suite quick --runs 3",
                load_average={"before": [load, 1.0, 1.0], "after": [load / 2, 1.0, 1.0]},
                run_times=[{"started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:02:00+00:00",
                            "load_before": [load, 1.0, 1.0], "load_after": [0.1, 1.0, 1.0]}] * 3,
                started="2026-01-01T00:00:00+00:00", finished="2026-01-01T00:06:00+00:00",
                machine={"cpu": "X", "cores": 2, "os": "Linux", "compiler": "cc", "build_type": "Release"})


def test_results_doc_fills_the_template_and_says_whether_it_ran_under_load(tmp_path):
    import subprocess
    import sys
    from conftest import REPO
    tpl = tmp_path / "t.md"
    tpl.write_text("# R\n\n{{header}}\n\nText.\n\n{{figure f}}\n\n{{figure p000-fig5a}}\n\n"
                   "{{targets}}\n\n{{unplaced}}\n")
    for load, want in ((3.5, "**Made under load:** the 1-minute load average reached 3.5 on 2 cores"),
                       (0.4, "The machine was quiet: the 1-minute load average stayed at or under 0.4")):
        js = tmp_path / "r.json"
        js.write_text(json.dumps(_doc(load)))
        proc = subprocess.run([sys.executable, REPO / "scripts" / "results_tables.py", "--doc",
                               "--template", tpl, js], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert want in out
        assert "- **Command:** `mpimatch bench --suite quick --runs 3`" in out
        assert "- **Date:** 2026-01-01T00:00:00+00:00 to 2026-01-01T00:06:00+00:00 (6 min)." in out
        assert f"run 1: {load} to 0.1" in out
        assert "| shuffle n=4096 | 1000.0 | 1.00 |" in out and "within noise" in out
        assert "*p000-fig5a is not in this run.*" in out
        assert "mixed: met in run 1 of 3" in out
        assert "Every figure of the run is placed above." in out
        assert "{{" not in out
    rest = tmp_path / "rest.md"                             # a figure the template does not name
    rest.write_text("{{unplaced}}\n")
    proc = subprocess.run([sys.executable, REPO / "scripts" / "results_tables.py", "--doc",
                           "--template", rest, js], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("### f\n\n| workload |")
    bad = tmp_path / "bad.md"
    bad.write_text("x\n{{nosuch}}\n")
    proc = subprocess.run([sys.executable, REPO / "scripts" / "results_tables.py", "--doc",
                           "--template", bad, js], capture_output=True, text=True)
    assert proc.returncode == 2 and "line 2: unknown placeholder {{nosuch}}" in proc.stderr
    assert proc.stdout == ""


def test_the_shipped_template_renders_every_placeholder(tmp_path):
    rt = _results_tables()
    text = rt.render(rt.TEMPLATE.read_text(encoding="utf-8"), [_doc(1.0)])
    assert "{{" not in text and text.startswith("# Results")
    assert "*p000-fig7-8 is not in this run.*" in text


def _fig5(values):
    return {"workload": {"name": "gather", "params": {"n": 2048}, "spec": "gather:n=2048"},
            "x": "n", "run": "col+pnp:kc=1,kp=0", "figures": ["p000-fig5a"],
            "speedup_vs_list": values[0],
            "spread": {"speedup_vs_list": {"values": values, "median": sorted(values)[1],
                                           "min": min(values), "max": max(values)}}}


def test_fig5_share_is_the_arithmetic_of_the_paper_reduction():
    rt = _results_tables()
    out = rt.fig5_share([_fig5([6.0, 8.0, 10.0])], 3)
    # L = 2.4 at 2048 processes: f = (1 - 1/2.4) / (1 - 1/S)
    f = [(1 - 1 / 2.4) / (1 - 1 / s) for s in (6.0, 8.0, 10.0)]
    assert (f"| 2.4x | {100 * f[1]:.0f}% ({100 * f[2]:.0f}–{100 * f[0]:.0f}%) |") in out
    slow = rt.fig5_share([_fig5([3.0, 2.0, 5.0])], 3)
    assert "not reachable in every run" in slow


def _classes_run(name, umq_ns, prq_ns, umq_depth, prq_depth):
    by = {"coll": {"by_path": {"success_from_recv": {"events": 10, "ns_total": 10 * umq_ns},
                               "success_from_send": {"events": 10, "ns_total": 10 * prq_ns}},
                   "umq": {"searches": 10, "mean_depth": umq_depth},
                   "prq": {"searches": 10, "mean_depth": prq_depth}}}
    return {"workload": {"name": "fds", "params": {"n": 1024}, "spec": "fds:n=1024"},
            "run": name, "figures": ["p000-fig9"], "classes": {"by_class": by}}


def test_fds_why_sets_the_fixed_cost_apart_from_the_walk():
    rt = _results_tables()
    out = rt.fds_why([_classes_run("list", 500.0, 400.0, 200.0, 100.0),
                      _classes_run("col+pnp", 60.0, 50.0, 6.0, 4.0)])
    # UMQ: 2.5 ns per element; col+pnp's 6 elements take 15 ns of its 60; 42 x 60 / 2.5 = 1008
    assert "| fds n=1024 | UMQ | 500 | 200.0 | 60 | 6.0 | 33.3x | 8.33x | 2.50 | 45 | 1008 |" in out
    # PRQ: 4 ns per element; 50 - 16 = 34; 42 x 50 / 4 = 525
    assert "| fds n=1024 | PRQ | 400 | 100.0 | 50 | 4.0 | 25.0x | 8.00x | 4.00 | 34 | 525 |" in out


def test_results_tables_help():
    """--help prints the usage (the module text) and exits 0; it was read as a JSON file
    name ('--help: No such file or directory', exit 2)."""
    import subprocess
    import sys
    from conftest import REPO
    for flag in ("--help", "-h"):
        proc = subprocess.run([sys.executable, REPO / "scripts" / "results_tables.py", flag],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "python scripts/results_tables.py paper-out/results.json" in proc.stdout
