"""scripts/stream_window.py: a window of a stream, cut where both queues are empty."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import REPO, load_script

sw = load_script("stream_window")

HEAD = ["# mpimatch stream v1", "# np=4"]


def test_cuts_after_the_first_point_with_both_queues_empty():
    recs = ["R 1 0 1 5", "M 2 0 1 5",          # matched: empty after 2
            "M 3 0 2 6", "P 4 0 * *",          # a message queued, a probe takes nothing
            "R 5 0 * *",                       # ANY/ANY takes it: empty after 5
            "R 6 0 3 7", "C 6",                # cancelled: empty after 7
            "M 8 0 1 9", "X 9 0 1 *",          # an Improbe takes the message: empty after 9
            "R 10 0 1 1", "M 11 0 1 1"]
    assert sw.empty_after(recs) == [False, True, False, False, True, False, True, False, True,
                                    False, True]
    assert sw.window(HEAD + recs, 1, 3) == HEAD + ["M 3 0 2 6", "P 4 0 * *", "R 5 0 * *"]
    assert sw.window(HEAD + recs, 3, 100) == HEAD + recs[5:]
    assert sw.window(HEAD + recs, 6, 2) == HEAD + ["M 8 0 1 9", "X 9 0 1 *"]


def test_any_tag_leaves_a_negative_tag_queued():
    # ANY_TAG never matches an MPI library's internal (negative) tag: the message stays
    recs = ["M 1 0 1 -12", "R 2 0 1 *", "R 3 0 1 -12", "M 4 0 1 3"]
    assert sw.empty_after(recs) == [False, False, False, True]
    with pytest.raises(ValueError, match="the last one"):
        sw.window(HEAD + recs, 1, 10)
    with pytest.raises(ValueError, match="no event at or after event 2"):
        sw.window(HEAD + recs[:3], 2, 10)


def test_the_earliest_receive_wins():
    # the first matching receive is taken, the later one stays queued
    recs = ["R 1 0 * 5", "R 2 0 1 5", "M 3 0 1 5", "C 1", "M 4 0 1 5"]
    assert sw.empty_after(recs) == [False, False, False, False, True]


def test_command_line_writes_a_stream_replay_reads(tmp_path: Path, stream_exe: Path):
    src = tmp_path / "s.txt"
    src.write_text("\n".join(HEAD + ["R 1 0 1 5", "M 2 0 1 5", "M 3 0 2 6", "R 4 0 2 6",
                                     "P 5 0 * *"]) + "\n")
    out = tmp_path / "w.mms"
    script = REPO / "scripts" / "stream_window.py"
    run = subprocess.run(["python3", str(script), str(src), str(out), "--from", "1",
                          "--events", "2", "--stream-tool", str(stream_exe)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cat = subprocess.run([str(stream_exe), "cat", str(out)], capture_output=True, text=True)
    assert cat.returncode == 0
    assert [ln.split()[:2] for ln in cat.stdout.splitlines() if not ln.startswith("#")] == [
        ["M", "3"], ["R", "4"]]
    bad = subprocess.run(["python3", str(script), str(src), str(tmp_path / "x.mms"), "--from",
                          "5", "--events", "2", "--stream-tool", str(stream_exe)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "empty first after event 5, the last one" in bad.stderr
    assert not (tmp_path / "x.mms").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.txt", "w.mms"]
