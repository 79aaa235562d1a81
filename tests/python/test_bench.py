"""`mpimatch bench`: specs and their errors, the plan, the records, targets and
outputs (pure, from fake replay JSON), and the quick suite end to end (the
check CI relies on: every engine on every workload it accepts, numbers
positive and finite, targets present)."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import REPO, run, run_cli
from mpimatch import specs, tools
from mpimatch.bench import core as bench
from mpimatch.bench.html import html_report
from mpimatch.bench.output import CSV_COLUMNS, csv_text, terminal_report
from mpimatch.errors import MpimatchError
from mpimatch.bench.suites import PAPER, QUICK, SUITES, Item, StreamFile, sweep

ENGINES = [
    {"name": "list", "hints_required": [], "params": []},
    {"name": "bins", "hints_required": [], "params": [
        {"name": "bins", "default": 256, "min": 1, "max": 1048576, "doc": ""}]},
    {"name": "hash", "hints_required": ["no_any_source", "no_any_tag"], "params": [
        {"name": "capacity", "default": 1024, "min": 16, "max": 1 << 30, "doc": ""}]},
]
# What mpimatch-gen --list --json says of the MadMPI request benchmarks (the part the plan reads).
MADMPI_PARAMS = [{"name": "n", "doc": "requests per round", "default": 1024, "min": 1, "max": 1 << 20},
                 {"name": "rounds", "doc": "rounds; each reuses the same tags", "default": 8,
                  "min": 1, "max": 65536}]
GENS = [{"name": name, "synthetic": False, "params": MADMPI_PARAMS, "origin": origin}
        for name, origin in (("burst", "MadMPI benchmark reqs_burst"),
                             ("tags", "MadMPI benchmark reqs_tags"),
                             ("shuffle", "MadMPI benchmark reqs_shuffle; paper 002, figure 3"),
                             ("any", "MadMPI benchmark reqs_any"))] + [
    {"name": "gather", "synthetic": False, "params": [
        {"name": "alg", "doc": "", "default": 1, "min": 0, "max": 2, "choices": ["linear", "binomial", "ring"]}]},
    {"name": "radix", "synthetic": True, "params": []}]
CAT = bench.Catalogues(ENGINES, GENS, bench.GEN)


def error(fn, *args, **kw) -> str:
    with pytest.raises(MpimatchError) as info:
        fn(*args, **kw)
    assert info.value.exit_code == 2
    return str(info.value)


# ---------------------------------------------------------------- specs

def test_spec_defaults_and_canonical_form():
    name, params = specs.check_text(GENS, "shuffle:n=64", "workload", with_seed=True)
    assert (name, params) == ("shuffle", {"n": 64, "rounds": 8, "seed": 1})
    assert specs.fmt(name, params) == "shuffle:n=64,rounds=8,seed=1"
    assert specs.check_text(GENS, "gather", "workload")[1] == {"alg": "binomial"}
    assert specs.check_text(GENS, "gather:alg=ring", "workload")[1] == {"alg": "ring"}
    assert specs.check_text(ENGINES, "bins", "engine", fill_defaults=False) == ("bins", {})


@pytest.mark.parametrize("text, says", [
    ("nosuch", "unknown workload 'nosuch'; known: burst, tags, shuffle, any, gather, radix"),
    ("shuffle:m=3", "unknown parameter 'm'; parameters: n (1..1048576), rounds (1..65536), seed (0..18446744073709551615)"),
    ("shuffle:n=0", "n=0 is out of range 1..1048576"),
    ("shuffle:n=x", "n=x is not an integer"),
    ("shuffle:n", "'n' is not key=value"),
    ("shuffle:n=1,n=2", "'n' given twice"),
    (":n=1", "no name"),
    ("gather:alg=tree", "alg=tree is not one of linear, binomial, ring"),
])
def test_spec_errors_say_what_is_allowed(text, says):
    assert says in error(specs.check_text, GENS, text, "workload", with_seed=True)


# ---------------------------------------------------------------- the plan

def test_plan_merges_labels_and_puts_hinted_engines_last():
    items = [Item("shuffle:n=64", ("hash", "list"), figure="a", x="n"),
             Item("shuffle:n=64,rounds=8,seed=1", "all", figure="b"),
             Item("radix", ("bins:bins=16", "bins"), {"bins": {"bins": 8}}, figure="c")]
    runs = bench.plan(items, CAT)
    sh = "shuffle:n=64,rounds=8,seed=1"
    assert [(r.source.spec, r.label) for r in runs] == [
        (sh, "list"), (sh, "bins"), (sh, "hash"), ("radix:seed=1", "bins:bins=16"),
        ("radix:seed=1", "bins:bins=8")]
    assert runs[0].figures == ["a", "b"] and runs[0].x == "n"
    assert runs[2].needs == ["no_any_source", "no_any_tag"]
    assert runs[3].source.synthetic and not runs[0].source.synthetic


def test_plan_engine_selection_and_overrides():
    items = [Item("burst:n=8")]
    assert [r.label for r in bench.plan(items, CAT, only=["hash"])] == ["hash"]
    runs = bench.plan(items, CAT, overrides={"bins": {"bins": "4"}})
    assert [r.label for r in runs] == ["list", "bins:bins=4", "hash"]
    assert "unknown engine 'nm'; known: list, bins, hash" in error(bench.plan, items, CAT, only=["nm"])
    assert "bins=0 is out of range 1..1048576" in error(
        bench.plan, items, CAT, overrides={"bins": {"bins": "0"}})
    assert "unknown parameter 'size'" in error(bench.plan, items, CAT, overrides={"list": {"size": "1"}})


def test_engine_file_parameters_are_paths(tmp_path):
    """An MM_PARAM_FILE parameter (kmeans:clusters=FILE) takes a path that must exist."""
    cat = bench.Catalogues([{"name": "kmeans", "hints_required": [], "params": [
        {"name": "k", "default": 0, "min": 0, "max": 8}, {"name": "clusters", "type": "file"}]}],
        GENS, bench.GEN)
    f = tmp_path / "c.clusters"
    f.write_text("x")
    assert bench.plan([Item("burst:n=8", (f"kmeans:clusters={f}",))], cat)[0].params == {"clusters": str(f)}
    assert f"clusters={tmp_path}/none: no such file" in error(
        bench.plan, [Item("burst:n=8", ("kmeans",))], cat, overrides={"kmeans": {"clusters": f"{tmp_path}/none"}})
    assert "parameters: k (0..8), clusters (a file)" in error(
        bench.plan, [Item("burst:n=8", ("kmeans:x=1",))], cat)


# The C generators' names and the parameters the paper suite sets (docs/workloads.md).
C_GENS = [("shuffle", "n rounds", []), ("burst", "n rounds", []), ("tags", "n rounds", []),
          ("any", "n rounds", []), ("pingpong", "n", []),
          ("reverse", "n m rounds", [("arrival", "random sequential")]),
          ("reverse_groups", "per_group", [("arrival", "random sequential")]), ("stencil_naive", "threads msgs phases", []),
          ("stencil2d", "lx ly", [("points", "5pt 9pt")]),
          ("stencil3d", "lx ly lz", [("points", "7pt 27pt")]),
          ("stencil_linear", "lz", [("points", "7pt 27pt")]),
          ("gather", "n calls", [("alg", "linear binomial direct")]),
          ("allreduce", "n calls", [("alg", "recursive_doubling ring")]),
          ("allgather", "n calls nonblocking", [("alg", "ring bruck")]),
          ("radix", "", []), ("nbody", "", []), ("miniamr", "", []), ("fds", "n", []),
          ("random_keys", "n rounds", []),
          ("collide", "n rounds bits", [("kind", "tags sources bins")])]
PAPER_ENGINES = [{"name": n, "hints_required": [], "params": [
                     {"name": p, "default": 8, "min": 0, "max": 1024, "doc": ""} for p in ps.split()]}
                 for n, ps in (("nm", ""), ("rank", ""), ("kmeans", "k"), ("pnp", "kp"),
                               ("col+pnp", "kc kp"), ("col+ll", "kc"), ("ll+pnp", "kp"))]
CLUSTERS_PARAM = {"name": "clusters", "type": "file", "doc": ""}
next(e for e in PAPER_ENGINES if e["name"] == "kmeans")["params"].append(CLUSTERS_PARAM)


def test_suites_are_valid():
    c_names = [{"name": n, "synthetic": False, "params": [
                   {"name": p, "default": 1, "min": 0, "max": 1 << 20} for p in ps.split()] + [
                   {"name": p, "default": "x", "choices": ["x", *cs.split()]} for p, cs in choices]}
               for n, ps, choices in C_GENS]
    engines = ENGINES + PAPER_ENGINES
    runs = bench.plan(PAPER.items, bench.Catalogues(engines, c_names, bench.GEN))
    assert {f for r in runs for f in r.figures} == {
        "targets", "p002-fig3", "p002-fig5", "p002-fig6", "p002-table1",
        "p000-fig5a", "p000-fig5b", "p000-fig5c", "p000-fig7-8", "p000-fig9",
        "p001-fig2-m10", "p001-fig2-m50", "p001-fig2-paper-m10", "p001-fig2-paper-m50",
        "p001-fig3", "p001-fig3-seq",
        "p003-fig1-m8", "p003-fig1-m26", "p003-fig1-m512", "p003-fig2-5pt", "p003-fig2-9pt",
        "p003-fig3-7pt", "p003-fig3-27pt", "p003-fig4-7pt", "p003-fig4-27pt"}
    # Ghazimirsaeed et al., ParCo 2019 fig. 5: COL+PNP with k = 1 at every process count
    fig5 = [r for r in runs if "p000-fig5a" in r.figures and r.engine == "col+pnp"]
    assert len(fig5) == 3 and all(r.params["kc"] == 1 for r in fig5)
    assert {"shuffle", "burst"} <= {i.source.split(":")[0] for i in QUICK.items}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_suites_plan_with_the_c_generators(suite, engines, gen_exe):
    """Every suite item names a real workload and parameters of mpimatch-gen."""
    gens, who = bench.workload_catalogue()
    assert who == bench.GEN
    runs = bench.plan(SUITES[suite].items, bench.Catalogues(engines, gens, who))
    assert {r.engine for r in runs} == {e["name"] for e in engines}


def test_sweep_items():
    items = sweep("shuffle", "n", [4, 8], "fig", engines=("list",), seed=3)
    assert [i.source for i in items] == ["shuffle:seed=3,n=4", "shuffle:seed=3,n=8"]
    assert {(i.figure, i.x, i.engines) for i in items} == {("fig", "n", ("list",))}


def test_replay_command_for_workloads_and_files(tmp_path):
    exe, js = Path("/bin/replay"), tmp_path / "o.json"
    wl, f = bench.plan([Item("burst:n=8", ("bins:bins=4",)),
                        Item(StreamFile(REPO / "examples" / "tiny.mms"), ("list",))], CAT)
    assert bench.replay_command(exe, wl, 3, js) == [
        "/bin/replay", "--workload", "burst:n=8,rounds=8,seed=1", "--engine", "bins", "--param",
        "bins:bins=4", "--reps", "3", "--seed", "1", "--entries", "fresh", "--json", str(js),
        "--quiet"]
    assert bench.replay_command(exe, wl, 3, js, seed=7)[9:11] == ["--seed", "7"]
    assert bench.replay_command(exe, f, 1, js)[:4] == ["/bin/replay", str(REPO / "examples" / "tiny.mms"),
                                                       "--engine", "list"]


def test_workload_catalogue_from_the_c_generators(tmp_path, monkeypatch):
    monkeypatch.setenv("MPIMATCH_BIN_DIR", str(tmp_path))
    with pytest.raises(tools.ToolNotFound, match="mpimatch-gen") as info:   # not built
        bench.workload_catalogue()
    assert info.value.exit_code == 127
    gen = tmp_path / bench.GEN
    listing = [{"name": "stencil", "summary": "", "origin": "", "synthetic": False, "params": []}]
    gen.write_text("#!/bin/sh\n[ \"$1 $2\" = '--list --json' ] && cat <<'EOF'\n"
                   + json.dumps(listing) + "\nEOF\n")
    gen.chmod(0o755)
    assert bench.workload_catalogue() == (listing, bench.GEN)
    gen.write_text("#!/bin/sh\necho 'not json'\n")
    with pytest.raises(MpimatchError, match="not JSON") as info:
        bench.workload_catalogue()
    assert info.value.exit_code == 1


def test_skip_reason_once_hints_are_known():
    run = bench.plan([Item("any:n=8", ("hash",))], CAT)[0]
    assert bench.skip_reason(run) is None                     # not known yet
    run.source.hints = []
    assert bench.skip_reason(run) == ("requires hints no_any_source,no_any_tag; "
                                      "the workload uses ANY_SOURCE")
    run.source.hints = ["no_any_source", "no_any_tag"]
    assert bench.skip_reason(run) is None


# ---------------------------------------------------------------- records, targets, outputs

def replay_json(engine: str, ns: float, events: int = 8192, params: Dict = None,
                prq_depth: float = 1.0, floor: float = 2.0, peak: int = 5000,
                max_length: int = 4096) -> Dict[str, Any]:
    """What mpimatch-replay --json writes for one engine (tools/replay_report.c)."""
    q = {"searches": 10, "hits": 10, "misses": 0, "traversed": 10, "mean_depth": prq_depth,
         "max_depth": 4, "length": 0, "max_length": max_length, "queues": 1, "max_queues": 1,
         "bytes": 0, "peak_bytes": 1000,
         # hash-table slots inspected: hash and nm have tables, the others none
         "probes": 15 if engine in ("hash", "nm") else 0,
         "max_probes": 3 if engine in ("hash", "nm") else 0}
    return {"tool": "mpimatch-replay", "events": events, "np": 2, "reps": 5,
            "hints": ["no_any_source", "no_any_tag"], "floor_ns_per_event": floor,
            "results": [{"engine": engine, "params": params or {},
                         "ns_per_event": {"median": ns, "q1": ns * 0.9, "q3": ns * 1.1, "min": ns * 0.8},
                         "floor_ns_per_event": floor, "engine_ns_per_event": None if floor is None else ns - floor,
                         "events_per_second": 1e9 / ns, "outcomes": {"matches": 4096},
                         "stats": {"prq": q, "umq": dict(q, mean_depth=0.0, max_length=0),
                                   "bytes": 0, "peak_bytes": peak}}],
            "skipped": []}


def fake_outcomes(times: Dict[str, Dict[str, float]], cat: bench.Catalogues = CAT,
                  **replay: Any) -> List[bench.Outcome]:
    """replay: further replay_json arguments; a dict value is per engine."""
    items = [Item(f"{wl}:n={n}", tuple(times[f"{wl}:{n}"]), figure="f", x="n")
             for wl, n in (k.split(":") for k in times)]
    out = []
    for r in bench.plan(items, cat):
        ns = times[f"{r.source.name}:{r.source.params['n']}"][r.label]
        kw = {k: v[r.engine] if isinstance(v, dict) else v for k, v in replay.items()
              if not isinstance(v, dict) or r.engine in v}
        out.append(bench.Outcome(r, record=bench.make_record(r, replay_json(r.engine, ns, **kw), 0.5)))
    bench.set_speedups([o.record for o in out])
    return out


TIMES = {"shuffle:4096": {"list": 1000.0, "hash": 10.0, "bins": 50.0},
         "burst:4096": {"list": 20.0, "hash": 40.0},
         "shuffle:1024": {"list": 300.0, "hash": 9.0, "bins": 20.0}}


def test_records_speedups_and_targets():
    outs = fake_outcomes(TIMES)
    rec = outs[1].record
    assert rec["workload"] == {"name": "shuffle", "params": {"n": 4096, "rounds": 8, "seed": 1},
                               "synthetic": False, "spec": "shuffle:n=4096,rounds=8,seed=1",
                               "origin": "MadMPI benchmark reqs_shuffle; paper 002, figure 3",
                               "generator": bench.GEN, "file": None}
    assert rec["run"] == "bins" and rec["speedup_vs_list"] == pytest.approx(20.0)
    assert rec["prq"] == {"mean_depth": 1.0, "max_depth": 4, "max_length": 4096, "queues": 1,
                          "peak_bytes": 1000, "searches": 10, "probes": 0, "max_probes": 0}
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in outs])}
    assert set(targets) == {t.name for t in bench.TARGETS}
    assert targets["shuffle-hash-speedup"]["measured"] == pytest.approx(100.0)
    assert targets["shuffle-hash-speedup"]["met"] is True
    assert targets["burst-hash-slowdown"]["measured"] == pytest.approx(2.0)
    assert targets["burst-hash-slowdown"]["met"] is False and targets["burst-hash-slowdown"]["note"] == "MISSED"
    assert targets["shuffle-hash-rate"]["measured"] == pytest.approx(1e8)
    assert targets["shuffle-nm-speedup"]["met"] is None
    assert targets["shuffle-nm-speedup"]["note"].startswith("not measured")
    assert rec["floor_ns_per_event"] == 2.0
    assert targets["shuffle-hash-ns"]["measured"] == pytest.approx(10.0)
    assert targets["shuffle-hash-ns"]["met"] is False
    assert targets["shuffle-hash-engine-ns"]["measured"] == pytest.approx(8.0)
    assert targets["shuffle-hash-engine-ns"]["met"] is False


def test_issue13_targets_on_made_up_numbers():
    """ns per event through the API, engine-only (less the same run's floor), burst
    hash/list at 1.1x, and the worst bytes per queued element of any engine at n=4096."""
    outs = fake_outcomes({"shuffle:4096": {"list": 1000.0, "hash": 8.0, "bins": 50.0},
                          "burst:4096": {"list": 20.0, "hash": 21.0},
                          "burst:64": {"list": 20.0, "hash": 21.0}},
                         floor={"hash": 3.5, "list": 3.0}, max_length=1000,
                         peak={"list": 64000, "hash": 79000, "bins": 81000})
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in outs])}
    assert targets["shuffle-hash-ns"]["measured"] == pytest.approx(8.0)
    assert targets["shuffle-hash-ns"]["met"] is True
    assert targets["shuffle-hash-engine-ns"]["measured"] == pytest.approx(4.5)
    assert targets["shuffle-hash-engine-ns"]["met"] is True
    assert targets["burst-hash-slowdown"]["measured"] == pytest.approx(1.05)
    assert targets["burst-hash-slowdown"]["met"] is True and targets["burst-hash-slowdown"]["wanted"] == 1.1
    b = targets["bytes-per-queued"]
    assert b["measured"] == pytest.approx(81.0) and b["met"] is False   # bins, the worst
    assert b["workload"] == "shuffle:n=4096,rounds=8,seed=1 (bins)"
    # bins not run: list and hash meet it; a run at another n is not counted
    outs = fake_outcomes({"shuffle:4096": {"list": 1000.0, "hash": 8.0},
                          "burst:64": {"list": 20.0, "hash": 21.0}},
                         max_length=1000, peak={"list": 64000, "hash": 79000})
    small = dict(outs[-1].record, peak_bytes=500000)
    assert small["workload"]["params"]["n"] == 64
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in outs[:-1]] + [small])}
    assert targets["bytes-per-queued"]["measured"] == pytest.approx(79.0)
    assert targets["bytes-per-queued"]["met"] is True
    assert targets["burst-hash-slowdown"]["met"] is None
    # the larger side counts: a UMQ of 2000 beside a PRQ of 1000 gives 79000 / 2000
    rec = dict(outs[0].record, umq=dict(outs[0].record["umq"], max_length=2000))
    assert bench.bytes_per_queued(rec) == pytest.approx(32.0)
    # no floor in the replay JSON: engine-only time is not measured; nothing queued: no bytes
    outs = fake_outcomes({"shuffle:4096": {"list": 1000.0, "hash": 8.0}}, floor=None, max_length=0)
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in outs])}
    assert targets["shuffle-hash-engine-ns"]["met"] is None
    assert targets["shuffle-hash-engine-ns"]["note"] == ("not measured: the suite has no shuffle "
                                                         "n=4096 run of hash with a harness floor")
    assert targets["bytes-per-queued"]["met"] is None
    assert targets["bytes-per-queued"]["note"].startswith("not measured")


def test_auto_targets_take_the_worst_workload():
    """auto's targets: the largest ratio over the workloads (every one against the best
    other engine; every n of burst and tags against list), with the workload it is on."""
    cat = bench.Catalogues(ENGINES + [{"name": "auto", "hints_required": [], "params": []}],
                           GENS, bench.GEN)
    outs = fake_outcomes({"shuffle:4096": {"list": 1000.0, "hash": 10.0, "bins": 50.0, "auto": 10.5},
                          "shuffle:1024": {"list": 300.0, "hash": 9.0, "auto": 12.6},
                          "burst:4096": {"list": 20.0, "hash": 40.0, "auto": 20.5},
                          "burst:64": {"list": 10.0, "auto": 11.0},
                          "tags:64": {"list": 10.0, "hash": 9.0}}, cat)
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in outs])}
    best = targets["auto-vs-best"]
    assert best["measured"] == pytest.approx(1.4) and best["met"] is False
    assert best["workload"].startswith("shuffle:n=1024")
    burst = targets["auto-burst-vs-list"]
    assert burst["measured"] == pytest.approx(1.1) and burst["met"] is False
    assert burst["workload"].startswith("burst:n=64")
    tags = targets["auto-tags-vs-list"]      # no auto run on tags
    assert tags["met"] is None and tags["note"].startswith("not measured")
    outs = fake_outcomes({"burst:4096": {"list": 20.0, "auto": 20.5}}, cat)
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in outs])}
    assert targets["auto-burst-vs-list"]["met"] is True
    assert targets["auto-vs-best"]["measured"] == pytest.approx(1.025)


def test_auto_is_timed_beside_list_and_the_fastest_others():
    """auto's run comes after every other run of its source and times, in its own process
    (interleaved), list and the three engines fastest in their own runs (one parameter set
    per engine name); auto-vs-best and auto-*-vs-list then use those same-process numbers."""
    engines = ENGINES + [{"name": "nm", "hints_required": [], "params": []},
                         {"name": "simd", "hints_required": [], "params": []},
                         {"name": "auto", "hints_required": [], "params": []}]
    cat = bench.Catalogues(engines, GENS, bench.GEN)
    items = [Item("shuffle:n=64", ("auto", "list", "bins", "bins:bins=16", "hash", "nm", "simd"),
                  figure="f", x="n")]
    runs = bench.plan(items, cat)
    assert runs[-1].engine == "auto"                 # after every other, hinted ones too
    own = {"list": 30.0, "bins": 20.0, "bins:bins=16": 14.0, "hash": 15.0, "nm": 25.0, "simd": 18.0}
    done = [bench.Outcome(r, record=bench.make_record(r, replay_json(r.engine, own[r.label]), 0.5))
            for r in runs[:-1]]
    auto = runs[-1]
    pair = bench.partners(auto, done)
    assert pair == [("list", {}), ("bins", {"bins": 16}), ("hash", {}), ("simd", {})]
    argv = bench.replay_command(Path("/x/mpimatch-replay"), auto, 5, Path("/t/o.json"), pair=pair)
    assert argv[argv.index("--engine"):argv.index("--reps")] == [
        "--engine", "auto", "--engine", "list", "--engine", "bins", "--param", "bins:bins=16",
        "--engine", "hash", "--engine", "simd", "--interleave"]
    # the same process: auto 16, list 32, bins:bins=16 17, hash 15.5, simd 40
    data = replay_json("auto", 16.0)
    data["results"] += [replay_json(e, ns)["results"][0]
                        for e, ns in (("list", 32.0), ("bins", 17.0), ("hash", 15.5), ("simd", 40.0))]
    rec = bench.make_record(auto, data, 0.5, pair)
    assert [p["run"] for p in rec["paired_with"]] == ["list", "bins:bins=16", "hash", "simd"]
    assert rec["paired_list"]["ns_per_event"]["median"] == 32.0
    targets = {t["name"]: t for t in bench.check_targets([o.record for o in done] + [rec])}
    # against hash's 15.5 beside it, not bins:bins=16's 14.0 in its own process
    assert targets["auto-vs-best"]["measured"] == pytest.approx(16.0 / 15.5)
    assert targets["auto-vs-best"]["met"] is True
    # a plain (unpaired) run of another engine times nothing beside it
    assert bench.partners(runs[0], done) == []
    # several runs: what every run timed beside it, medians of the runs' medians
    from mpimatch.bench import runs as multi
    other = bench.make_record(auto, data, 0.5, pair)
    other["paired_with"] = other["paired_with"][:2]
    other["paired_with"][1] = {"run": "bins:bins=16", "ns_per_event": {"median": 19.0}}
    comb = multi.combine_records([rec, other, rec])
    assert comb["paired_with"] == [{"run": "list", "ns_per_event": {"median": 32.0}},
                                   {"run": "bins:bins=16", "ns_per_event": {"median": 17.0}}]


def test_auto_is_timed_in_both_orders():
    """auto's run is replayed twice, its engines given in one order and in the reverse
    (on a tiny stream the engine given first is slower whichever it is): each engine's
    times are the mean of the two processes', and outcomes that differ stop the bench."""
    engines = ENGINES + [{"name": "auto", "hints_required": [], "params": []}]
    cat = bench.Catalogues(engines, GENS, bench.GEN)
    auto = bench.plan([Item("shuffle:n=64", ("auto", "list", "bins"), figure="f", x="n")],
                      cat)[-1]
    pair = [("list", {}), ("bins", {"bins": 16})]
    exe, js = Path("/x/mpimatch-replay"), Path("/t/o.json")
    fwd = bench.replay_command(exe, auto, 5, js, pair=pair)
    back = bench.replay_command(exe, auto, 5, js, pair=pair, reverse=True)
    assert back[back.index("--engine"):back.index("--reps")] == [
        "--engine", "bins", "--param", "bins:bins=16", "--engine", "list", "--engine", "auto",
        "--interleave"]
    assert sorted(fwd) == sorted(back) and fwd != back
    first = replay_json("auto", 12.0)       # auto first: slower
    first["results"] += [replay_json("list", 10.0)["results"][0],
                         replay_json("bins", 11.0, params={"bins": 16})["results"][0]]
    last = replay_json("bins", 12.0, params={"bins": 16}, floor=3.0)
    last["results"] += [replay_json("list", 11.0, floor=3.0)["results"][0],
                        replay_json("auto", 10.0, floor=3.0)["results"][0]]
    both = bench.counterbalanced(first, last)
    assert [r["engine"] for r in both["results"]] == ["auto", "list", "bins"]
    ns = {r["engine"]: r["ns_per_event"] for r in both["results"]}
    assert ns["auto"]["median"] == pytest.approx(11.0)
    assert ns["auto"]["min"] == pytest.approx((12.0 * 0.8 + 10.0 * 0.8) / 2)
    assert ns["list"]["median"] == pytest.approx(10.5) and ns["bins"]["median"] == pytest.approx(11.5)
    a = both["results"][0]
    assert a["floor_ns_per_event"] == pytest.approx(2.5)
    assert a["engine_ns_per_event"] == pytest.approx(8.5)
    assert a["events_per_second"] == pytest.approx(1e9 / 11.0)
    rec = bench.make_record(auto, both, 0.5, pair)
    assert rec["ns_per_event"]["median"] == pytest.approx(11.0)
    assert [p["ns_per_event"]["median"] for p in rec["paired_with"]] == [
        pytest.approx(10.5), pytest.approx(11.5)]
    last["results"][2]["outcomes"] = {"matches": 4095}
    with pytest.raises(MpimatchError, match="different outcomes"):
        bench.counterbalanced(first, last)


def test_paired_runs_are_timed_in_both_orders(monkeypatch):
    """A paired run (hash beside list, for the burst and shuffle targets) is replayed in
    both orders as auto's is, the target engine first and then last, and its ratio to
    the list timed beside it comes from the two processes' mean."""
    runs = bench.plan([Item("burst:n=4096", ("hash", "bins"), figure="f", x="n", paired=True)],
                      CAT)
    hashed, binned = (next(r for r in runs if r.engine == e) for e in ("hash", "bins"))
    assert hashed.paired and binned.paired
    calls = []

    def fake(exe, run, reps, tmp, seed=1, pair=None, reverse=False):
        if pair is None:     # the probe for the stream's hints (hash needs two)
            return replay_json("list", 1.0)
        calls.append((run.engine, [e for e, _ in pair], reverse))
        mine, lst = (12.0, 10.0) if not reverse else (10.0, 11.0)  # the first given is slower
        order = [replay_json(run.engine, mine), replay_json("list", lst)]
        data = order[0]
        data["results"] = [r["results"][0] for r in (order[::-1] if reverse else order)]
        return data

    monkeypatch.setattr(bench, "_replay", fake)
    monkeypatch.setattr(tools, "find_tool", lambda name: Path("/x/mpimatch-replay"))
    out = bench.execute([hashed, binned], 5)
    # bins has no target read beside list: one order (bench.reverses())
    assert calls == [("hash", ["list"], False), ("hash", ["list"], True),
                     ("bins", ["list"], False)]
    assert out[1].record["ns_per_event"]["median"] == pytest.approx(12.0)
    rec = out[0].record
    assert rec["ns_per_event"]["median"] == pytest.approx(11.0)
    assert rec["paired_list"]["ns_per_event"]["median"] == pytest.approx(10.5)
    t = {x["name"]: x for x in bench.check_targets([rec])}
    assert t["burst-hash-slowdown"]["measured"] == pytest.approx(11.0 / 10.5)


@pytest.mark.parametrize("kind", ["paths", "classes"])
def test_runs_timing_paths_or_classes_are_made_once(monkeypatch, kind):
    """A run that times paths or classes has no partners (the timers would time list's
    calls too): one process, in one order, even on a paired item and for auto."""
    cat = bench.Catalogues(ENGINES + [{"name": "auto", "hints_required": [], "params": []}],
                           GENS, bench.GEN)
    runs = bench.plan([Item("burst:n=4096", ("list", "hash", "auto"), figure="f", x="n",
                            paired=True, **{kind: True})], cat)
    assert [r.engine for r in runs] == ["list", "hash", "auto"] and all(r.paired for r in runs)
    calls = []

    def fake(exe, run, reps, tmp, seed=1, pair=None, reverse=False):
        calls.append((run.engine, list(pair or []), reverse))
        return replay_json(run.engine, 10.0)

    monkeypatch.setattr(bench, "_replay", fake)
    monkeypatch.setattr(tools, "find_tool", lambda name: Path("/x/mpimatch-replay"))
    out = bench.execute(runs, 5)
    assert calls == [("list", [], False), ("hash", [], False), ("auto", [], False)]
    assert all("paired_list" not in o.record and "paired_with" not in o.record for o in out)


def test_engines_that_disagree_stop_the_bench():
    outs = fake_outcomes({"burst:4096": {"list": 20.0, "hash": 40.0}})
    a, b = (o.record for o in outs)
    bench._agree([a], b)
    b["outcomes"] = {"matches": 1}
    with pytest.raises(MpimatchError, match="engines disagree on burst:n=4096,rounds=8,seed=1") as info:
        bench._agree([a], b)
    assert info.value.exit_code == 1


def fake_doc() -> Dict[str, Any]:
    outs = fake_outcomes(TIMES)
    skipped = bench.plan([Item("any:n=8", ("hash",))], CAT)[0]
    outs.append(bench.Outcome(skipped, skipped="requires hints; the workload uses ANY_SOURCE"))
    return bench.document(QUICK, 5, bench.GEN, bench.now(), outs)


def test_document_shape():
    doc = fake_doc()
    assert {"tool", "version", "suite", "reps", "machine", "started", "records", "targets",
            "skipped"} <= set(doc)
    assert {"cpu", "cores", "os", "compiler"} <= set(doc["machine"])
    assert doc["skipped"] == [{"workload": "any:n=8,rounds=8,seed=1", "engine": "hash",
                               "reason": "requires hints; the workload uses ANY_SOURCE"}]
    json.loads(json.dumps(doc, allow_nan=False))


def test_csv_has_one_row_per_record():
    doc = fake_doc()
    rows = list(csv.reader(io.StringIO(csv_text(doc["records"]))))
    assert rows[0] == CSV_COLUMNS and len(rows) == 1 + len(doc["records"])
    assert rows[1][CSV_COLUMNS.index("run")] == "list"


def test_terminal_report_states_missed_targets():
    from rich.console import Console
    console = Console(width=250, record=True, file=io.StringIO())
    console.print(terminal_report(fake_doc()))
    text = console.export_text()
    assert "MISSED" in text and "burst n=4096: hash at most 1.1x slower" in text
    assert "10.00 ns" in text and "8.00 ns" in text and "1.2 B" in text   # ns/event, bytes
    assert "100.00×" in text and "not measured" in text
    # probes/op: both sides' slots / both sides' searches, and the most in one operation
    assert "probes/op" in text and "1.50/3" in text
    assert "skipped hash (requires hints; the workload uses ANY_SOURCE): any:n=8,rounds=8,seed=1" in text


def test_plots_and_self_contained_html(tmp_path):
    from mpimatch.bench.plots import plot_all
    doc = fake_doc()
    plots = plot_all(doc, tmp_path)
    names = [n for n, _ in plots]
    assert names[:3] == ["speedup-heatmap.png", "ns-vs-queue.png", "depth-vs-n.png"]
    assert "memory-vs-speedup.png" in names
    assert "sweep-f-shuffle-n.png" in names                    # n = 1024 and 4096
    for n in names:
        assert (tmp_path / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = html_report(doc, plots, tmp_path)
    assert html.count("data:image/png;base64,") == len(plots)
    assert "http" not in html.replace("http-equiv", "") and "<script" not in html
    assert "<link" not in html and 'class="missed">MISSED' in html


# ---------------------------------------------------------------- end to end (C tools)

@pytest.fixture(scope="module")
def quick(tmp_path_factory, replay_exe):
    d = tmp_path_factory.mktemp("bench")
    proc = run_cli("bench", "--suite", "quick", "--out", d / "out", "--json", d / "quick.json")
    assert proc.returncode == 0, proc.stderr
    return d, proc, json.loads((d / "quick.json").read_text())


def all_numbers(x: Any):
    if isinstance(x, dict):
        for v in x.values():
            yield from all_numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from all_numbers(v)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield x


def test_quick_suite_every_engine_on_every_workload_it_accepts(quick, engines):
    _, _, doc = quick
    specs_run = {r["workload"]["spec"] for r in doc["records"]} | {s["workload"] for s in doc["skipped"]}
    assert {s.split(":")[0] for s in specs_run} >= {"shuffle", "burst"}
    for spec in specs_run:
        ran = {r["engine"] for r in doc["records"] if r["workload"]["spec"] == spec}
        skipped = {s["engine"]: s["reason"] for s in doc["skipped"] if s["workload"] == spec}
        for e in engines:
            assert (e["name"] in ran) != (e["name"] in skipped), (spec, e["name"])
            if e["name"] in skipped:
                assert e["hints_required"] and "requires hints" in skipped[e["name"]]
    assert any(doc["skipped"]), "the quick suite has a wildcard workload"


def test_quick_suite_numbers_positive_and_finite(quick):
    _, _, doc = quick
    for r in doc["records"]:
        assert all(math.isfinite(v) and v >= 0 for v in all_numbers(r)), r
        assert all(bench.finite_positive(v) for v in r["ns_per_event"].values()), r
        assert bench.finite_positive(r["events_per_second"]) and bench.finite_positive(r["events"])
        assert r["ns_per_event"]["q1"] <= r["ns_per_event"]["median"] <= r["ns_per_event"]["q3"]
        assert r["reps"] == QUICK.reps and r["outcomes"]["matches"] > 0
        assert bench.finite_positive(r["peak_bytes"])
        if r["engine"] != "list":
            assert bench.finite_positive(r["speedup_vs_list"])


def test_quick_suite_targets_measured(quick):
    _, _, doc = quick
    assert [t["name"] for t in doc["targets"]] == [t.name for t in bench.TARGETS]
    for t in doc["targets"]:
        # collide's runs are in the default suite only, and so are tags'
        if t["name"].startswith("collide-") or t["name"] == "auto-tags-vs-list":
            assert t["met"] is None and t["note"].startswith("not measured"), t
            continue
        assert bench.finite_positive(t["measured"]) and t["met"] in (True, False), t
    # The targets' runs are paired: every engine but list timed list beside it,
    # and the targets are computed from that pair.
    recs = {(r["workload"]["name"], r["engine"]): r for r in doc["records"] if "targets" in r["figures"]}
    assert "paired_list" not in recs[("shuffle", "list")]
    for (w, e), r in recs.items():
        if e != "list":
            assert bench.finite_positive(r["paired_list"]["ns_per_event"]["median"]), r
    hash_r = recs[("shuffle", "hash")]
    want = hash_r["paired_list"]["ns_per_event"]["median"] / hash_r["ns_per_event"]["median"]
    got = next(t["measured"] for t in doc["targets"] if t["name"] == "shuffle-hash-speedup")
    assert got == pytest.approx(want)
    assert all("paired_list" not in r for r in doc["records"]
               if "targets" not in r["figures"] and r["engine"] not in bench.VS_BEST)
    # auto's runs time list and the fastest others beside them; its targets use those
    for r in doc["records"]:
        if r["engine"] == "auto":
            assert [p["run"] for p in r["paired_with"]][0] == "list" and len(r["paired_with"]) == 4
            assert all(bench.finite_positive(p["ns_per_event"]["median"]) for p in r["paired_with"])


def test_quick_suite_outputs(quick):
    d, proc, doc = quick
    out = d / "out"
    assert json.loads((out / "results.json").read_text())["records"] == doc["records"]
    assert doc["seed"] == 1       # every run's hashed engines hash with the lab's fixed seed
    # hash-table slots inspected (mm_qstats probes): hash and nm have tables, list none
    # (auto has them in its hash and nm phases: on shuffle n=4096, where it takes hash)
    for r in doc["records"]:
        probes = r["prq"]["probes"] + r["umq"]["probes"]
        hashed = r["engine"] in ("hash", "nm") or (
            r["engine"] == "auto" and r["workload"]["name"] == "shuffle")
        assert (probes > 0) == hashed, r["run"]
        assert r["prq"]["max_probes"] <= r["prq"]["probes"]
    rows = list(csv.DictReader(io.StringIO(csv_text(doc["records"]))))
    assert [int(row["prq_probes"]) > 0 for row in rows] == [
        r["prq"]["probes"] > 0 for r in doc["records"]]
    assert {r["engine_params"]["seed"] for r in doc["records"]
            if r["engine"] in ("hash", "nm", "bins", "adaptive")} == {1}
    assert len((out / "results.csv").read_text().splitlines()) == 1 + len(doc["records"])
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert "ns-vs-queue.png" in pngs and "memory-vs-speedup.png" in pngs
    assert (out / "report.html").read_text().count("data:image/png;base64,") == len(pngs)
    assert "speed-up" in proc.stdout and f"report: {out / 'report.html'}" in proc.stdout
    assert "[1/" in proc.stderr            # not a terminal: one line per finished run
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "temporary files left"


def test_stream_file_and_skips(tmp_path, replay_exe):
    tiny = REPO / "examples" / "tiny.mms"
    proc = run_cli("bench", "--stream", tiny, "--engines", "list,hash", "--reps", "1",
                   "--out", tmp_path / "o", "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "o" / "results.json").read_text())
    assert [r["run"] for r in doc["records"]] == ["list"] and doc["suite"] == "custom"
    assert doc["skipped"][0]["engine"] == "hash" and "uses ANY_SOURCE" in doc["skipped"][0]["reason"]
    assert "[1/" not in proc.stderr                           # --quiet


@pytest.mark.parametrize("args, says", [
    (["--workload", "nosuch"], "unknown workload 'nosuch'; known: "),
    (["--workload", "shuffle:n=0"], "out of range"),
    (["--workload", "shuffle:size=3"], "unknown parameter 'size'; parameters: n"),
    (["--engines", "list,nosuch"], "unknown engine 'nosuch'; known: list, rank"),
    (["--param", "bins:bins=0"], "bins=0 is out of range 1..1048576"),
    (["--param", "bins"], "expected ENGINE:KEY=VALUE"),
    (["--suite", "quick", "--workload", "burst"], "not both"),
    (["--reps", "0"], "--reps must be >= 1"),
    (["--stream", "/nonexistent.mms"], "no such stream file"),
])
def test_bad_input_exit_2_before_any_work(tmp_path, replay_exe, args, says):
    proc = run_cli("bench", *args, "--out", tmp_path / "o")
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_unwritable_outputs_fail_first(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for args in (["--out", blocker / "sub"], ["--out", tmp_path / "o", "--json", tmp_path / "no" / "x.json"]):
        proc = run_cli("bench", "--suite", "quick", *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "[1/" not in proc.stderr


def test_speedup_heatmap_marks_the_best_and_ties_within_noise():
    """The report's first picture: speed-up against list, workload by engine; the best of a
    row is marked, and so is every engine whose q1-q3 spread overlaps the best's (a tie)."""
    from mpimatch.bench.plots import heatmap_cells
    doc = fake_doc()
    records = [r for r in doc["records"] if r["ns_per_event"]["median"]]
    rows, cols, values, marks = heatmap_cells(records)
    assert sorted(cols) == ["bins", "hash", "list"]
    c = {n: cols.index(n) for n in cols}
    i = rows.index("shuffle:n=4096,rounds=8,seed=1")
    assert values[i][c["list"]] == pytest.approx(1.0)
    assert values[i][c["hash"]] == pytest.approx(100.0)
    assert values[i][c["bins"]] == pytest.approx(20.0)
    assert [marks[i][c[n]] for n in ("list", "hash", "bins")] == ["", "best", ""]
    j = rows.index("burst:n=4096,rounds=8,seed=1")
    assert values[j][c["bins"]] is None and marks[j][c["list"]] == "best"
    # make bins' spread overlap hash's on shuffle n=4096: a tie, not a loss
    for r in records:
        if r["workload"]["spec"] == rows[i] and r["run"] in ("hash", "bins"):
            r["ns_per_event"].update({"q1": 8.0, "q3": 60.0})
    m = heatmap_cells(records)[3][i]
    assert [m[c[n]] for n in ("list", "hash", "bins")] == ["", "best", "tie"]


def dozen_engine_records() -> List[Dict[str, Any]]:
    """The fake document's records, with bins' runs repeated for every engine of the
    library but list and hash (list and hash keep their own): a dozen engine runs."""
    import copy
    from mpimatch.bench.plots import ENGINE_COLOURS
    records = [r for r in fake_doc()["records"] if r["ns_per_event"]["median"]]
    out = [r for r in records if r["run"] in ("list", "hash")]
    for name in ENGINE_COLOURS:
        if name in ("list", "hash"):
            continue
        for r in records:
            if r["run"] == "bins":
                r = copy.deepcopy(r)
                r["run"] = r["engine"] = name
                out.append(r)
    out.append({**copy.deepcopy(out[-1]), "run": "bins:bins=16", "engine": "bins"})
    return out


def test_plots_keep_a_dozen_engines_apart():
    """Every plot but the heat map is small multiples: one panel per engine run (list's
    own too, except memory-vs-speedup, where list is the 1x line), axes shared, the list
    baseline in grey in every other panel, one legend outside the panels, and each
    engine in one colour in every plot."""
    from matplotlib.colors import to_rgba
    import matplotlib.pyplot as plt
    from mpimatch.bench import plots
    records = dozen_engine_records()
    runs = list(dict.fromkeys(r["run"] for r in records))
    # every engine once, and bins:bins=16
    assert len(runs) == 14 and len(set(plots.ENGINE_COLOURS.values())) == len(plots.ENGINE_COLOURS)
    grey = to_rgba(plots.BASE_STYLE["color"])

    def colours(ax):
        out = {tuple(c) for coll in ax.collections for c in coll.get_edgecolor()}
        return out | {to_rgba(line.get_color()) for line in ax.get_lines()}

    def check(fig, want_runs, blocks=1):
        axes = fig.axes
        assert len(axes) == blocks * len(want_runs)
        for b in range(blocks):
            panel = axes[b * len(want_runs):(b + 1) * len(want_runs)]
            assert [ax.get_title() for ax in panel] == want_runs
            for ax, run in zip(panel, want_runs):
                engine = next(r["engine"] for r in records if r["run"] == run)
                assert to_rgba(ax.title.get_color()) == to_rgba(plots.engine_colour(engine))
                got = colours(ax)
                assert to_rgba(plots.engine_colour(engine)) in got, run
                assert (grey in got) == (run != "list"), run      # the baseline, elsewhere
                assert ax.get_legend() is None
                assert panel[0].get_shared_x_axes().joined(panel[0], ax)
                assert panel[0].get_shared_y_axes().joined(panel[0], ax)
        assert len(fig.legends) == 1
        # four panels a row: 13 runs take four rows, the last holding one
        rows = {round(ax.get_position().y0, 3) for ax in axes[:len(want_runs)]}
        assert len(rows) == -(-len(want_runs) // plots.PANEL_COLUMNS)
        plt.close(fig)

    check(plots.figure_ns_vs_queue(records), runs)
    check(plots.figure_depth_vs_n(records), runs)
    check(plots.figure_memory_vs_speedup(records), [r for r in runs if r != "list"])
    sweep_key, sweep_rs = next((k, v) for k, v in plots.sweeps(records).items() if k[1] == "shuffle")
    check(plots.figure_sweep(sweep_key, sweep_rs), list(dict.fromkeys(r["run"] for r in sweep_rs)),
          blocks=2)
    # an engine the table does not know gets a colour, the same each time
    assert plots.engine_colour("new-engine") == plots.engine_colour("new-engine")
