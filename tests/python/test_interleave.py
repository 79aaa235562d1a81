"""mpimatch-replay --interleave: the engines' repetitions are taken in turn.

Behaviour only (never timing values): every engine reports a result, the
outcomes are the same as without interleaving, the JSON says so, and the
options it cannot go with are refused."""
import json

import pytest

from conftest import run

WORKLOAD = "shuffle:n=64,rounds=2"


def replay_json(replay_exe, tmp_path, *extra):
    out = tmp_path / "r.json"
    matches = tmp_path / "m.txt"
    proc = run([replay_exe, "--workload", WORKLOAD, "--engine", "list,hash,nm,rank",
                "--reps", "3", "--json", out, "--matches", matches, "--quiet", *extra])
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), matches.read_text()


def test_interleaved_runs_every_engine_with_the_same_outcomes(replay_exe, tmp_path):
    plain, plain_matches = replay_json(replay_exe, tmp_path)
    inter, inter_matches = replay_json(replay_exe, tmp_path, "--interleave")
    assert plain["interleaved"] is False and inter["interleaved"] is True
    assert [r["engine"] for r in inter["results"]] == ["list", "hash", "nm", "rank"]
    assert inter_matches == plain_matches
    for a, b in zip(plain["results"], inter["results"]):
        assert a["outcomes"] == b["outcomes"]
        assert a["stats"]["prq"]["searches"] == b["stats"]["prq"]["searches"]
        ns = b["ns_per_event"]
        assert 0 < ns["min"] <= ns["q1"] <= ns["median"] <= ns["q3"]


@pytest.mark.parametrize("extra, says", [
    (["--paths"], "--interleave takes the engines' repetitions in turn: it needs --engine, not --paths"),
    (["--list"], "not --list"),
])
def test_interleave_refuses_what_it_cannot_go_with(replay_exe, extra, says):
    proc = run([replay_exe, "--workload", WORKLOAD, "--engine", "list,hash", "--interleave", *extra])
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr


def test_interleave_needs_engines(replay_exe):
    proc = run([replay_exe, "--workload", WORKLOAD, "--interleave"])
    assert proc.returncode == 2 and "it needs --engine" in proc.stderr, proc.stderr
