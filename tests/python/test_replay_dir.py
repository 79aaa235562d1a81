"""`mpimatch replay STREAM_DIR` (python/mpimatch/replay_dir.py, dir_report.py): per-rank
records for every engine, aggregates equal to sums and maxima of the per-rank numbers, a
hand-computed heat map, queue series consistent with the statistics, MPI_T samples from
the original trace, and bad directories."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from conftest import _find, hints_of, run, run_cli
from mpimatch import tools

# Receiving rank 0: three messages queue (from 1, 2, 1), three receives find them
# (traversing 2, 2 and 1 UMQ elements), then a wildcard-source receive and a receive
# from 2 are posted and a message from 2 passes the wildcard one to match the second.
RANK0 = """# mpimatch stream v1
# np=3
M 1 0 1 5
M 2 0 2 5
M 3 0 1 6
R 4 0 2 5
R 5 0 1 6
R 6 0 1 5
R 7 0 * 9
R 8 0 2 8
M 9 0 2 8
"""
RANK1 = "# mpimatch stream v1\n# np=3\nM 1 0 0 1\nR 2 0 0 1\n"
RANK2 = "# mpimatch stream v1\n# np=3\nR 1 0 0 3\nM 2 0 0 3\n"
# matrix[receiving rank][source]
UMQ = [[0, 4, 1], [1, 0, 0], [0, 0, 0]]
PRQ = [[0, 0, 1], [0, 0, 0], [1, 0, 0]]
PRQ_ANY = [1, 0, 0]


def make_dir(tmp_path: Path, stream_exe: Path, index: bool = True, source=None) -> Path:
    d = tmp_path / "streams"
    d.mkdir()
    for r, text in enumerate((RANK0, RANK1, RANK2)):
        (d / ("rank-%06d.txt" % r)).write_text(text)
        # rank 1 as a binary stream, the others as text: both formats are read
        p = run([stream_exe, "convert", d / ("rank-%06d.txt" % r), d / ("rank-%06d.mms" % r),
                 "--to", "binary" if r == 1 else "text"])
        assert p.returncode == 0, p.stderr
        (d / ("rank-%06d.txt" % r)).unlink()
    if index:
        idx = {"format": "mpimatch-streams", "version": 1, "ranks": 3, "mpi": "openmpi",
               "model": {}, "files": ["rank-%06d.mms" % r for r in range(3)],
               "warnings": ["a warning from the converter"]}
        if source is not None:
            idx["source"] = source
        (d / "index.json").write_text(json.dumps(idx))
    return d


def replay_dir(d: Path, out: Path, *extra: str):
    p = run_cli("replay", d, "--engine", "all", "--reps", "1", "--out", out, "--quiet", *extra)
    assert p.returncode == 0, p.stderr
    return json.loads((out / "report.json").read_text())


@pytest.fixture(scope="session")
def stream_exe() -> Path:
    return _find(tools.STREAM)


def test_report_numbers(tmp_path, stream_exe, engines):
    d = make_dir(tmp_path, stream_exe)
    rep = replay_dir(d, tmp_path / "out")
    assert rep["ranks"] == 3 and rep["events"] == 9 + 2 + 2
    assert rep["warnings"] == ["a warning from the converter"]
    assert rep["seed"] == 1                     # the lab's fixed hash seed (--seed)
    # every engine has a record on every rank where the stream allows it: rank 0 uses
    # MPI_ANY_SOURCE, ranks 1 and 2 use no wildcard
    for r in rep["per_rank"]:
        assert set(r["engines"]) | set(r["skipped"]) == {e["name"] for e in engines}
        for e in engines:
            assert (e["name"] in r["engines"]) == (r["rank"] > 0 or "no_any_source" not in hints_of(e))
    # the aggregate covers the engines that ran on every rank
    assert set(rep["aggregate"]) == set(rep["per_rank"][0]["engines"])
    # aggregates are sums and maxima of the per-rank numbers
    for name, a in rep["aggregate"].items():
        rows = [r["engines"][name] for r in rep["per_rank"]]
        for side in ("prq", "umq"):
            assert a[side]["searches"] == sum(x[side]["searches"] for x in rows)
            assert a[side]["traversed"] == sum(x[side]["traversed"] for x in rows)
            assert a[side]["max_depth"] == max(x[side]["max_depth"] for x in rows)
            assert a[side]["max_length"] == max(x[side]["max_length"] for x in rows)
            assert a[side]["probes"] == sum(x[side]["probes"] for x in rows)
            assert a[side]["max_probes"] == max(x[side]["max_probes"] for x in rows)
            assert (a[side]["probes"] > 0) == (name in ("hash", "nm"))   # slots of hash tables
            assert a[side]["mean_depth"] == pytest.approx(
                a[side]["traversed"] / a[side]["searches"] if a[side]["searches"] else 0)
        assert a["peak_bytes_sum"] == sum(x["peak_bytes"] for x in rows)
        assert a["peak_bytes_max"] == max(x["peak_bytes"] for x in rows)
        assert a["total_ns"] == pytest.approx(
            sum(x["ns_per_event"] * r["events"] for x, r in zip(rows, rep["per_rank"])))
    # the list engine on rank 0, by hand: UMQ searches traverse 2 + 2 + 1 + 0 + 0
    lst = rep["per_rank"][0]["engines"]["list"]
    assert lst["umq"]["traversed"] == 5 and lst["umq"]["max_depth"] == 2
    assert lst["prq"]["traversed"] == 2 and lst["prq"]["max_length"] == 2
    # heat maps equal the hand-computed ones, and their rows sum to the list statistics
    hm = rep["heat_map"]
    assert hm["umq"] == UMQ and hm["prq"] == PRQ and hm["prq_any"] == PRQ_ANY
    for r, row in enumerate(hm["umq"]):
        assert sum(row) == rep["per_rank"][r]["engines"]["list"]["umq"]["traversed"]
        assert sum(hm["prq"][r]) + hm["prq_any"][r] == \
            rep["per_rank"][r]["engines"]["list"]["prq"]["traversed"]
    # queue series of the busiest rank (rank 0, most events), consistent with max_length
    s = rep["queue_series"]
    assert s["rank"] == 0 and s["x"] == "event"
    assert [row[0] for row in s["rows"]] == list(range(1, 10))
    assert max(row[2] for row in s["rows"]) == lst["prq"]["max_length"] == 2
    assert max(row[3] for row in s["rows"]) == lst["umq"]["max_length"] == 3
    assert s["rows"][-1][2:] == [1, 0]     # the wildcard receive is still posted
    assert "measured" not in s


def test_outputs_and_fallback_without_index(tmp_path, stream_exe):
    d = make_dir(tmp_path, stream_exe, index=False)
    out = tmp_path / "out"
    rep = replay_dir(d, out, "--every", "4")
    assert rep["heat_map"]["umq"] == UMQ
    assert [row[0] for row in rep["queue_series"]["rows"]] == [4, 8, 9]
    for name in ("heatmap_umq.png", "heatmap_prq.png", "depth_by_rank.png", "queue_series.png"):
        assert (out / name).read_bytes().startswith(b"\x89PNG")
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 4 and "<img" in page


def trace_with_pvars(path: Path, rank: int, samples) -> None:
    """A minimal trace file: header and PVAR records (docs/trace-format.md)."""
    head = bytearray(256)
    head[0:8] = b"MMTRACE\0"
    struct.pack_into("<HHHHii", head, 8, 1, 256, 80, 1, rank, 3)
    struct.pack_into("<Q", head, 32, 1000)
    recs = b""
    for t, sub, value in samples:
        rec = bytearray(80)
        rec[0], rec[1] = 19, sub
        struct.pack_into("<QQ", rec, 32, 1000 + t, 1000 + t)
        struct.pack_into("<Q", rec, 72, value)
        recs += bytes(rec)
    path.write_bytes(bytes(head) + recs)


def test_measured_mpi_t_samples(tmp_path, stream_exe):
    trace = tmp_path / "trace"
    trace.mkdir()
    trace_with_pvars(trace / "rank-000000.mmt", 0, [(5, 0, 3), (9, 1, 2)])
    d = make_dir(tmp_path, stream_exe, source="../trace")
    rep = replay_dir(d, tmp_path / "out")
    m = rep["queue_series"]["measured"]
    assert m == {"unexpected": [[5, 3]], "posted": [[9, 2]]}


def test_measured_source_relative_to_where_convert_ran(tmp_path, stream_exe, monkeypatch):
    """convert writes "source" as given on its command line (e.g. runs/x.trace)."""
    (tmp_path / "runs" / "x.trace").mkdir(parents=True)
    trace_with_pvars(tmp_path / "runs" / "x.trace" / "rank-000000.mmt", 0, [(5, 0, 3)])
    d = make_dir(tmp_path, stream_exe, source="runs/x.trace")
    monkeypatch.chdir(tmp_path)
    rep = replay_dir(d, tmp_path / "out")
    assert rep["queue_series"]["measured"]["unexpected"] == [[5, 3]]


@pytest.mark.parametrize("case, message", [
    ("empty", "no index.json and no rank-*.mms stream files"),
    ("version", "unsupported version 2 (this reader knows 1)"),
    ("format", "not a stream directory index"),
    ("missing", "rank-000002.mms: missing (listed in"),
    ("files", "'files' lists 2 of 3 ranks; their names must be rank-NNNNNN.mms"),
    ("too-many", "'files' must list 1 to 3 file names"),
])
def test_bad_dirs(tmp_path, stream_exe, case, message):
    if case == "empty":
        d = tmp_path / "empty"
        d.mkdir()
    else:
        d = make_dir(tmp_path, stream_exe)
        idx = json.loads((d / "index.json").read_text())
        if case == "version":
            idx["version"] = 2
        elif case == "format":
            idx["format"] = "mpimatch-trace"
        elif case == "missing":
            (d / "rank-000002.mms").unlink()
        elif case == "files":
            idx["files"] = ["rank-000000.mms", "rank-000002.mms"][::-1]  # not in rank order
        elif case == "too-many":
            idx["files"] = idx["files"] + ["rank-000000.mms"]
        (d / "index.json").write_text(json.dumps(idx))
    p = run_cli("replay", d, "--reps", "1", "--out", tmp_path / "out")
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert not (tmp_path / "out" / "report.json").exists()


def test_subset_of_ranks(tmp_path, stream_exe):
    """A directory `mpimatch convert --rank 0,2` wrote: index.json lists some ranks' files;
    each file's rank is in its name, the heat maps keep a column per rank of the run."""
    d = make_dir(tmp_path, stream_exe)
    idx = json.loads((d / "index.json").read_text())
    idx["files"] = ["rank-000000.mms", "rank-000002.mms"]
    (d / "index.json").write_text(json.dumps(idx))
    (d / "rank-000001.mms").unlink()
    rep = replay_dir(d, tmp_path / "out")
    assert [r["rank"] for r in rep["per_rank"]] == [0, 2]
    assert rep["ranks"] == 2 and rep["world_ranks"] == 3
    assert rep["heat_map"]["umq"] == [UMQ[0], UMQ[2]]
    assert rep["heat_map"]["prq"] == [PRQ[0], PRQ[2]]
    p = run_cli("replay", d, "--engine", "list", "--reps", "1")
    assert p.returncode == 0, p.stderr
    assert "2 of 3 ranks: 0,2" in p.stdout


@pytest.mark.parametrize("opt", [["--out", "X"], ["--jobs", "2"], ["--every", "5"], ["--per-rank"]])
def test_directory_options_with_one_stream(tmp_path, opt):
    """They used to be ignored silently for one stream: now an error, and nothing is written."""
    f = tmp_path / "one.mms"
    f.write_text(RANK0)
    p = run_cli("replay", f, "--engine", "list", *opt, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert f"{opt[0]}: for a directory of per-rank streams" in p.stderr
    assert not (tmp_path / "X").exists()


def test_single_file_replay_unchanged(tmp_path, stream_exe):
    f = tmp_path / "one.mms"
    f.write_text(RANK0)
    p = run_cli("replay", f, "--engine", "list", "--reps", "1", "--json", "-")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["results"][0]["engine"] == "list"


# ------------------------------------------------------------ which engine? (compare)

def _rank(rank: int, events: int, times, skipped=None):
    """A rank record as rank_record makes it: times = {engine: (q1, median, q3)}."""
    return {"rank": rank, "events": events, "skipped": list(skipped or {}),
            "skipped_why": dict(skipped or {}),
            "engines": {n: {"ns_per_event": m, "ns_q1": a, "ns_q3": b}
                        for n, (a, m, b) in times.items()}}


def test_compare_names_a_winner_only_beyond_the_spread():
    from mpimatch.replay_dir import compare
    ranks = [_rank(0, 100, {"list": (9, 10, 11), "hash": (4, 5, 6), "bins": (8, 9, 12)},
                   skipped={"rank": "needs no MPI_ANY_SOURCE"}),
             _rank(1, 100, {"list": (9, 10, 11), "hash": (4, 5, 6), "bins": (8, 9, 12),
                            "rank": (1, 1, 1)})]
    agg = {n: {} for n in ("list", "hash", "bins")}
    c = compare(ranks, agg)
    assert [r["engine"] for r in c["order"]] == ["hash", "bins", "list"]   # by total time
    hash_row = c["order"][0]
    assert hash_row["total_ns"] == 1000 and hash_row["speedup_vs_list"] == pytest.approx(2.0)
    assert hash_row["ranks_won"] == 2 and hash_row["ranks_won_clear"] == 2
    assert c["within_noise"] == ["hash"]
    assert c["recommendation"].startswith("hash is fastest") and "2.00x" in c["recommendation"]
    # rank skipped on rank 0 with mpimatch-replay's reason; it ran on rank 1 only
    assert c["skipped"] == [{"engine": "rank", "reason": "needs no MPI_ANY_SOURCE", "ranks": 1}]


def test_compare_says_within_noise_when_spreads_overlap():
    from mpimatch.replay_dir import compare
    ranks = [_rank(0, 100, {"list": (9, 10, 14), "kmeans": (7, 9.5, 12), "nm": (20, 21, 22)})]
    c = compare(ranks, {"list": {}, "kmeans": {}, "nm": {}})
    assert c["within_noise"] == ["kmeans", "list"]
    assert c["recommendation"].startswith("within noise: kmeans, list")
    assert "fastest" not in c["recommendation"]
    assert c["order"][0]["ranks_won"] == 1 and c["order"][0]["ranks_won_clear"] == 0


def test_report_table_is_not_cut_when_piped(tmp_path, stream_exe):
    """Output to a pipe: the table takes the width it needs (no 'col…'), sorted by total
    time with speed-up against list; the recommendation and the per-rank plot follow."""
    d = make_dir(tmp_path, stream_exe)
    p = run_cli("replay", d, "--engine", "list,col+ll,col+pnp", "--reps", "3", "--out",
                tmp_path / "out")
    assert p.returncode == 0, p.stderr
    assert "col+ll" in p.stdout and "col+pnp" in p.stdout and "col…" not in p.stdout
    assert "vs list" in p.stdout and "recommendation: " in p.stdout
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    totals = [r["total_ns"] for r in rep["comparison"]["order"]]
    assert totals == sorted(totals)
    assert (tmp_path / "out" / "depth_by_rank.png").stat().st_size > 0


def _mpi4py_usable() -> bool:
    import shutil
    from mpimatch.replay_mpi import DEBIAN_MPI4PY
    if shutil.which("mpirun") is None:
        return False
    try:
        import mpi4py  # noqa: F401
        return True
    except ImportError:
        return (DEBIAN_MPI4PY / "__init__.py").exists()


def _untimed(rep):
    """What must not depend on how the replay was spread: everything but the timings."""
    ranks = []
    for r in rep["per_rank"]:
        engines = {n: {k: v for k, v in e.items() if k not in ("ns_per_event", "ns_q1", "ns_q3")}
                   for n, e in r["engines"].items()}
        ranks.append((r["rank"], r["stream"], r["events"], engines, r["skipped"]))
    return ranks, rep["heat_map"], rep["queue_series"], rep["ranks"], rep["events"]


@pytest.mark.skipif(not _mpi4py_usable(), reason="mpirun or mpi4py not available")
def test_distributed_replay_under_mpirun_gives_the_serial_report(tmp_path, stream_exe):
    """mpirun -np 2: each process replays a shard of the ranks (0, 2 and 1), process 0
    writes report.json; everything but the timings equals the serial run's."""
    import sys

    from conftest import python_cli_env
    d = make_dir(tmp_path, stream_exe)
    serial = replay_dir(d, tmp_path / "serial")
    p = run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
             sys.executable, "-m", "mpimatch", "replay", d, "--engine", "all", "--reps", "1",
             "--distributed", "--out", tmp_path / "dist", "--quiet"], env=python_cli_env())
    assert p.returncode == 0, p.stderr
    dist = json.loads((tmp_path / "dist" / "report.json").read_text())
    assert _untimed(dist) == _untimed(serial)
    assert set(dist["aggregate"]) == set(serial["aggregate"])


def test_tables_of_a_report(tmp_path, stream_exe):
    """`mpimatch tables REPORT_DIR [--wildcards]` (was scripts/apps_tables.py): the engine
    table sorted by ns/event, the MPI_T samples against the model, the wildcard counts."""
    trace = tmp_path / "trace"
    trace.mkdir()
    # rank 0 after t=5 (M1 M2 M3 queued, R4 and R5 took two): UMQ 1, sampled as 3;
    # after t=9 (M9 matched R8, R7 ANY_SOURCE waits): PRQ 1, sampled as 1
    trace_with_pvars(trace / "rank-000000.mmt", 0, [(5, 0, 3), (9, 1, 1)])
    d = make_dir(tmp_path, stream_exe, source="../trace")
    # rank 0's events at t = 1..9 ns (the samples' clock: trace t0 + t)
    lines = RANK0.splitlines()
    (d / "rank-000000.mms").write_text("\n".join(lines[:2] + [f"{line} t={i + 1}" for i, line
                                                              in enumerate(lines[2:])]) + "\n")
    rep = replay_dir(d, tmp_path / "out")
    assert rep["queue_series"]["x"] == "t"
    proc = run_cli("tables", tmp_path / "out", "--wildcards")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert text.startswith("3 ranks, 13 events (all ranks); converter warnings: a warning "
                           "from the converter\n")
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| ")]
    head = rows[0]
    assert head[:3] == ["| engine", "ns/event", "vs list"]
    body = [r for r in rows[2:] if r[0][2:] in rep["aggregate"]]
    assert [r[0][2:] for r in body] == sorted(rep["aggregate"],
                                              key=lambda e: rep["aggregate"][e]["ns_per_event"])
    assert next(r for r in body if r[0] == "| list")[2] == "1.00"
    assert "Rank 0 (busiest), MPI_T samples against the model" in text
    prq = next(r for r in rows if r[0] == "| PRQ")
    umq = next(r for r in rows if r[0] == "| UMQ")
    assert prq[1:7] == ["1", "1.00", "1", "1.00", "1", "1 of 1"]
    assert umq[1:7] == ["1", "3.00", "3", "1.00", "1", "0 of 1"]
    assert ("Receives: 7, of which ANY_SOURCE only 1, ANY_TAG only 0, both 0 (on 1 of 3 "
            "ranks); probes 0, with a wildcard 0.") in text


def test_tables_bad_input(tmp_path):
    out = tmp_path / "r"
    for setup, says in ((lambda: None, "not a directory"),
                        (lambda: out.mkdir(), "report.json: no such file"),
                        (lambda: (out / "report.json").write_text('{\n  "tool": 1,\n'),
                         "report.json:3: not valid JSON"),
                        (lambda: (out / "report.json").write_text('{"tool": "mpimatch replay"}'),
                         "not a report of 'mpimatch replay STREAM_DIR --out' (no ranks")):
        setup()
        proc = run_cli("tables", out)
        assert proc.returncode == 2 and says in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""
