"""The kmeans engine's two phases: mpimatch profile -> mpimatch cluster -> replay."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from conftest import run, run_cli
from mpimatch.clustering import cluster_profile, kmeans, load_profile, modelled_cost
from mpimatch.errors import MpimatchError


def make_stream(path: Path, np_: int = 12, any_source: bool = True, seed: int = 3) -> Path:
    """Hot peers 1 and 5 send bursts (20 and 35 messages a phase) taken in random
    tag order; the others one message each, taken by ANY_SOURCE receives (or
    specific ones)."""
    rng = random.Random(seed)
    lines = ["# mpimatch stream v1", f"# np={np_}"]
    i = 0
    for _ in range(6):
        burst = {1: 20, 5: 35}
        for t in range(35):
            for h in (1, 5):
                if t < burst[h]:
                    lines.append(f"M {i} 0 {h} {t}")
                    i += 1
        cold = [p for p in range(np_) if p not in (1, 5)]
        for p in cold:
            lines.append(f"M {i} {p % 2} {p} 3")
            i += 1
        for h in (1, 5):
            tags = list(range(burst[h]))
            rng.shuffle(tags)
            for t in tags:
                lines.append(f"R {i} 0 {h} {t}")
                i += 1
        for p in cold:
            src = "*" if any_source else str(p)
            lines.append(f"R {i} {p % 2} {src} 3")
            i += 1
    path.write_text("\n".join(lines) + "\n")
    return path


def profile(tmp_path: Path, stream: Path) -> Path:
    out = tmp_path / "p.json"
    proc = run_cli("profile", stream, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


def test_profile_cluster_replay_end_to_end(tmp_path, replay_exe):
    stream = make_stream(tmp_path / "s.mms")
    prof = profile(tmp_path, stream)
    data = load_profile(prof)
    r = data["receivers"][0]
    assert data["np"] == 12 and r["umq_added"][1] == 120 and r["umq_added"][5] == 210
    assert r["any_source"]["umq_searches"] == 60
    clusters = tmp_path / "c.txt"
    proc = run_cli("cluster", prof, "--k", "3", "--out", clusters)
    assert proc.returncode == 0, proc.stderr
    text = clusters.read_text()
    assert text.startswith("mpimatch-clusters 1\n") and "\nnp 12\nk 3\nreceiver 0\n" in text
    # list and kmeans with the clusters must agree (replay exits 1 otherwise)
    js = tmp_path / "r.json"
    proc = run([replay_exe, stream, "--engine", "list,kmeans", "--param",
                f"kmeans:clusters={clusters}", "--reps", "1", "--json", js, "-q"])
    assert proc.returncode == 0, proc.stderr
    res = {x["engine"]: x for x in json.loads(js.read_text())["results"]}
    assert res["kmeans"]["params"]["clusters"] == str(clusters)
    assert res["kmeans"]["stats"]["umq"]["max_queues"] == 3
    assert res["kmeans"]["outcomes"] == res["list"]["outcomes"]


def test_model_is_exact_without_any_source(tmp_path, replay_exe):
    """Without ANY_SOURCE receives the modelled cost is the engine's traversal."""
    stream = make_stream(tmp_path / "s.mms", any_source=False)
    data = load_profile(profile(tmp_path, stream))
    r = data["receivers"][0]
    single = sum(r["prq_traversed"]) + sum(r["umq_traversed"])
    for k in (1, 2, 4):
        c = cluster_profile(data, k)
        assert modelled_cost(r, np.zeros(12, dtype=np.int64), 1) == single
        clusters = tmp_path / f"c{k}.txt"
        from mpimatch.clustering import cluster_text
        clusters.write_text(cluster_text(data, c, "test"))
        js = tmp_path / f"r{k}.json"
        proc = run([replay_exe, stream, "--engine", "kmeans", "--param", f"clusters={clusters}",
                    "--reps", "1", "--json", js, "-q"])
        assert proc.returncode == 0, proc.stderr
        st = json.loads(js.read_text())["results"][0]["stats"]
        assert st["prq"]["traversed"] + st["umq"]["traversed"] == c.cost


def test_kmeans_is_deterministic_and_separates_groups():
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(100, 1, (5, 2)),
                   rng.normal(50, 1, (10, 2))])
    a, b = kmeans(x, 3, seed=4), kmeans(x, 3, seed=4)
    assert np.array_equal(a, b)
    assert a[0] == 0                                 # numbered by first appearance
    assert len(set(a[:20])) == len(set(a[20:25])) == len(set(a[25:])) == 1
    assert len(set(a)) == 3
    # more clusters than distinct points: only non-empty clusters are numbered
    assert set(kmeans(np.zeros((6, 2)), 4)) == {0}


def test_cluster_files_are_reproducible(tmp_path):
    prof = profile(tmp_path, make_stream(tmp_path / "s.mms"))
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        proc = run_cli("cluster", prof, "--k", "auto", "--out", out)
        assert proc.returncode == 0, proc.stderr
        assert "modelled" in proc.stdout
        outs.append(out.read_text())
    assert outs[0] == outs[1]


@pytest.mark.parametrize("content, message", [
    ("{", "not JSON"),
    ('{"format": "other"}', "not a profile"),
    ('{"format": "mpimatch-profile", "version": 9}', "profile version 9 is not supported"),
    ('{"format": "mpimatch-profile", "version": 1, "np": 2, "receivers": []}',
     "receivers: expected a non-empty list"),
    ('{"format": "mpimatch-profile", "version": 1, "np": 2, "receivers": [{"receiver": 0,'
     ' "prq_added": [1]}]}', "receivers[0].prq_added: expected a list of np=2 counts"),
])
def test_bad_profiles_are_clear_errors(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(MpimatchError, match=None) as err:
        load_profile(bad)
    assert message in str(err.value) and str(bad) in str(err.value)
    proc = run_cli("cluster", bad, "--k", "2", "--out", tmp_path / "c")
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "c").exists()


def test_bad_k_and_mismatched_cluster_file(tmp_path, replay_exe):
    prof = profile(tmp_path, make_stream(tmp_path / "s.mms"))
    proc = run_cli("cluster", prof, "--k", "13", "--out", tmp_path / "c")
    assert proc.returncode == 2 and "from 1 to 12" in proc.stderr
    proc = run_cli("cluster", prof, "--k", "2", "--out", tmp_path / "c")
    assert proc.returncode == 0, proc.stderr
    other = make_stream(tmp_path / "big.mms", np_=16)
    proc = run([replay_exe, other, "--engine", "kmeans", "--param", f"clusters={tmp_path / 'c'}"])
    assert proc.returncode == 2
    assert f"{tmp_path / 'c'}:" in proc.stderr and "np 12" in proc.stderr
    proc = run_cli("profile", tmp_path / "missing.mms", "--out", tmp_path / "p2.json")
    assert proc.returncode == 2 and "missing.mms" in proc.stderr
    assert not (tmp_path / "p2.json").exists()


def test_engines_lists_file_parameter():
    proc = run_cli("engines")
    assert proc.returncode == 0, proc.stderr
    assert "clusters=FILE" in proc.stdout


def test_profile_plot(tmp_path):
    png = tmp_path / "heat.png"
    proc = run_cli("profile", make_stream(tmp_path / "s.mms"), "--out", tmp_path / "p.json",
                   "--plot", png)
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
