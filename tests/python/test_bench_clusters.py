"""Bench runs on cluster files the bench writes (bench_clusters.py; Ghazimirsaeed and Afsahi, HPCS 2017 fig. 3):
plan-time checks and their errors, the files and records end to end on a small
reverse_groups, the group -> rank map against the generator, the results table."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, run, run_cli
from mpimatch import specs, tools
from mpimatch.bench import clusters as bench_clusters
from mpimatch.bench import core as bench
from mpimatch.bench.clusters import hand, learned
from mpimatch.bench.output import CSV_COLUMNS, csv_text
from mpimatch.errors import MpimatchError
from mpimatch.bench.suites import PAPER, Item, StreamFile

GROUPS = ("Ps", "Pm", "Pl", "Pvl")
SIZES = {"small": 2, "medium": 10, "large": 50, "vlarge": 100}
FAKE_GENS = [{"name": "reverse_groups", "synthetic": False, "params": [
    {"name": p, "default": d, "min": 1, "max": 1 << 16} for p, d in
    (("per_group", 8), *SIZES.items(), ("rounds", 4))]}]
FAKE_ENGINES = [{"name": "list", "hints_required": [], "params": []},
                {"name": "bins", "hints_required": [], "params": [
                    {"name": "bins", "default": 256, "min": 1, "max": 4096}]},
                {"name": "kmeans", "hints_required": [], "params": [
                    {"name": "k", "default": 0, "min": 0, "max": 65535},
                    {"name": "clusters", "type": "file"},
                    {"name": "receiver", "default": 0, "min": 0, "max": 1 << 31}]}]
FAKE = bench.Catalogues(FAKE_ENGINES, FAKE_GENS, bench.GEN)
SMALL = "reverse_groups:per_group=2,rounds=1"
C3, C4 = hand("clustering 3", "Ps Pvl", "Pm Pl"), hand("clustering 4", "Ps,Pm,Pl", "Pvl")


def plan_error(item: Item, cat: bench.Catalogues = FAKE, **kw) -> str:
    with pytest.raises(MpimatchError) as info:
        bench.plan([item], cat, **kw)
    assert info.value.exit_code == 2
    return str(info.value)


# ---------------------------------------------------------------- plan (no C tools)

def test_titles_and_plan_order():
    assert C3.title == "clustering 3: {Ps,Pvl}|{Pm,Pl}" and C4.queues == (("Ps", "Pm", "Pl"), ("Pvl",))
    assert learned(4).title == "kmeans (learned) k=4"
    runs = bench.plan([Item(SMALL, ("list",), figure="f", clusterings=(C3, C4, learned(2))),
                       Item(SMALL, ("list",), figure="g", clusterings=(C3,))], FAKE)
    assert [r.label for r in runs] == ["list", C3.title, C4.title, "kmeans (learned) k=2"]
    assert runs[1].engine == "kmeans" and runs[1].params == {} and runs[1].figures == ["f", "g"]
    assert bench.plan([Item(SMALL, ("list",), clusterings=(C3,))], FAKE, only=["list"])[-1].label == "list"
    runs = bench.plan([Item(SMALL, ("list",), clusterings=(C3,))], FAKE,
                      overrides={"kmeans": {"receiver": "0"}})
    assert runs[1].params == {"receiver": 0}


@pytest.mark.parametrize("clustering, says", [
    (hand("c", "Ps Px", "Pm"), "clustering 'c': 'Px' is neither a peer group (groups of "
                               "reverse_groups: Ps, Pm, Pl, Pvl) nor a rank or rank range A-B"),
    (hand("c", "Ps 3", "Pm"), "clustering 'c': peer 3 ('Pm') is in queue 1 and queue 2"),
    (hand("c", "5-2"), "'5-2' is neither a peer group"),
    (hand("c", "Ps", ""), "queue 2 names no peers"),
    (bench_clusters.ClusterRun("c"), "give the queues (hand-made) or k (learned), not neither"),
    (bench_clusters.ClusterRun("c", (("Ps",),), k=2), "not both"),
    (learned(70000), "k=70000 is out of range 1..65535"),
    (bench_clusters.ClusterRun("c", (("Ps",),), engine="bins"),
     "engine 'bins' has no file parameter 'clusters'"),
])
def test_bad_clusterings_fail_at_plan_time(clustering, says):
    assert says in plan_error(Item(SMALL, ("list",), clusterings=(clustering,)))


def test_the_bench_owns_the_file_parameter(tmp_path):
    f = tmp_path / "c.clusters"
    f.write_text("x")
    item = Item(SMALL, ("list",), {"kmeans": {"clusters": str(f)}}, clusterings=(C3,))
    assert "the bench writes the clusters file of this run" in plan_error(item)


def test_rank_ranges_and_what_kmeans_found():
    assert bench_clusters._ranges([0, 1, 2, 5, 7, 8]) == ["0-2", "5", "7-8"]
    groups = {"A": range(1, 3), "B": range(3, 5)}
    # peer 0 outside the groups; B split across clusters 1 and 2
    labels = np.array([0, 0, 0, 1, 2])
    assert bench_clusters._queues_found(labels, 3, groups) == [["A"], ["3"], ["4"]]
    assert bench_clusters._queues_found(labels, 3, {}) == [["0-2"], ["3"], ["4"]]
    assert bench_clusters._queues_found(np.array([1, 0, 0, 0, 0]), 2, groups) == [
        ["A", "B"], ["0"]]


def test_paper_suite_has_fig3_in_the_papers_order():
    item = next(i for i in PAPER.items if i.figure == "p001-fig3" and i.clusterings)
    assert {i.figure for i in PAPER.items if i.clusterings} == {
        "p001-fig3", "p001-fig3-seq", "p001-fig2-paper-m10", "p001-fig2-paper-m50"}
    names = [c.name for c in item.clusterings]
    assert names[1:9] == [f"clustering {i}" for i in range(1, 8)] + ["4 queues"]
    table1 = {"clustering 1": "{Ps,Pm}|{Pl,Pvl}", "clustering 2": "{Ps,Pl}|{Pm,Pvl}",
              "clustering 3": "{Ps,Pvl}|{Pm,Pl}", "clustering 4": "{Ps,Pm,Pl}|{Pvl}",
              "clustering 5": "{Pm,Pl,Pvl}|{Ps}", "clustering 6": "{Ps,Pm,Pvl}|{Pl}",
              "clustering 7": "{Ps,Pl,Pvl}|{Pm}", "4 queues": "{Ps}|{Pm}|{Pl}|{Pvl}"}
    assert {c.name: bench_clusters.describe(c.queues) for c in item.clusterings
            if c.name in table1} == table1
    assert [c.k for c in item.clusterings if c.k] == [2, 4]


# ---------------------------------------------------------------- end to end (C tools)

def expected_umq_depth(per_group: int, queues) -> float:
    """Receives take the latest remaining message, always the tail of its queue: a
    queue that gets N messages costs N + (N-1) + ... + 1 elements searched."""
    per = dict(zip(GROUPS, SIZES.values()))
    total = sum(per.values()) * per_group
    sizes = [sum(per[g] for g in q) * per_group for q in queues]
    return sum(n * (n + 1) / 2 for n in sizes) / total


@pytest.fixture(scope="module")
def small_run(tmp_path_factory, engines, gen_exe):
    gens, who = bench.workload_catalogue()
    d = tmp_path_factory.mktemp("clusters")
    items = [Item(SMALL, ("list",), figure="p001-fig3", clusterings=(C3, C4, learned(2)))]
    runs = bench.plan(items, bench.Catalogues(engines, gens, who))
    outcomes = bench.execute(runs, 1, files_dir=d / "clusters")
    return d, [o.record for o in outcomes]


def test_records_carry_labels_and_the_files_exist(small_run):
    d, recs = small_run
    assert [r["run"] for r in recs] == ["list", C3.title, C4.title, "kmeans (learned) k=2"]
    for r, c in zip(recs[1:], (C3, C4, None)):
        info = r["clustering"]
        path = Path(info["file"])
        assert path.is_file() and path.parent.parent == d / "clusters"
        assert r["engine_params"]["clusters"] == str(path)
        assert path.read_text().startswith("mpimatch-clusters 1\n")
        assert Path(info["profile"]).is_file()
        if c:
            assert info["queues"] == [list(q) for q in c.queues] and not info["learned"]
            assert r["umq"]["mean_depth"] == pytest.approx(expected_umq_depth(2, c.queues))
    # K-means on the elements added: Pvl alone, the three smaller groups together
    found = recs[3]["clustering"]
    assert found["learned"] and found["k"] == 2 and found["description"] == "{Ps,Pm,Pl}|{Pvl}"
    assert recs[3]["umq"]["mean_depth"] == recs[2]["umq"]["mean_depth"]
    assert recs[0]["umq"]["mean_depth"] == pytest.approx(expected_umq_depth(2, [GROUPS]))
    rows = list(csv.DictReader(io.StringIO(csv_text(recs))))
    assert CSV_COLUMNS[-6:-4] == ["clustering", "cluster_file"]
    assert rows[1]["run"] == C3.title and rows[1]["clustering"] == "{Ps,Pvl}|{Pm,Pl}"
    assert rows[0]["clustering"] == "" and rows[3]["cluster_file"] == recs[3]["clustering"]["file"]


def test_groups_are_the_generators_ranks(small_run):
    """GROUPS['reverse_groups'] mirrors tools/gen/gen_reverse.c: every rank of a
    group sends that group's number of messages."""
    gen = tools.find_tool(bench.GEN)
    proc = run([gen, SMALL])
    assert proc.returncode == 0, proc.stderr
    sent = Counter(int(line.split()[3]) for line in proc.stdout.splitlines()
                   if line.startswith("M "))            # M id comm src tag
    params = specs.check_text(FAKE_GENS, SMALL, "workload")[1]
    groups = bench_clusters.GROUPS["reverse_groups"](params)
    assert {p: sent[p] for g in groups.values() for p in g} == {
        p: n for g, n in zip(groups.values(), SIZES.values()) for p in g}
    assert set(sent) == {p for g in groups.values() for p in g}


def test_ranks_beyond_the_stream_fail_before_any_timing(tmp_path, engines, gen_exe):
    gens, who = bench.workload_catalogue()
    runs = bench.plan([Item(SMALL, ("list",), clusterings=(hand("wide", "1-4", "5-12"),))],
                      bench.Catalogues(engines, gens, who))
    with pytest.raises(MpimatchError, match=r"clustering 'wide': peer 12 is out of range: "
                                            r"the stream has np 9 \(peers 0..8\)"):
        bench.execute(runs, 1, files_dir=tmp_path)
    assert not list(tmp_path.rglob("*.clusters"))


def test_stream_file_sources_and_the_temporary_directory(engines):
    gens, who = bench.workload_catalogue()
    runs = bench.plan([Item(StreamFile(REPO / "examples" / "tiny.mms"), ("list",),
                            clusterings=(hand("halves", "0"), learned(2)))],
                      bench.Catalogues(engines, gens, who))
    recs = [o.record for o in bench.execute(runs, 1)]
    assert [r["run"] for r in recs] == ["list", "halves: {0}", "kmeans (learned) k=2"]
    assert recs[1]["clustering"]["file"] is None         # written in a temporary directory
    assert len({json.dumps(r["outcomes"]) for r in recs}) == 1


def test_cli_figure_filter(tmp_path, replay_exe):
    proc = run_cli("bench", "--suite", "paper", "--figure", "p001-figX", "--out", tmp_path)
    assert proc.returncode == 2 and "--figure p001-figX: no item of suite paper has such a figure label" in proc.stderr
    proc = run_cli("bench", "--workload", SMALL, "--figure", "p001-fig3", "--out", tmp_path)
    assert proc.returncode == 2 and "does not go with --workload" in proc.stderr


def test_results_table_for_fig3(small_run, tmp_path):
    _, recs = small_run
    doc = {"suite": "paper", "reps": 1, "machine": {}, "records": recs}
    js = tmp_path / "r.json"
    js.write_text(json.dumps(doc))
    script = REPO / "scripts" / "results_tables.py"
    one = subprocess.run([sys.executable, script, js], capture_output=True, text=True)
    assert one.returncode == 0, one.stderr
    assert "| clustering 3 | {Ps,Pvl}\\|{Pm,Pl} |" in one.stdout and "q1–q3" in one.stdout
    assert "| kmeans (learned) k=2 | {Ps,Pm,Pl}\\|{Pvl} |" in one.stdout
    assert "speed targets" not in one.stdout
    assert "clustering 3 is" in one.stdout or "clustering 3 against clustering 4: within noise" in one.stdout
    two = subprocess.run([sys.executable, script, js, js], capture_output=True, text=True)
    assert "2 runs (2 JSON files)" in two.stdout and "range of 2 runs' medians" in two.stdout


def test_runs_of_one_name_get_files_of_their_own(tmp_path, engines, gen_exe):
    gens, who = bench.workload_catalogue()
    a, b = hand("c", "Ps", "Pm Pl Pvl"), hand("c", "Pvl", "Ps Pm Pl")
    runs = bench.plan([Item(SMALL, (), clusterings=(a, b))], bench.Catalogues(engines, gens, who))
    recs = [o.record for o in bench.execute(runs, 1, files_dir=tmp_path)]
    assert [Path(r["clustering"]["file"]).name for r in recs] == ["c.clusters", "c-2.clusters"]
    assert [r["umq"]["mean_depth"] for r in recs] == [
        pytest.approx(expected_umq_depth(2, c.queues)) for c in (a, b)]


def test_p001_fig2_as_the_paper_defines_it(tmp_path, engines, gen_exe):
    """Two queues: the last half of the queue in the second one (the paper suite's
    p001-fig2-paper items, here with 8 senders of 3 messages); the measure is the time
    per UMQ search (the success_from_recv path), one per message."""
    from mpimatch.bench.suites import PAPER, p001_fig2_paper
    items = p001_fig2_paper(10)
    assert [i.source for i in items] == [f"reverse:n={k + 1},m=10,arrival=sequential,rounds=2"
                                        for k in (16, 64, 256)]
    assert items[1].clusterings[0].queues == (("1-32",), ("33-64",)) and items[1].paths
    assert {i.figure for i in PAPER.items} >= {"p001-fig2-paper-m10", "p001-fig2-paper-m50"}
    item = Item("reverse:n=9,m=3,arrival=sequential,rounds=1", ("list",), paths=True,
                clusterings=(hand("2 queues (last half of the queue)", "1-4", "5-8"),))
    gens, who = bench.workload_catalogue()
    runs = bench.plan([item], bench.Catalogues(engines, gens, who))
    recs = [o.record for o in bench.execute(runs, 1, files_dir=tmp_path)]
    total, half = 24, 12
    # One list: the k-th receive walks the remaining total-k+1 elements; two halves: each
    # receive walks what remains of its own half.
    assert recs[0]["umq"]["mean_depth"] == pytest.approx((total + 1) / 2)
    assert recs[1]["umq"]["mean_depth"] == pytest.approx((half + 1) / 2)
    for r in recs:
        search = r["paths"]["by_path"]["success_from_recv"]
        assert search["events"] == total and search["ns_per_event"]["median"] > 0
