"""Queue views of a running or hung job (docs/queues.md): the provider's snapshots on
SIGUSR2 (FI_MPIMATCH_DUMP) and `mpimatch queues DIR`.

- Real hangs: the programs of tests/mpi/hang deadlock on purpose under the provider;
  each test waits until its ranks block, sends SIGUSR2 to mpirun (which forwards it to
  every rank), reads the snapshots with `mpimatch queues --json -` and checks that the
  diagnosis names the right ranks and tags; then the job is killed (its own session, a
  hard timeout, /dev/shm checked).
- Snapshots at random moments do not change results: conformance programs signalled
  every few milliseconds print the digest of the run without signals.
- The command itself on files written here: views, bad and partial files, exit statuses.
"""
from __future__ import annotations

import json
import random
import signal
import subprocess
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from conftest import REPO, run_cli
from mpimatch import mpistack, queues, samples_report

HANG_SRC = REPO / "tests" / "mpi" / "hang"
CONF_SRC = REPO / "tests" / "mpi" / "conformance"
HANG_TIMEOUT = 30


def _need_provider() -> None:
    why = mpistack.unavailable(mpistack.provider_stack()) if mpistack.provider_library() \
        else f"{mpistack.PROVIDER_LIB} is not built"
    if why:
        pytest.fail(f"the provider and Open MPI are required here (scripts/setup.sh --dev): {why}")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Dict[str, Path]:
    """The hang programs and a few conformance programs, built with Open MPI's mpicc."""
    _need_provider()
    out = tmp_path_factory.mktemp("queues-bin")
    exes = {}
    for src in [*sorted(HANG_SRC.glob("*.c")),
                *(CONF_SRC / f"{n}.c" for n in ("p2p", "wildcards", "mprobe", "unexpected"))]:
        exe = out / src.stem
        cmd = [mpistack.MPICC, "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", str(exe),
               str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
        exes[src.stem] = exe
    return exes


def _dump_stack(dump: Path) -> mpistack.Stack:
    base = mpistack.provider_stack()
    return mpistack.Stack(base.name, base.description, base.mca,
                          base.env + (("FI_MPIMATCH_DUMP", str(dump)),))


def _snapshots(dump: Path) -> List[Dict[str, Any]]:
    out = []
    for f in sorted(dump.glob(queues.SNAP_GLOB)):
        try:
            out.append(queues.load_snapshot(f))
        except Exception:
            return []   # being renamed into place: look again at the next poll
    return out


def _hang(exe: Path, dump: Path, np: int, diagnosed: Callable[[Dict[str, Any]], bool]):
    """Run exe (which prints 'blocking' once per rank before it blocks), signal mpirun
    once every rank said so, until the snapshots of all np ranks from one request show
    `diagnosed`; then stop the job. A rank handling a message late only delays the
    diagnosis to the next request (at most 6)."""
    state = {"requests": 0, "at": 0.0, "ok": False}

    def watch(w: mpistack.Watched) -> bool:
        if w.stdout().count("blocking") < np:
            return False
        snaps = _snapshots(dump)
        if state["requests"] and len(snaps) == np and \
                min(s["request"] for s in snaps) >= state["requests"]:
            if diagnosed(queues.analyse({s["rank"]: s for s in snaps})):
                state["ok"] = True
                return True
        if state["requests"] < 6 and w.seconds - state["at"] > 0.5:
            mpistack.signal_job(w.pid, signal.SIGUSR2)
            state["requests"] += 1
            state["at"] = w.seconds
        return False

    outcome = mpistack.run(_dump_stack(dump), np, [exe], HANG_TIMEOUT, cwd=exe.parent,
                           watch=watch)
    assert outcome.stopped, f"{outcome.summary()}\n{outcome.stdout[-800:]}\n{outcome.stderr[-1500:]}"
    assert not outcome.leftovers or all(x.startswith("/dev/shm") for x in outcome.leftovers)
    assert not mpistack._session_members(outcome.session)
    proc = run_cli("queues", str(dump), "--json", "-")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["analysis"], state


def _stuck(a: Dict[str, Any]) -> Dict[int, List[Dict[str, Any]]]:
    out: Dict[int, List[Dict[str, Any]]] = {}
    for x in a["stuck"]:
        out.setdefault(x["rank"], []).append(x["recv"])
    return out


def test_hang_both_receive_first(built, tmp_path) -> None:
    """Ranks 0 and 1 each wait for tag 7 from the other: a cycle, nothing unexpected."""
    def ok(a):
        s = _stuck(a)
        return a["deadlock"] and sorted(s) == [0, 1] and \
            [(r["src"], r["tag"], r["cid"]) for r in s[0]] == [(1, 7, 0)] and \
            [(r["src"], r["tag"], r["cid"]) for r in s[1]] == [(0, 7, 0)]
    a, _ = _hang(built["recv_first"], tmp_path, 2, ok)
    assert ok(a)
    assert a["cycles"] == [[0, 1]]
    assert a["orphans"] == [] and a["missing"] == []


def test_hang_tag_typo(built, tmp_path) -> None:
    """Rank 1 waits for tag 6 from rank 0, which sent tag 5: the near miss is named, and
    the tag-5 message is an orphan; rank 0 waits for the answer (tag 9)."""
    def ok(a):
        s = _stuck(a)
        return a["deadlock"] and sorted(s) == [0, 1] and [r["tag"] for r in s[1]] == [6] \
            and [(o["rank"], o["msg"]["tag"], o["msg"]["src"]) for o in a["orphans"]] == [(1, 5, 0)]
    a, _ = _hang(built["tag_typo"], tmp_path, 2, ok)
    assert ok(a)
    [rank1] = [x for x in a["stuck"] if x["rank"] == 1]
    assert [n["why"] for n in rank1["near"]] == ["tag 6 posted, tag 5 sent"]
    assert [r["tag"] for r in _stuck(a)[0]] == [9]
    proc = run_cli("queues", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "LIKELY DEADLOCK: rank(s) 0, 1" in proc.stdout
    assert "rank 1 waits for cid 0, from rank 0, tag 6" in proc.stdout
    assert "tag 6 posted, tag 5 sent" in proc.stdout


def test_hang_any_tag_meets_negative_tag(built, tmp_path) -> None:
    """Produced through MPI: rank 0's MPI_Recv(ANY_SOURCE, ANY_TAG) and rank 1's
    MPI_Barrier. The barrier's message to rank 0 has Open MPI's negative barrier tag:
    unexpected at rank 0, which ANY_TAG never takes; rank 1 waits for rank 0's half."""
    def ok(a):
        s = _stuck(a)
        orph = [o for o in a["orphans"] if o["rank"] == 0]
        return a["deadlock"] and sorted(s) == [0, 1] and \
            [(r["src"], r["tag"]) for r in s[0]] == [(None, None)] and \
            len(s[1]) == 1 and s[1][0]["src"] == 0 and s[1][0]["tag"] < 0 and \
            len(orph) == 1 and orph[0]["msg"]["src"] == 1 and orph[0]["msg"]["tag"] < 0
    a, _ = _hang(built["anytag_coll"], tmp_path, 2, ok)
    assert ok(a)
    [rank0] = [x for x in a["stuck"] if x["rank"] == 0]
    tag = a["orphans"][0]["msg"]["tag"]
    assert [n["why"] for n in rank0["near"]] == [
        f"MPI_ANY_TAG never matches the negative tag {tag} (tags below 0 are the MPI "
        f"library's own, e.g. a collective's)"]
    html_file = tmp_path / "view.html"
    proc = run_cli("queues", str(tmp_path), "--html", str(html_file))
    assert proc.returncode == 0, proc.stderr
    page = html_file.read_text()
    assert "LIKELY DEADLOCK" in page and "<script" not in page and "http" not in page


# ---------------------------------------------------------------- random snapshots

@pytest.mark.parametrize("program,np", [("p2p", 2), ("wildcards", 4), ("mprobe", 2),
                                        ("unexpected", 2)])
def test_random_snapshots_change_nothing(built, tmp_path, program: str, np: int) -> None:
    """SIGUSR2 every 2-30 ms to every rank that has the provider's handler (from the
    moment its endpoint is enabled in MPI_Init) until the job ends: the same result line
    (the digest of every message received) as the run without signals, and snapshots
    were taken (a request pending at close is served then, so a run without a
    snapshot is one whose signals all came after the endpoints closed, on a loaded
    machine: it is run again, at most eight times; every run must print the same digest). Sent to the
    ranks, not to mpirun: Open MPI's mpirun, once its job is done, no longer forwards
    the signal and dies of it; the hang tests use mpirun's forwarding."""
    plain = mpistack.run(mpistack.provider_stack(), np, [built[program]], 60,
                         cwd=built[program].parent)
    want = mpistack.result_line(plain)
    assert plain.returncode == 0 and want and want["verdict"] == "ok", plain.stdout[-1000:]
    rng = random.Random(f"{program}-{np}")
    for attempt in range(8):
        dump = tmp_path / f"dump{attempt}"
        dump.mkdir()
        state = _signalled_run(built, program, np, rng, dump, want.group(0))
        snaps = _snapshots(dump)
        if snaps:
            break
    assert state["sent"] > 0 and snaps, (state, sorted(p.name for p in dump.iterdir()))
    assert all(s["consistent"] for s in snaps)


def _signalled_run(built, program: str, np: int, rng: random.Random, dump: Path,
                   want: str) -> Dict[str, Any]:
    state = {"next": 0.0, "sent": 0}

    def watch(w: mpistack.Watched) -> bool:
        if w.seconds >= state["next"]:
            for p in w.processes(program):
                if not mpistack.catches(p, signal.SIGUSR2):
                    continue    # not yet in MPI: SIGUSR2 would end it
                state["sent"] += mpistack.signal_job(p, signal.SIGUSR2)
                state["next"] = w.seconds + rng.uniform(0.002, 0.03)
        return False

    got = mpistack.run(_dump_stack(dump), np, [built[program]], 60, cwd=built[program].parent,
                       watch=watch, poll=0.002)
    line = mpistack.result_line(got)
    assert got.returncode == 0 and line, f"{got.summary()}\n{got.stdout[-800:]}\n{got.stderr[-1500:]}"
    assert line.group(0) == want
    assert not got.leftovers, got.leftovers
    return state


# ---------------------------------------------------------------- samples over time

def test_samples_and_report(built, tmp_path) -> None:
    """FI_MPIMATCH_STATS_INTERVAL=2 (mpimatch run --stats DIR --stats-interval 2 sets
    it): every rank appends samples, times rising; mpimatch report prints one line per
    rank and writes the plots and pages."""
    stats = tmp_path / "stats"
    stats.mkdir()
    printed = run_cli("run", "--print", "--stats", str(stats), "--stats-interval", "2",
                      "--dump", str(tmp_path / "dump"), "--dump-signal", "USR1", "--",
                      mpistack.MPIRUN, "-np", "2", "./a.out")
    assert printed.returncode == 0, printed.stderr
    for var in (f"FI_MPIMATCH_STATS={stats.resolve()}", "FI_MPIMATCH_STATS_INTERVAL=2",
                f"FI_MPIMATCH_DUMP={(tmp_path / 'dump').resolve()}", "FI_MPIMATCH_DUMP_SIGNAL=USR1"):
        assert f"-x {var}" in printed.stdout, printed.stdout
    bad = run_cli("run", "--print", "--stats-interval", "2", "--", mpistack.MPIRUN, "./a.out")
    assert bad.returncode == 2 and "--stats-interval needs --stats" in bad.stderr
    base = mpistack.provider_stack(stats=stats)
    stack = mpistack.Stack(base.name, base.description, base.mca,
                           base.env + (("FI_MPIMATCH_STATS_INTERVAL", "2"),))
    got = mpistack.run(stack, 2, [built["mprobe"]], 60, cwd=built["mprobe"].parent)
    assert got.returncode == 0 and not got.leftovers, f"{got.summary()}\n{got.stderr[-1500:]}"
    files = sorted(stats.glob("mpimatch-samples-*.jsonl"))
    assert len(files) == 2
    ranks = set()
    for f in files:
        head, rows = samples_report.load_samples(f)
        ranks.add(head["rank"])
        assert head["interval_ms"] == 2 and len(rows) >= 2
        assert rows[-1]["matches"] > 0 and rows[-1]["prq"] == 0 and rows[-1]["umq"] == 0
    assert ranks == {0, 1}
    out = tmp_path / "rep"
    proc = run_cli("report", str(stats), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "queue samples of 2 endpoint(s)" in proc.stdout
    for name in ("queue_lengths.png", "search_depth.png", "match_rate.png", "report.html"):
        assert (out / name).stat().st_size > 1000, name
    doc = json.loads((out / "report.json").read_text())
    assert [r["rank"] for r in doc["ranks"]] == [0, 1]


def test_report_bad_samples(tmp_path) -> None:
    head = '{"tool": "libmpimatch-fi", "kind": "samples", "pid": 1, "rank": 0, "interval_ms": 5}\n'
    good = '{"t": 0.5, "prq": 1, "umq": 0, "matches": 3, "prq_searches": 2, "prq_traversed": 2, ' \
           '"umq_searches": 1, "umq_traversed": 0}\n'
    f = tmp_path / "mpimatch-samples-1-0.jsonl"
    for content, expect in ((head + good + '{"t": 0.6, "prq"', f"{f}:3: not a complete sample"),
                            (good, f"{f}:1: not a samples header"),
                            (head + '{"t": 1}\n', f"{f}:2: sample without prq"),
                            (head + good + good.replace("0.5", "0.1"), f"{f}:3: time goes back")):
        f.write_text(content)
        proc = run_cli("report", str(tmp_path))
        assert proc.returncode == 2 and proc.stderr.startswith(f"mpimatch: error: {expect}"), \
            proc.stderr
    f.unlink()
    proc = run_cli("report", str(tmp_path))
    assert proc.returncode == 2 and "no samples" in proc.stderr


# ---------------------------------------------------------------- the command on files

def _snap(rank: int, posted=(), unexpected=(), channels=(), np: int = 2) -> Dict[str, Any]:
    return {"tool": "libmpimatch-fi", "kind": "snapshot", "rank": rank, "np": np,
            "pid": 100 + rank, "ep": 0, "host": "h", "request": 1, "time": 1000.0,
            "uptime_s": 1.0, "engine": "rank", "path": "keyed",
            "posted": list(posted), "unexpected": list(unexpected), "claimed": [],
            "receiving": [], "sending": [], "channels": list(channels), "consistent": True,
            "stats": {"prq": {"max_length": 1, "mean_depth": 0}, "umq": {"max_length": 0,
                                                                       "mean_depth": 0}},
            "counters": {"matches": 0}}


def _recv(src, tag, cid=0):
    return {"in": "engine", "cid": cid, "ack": 0, "src": src, "tag": tag, "bytes": 4,
            "age_s": 1.0}


def _msg(src, tag, cid=0):
    return {"in": "engine", "cid": cid, "ack": 0, "sync": 0, "src": src, "tag": tag,
            "bytes": 4, "age_s": 1.0}


def _write(d: Path, snaps) -> None:
    d.mkdir(exist_ok=True)
    for s in snaps:
        (d / f"mpimatch-snap-{s['pid']}-0.json").write_text(json.dumps(s))


def test_in_flight_is_not_a_deadlock(tmp_path) -> None:
    """A receive with traffic on its way (cells the sender wrote, the receiver has not
    read) is pending, not stuck; a missing rank is named."""
    chan = {"peer": 0, "channel": "shm", "cells_in": 0, "cells_out": 2}
    _write(tmp_path, [_snap(0, posted=[_recv(1, 3)]), _snap(1, channels=[chan], np=3)])
    proc = run_cli("queues", str(tmp_path), "--json", "-")
    assert proc.returncode == 0, proc.stderr
    a = json.loads(proc.stdout)["analysis"]
    assert not a["deadlock"] and a["stuck"] == [] and len(a["pending"]) == 1
    assert a["missing"] == [2]


def test_comm_and_source_near_misses() -> None:
    a = queues.analyse({0: _snap(0, posted=[_recv(1, 3, cid=5), _recv(1, 4)],
                                 unexpected=[_msg(1, 3, cid=6), _msg(0, 4)])})
    why = sorted(n["why"] for x in a["stuck"] for n in x["near"])
    assert why == ["communicator cid 5 posted, cid 6 sent", "source rank 1 posted, rank 0 sent"]
    assert len(a["orphans"]) == 2 and a["deadlock"]


@pytest.mark.parametrize("content,expect", [
    ('{"kind": "snapshot", "rank": 0, "np": 2, "pid": 1, "posted": [', ":1: not a complete snapshot"),
    ("", ":1: not a complete snapshot"),
    ('{"kind": "stats"}', "not a snapshot of libmpimatch-fi"),
    ('{"kind": "snapshot", "rank": 0, "np": 2, "pid": 1, "posted": [], "unexpected": []}',
     "snapshot has no 'channels'"),
    ('{"kind": "snapshot", "rank": 0, "np": 2, "pid": 1, "posted": [{"src": 1}], '
     '"unexpected": [], "channels": []}', "posted[0] has no 'tag'"),
])
def test_bad_snapshot_is_an_error_naming_the_file(tmp_path, content: str, expect: str) -> None:
    _write(tmp_path, [_snap(1)])
    bad = tmp_path / "mpimatch-snap-7-0.json"
    bad.write_text(content)
    proc = run_cli("queues", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"mpimatch: error: {bad}"), proc.stderr
    assert expect in proc.stderr and "Traceback" not in proc.stderr


def test_no_snapshots_and_not_a_directory(tmp_path) -> None:
    proc = run_cli("queues", str(tmp_path))
    assert proc.returncode == 2 and "no snapshots" in proc.stderr and "SIGUSR2" in proc.stderr
    proc = run_cli("queues", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_cut_lists_are_said(tmp_path) -> None:
    s = _snap(0, unexpected=[_msg(1, 1)])
    s["unexpected_total"] = 1500
    _write(tmp_path, [s, _snap(1)])
    proc = run_cli("queues", str(tmp_path))
    assert proc.returncode == 0
    assert "rank 0: the snapshot lists 1 of 1500 unexpected" in proc.stdout


def test_newest_snapshot_per_rank(tmp_path) -> None:
    old, new = _snap(0, posted=[_recv(1, 1)]), _snap(0, posted=[_recv(1, 2)])
    new["pid"], new["time"] = 200, 2000.0
    _write(tmp_path, [old, new, _snap(1)])
    proc = run_cli("queues", str(tmp_path), "--json", "-")
    doc = json.loads(proc.stdout)
    assert [x["recv"]["tag"] for x in doc["analysis"]["stuck"]] == [2]
    assert any("left aside" in n for n in doc["notes"])
