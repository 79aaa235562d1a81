"""mpimatch-replay --entries: where each call's entry comes from.

Behaviour only (never timing values): with entries written field by field just
before each call (fresh) every engine gives the outcomes and statistics it gives
with the stream's entries (array); the JSON and the table say which was used, and
a bad value or an option it cannot go with is refused."""
import json

import pytest

from conftest import REPO, run, run_cli

STREAM = REPO / "examples" / "mixed-wildcards.mms"


def replay(replay_exe, tmp_path, *extra, source=(str(STREAM),), engines="all"):
    out, matches = tmp_path / "r.json", tmp_path / "m.txt"
    proc = run([replay_exe, *source, "--engine", engines, "--reps", "2", "--json", out,
                "--matches", matches, "--quiet", *extra])
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), matches.read_text()


@pytest.mark.parametrize("source, engines", [
    ((str(STREAM),), "all"),                               # wildcards, probes, cancels
    (("--workload", "shuffle:n=256,rounds=2"), "list,hash,nm,simd,bins,auto"),
    (("--workload", "allreduce:n=8,rank=1,calls=20"), "all"),       # collective annotations
])
def test_fresh_entries_give_the_same_answers(replay_exe, tmp_path, source, engines):
    array, array_matches = replay(replay_exe, tmp_path, source=source, engines=engines)
    fresh, fresh_matches = replay(replay_exe, tmp_path, "--entries", "fresh", source=source,
                                  engines=engines)
    assert array["entries"] == "array" and fresh["entries"] == "fresh"
    assert fresh_matches == array_matches
    assert [r["engine"] for r in fresh["results"]] == [r["engine"] for r in array["results"]]
    for a, b in zip(array["results"], fresh["results"]):
        assert a["outcomes"] == b["outcomes"]
        assert a["stats"]["prq"] == b["stats"]["prq"] and a["stats"]["umq"] == b["stats"]["umq"]
        assert b["floor_ns_per_event"] > 0


def test_the_table_says_fresh(replay_exe):
    proc = run([replay_exe, str(STREAM), "--engine", "list", "--reps", "1", "--entries", "fresh"])
    assert proc.returncode == 0, proc.stderr
    assert "entries written fresh before each call" in proc.stdout
    plain = run([replay_exe, str(STREAM), "--engine", "list", "--reps", "1"])
    assert "fresh" not in plain.stdout


@pytest.mark.parametrize("extra, says", [
    (["--entries", "stack"], "--entries: 'stack' is not array or fresh"),
    (["--entries", "fresh", "--paths"], "--entries fresh times the calls as a whole: not with --paths"),
    (["--entries", "fresh", "--classes"], "not with --classes"),
])
def test_refused(replay_exe, extra, says):
    proc = run([replay_exe, str(STREAM), "--engine", "list", *extra])
    assert proc.returncode == 2
    assert says in proc.stderr


def test_the_python_cli_passes_it_on(tmp_path):
    out = tmp_path / "r.json"
    proc = run_cli("replay", str(STREAM), "--engine", "list", "--reps", "1",
                   "--entries", "fresh", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["entries"] == "fresh"
