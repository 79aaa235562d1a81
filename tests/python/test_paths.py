"""Per-path timing: mpimatch-replay --paths (classification and JSON against
the Python model, errors), `mpimatch replay --paths`, and the bench plumbing
(items, runs, command lines, records, --figure, --paths). Timing values are
never checked, only their presence."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Dict

import pytest

from conftest import run, run_cli
from mpimatch import paths, tools
from mpimatch.bench import core as bench
from mpimatch.errors import MpimatchError
from mpimatch.model import outcomes, parse_stream
from mpimatch.bench.suites import PAPER, Item

# Every path once or more, no wildcards (every engine runs it); the paths by hand.
STREAM = """# mpimatch stream v1
R 1 0 0 1
R 2 0 0 2
M 3 0 0 1
M 4 0 0 5
M 5 0 0 6
R 6 0 0 5
P 7 0 0 6
X 8 0 0 6
X 9 0 0 6
C 2
C 2
R 10 1 3 7
M 11 1 3 7
"""
BY_HAND = {"fail_from_recv": (3, 2), "success_from_recv": (1, 1), "fail_from_send": (2, 1),
           "success_from_send": (2, 2), "probe": (1, 1), "mprobe": (2, 1), "cancel": (2, 1)}


def model_paths(text: str) -> Dict[str, int]:
    """Events per path from the Python model's outcomes: of a matched pair, the
    later event succeeded; every other R or M failed."""
    events = parse_stream(text).events
    index = {(e.kind, e.id): i for i, e in enumerate(events) if e.kind in "RM"}
    succeeded = set()
    for line in outcomes(events):
        words = line.split()
        if words[0] not in "PXC":
            succeeded.add(max(index[("R", int(words[0]))], index[("M", int(words[1]))]))
    names = {"P": "probe", "X": "mprobe", "C": "cancel"}
    count: Counter = Counter()
    for i, e in enumerate(events):
        if e.kind in names:
            count[names[e.kind]] += 1
        else:
            side = "recv" if e.kind == "R" else "send"
            count[f"{'success' if i in succeeded else 'fail'}_from_{side}"] += 1
    return dict(count)


def replay_paths(exe: Path, source, tmp: Path, engine: str = "all") -> dict:
    where = ["--workload", source] if isinstance(source, str) else [str(source)]
    out = tmp / "r.json"
    proc = run([exe, *where, "--engine", engine, "--paths", "--reps", "2", "--json", out])
    assert proc.returncode == 0, proc.stderr
    assert "paths of " in proc.stdout and "ns/segment" in proc.stdout
    return json.loads(out.read_text())


def test_hand_made_stream_every_engine(tmp_path, replay_exe, engines):
    f = tmp_path / "s.mms"
    f.write_text(STREAM)
    assert model_paths(STREAM) == {k: v[0] for k, v in BY_HAND.items()}
    data = replay_paths(replay_exe, f, tmp_path)
    assert {r["engine"] for r in data["results"]} == {e["name"] for e in engines}
    for r in data["results"]:
        p = r["paths"]
        assert p["segments"] == 9 and p["reps"] == 2 and p["clock_ns"] > 0
        assert p["timer_share_limit"] == pytest.approx(0.1)
        assert list(p["by_path"]) == list(paths.PATHS)
        for name, (events, segments) in BY_HAND.items():
            got = p["by_path"][name]
            assert (got["events"], got["segments"]) == (events, segments), (r["engine"], name)
            ns = got["ns_per_event"]
            assert ns["q1"] <= ns["median"] <= ns["q3"] and ns["median"] >= 0
            assert isinstance(got["timer_dominated"], bool)
            assert got["timer_dominated"] == (got["timer_share"] > p["timer_share_limit"])


@pytest.mark.parametrize("source", ["random_keys:n=50,rounds=3", "shuffle:n=40,rounds=2",
                                    "reverse:n=6,m=3,rounds=2", "any:n=20,rounds=2",
                                    "stencil3d:lx=2,ly=2,lz=2,phases=2"])
def test_counts_agree_with_the_model(tmp_path, replay_exe, source):
    proc = run([tools.find_tool(tools.GEN), source])
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    want = model_paths(text)
    data = replay_paths(replay_exe, source, tmp_path, "list,nm")
    for r in data["results"]:
        got = {k: v["events"] for k, v in r["paths"]["by_path"].items() if v["events"]}
        assert got == want, r["engine"]
    if source.startswith("random_keys"):
        by = data["results"][0]["paths"]["by_path"]
        assert [by[n]["segments"] for n in paths.TABLE1] == [2, 1, 1, 2]


def test_paths_without_events_are_null(tmp_path, replay_exe):
    data = replay_paths(replay_exe, "tags:n=16,rounds=1", tmp_path, "list")
    by = data["results"][0]["paths"]["by_path"]
    assert by["success_from_recv"]["events"] == 0
    assert by["success_from_recv"]["ns_per_event"]["median"] is None
    assert by["success_from_recv"]["ns_per_segment"] is None
    assert paths.compact(data["results"][0]["paths"])["by_path"].keys() == {
        "fail_from_recv", "success_from_send"}
    assert paths.compact(None) is None


@pytest.mark.parametrize("args, says", [
    (["--list", "--paths"], "--paths times the engines' matching paths: it needs --engine, not --list"),
    (["STREAM", "--paths"], "it needs --engine"),
    (["STREAM", "--paths", "--peer-traversal", "OUT"], "it needs --engine"),
])
def test_tool_refuses_paths_without_engines(tmp_path, replay_exe, args, says):
    f = tmp_path / "s.mms"
    f.write_text(STREAM)
    args = [str(f) if a == "STREAM" else str(tmp_path / "out.json") if a == "OUT" else a
            for a in args]
    proc = run([replay_exe, *args])
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_cli_replay_paths(tmp_path, replay_exe):
    f = tmp_path / "s.mms"
    f.write_text(STREAM)
    proc = run_cli("replay", f, "--engine", "list,hash", "--paths", "--reps", "1",
                   "--json", tmp_path / "o.json")
    assert proc.returncode == 0, proc.stderr
    assert "paths of list" in proc.stdout and "paths of hash" in proc.stdout
    assert "success_from_recv" in proc.stdout and "timer-dominated" in proc.stdout
    data = json.loads((tmp_path / "o.json").read_text())
    assert all("paths" in r for r in data["results"])
    proc = run_cli("replay", f, "--engine", "list", "--reps", "1")
    assert proc.returncode == 0 and "paths of" not in proc.stdout
    proc = run_cli("replay", f, "--engine", "list", "--paths", "--reps", "1", "--json", "-")
    assert proc.returncode == 0 and json.loads(proc.stdout)["results"][0]["paths"]["segments"] == 9


def test_cli_replay_directory_refuses_paths(tmp_path, replay_exe):
    d = tmp_path / "run"
    d.mkdir()
    (d / "rank-000000.mms").write_text(STREAM)
    proc = run_cli("replay", d, "--paths")
    assert proc.returncode == 2 and "--paths times the paths of one stream" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- bench

CAT = bench.Catalogues(
    [{"name": "list", "hints_required": [], "params": []},
     {"name": "hash", "hints_required": ["no_any_source", "no_any_tag"], "params": []}],
    [{"name": "random_keys", "synthetic": False, "params": [
        {"name": "n", "default": 1024, "min": 1, "max": 1 << 20},
        {"name": "rounds", "default": 4, "min": 1, "max": 1 << 16}]}],
    bench.GEN)


def test_plan_merges_the_paths_flag_and_passes_it_on(tmp_path):
    runs = bench.plan([Item("random_keys:n=8", ("list",), figure="a"),
                       Item("random_keys:n=8", ("list", "hash"), figure="b", paths=True),
                       Item("random_keys:n=9", ("list",), figure="c")], CAT)
    flags = {(r.source.spec.split(",")[0], r.engine): r.paths for r in runs}
    assert flags == {("random_keys:n=8", "list"): True, ("random_keys:n=8", "hash"): True,
                     ("random_keys:n=9", "list"): False}
    with_p = next(r for r in runs if r.paths)
    without = next(r for r in runs if not r.paths)
    js = tmp_path / "o.json"
    assert "--paths" in bench.replay_command(Path("/x"), with_p, 2, js)
    assert "--paths" not in bench.replay_command(Path("/x"), without, 2, js)


def test_records_carry_compact_paths():
    run_ = bench.plan([Item("random_keys:n=8", ("list",), paths=True)], CAT)[0]
    by = {n: {"events": 0, "segments": 0} for n in paths.PATHS}
    by["fail_from_recv"] = {"events": 8, "segments": 1, "ns_per_event": {"median": 3.0},
                            "ns_per_segment": 24.0, "timer_dominated": False}
    data = {"events": 16, "results": [{"engine": "list", "ns_per_event": {"median": 5.0},
                                       "paths": {"clock_ns": 20.0, "segments": 2,
                                                 "timer_share_limit": 0.1, "by_path": by}}]}
    rec = bench.make_record(run_, data, 0.1)
    assert rec["paths"] == {"clock_ns": 20.0, "segments": 2, "timer_share_limit": 0.1,
                            "by_path": {"fail_from_recv": by["fail_from_recv"]}}
    run_.paths = False
    assert "paths" not in bench.make_record(run_, data, 0.1)


def test_paper_suite_times_table1_and_p003_by_path():
    table1 = [i for i in PAPER.items if i.figure == "p002-table1"]
    assert table1 and all(i.paths and i.source.startswith("random_keys") for i in table1)
    assert all(set(i.engines) == {"hash", "nm"} for i in table1)
    p003 = [i for i in PAPER.items if i.figure.startswith("p003")]
    assert p003 and all(i.paths for i in p003)
    assert not any(i.paths for i in PAPER.items if i.figure.startswith("p000"))
    # Ghazimirsaeed and Afsahi, HPCS 2017: the time per UMQ search (success_from_recv) is the
    # paper's measure for figs. 2 (as the paper defines it) and 3
    p001 = {i.figure: i.paths for i in PAPER.items if i.figure.startswith("p001")}
    assert p001 == {"p001-fig2-m10": False, "p001-fig2-m50": False, "p001-fig2-paper-m10": True,
                    "p001-fig2-paper-m50": True, "p001-fig3": True, "p001-fig3-seq": True}


def test_bench_figure_selection_and_paths(tmp_path, replay_exe):
    from mpimatch.bench.cli import select_figures, with_paths
    only = select_figures(PAPER, ["p002-table1"])
    assert [i.figure for i in only.items] == ["p002-table1"]
    assert all(i.paths for i in with_paths(select_figures(PAPER, ["targets"]), True).items)
    with pytest.raises(MpimatchError, match="no item of suite paper has such a figure label; "
                                            "labels: targets, p002-fig3"):
        select_figures(PAPER, ["p9"])
    proc = run_cli("bench", "--workload", "random_keys:n=32,rounds=2", "--engines", "list,hash",
                   "--paths", "--reps", "1", "--out", tmp_path / "o", "--quiet")
    assert proc.returncode == 0, proc.stderr
    recs = json.loads((tmp_path / "o" / "results.json").read_text())["records"]
    assert len(recs) == 2
    for r in recs:
        assert [r["paths"]["by_path"][n]["events"] for n in paths.TABLE1] == [32] * 4


@pytest.mark.parametrize("args, says", [
    (["--workload", "burst", "--figure", "p003"], "--figure selects items of a suite"),
    (["--suite", "paper", "--figure", "nosuch"], "no item of suite paper has such a figure"),
])
def test_bench_figure_errors(tmp_path, replay_exe, args, says):
    proc = run_cli("bench", *args, "--out", tmp_path / "o")
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert not (tmp_path / "o").exists()
