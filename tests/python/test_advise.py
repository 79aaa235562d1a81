"""The matching profiler (mpimatch-replay --match-profile), the features, `mpimatch advise`
and `mpimatch train` (docs/advise.md)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run, run_cli
from mpimatch import tools
from mpimatch.advise import dataset as ds
from mpimatch.advise import model as mdl
from mpimatch.advise.features import FEATURES, Pool, profile_stream

# Five events whose list-semantics walk is worked out by hand:
#   R1 (tag 5) searches the empty UMQ: failure, 0 elements; PRQ [R1]
#   R2 (tag 6): failure, 0; PRQ [R1 R2]
#   M3 (tag 6, 100 B) searches the PRQ: R1 no, R2 yes: success, 2; PRQ [R1]
#   M4 (tag 7, 300 B): R1 no: failure, 1; UMQ [M4]
#   R5 (tag 7) searches the UMQ: M4 yes: success, 1; UMQ []
HAND = """# mpimatch stream v1
# np=2
R 1 0 1 5 bytes=10
R 2 0 1 6 bytes=10
M 3 0 1 6 bytes=100
M 4 0 1 7 bytes=300
R 5 0 1 7 bytes=10
"""


@pytest.fixture()
def hand(tmp_path: Path) -> Path:
    p = tmp_path / "hand.mms"
    p.write_text(HAND)
    return p


def profile(stream: Path, *extra: str) -> dict:
    out = stream.with_suffix(".profile.json")
    r = run([tools.find_tool(tools.REPLAY), stream, "--match-profile", out, *extra])
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


def test_profile_hand_made_stream(hand: Path) -> None:
    p = profile(hand)
    t = p["total"]
    assert (t["attempts"], t["successes"], t["failures"]) == (5, 2, 3)
    assert (t["prq_attempts"], t["prq_successes"], t["umq_attempts"], t["umq_successes"]) == (2, 1, 3, 1)
    ds_ = t["depth_success"]                      # [2, 1]
    assert (ds_["count"], ds_["mean"], ds_["var"], ds_["std"]) == (2, 1.5, 0.25, 0.5)
    assert (ds_["min"], ds_["q1"], ds_["median"], ds_["q3"], ds_["max"]) == (1, 1.25, 1.5, 1.75, 2)
    df = t["depth_failure"]                       # [0, 0, 1]
    assert df["count"] == 3 and df["mean"] == pytest.approx(1 / 3) and df["median"] == 0
    assert df["var"] == pytest.approx(2 / 9)
    b = t["bytes"]                                # the messages: [100, 300]
    assert (b["mean"], b["std"], b["min"], b["max"]) == (200, 100, 100, 300)
    assert t["prq_length"]["max"] == 2 and t["prq_length"]["mean"] == pytest.approx(6 / 5)
    assert t["umq_length"]["mean"] == pytest.approx(1 / 5)
    assert t["distributions"]["depth_failure"] == [[0, 2], [1, 1]]
    assert t["distributions"]["prq_length"] == [[1, 4], [2, 1]]


def test_profile_phases(hand: Path) -> None:
    p = profile(hand, "--phase-events", "2")
    assert p["phase_events"] == 2
    phases = p["phases"]
    assert [ph["first_event"] for ph in phases] == [0, 2, 4]
    assert [ph["events"] for ph in phases] == [2, 2, 1]
    assert [ph["successes"] for ph in phases] == [0, 1, 1]
    assert phases[0]["depth_success"]["count"] == 0 and phases[0]["depth_success"]["mean"] is None
    assert phases[1]["depth_success"]["mean"] == 2 and phases[1]["depth_failure"]["mean"] == 1
    assert sum(ph["attempts"] for ph in phases) == p["total"]["attempts"]


def test_pool_matches_the_c_statistics_and_merges_exactly(hand: Path) -> None:
    prof = profile_stream(hand)
    one = Pool().add(prof)
    for d in ("depth_success", "depth_failure", "bytes", "prq_length", "umq_length"):
        for k in ("count", "mean", "var", "q1", "median", "q3", "max"):
            assert one.stats(d)[k] == pytest.approx(prof["total"][d][k]), (d, k)
    two = Pool().add(prof).add(prof)   # two identical ranks: same statistics, twice the counts
    assert two.counts["attempts"] == 10 and two.ranks == 2
    assert two.stats("depth_success")["q1"] == 1.0   # [1, 1, 2, 2]: quartiles of the merged data
    assert two.stats("depth_success")["mean"] == 1.5
    assert len(two.vector()) == len(FEATURES) == len(one.vector())


def test_label_rule() -> None:
    assert ds.label_of({"list": 100, "hash": 96, "bins": 97}) == "list"        # under 5 %
    assert ds.label_of({"list": 100, "hash": 80, "bins": 82}) == "bins"        # tie: preference
    assert ds.label_of({"list": 100, "hash": 70, "bins": 90}) == "hash"
    assert ds.label_of({"list": 100, "rank": 50, "bins": 94}) == "rank"


def advise(*args: str) -> dict:
    r = run_cli("advise", *args, "--json", "-")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_advise_clear_cut_cases() -> None:
    deep = advise("--workload", "pingpong:n=200,bytes=1,iters=1024")
    assert deep["engine"] in ("hash", "bins", "nm"), deep["scores"]
    assert deep["expected_gain"]["median"] > 0.05
    tiny = advise("--workload", "burst:n=4,rounds=8")
    assert tiny["engine"] == "list", tiny["scores"]
    assert tiny["profile"]["distributions"]["depth_success"]["max"] == 1


def test_advise_never_recommends_hash_when_its_hints_fail(tmp_path: Path) -> None:
    a = advise("--workload", "any:n=4096,rounds=1")
    assert a["engine"] != "hash" and a["scores"].get("hash", 0) == 0
    assert not a["profile"]["hints_hold"]


def test_advise_stream_directory_pools_the_ranks(tmp_path: Path, hand: Path) -> None:
    d = tmp_path / "streams"
    d.mkdir()
    for r in range(3):
        (d / f"rank-{r:06d}.mms").write_text(HAND)
    a = advise(str(d), "--per-rank")
    assert a["profile"]["ranks"] == 3 and a["profile"]["counts"]["attempts"] == 15
    assert len(a["ranks"]) == 3 and all(r["engine"] == a["engine"] for r in a["ranks"])
    text = run_cli("advise", str(hand))
    assert text.returncode == 0 and "recommended engine" in text.stdout


@pytest.mark.parametrize("args, message", [
    (["nowhere.mms"], "nowhere.mms: no such file or directory"),
    ([], "give TRACE|STREAMS or --workload SPEC"),
    (["--workload", "nosuch:n=1"], "nosuch"),
])
def test_advise_bad_input(args: list, message: str) -> None:
    r = run_cli("advise", *args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_advise_bad_stream_and_model(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mms"
    bad.write_text("# mpimatch stream v1\nR 1 0 1 5\nQ 2\n")
    r = run_cli("advise", str(bad))
    assert r.returncode == 2 and "bad.mms:3" in r.stderr
    model = tmp_path / "model.json"
    model.write_text('{"format": "something else"}')
    r = run_cli("advise", "--workload", "burst:n=4", "--model", str(model))
    assert r.returncode == 2 and "not an mpimatch advise model" in r.stderr


def test_shipped_model_agrees_with_its_dataset() -> None:
    """The shipped model predicts the shipped dataset's labels mostly right (it was fitted
    on them) and evaluates with numpy alone."""
    m = mdl.load()
    data = ds.load(Path(mdl.__file__).with_name("dataset.json"))
    assert m.data["features"] == list(FEATURES)
    x = [[s["features"][f] for f in FEATURES] for s in data["samples"]]
    y = [s["label"] for s in data["samples"]]
    for kind in mdl.KINDS:
        hits = sum(a == b for a, b in zip(m.predict(x, kind), y))
        assert hits >= 0.8 * len(y), kind


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = ds.build({}, reps=1, quick=True)
    path = tmp_path_factory.mktemp("train") / "dataset.json"
    path.write_text(ds.dumps(data))
    return path


def test_train_is_deterministic(small_dataset: Path, tmp_path: Path) -> None:
    from mpimatch.advise import train as tr
    a = tmp_path / "a.json"
    r = run_cli("train", "--dataset", small_dataset, "--out", a, "--seed", "7")
    assert r.returncode == 0, r.stderr
    data = ds.load(small_dataset)
    assert tr.dumps(tr.train(data, 7)).encode() == a.read_bytes()    # the same, in this process
    m = mdl.load(a)
    assert m.data["seed"] == 7 and set(m.classes) >= {"list"}
    x = [[s["features"][f] for f in FEATURES] for s in data["samples"]]
    assert m.predict(x, "logistic") == [s["label"] for s in data["samples"]]


def test_train_bad_input(tmp_path: Path) -> None:
    r = run_cli("train", "--dataset", tmp_path / "none.json", "--out", tmp_path / "m.json")
    assert r.returncode == 2 and "none.json: no such dataset file" in r.stderr
    r = run_cli("train", "--quick", "--out", tmp_path / "m.json")
    assert r.returncode == 2 and "add --build" in r.stderr
    assert not (tmp_path / "m.json").exists()


MPIBENCH = Path(__file__).resolve().parents[2] / "build" / "bin" / "mpimatch-mpibench"


def test_provider_profile_feeds_advise(tmp_path: Path) -> None:
    """FI_MPIMATCH_PROFILE (mpimatch run --profile): the paper's ping-pong with 100 dead
    receives, run on the provider with the rank engine, records every matching operation;
    advise then sees N+1 elements per success (list semantics) and recommends switching."""
    from mpimatch import mpistack
    stack = mpistack.Stack("mpimatch", "", ())
    why = mpistack.unavailable(stack)
    if why or not MPIBENCH.is_file():
        pytest.skip(why or f"{MPIBENCH} is not built")
    prof = tmp_path / "prof"
    r = run_cli("run", "--engine", "rank", "--profile", str(prof), "--", mpistack.MPIRUN,
                *mpistack.MPIRUN_BASE, "-np", "2", str(MPIBENCH),
                "pingpong:dead=100,iters=100,reps=1")
    assert r.returncode == 0, r.stdout + r.stderr
    files = sorted(prof.glob("mpimatch-fi-*.mms"))
    assert len(files) == 2 and not list(prof.glob("*.tmp"))
    assert all(run([tools.find_tool(tools.STREAM), "check", f]).returncode == 0 for f in files)
    a = advise(str(prof))
    assert a["profile"]["ranks"] == 2
    assert a["profile"]["distributions"]["depth_success"]["median"] == 101
    assert a["engine"] in ("hash", "bins", "nm")


def test_e2e_group_on_the_provider(tmp_path: Path) -> None:
    """--build --e2e --only e2e: the ping-pong run as an MPI program on the provider with
    list and bins (quick: 0 and 200 dead receives), profiled at run time (list semantics:
    200 dead receives are 201 elements per success) and labelled from the runs' times; the
    other samples of the dataset stay as they were, in their places."""
    from mpimatch import mpistack
    why = mpistack.unavailable(mpistack.Stack("mpimatch", "", ()))
    if why or not MPIBENCH.is_file():
        pytest.skip(why or f"{MPIBENCH} is not built")
    old = tmp_path / "dataset.json"
    base = ds.build({}, reps=1, quick=True)
    old.write_text(ds.dumps(base))
    r = run_cli("train", "--build", "--quick", "--e2e", "--only", "e2e", "--reps", "1",
                "--dataset", old, "--out", tmp_path / "m.json", "--report", tmp_path / "r.md")
    assert r.returncode == 0, r.stdout + r.stderr
    data = ds.load(old)
    assert data["samples"][:len(base["samples"])] == base["samples"]
    e2e = data["samples"][len(base["samples"]):]
    assert [s["name"] for s in e2e] == [
        "mpibench pingpong:dead=0,size=8,iters=500,reps=1",
        "mpibench pingpong:dead=200,size=8,iters=500,reps=1"]
    for s in e2e:
        assert s["group"] == "e2e" and s["kind"] == "application"
        assert set(s["times_ns"]) == {"list", "bins"} and min(s["times_ns"].values()) > 0
        assert s["label"] == ds.label_of(s["times_ns"])
    assert e2e[0]["counts"]["successes"] > 500 and e2e[1]["counts"]["successes"] > 500
    assert e2e[1]["features"]["depth_success.median"] > e2e[0]["features"]["depth_success.median"]
    report = (tmp_path / "r.md").read_text()
    assert "end-to-end ping-pong samples" in report and "| 200 |" in report


def test_train_only_bad_input(tmp_path: Path) -> None:
    r = run_cli("train", "--e2e", "--out", tmp_path / "m.json")
    assert r.returncode == 2 and "add --build" in r.stderr
    r = run_cli("train", "--build", "--quick", "--only", "nosuch", "--out", tmp_path / "m.json")
    assert r.returncode == 2 and "no group nosuch" in r.stderr and "pingpong" in r.stderr
    assert not (tmp_path / "m.json").exists()


def test_replace_groups_keeps_the_order() -> None:
    old = {"features": ["f"], "phase_events": 8, "samples": [
        {"name": n, "group": g} for n, g in (("a1", "a"), ("b1", "b"), ("b2", "b"), ("c1", "c"))]}
    new = {"features": ["f"], "phase_events": 8, "samples": [
        {"name": "b9", "group": "b"}, {"name": "e1", "group": "e"}]}
    out = ds.replace_groups(old, new, ["b", "e"])
    assert [s["name"] for s in out["samples"]] == ["a1", "b9", "c1", "e1"]
    with pytest.raises(Exception, match="phase_events differ"):
        ds.replace_groups(old, {**new, "phase_events": 9}, ["b"])


TEST_PROVIDER = Path(__file__).resolve().parents[2] / "build" / "bin" / "test_provider"


@pytest.mark.parametrize("case, types", [("cancel", "RMC"), ("peek", "MPX")])
def test_provider_profile_streams_are_valid(case: str, types: str, tmp_path: Path) -> None:
    """Receives, messages, cancels, probes and matched probes of the provider's own C tests
    come out as streams that mpimatch-stream accepts."""
    import os
    from mpimatch import mpistack
    lib = mpistack.provider_library()
    if lib is None or not TEST_PROVIDER.is_file():
        pytest.skip("the provider is not built")
    env = {**os.environ, "FI_PROVIDER_PATH": str(lib.parent), "FI_PROVIDER": "mpimatch",
           "FI_MPIMATCH_PROFILE": str(tmp_path)}
    r = run([TEST_PROVIDER, case], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    files = sorted(tmp_path.glob("mpimatch-fi-*.mms"))
    assert files
    seen = set()
    for f in files:
        assert run([tools.find_tool(tools.STREAM), "check", f]).returncode == 0, f
        seen |= {line[0] for line in f.read_text().splitlines() if line and line[0] != "#"}
    assert set(types) <= seen, seen


def test_replay_command_writes_the_profile(hand: Path, tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    r = run_cli("replay", str(hand), "--match-profile", str(out), "--phase-events", "2")
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["phase_events"] == 2
    r = run_cli("replay", str(tmp_path), "--match-profile", str(out))
    assert r.returncode == 2 and "mpimatch advise" in r.stderr
    r = run_cli("replay", str(hand), "--match-profile", str(tmp_path / "no" / "p.json"))
    assert r.returncode == 2 and "cannot write" in r.stderr


def test_e2e_apps_paired_label() -> None:
    """The end-to-end application rule: a switch only when an engine beat the list runs
    around it by 5 % in every round (paired); then the dataset's preference on the medians;
    else list, with a note telling noise from a list that wins every round."""
    from mpimatch.advise import e2e_apps
    lab, note = e2e_apps.paired_label(
        {"list": [1.0, 1.2, 1.0, 1.1], "bins": [0.9, 1.0, 0.94], "hash": [0.8, 0.9, 0.9]},
        {"bins": [1.0, 1.1, 1.0], "hash": [1.0, 1.1, 1.0]}, ds.label_of)
    assert lab == "bins" and "bins, hash at least 5% faster" in note   # bins within 5 % of hash
    lab, note = e2e_apps.paired_label({"list": [1.0] * 3, "bins": [0.8, 1.2]},
                                      {"bins": [1.0, 1.1]}, ds.label_of)
    assert lab == "list" and "within noise" in note and "bins 0.80-1.09" in note
    lab, note = e2e_apps.paired_label({"list": [1.0] * 3, "nm": [1.1, 1.2]},
                                      {"nm": [1.0, 1.0]}, ds.label_of)
    assert lab == "list" and "slower than list in all 2 rounds" in note
    with pytest.raises(Exception, match="one list reference per run"):
        e2e_apps.paired_label({"list": [1.0, 1.0], "nm": [1.1]}, {"nm": []}, ds.label_of)


def test_e2e_apps_schedule() -> None:
    """Every run of another engine sits between two list runs; the others' order rotates
    by one each round, so no engine runs twice in a row and each takes every place."""
    from mpimatch.advise import e2e_apps
    order = e2e_apps.schedule(["list", "bins", "hash", "nm"], 3)
    assert order[::2] == ["list"] * 10
    assert order[1::2] == ["bins", "hash", "nm", "hash", "nm", "bins", "nm", "bins", "hash"]
    assert e2e_apps.schedule(["list"], 2) == ["list"]


def test_e2e_apps_inputs_and_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """HPCC's grid is set in its input; LAMMPS is timed by its own "Loop time" line, HPCC
    by the wall time; a run without its timer line or that fails is an error."""
    from mpimatch import mpistack
    from mpimatch.advise import e2e_apps
    text = e2e_apps.hpcc_input(2, 2, 400)
    assert "\n400          Ns\n" in text and "\n2            Ps\n2            Qs\n" in text
    assert "\n1000         Ns\n" in e2e_apps.hpcc_input(1, 2)
    with pytest.raises(Exception, match="no 'Ns', 'Ps' and 'Qs'"):
        e2e_apps.hpcc_input(1, 2, text="nothing here\n")
    lmp, hpcc = e2e_apps.apps()[0], e2e_apps.apps()[-1]
    assert lmp.np == 2 and lmp.argv[0] == "lmp" and hpcc.np == 4 and hpcc.timer is None
    outcome = {"code": 0, "stdout": "Loop time of 1.25 on 2 procs for 100 steps\n"}
    seen = []

    def fake_run(stack, np, argv, timeout, cwd=None, **kw):
        seen.append(sorted(p.name for p in Path(cwd).iterdir()))
        return mpistack.Outcome(stack.name, ["mpirun", *argv], outcome["code"],
                                outcome["stdout"], "boom", 7.5, timeout)
    monkeypatch.setattr(mpistack, "run", fake_run)
    stack = mpistack.Stack("mpimatch:list", "", ())
    assert e2e_apps.launch(stack, lmp)[0] == 1.25
    assert e2e_apps.launch(stack, hpcc)[0] == 7.5 and seen[-1] == ["hpccinf.txt"]
    outcome["stdout"] = "no timer\n"
    with pytest.raises(Exception, match="no timer line"):
        e2e_apps.launch(stack, lmp)
    outcome["code"] = 1
    with pytest.raises(Exception, match="exit status 1.*boom"):
        e2e_apps.launch(stack, hpcc)


def test_e2e_apps_group_in_the_dataset(tmp_path: Path, hand: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """train --build --quick --e2e-apps --only e2e_apps (runs faked: no application is
    started): one untimed profile run, then bins between list runs, twice; the sample joins the dataset after the others, with its rounds, label and note,
    and the report shows it."""
    from mpimatch import mpistack
    from mpimatch.advise import e2e_apps
    from mpimatch.cli import main
    order = []

    list_times = iter([2.0, 2.2, 1.8])

    def fake_launch(stack, app, env_extra=()):
        order.append(stack.engine)
        return (next(list_times) if stack.engine == "list" else 1.8), None
    monkeypatch.setattr(e2e_apps, "launch", fake_launch)
    monkeypatch.setattr(e2e_apps, "profile",
                        lambda app, phase_events: Pool().add(profile_stream(hand, phase_events)))
    monkeypatch.setattr(mpistack, "unavailable", lambda stack: None)
    monkeypatch.setattr(mpistack, "provider_library", lambda: tmp_path / "libmpimatch-fi.so")
    old = tmp_path / "dataset.json"
    base = ds.build({}, reps=1, quick=True)
    old.write_text(ds.dumps(base))
    assert main(["train", "--build", "--quick", "--e2e-apps", "--only", "e2e_apps", "--reps", "1",
                 "--dataset", str(old), "--out", str(tmp_path / "m.json"),
                 "--report", str(tmp_path / "r.md")]) == 0
    assert order == ["list", "bins", "list", "bins", "list"]
    data = ds.load(old)
    assert data["samples"][:len(base["samples"])] == base["samples"]
    (s,) = data["samples"][len(base["samples"]):]
    assert (s["name"], s["group"], s["kind"], s["np"], s["timer"]) == \
        ("lammps lj 4000 atoms np2", "e2e_apps", "application", 2, "loop")
    assert s["runs_s"] == {"list": [2.0, 2.2, 1.8], "bins": [1.8, 1.8]}
    assert s["list_ref_s"] == {"bins": [2.1, 2.0]}     # the list runs on either side
    assert s["times_ns"] == {"list": 2e9, "bins": 1.8e9} and s["label"] == "bins"
    assert "bins at least 5% faster than list in all 2 rounds" in s["note"]
    assert s["counts"]["events"] == 5
    assert "| lammps lj 4000 atoms np2 | loop | 2.000 | 1.800 | bins |" in (tmp_path / "r.md").read_text()
    assert "hash" not in order    # the profile had no wildcard, but quick runs list and bins


def test_e2e_apps_needs_build(tmp_path: Path) -> None:
    r = run_cli("train", "--e2e-apps", "--out", tmp_path / "m.json")
    assert r.returncode == 2 and "add --build" in r.stderr
