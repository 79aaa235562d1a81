"""Differential tests: every C engine against the Python reference model.

Hypothesis generates random valid streams with small key spaces (so matches,
wildcard races and negative tags are frequent). Each stream is replayed with
`--engine all` (which checks that the engines agree with each other) and with
each engine on its own; every outcome list must equal the model's.
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest
from hypothesis import given, strategies as st

from conftest import engine_runs, run
from mpimatch.model import Event, Stream, outcomes, parse_stream

MAX_EVENTS = 200
TAGS = list(range(-2, 4))
KIND_WEIGHTS = "RRRRMMMMMPXCC"
# Collective annotations (kind is not part of matching: a collective-kind
# message can match a point-to-point receive with the same key).
COLLS = ["gather", "allreduce", "iallgather", "bcast"]


@st.composite
def streams(draw, wildcards: bool = True, max_events: int = MAX_EVENTS) -> Stream:
    np = draw(st.integers(1, 4))
    comms = draw(st.lists(st.sampled_from([0, 1, 2, 7, 2**31 - 1]), min_size=1, max_size=3,
                          unique=True))
    n = draw(st.integers(0, max_events))
    base = draw(st.sampled_from([0, 1, 1000, 2**31 - 1 - max_events]))
    ids = draw(st.permutations(range(base, base + n)))
    srcs: List[Optional[int]] = list(range(np)) + ([None] if wildcards else [])
    tags: List[Optional[int]] = TAGS + ([None] if wildcards else [])
    events: List[Event] = []
    receive_ids: List[int] = []
    for i in range(n):
        kind = draw(st.sampled_from(KIND_WEIGHTS))
        if kind == "C":
            if receive_ids:
                events.append(Event("C", draw(st.sampled_from(receive_ids))))
                continue
            kind = "R"
        comm = draw(st.sampled_from(comms))
        attrs: Dict[str, str] = {}
        if kind in "RM" and draw(st.booleans()):
            attrs["bytes"] = str(draw(st.integers(0, 1 << 20)))
        if kind in "RM" and draw(st.integers(0, 2)) == 0:
            attrs["coll"] = draw(st.sampled_from(COLLS))
            attrs["np"] = str(np)
            attrs["call"] = str(draw(st.integers(0, 2)))
        if kind == "M":
            src: Optional[int] = draw(st.integers(0, np - 1))
            tag: Optional[int] = draw(st.sampled_from(TAGS))
        else:
            src, tag = draw(st.sampled_from(srcs)), draw(st.sampled_from(tags))
        events.append(Event(kind, ids[i], comm, src, tag, attrs))
        if kind == "R":
            receive_ids.append(ids[i])
    return Stream(events, np)


def replay_matches(replay_exe: Path, path: Path, engine: str, out: Path):
    proc = run([replay_exe, path, "--engine", engine, "--matches", out, "--reps", "1", "--quiet"])
    lines = out.read_text().splitlines() if out.exists() else None
    return proc, lines


def forbidden_lines(stream: Stream, engine: Dict) -> Set[int]:
    """Lines of the events that use a wildcard the engine's hints forbid."""
    return {e.line for e in stream.events
            if e.kind in "RPX" and not engine_runs(engine, e.src is None, e.tag is None)}


def assert_names_a_forbidden_line(stderr: str, path: Path, stream: Stream, engine: Dict) -> None:
    """The rejection names path:line, and that line does use a forbidden wildcard."""
    named = {int(n) for n in re.findall(re.escape(str(path)) + r":(\d+)", stderr)}
    assert named, f"no {path}:<line> in: {stderr}"
    assert named <= forbidden_lines(stream, engine), f"names a line without a wildcard: {stderr}"


def check_stream(stream: Stream, replay_exe: Path, engines: List[Dict]) -> None:
    """All engines together and each alone must produce the model's outcomes."""
    text = stream.to_text()
    parsed = parse_stream(text, "s.mms")            # gives each event its line number
    expected = outcomes(parsed.events)
    any_source, any_tag = parsed.uses_any_source, parsed.uses_any_tag
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.mms"
        path.write_text(text)
        proc, lines = replay_matches(replay_exe, path, "all", Path(tmp) / "all.out")
        assert proc.returncode == 0, f"--engine all failed:\n{proc.stderr}\n{text}"
        assert lines == expected, f"--engine all differs from the model on:\n{text}"
        for engine in engines:
            name = engine["name"]
            proc, lines = replay_matches(replay_exe, path, name, Path(tmp) / f"{name}.out")
            if engine_runs(engine, any_source, any_tag):
                assert proc.returncode == 0, f"{name} failed:\n{proc.stderr}\n{text}"
                assert lines == expected, f"{name} differs from the model on:\n{text}"
            else:
                assert proc.returncode == 2, f"{name} accepted a stream its hints forbid:\n{text}"
                assert_names_a_forbidden_line(proc.stderr, path, parsed, engine)
                assert lines is None, f"{name} wrote --matches although it was rejected"


@given(stream=streams(wildcards=True))
def test_all_engines_agree_with_model(stream, replay_exe, engines):
    check_stream(stream, replay_exe, engines)


# Ghazimirsaeed et al.'s (ParCo 2019) engines with thresholds so low that these short streams extract
# partners, profile collectives, open levels and reach the caps.
PAPER000 = "pnp,col+pnp,col+ll,ll+pnp"
LOW_THRESHOLDS = ["--param", "theta=2", "--param", "kp=1", "--param", "kc=1"]


@given(stream=streams(wildcards=True))
def test_paper000_engines_with_low_thresholds_agree_with_model(stream, replay_exe):
    text = stream.to_text()
    expected = outcomes(parse_stream(text, "s.mms").events)
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "s.mms", Path(tmp) / "m.out"
        path.write_text(text)
        proc = run([replay_exe, path, "--engine", PAPER000, *LOW_THRESHOLDS,
                    "--matches", out, "--reps", "1", "--quiet"])
        assert proc.returncode == 0, f"{proc.stderr}\n{text}"
        assert out.read_text().splitlines() == expected, f"differs from the model on:\n{text}"


# auto with switches forced at random points (force=1: after every post or arrive; the
# structure drawn at random, hash among them on streams without wildcards, which replay runs
# with both hints) and with its rule on windows so short that these streams switch (nm=1:
# leaving the list for nm whenever bins would search, and bins <-> nm by the rule).
AUTO_PARAMS = [("force=1", "seed=3"), ("force=3", "seed=5"), ("window=2", "up=1", "down=3"),
               ("window=3", "up=1", "down=0", "nm=1")]


def check_auto(stream: Stream, replay_exe: Path) -> None:
    text = stream.to_text()
    expected = outcomes(parse_stream(text, "s.mms").events)
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "s.mms", Path(tmp) / "m.out"
        path.write_text(text)
        for params in AUTO_PARAMS:
            proc = run([replay_exe, path, "--engine", "auto",
                        *(a for p in params for a in ("--param", f"auto:{p}")),
                        "--matches", out, "--reps", "1", "--quiet"])
            assert proc.returncode == 0, f"auto {params}: {proc.stderr}\n{text}"
            assert out.read_text().splitlines() == expected, \
                f"auto {params} differs from the model on:\n{text}"


@given(stream=streams(wildcards=True))
def test_auto_switching_agrees_with_model(stream, replay_exe):
    check_auto(stream, replay_exe)


@given(stream=streams(wildcards=False))
def test_auto_switching_agrees_with_model_without_wildcards(stream, replay_exe):
    check_auto(stream, replay_exe)


@given(stream=streams(wildcards=False))
def test_all_engines_agree_with_model_without_wildcards(stream, replay_exe, engines):
    # Every engine, hash included, must run wildcard-free streams.
    assert all(engine_runs(e, False, False) for e in engines)
    check_stream(stream, replay_exe, engines)


def _hash_engine(engines: List[Dict]) -> Dict:
    return next(e for e in engines if e["name"] == "hash")


def test_hash_requires_both_hints(engines):
    needs = _hash_engine(engines)
    assert not engine_runs(needs, True, False) and not engine_runs(needs, False, True)


@pytest.mark.parametrize("wildcard_line, expect_line", [
    ("R 3 0 * 1", 5), ("R 3 0 1 *", 5), ("P 3 0 * 1", 5), ("X 3 0 1 *", 5)])
def test_hash_rejects_a_wildcard_naming_its_line(tmp_path, replay_exe, wildcard_line, expect_line):
    path = tmp_path / "w.mms"
    path.write_text(f"# mpimatch stream v1\n# np=2\nR 1 0 1 1\nM 2 0 1 1\n{wildcard_line}\nM 4 0 1 2\n")
    proc = run([replay_exe, path, "--engine", "hash", "--reps", "1", "--quiet"])
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:{expect_line}" in proc.stderr


def test_engine_all_skips_hash_on_wildcards_and_says_why(tmp_path, replay_exe):
    path = tmp_path / "w.mms"
    path.write_text("# mpimatch stream v1\n# np=2\nR 1 0 * 1\nM 2 0 1 1\n")
    out = tmp_path / "r.json"
    proc = run([replay_exe, path, "--engine", "all", "--reps", "1", "--json", out, "--quiet"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    skipped = {s["engine"]: s["reason"] for s in data["skipped"]}
    assert "hash" in skipped and skipped["hash"].strip()
    assert "hash" not in {r["engine"] for r in data["results"]}
    assert "list" in {r["engine"] for r in data["results"]}


def test_engine_all_runs_hash_without_wildcards(tmp_path, replay_exe):
    path = tmp_path / "n.mms"
    path.write_text("# mpimatch stream v1\n# np=2\nR 1 0 1 1\nM 2 0 1 1\nM 3 0 0 -1\nX 4 0 0 -1\n")
    out = tmp_path / "r.json"
    proc = run([replay_exe, path, "--engine", "all", "--reps", "1", "--json", out, "--quiet"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["skipped"] == []
    assert "hash" in {r["engine"] for r in data["results"]}
