"""scripts/stream_window.py: a window of a stream, cut where both queues are empty."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import REPO, load_script

sw = load_script("stream_window")

HEAD = ["# mpimatch stream v1", "# np=4"]


def text(recs):
    return "\n".join(HEAD + recs) + "\n"


def test_cuts_after_the_first_point_with_both_queues_empty():
    recs = ["R 1 0 1 5", "M 2 0 1 5",          # matched: empty after 2
            "M 3 0 2 6 bytes=8 t=7", "P 4 0 * *",  # a message queued, a probe takes nothing
            "R 5 0 * *",                       # ANY/ANY takes it: empty after 5
            "R 6 0 3 7", "C 6",                # cancelled: empty after 7
            "M 8 0 1 9", "X 9 0 1 *",          # an Improbe takes the message: empty after 9
            "R 10 0 1 1", "M 11 0 1 1"]
    # records kept as written (attributes too), the header first
    assert sw.window(text(recs), 1, 3) == HEAD + ["M 3 0 2 6 bytes=8 t=7", "P 4 0 * *",
                                                  "R 5 0 * *"]
    assert sw.window(text(recs), 3, 100) == HEAD + recs[5:]
    assert sw.window(text(recs), 6, 2) == HEAD + ["M 8 0 1 9", "X 9 0 1 *"]
    assert sw.window(text(recs), 8, 100) == HEAD + recs[9:]


def test_any_tag_leaves_a_negative_tag_queued():
    # ANY_TAG never matches an MPI library's internal (negative) tag: the message stays
    recs = ["M 1 0 1 -12", "R 2 0 1 *", "R 3 0 1 -12", "M 4 0 1 3"]
    with pytest.raises(ValueError, match="empty first after event 4, the last one"):
        sw.window(text(recs), 1, 10)
    with pytest.raises(ValueError, match="no event at or after event 2"):
        sw.window(text(recs[:3]), 2, 10)


def test_the_earliest_receive_wins():
    # the first matching receive is taken (the wildcard), the later one stays queued
    recs = ["R 1 0 * 5", "R 2 0 1 5", "M 3 0 1 5", "C 1", "M 4 0 1 5", "P 5 0 * *"]
    assert sw.window(text(recs), 1, 5) == HEAD + ["P 5 0 * *"]


def test_bad_text_is_an_error_with_its_line():
    with pytest.raises(ValueError, match="<stream>:4: unknown event"):
        sw.window(text(["R 1 0 1 5", "Q 2 0 1 5"]), 1, 1)


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
