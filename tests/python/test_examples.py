"""The shipped example streams: reproducible, valid, and replayed exactly as the model says."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO, engine_runs, run
from mpimatch.model import Model, outcomes, parse_stream

EXAMPLES = REPO / "examples"
STREAMS = sorted(p.name for p in EXAMPLES.glob("*.mms"))


def test_examples_are_up_to_date(gen_exe):
    """What make_examples.py makes (mpimatch-gen's output for the workload examples) is
    what ships."""
    env = {**os.environ, "MPIMATCH_BIN_DIR": str(gen_exe.parent)}
    proc = subprocess.run([sys.executable, str(EXAMPLES / "make_examples.py"), "--check"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr


def test_examples_present_and_small():
    assert {"tiny.mms", "shuffle-1024.mms", "burst-1024.mms", "mixed-wildcards.mms"} <= set(STREAMS)
    assert sum(p.stat().st_size for p in EXAMPLES.iterdir()) < 2 * 1024 * 1024


def test_tiny_matches_file_is_the_model_outcome():
    got = outcomes(parse_stream((EXAMPLES / "tiny.mms").read_text(), "tiny.mms").events)
    assert got == (EXAMPLES / "tiny.matches").read_text().splitlines()


def test_mixed_wildcards_is_realistic():
    stream = parse_stream((EXAMPLES / "mixed-wildcards.mms").read_text(), "mixed-wildcards.mms")
    assert stream.np == 64 and 18000 <= len(stream.events) <= 22000
    assert len({e.comm for e in stream.events if e.kind != "C"}) == 4
    assert stream.uses_any_source and stream.uses_any_tag
    assert {e.kind for e in stream.events} == set("RMPXC")
    assert any(e.kind == "M" and e.tag < 0 for e in stream.events)
    model, longest = Model(), 0
    for e in stream.events:
        model.step(e)
        longest = max(longest, len(model.prq), len(model.umq))
    assert 150 <= longest <= 1000, f"longest queue {longest}"


def replays_like_the_model(tmp_path, replay_exe, engines, path, text: str) -> None:
    """Every engine that accepts the stream (text: its canonical text) replays path with
    exactly the model's matches."""
    stream = parse_stream(text, path.name)
    expected = outcomes(stream.events)
    assert expected
    for engine in engines:
        if not engine_runs(engine, stream.uses_any_source, stream.uses_any_tag):
            continue
        out = tmp_path / f"{engine['name']}.matches"
        proc = run([replay_exe, path, "--engine", engine["name"], "--reps", "1",
                    "--matches", out, "--quiet"])
        assert proc.returncode == 0, proc.stderr
        assert out.read_text().splitlines() == expected, f"{engine['name']} on {path.name}"


@pytest.mark.parametrize("name", STREAMS)
def test_every_engine_replays_example_like_the_model(tmp_path, replay_exe, engines, name):
    path = EXAMPLES / name
    replays_like_the_model(tmp_path, replay_exe, engines, path, path.read_text())


APPS = sorted(p.name for p in (EXAMPLES / "apps").glob("*.mms"))


@pytest.mark.parametrize("name", APPS)
def test_every_engine_replays_traced_example_like_the_model(tmp_path, replay_exe, stream_exe,
                                                            engines, name):
    """The traced streams the bench replays (binary: read through mpimatch-stream cat)."""
    path = EXAMPLES / "apps" / name
    text = run([stream_exe, "cat", path])
    assert text.returncode == 0, text.stderr
    assert len(parse_stream(text.stdout, name).events) >= 3000
    replays_like_the_model(tmp_path, replay_exe, engines, path, text.stdout)
