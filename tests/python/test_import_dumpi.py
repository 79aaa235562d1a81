"""`mpimatch import dumpi` (mpimatch-import-dumpi, docs/dumpi.md): exact import of
DUMPI fixtures written by tests/dumpi/dumpi_writer.py, and bad inputs: truncated,
corrupted and foreign files, missing rank files, statuses that were not recorded."""
from __future__ import annotations

import json
import shutil
import struct
import sys
from pathlib import Path

import pytest

from conftest import REPO, _find, run, run_cli

sys.path.insert(0, str(REPO / "tests" / "dumpi"))
import dumpi_writer as dw  # noqa: E402

DATA = REPO / "tests" / "dumpi" / "data"
PREFIX = "dumpi-2024.01.02.03.04.05"


@pytest.fixture(scope="session")
def import_exe() -> Path:
    return _find("mpimatch-import-dumpi")


@pytest.fixture(scope="session")
def dump_exe() -> Path:
    return _find("mpimatch-trace-dump")


def dump_all(dump_exe: Path, out: Path, n: int) -> str:
    text = ""
    for r in range(n):
        p = run([dump_exe, out / ("rank-%06d.mmt" % r)])
        assert p.returncode == 0, p.stderr
        text += p.stdout.replace(str(out) + "/", "TRACE/")
    return text


def fixture_copy(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    shutil.copytree(DATA / "p2p", d)
    return d


def rank_file(d: Path, r: int) -> Path:
    return d / ("%s-%04d.bin" % (PREFIX, r))


def record_offset(run_: dw.Run, r: int, k: int) -> int:
    """File offset of record k of rank r: magic, two biases, then the records."""
    return 8 + 8 + sum(len(x) for x in run_.rank(r).records[:k])


def test_fixtures_are_what_the_writer_writes(tmp_path):
    dw.p2p_program().write(tmp_path)
    for f in sorted((DATA / "p2p").iterdir()):
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), f.name


def test_import_is_exact(import_exe, dump_exe, tmp_path):
    out = tmp_path / "trace"
    p = run([import_exe, DATA / "p2p", "--out", out])
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert dump_all(dump_exe, out, 3) == (DATA / "p2p.expected").read_text()
    index = (out / "index.json").read_text()
    assert '"format": "mpimatch-trace"' in index and '"ranks": 3' in index


def test_meta_file_input_and_python_cli(import_exe, dump_exe, tmp_path):
    out = tmp_path / "trace"
    p = run_cli("import", "dumpi", DATA / "p2p" / (PREFIX + ".meta"), "--out", out)
    assert p.returncode == 0, p.stderr
    assert dump_all(dump_exe, out, 3) == (DATA / "p2p.expected").read_text()


def test_truncated_file_is_read_to_its_last_whole_record(import_exe, dump_exe, tmp_path):
    d = fixture_copy(tmp_path)
    prog = dw.p2p_program()
    cut = record_offset(prog, 1, 4) + 7          # inside rank 1's fifth record
    f = rank_file(d, 1)
    f.write_bytes(f.read_bytes()[:cut])
    out = tmp_path / "trace"
    p = run([import_exe, d, "--out", out])
    assert p.returncode == 0, p.stderr
    assert "warning" in p.stderr and str(f) in p.stderr
    assert "offset %d: the file ends inside record 4" % record_offset(prog, 1, 4) in p.stderr
    q = run([dump_exe, out / "rank-000001.mmt"])
    assert q.returncode == 0
    assert "no END record" in q.stderr
    kinds = [line.split()[1] for line in q.stdout.splitlines() if not line.startswith("#")]
    assert kinds == ["COMM", "COMM", "IRECV", "RECV"]   # Init and Comm_rank map to nothing


def corrupt(tmp_path: Path, r: int, at: int, data: bytes) -> Path:
    d = fixture_copy(tmp_path)
    f = rank_file(d, r)
    b = bytearray(f.read_bytes())
    b[at:at + len(data)] = data
    f.write_bytes(bytes(b))
    return d


def expect_error(import_exe, d: Path, out: Path, *parts: str) -> None:
    p = run([import_exe, d, "--out", out])
    assert p.returncode == 2, (p.returncode, p.stderr)
    for part in parts:
        assert part in p.stderr, p.stderr
    assert not list(out.glob("rank-*.mmt")) and not (out / "index.json").exists()


def test_corrupted_label(import_exe, tmp_path):
    prog = dw.p2p_program()
    at = record_offset(prog, 2, 2)
    d = corrupt(tmp_path, 2, at, struct.pack(">H", 999))
    expect_error(import_exe, d, tmp_path / "t", "%s: offset %d: unknown call label 999"
                 % (rank_file(d, 2), at))


def test_corrupted_nanoseconds(import_exe, tmp_path):
    prog = dw.p2p_program()
    at = record_offset(prog, 0, 1) + 2 + 1 + 2      # label, mask, thread
    d = corrupt(tmp_path, 0, at + 2, struct.pack(">I", 2_000_000_000))
    expect_error(import_exe, d, tmp_path / "t", "offset %d: nanoseconds field 2000000000" % (at + 2))


def test_corrupted_index(import_exe, tmp_path):
    size = len(dw.p2p_program().file_bytes(0))
    d = corrupt(tmp_path, 0, size - 32, struct.pack(">Q", 10**9))   # the header offset
    expect_error(import_exe, d, tmp_path / "t", "offset %d: index: header offset 1000000000" % (size - 64))


def test_header_offset_off_by_four(import_exe, tmp_path):
    prog = dw.p2p_program()
    size = len(prog.file_bytes(0))
    header = size - 64 + 32
    real = struct.unpack(">Q", prog.file_bytes(0)[header:header + 8])[0]
    d = corrupt(tmp_path, 0, header, struct.pack(">Q", real - 4))
    # the header is then read 4 bytes early: its host name length is garbage
    expect_error(import_exe, d, tmp_path / "t", "%s: offset %d: header: host name of"
                 % (rank_file(d, 0), real - 4 + 11), "runs past the header")


def test_foreign_file(import_exe, tmp_path):
    d = fixture_copy(tmp_path)
    rank_file(d, 2).write_text("hello, not a trace\n")
    expect_error(import_exe, d, tmp_path / "t",
                 "%s: offset 0: not a DUMPI trace (no DUMPI magic)" % rank_file(d, 2))


def test_missing_rank_file_and_no_run(import_exe, tmp_path):
    d = fixture_copy(tmp_path)
    rank_file(d, 1).unlink()
    expect_error(import_exe, d, tmp_path / "t", "%s-0001.bin: missing" % PREFIX, "numprocs=3")
    empty = tmp_path / "empty"
    empty.mkdir()
    expect_error(import_exe, empty, tmp_path / "t", "no DUMPI run here")


def test_wildcard_receive_without_status_is_an_error(import_exe, tmp_path):
    run_ = dw.Run(PREFIX, 2)
    run_.rank(0).call("MPI_Send", [dw.i32(1), dw.i16(dw.INT), dw.i32(1), dw.i32(4), dw.i16(dw.WORLD)])
    # statuses off (dumpi.conf "statuses=disable"): the mask has no status bit
    run_.rank(1).call("MPI_Recv", [dw.i32(1), dw.i16(dw.INT), dw.i32(dw.ANY_SOURCE), dw.i32(4),
                                   dw.i16(dw.WORLD)], mask=dw.MASK_WALL)
    run_.write(tmp_path / "in")
    expect_error(import_exe, tmp_path / "in", tmp_path / "t",
                 "offset 16: MPI_Recv: a wildcard receive or probe without its status")


def test_calls_not_recorded_are_reported(import_exe, tmp_path):
    """The DUMPI footer's ignored counts (calls made but not recorded, dumpi.conf)
    are summed over the ranks, warned about per call and kept in index.json; convert
    carries the flag into its own index.json and prints it."""
    run_ = dw.p2p_program()
    run_.rank(0).footer = {dw.LABELS["MPI_Isend"]: (100, 84), dw.LABELS["MPI_Allreduce"]: (5, 5)}
    run_.rank(2).footer = {dw.LABELS["MPI_Isend"]: (10, 6)}
    d = tmp_path / "in"
    run_.write(d)
    out = tmp_path / "trace"
    p = run([import_exe, d, "--out", out])
    assert p.returncode == 0, p.stderr
    assert "PARTIAL TRACE" in p.stderr
    assert "MPI_Isend 90 of 110" in p.stderr and "MPI_Allreduce 5 of 5" in p.stderr
    imported = json.loads((out / "index.json").read_text())["imported"]
    assert imported["partial"] is True
    assert imported["not_recorded"] == {"MPI_Isend": 90, "MPI_Allreduce": 5}
    assert imported["footers_read"] == 3 and imported["footers_missing"] == 0
    streams = tmp_path / "streams"
    p = run_cli("convert", out, "--out", streams)
    assert p.returncode == 0, p.stderr
    assert "PARTIAL TRACE" in p.stdout and "MPI_Isend 90" in p.stdout
    partial = json.loads((streams / "index.json").read_text())["partial_trace"]
    assert partial == {"partial": True, "not_recorded": {"MPI_Isend": 90, "MPI_Allreduce": 5},
                       "files_cut_short": 0}


def test_complete_import_is_not_partial(import_exe, tmp_path):
    out = tmp_path / "trace"
    p = run([import_exe, DATA / "p2p", "--out", out])
    assert p.returncode == 0 and "PARTIAL" not in p.stderr
    imported = json.loads((out / "index.json").read_text())["imported"]
    assert imported["partial"] is False and imported["not_recorded"] == {}


def test_replay_carries_the_partial_trace_flag(import_exe, tmp_path):
    """`mpimatch replay STREAM_DIR` of a partial trace says so on the console, in
    report.json and in report.html."""
    run_ = dw.p2p_program()
    run_.rank(1).footer = {dw.LABELS["MPI_Bcast"]: (3, 3)}
    run_.write(tmp_path / "in")
    p = run([import_exe, tmp_path / "in", "--out", tmp_path / "trace"])
    assert p.returncode == 0, p.stderr
    p = run_cli("convert", tmp_path / "trace", "--out", tmp_path / "streams", "--quiet")
    assert p.returncode == 0, p.stderr
    p = run_cli("replay", tmp_path / "streams", "--engine", "list", "--out", tmp_path / "rep")
    assert p.returncode == 0, p.stderr
    assert "PARTIAL TRACE" in p.stdout and "MPI_Bcast 3" in p.stdout
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert report["partial_trace"] == {"partial": True, "not_recorded": {"MPI_Bcast": 3},
                                       "files_cut_short": 0}
    assert "PARTIAL TRACE" in (tmp_path / "rep" / "report.html").read_text()


def test_non_trace_files_are_ignored(import_exe, dump_exe, tmp_path):
    """macOS resource forks (._*), editor backups (*~) and lock files (.#*) next to a
    run are not taken for a second run or a rank file."""
    d = fixture_copy(tmp_path)
    for f in list(d.iterdir()):
        (d / ("._" + f.name)).write_bytes(b"\0\5\26\7 mac resource fork")
        (d / (f.name + "~")).write_bytes(f.read_bytes())
    (d / (".#" + PREFIX + ".meta")).write_text("lock")
    out = tmp_path / "trace"
    p = run([import_exe, d, "--out", out])
    assert p.returncode == 0, p.stderr
    assert dump_all(dump_exe, out, 3) == (DATA / "p2p.expected").read_text()


def test_convert_of_a_dumpi_run_suggests_the_import(tmp_path):
    """`mpimatch convert` on a DUMPI folder says to import it first and leaves no
    output folder behind; a bad trace leaves none either."""
    out = tmp_path / "streams"
    p = run_cli("convert", DATA / "p2p", "--out", out)
    assert p.returncode == 2
    assert "mpimatch import dumpi" in p.stderr and "SST DUMPI run" in p.stderr
    assert not out.exists()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "rank-000000.mmt").write_bytes(b"not a trace")
    p = run_cli("convert", bad, "--out", out)
    assert p.returncode == 2 and "MMTRACE" in p.stderr
    assert not out.exists()


def test_each_help_lists_its_own_exit_statuses():
    for cmd in (["import", "--help"], ["import", "dumpi", "--help"], ["convert", "--help"]):
        p = run_cli(*cmd)
        assert p.returncode == 0 and "exit status: 0 ok; 1 internal error;" in p.stdout, cmd
        assert "engines disagree" not in p.stdout, cmd
    p = run_cli("replay", "--help")
    assert "1 engines disagree or internal error" in p.stdout
