"""The one atomic writer (mpimatch/atomic.py): a regular file is renamed into place, a symlink
is followed, and a character device, a FIFO or a standard stream is written straight through,
never replaced (issue 13: `--json /dev/null` as root turned /dev/null into a regular file)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import pytest

from conftest import PYTHON_DIR, REPO, python_cli_env, run_cli, skip_unavailable
from mpimatch.atomic import check_writable, umask_mode, write_atomic, writes_through
from mpimatch.errors import MpimatchError


def null_device(tmp_path):
    """A private character device like /dev/null (1, 3): a test that went wrong cannot
    break the machine's /dev/null."""
    path = tmp_path / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        skip_unavailable("mknod of a character device needs CAP_MKNOD", kind="kernel")
    return path


def test_regular_file_is_replaced_whole(tmp_path):
    path = tmp_path / "out.json"
    write_atomic(path, "first\n")
    assert path.read_text() == "first\n"
    assert stat.S_IMODE(path.stat().st_mode) == umask_mode(0o666)
    write_atomic(path, b"second\n")
    write_atomic(path, lambda f: f.write(b"third\n"))
    assert path.read_text() == "third\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"], "temporary files left"


def test_replacing_keeps_the_files_mode(tmp_path):
    """A file made private stays private when a tool writes it again; a new file gets
    the umask's default (mkstemp's 0600 would hide it from the group)."""
    path = tmp_path / "out.json"
    write_atomic(path, "first\n")
    os.chmod(path, 0o640)
    write_atomic(path, "second\n")
    assert path.read_text() == "second\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    link = tmp_path / "link.json"
    link.symlink_to(path.name)
    os.chmod(path, 0o600)
    write_atomic(link, "third\n")
    assert link.is_symlink() and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")

    def fail(f):
        f.write(b"half")
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError):
        write_atomic(path, fail)
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_symlink_is_followed_and_kept(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "data.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "real" / "fresh.txt")
    write_atomic(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "real" / "fresh.txt").read_text() == "made"


def test_character_device_is_written_through_not_replaced(tmp_path):
    dev = null_device(tmp_path)
    assert writes_through(dev)
    check_writable(dev)
    write_atomic(dev, "discarded\n")
    assert stat.S_ISCHR(os.stat(dev).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    link = tmp_path / "to-null"                      # a symlink to a device: followed
    link.symlink_to(dev)
    write_atomic(link, "x")
    assert link.is_symlink() and stat.S_ISCHR(os.stat(dev).st_mode)
    write_atomic("/dev/null", "x")                   # the real one, as any user can
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1"])
def test_standard_output_is_appended_to_not_replaced(tmp_path, name):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from mpimatch.atomic import write_atomic; "
            "print('before', flush=True); write_atomic(sys.argv[2], 'written\\n')")
    piped = subprocess.run([sys.executable, "-c", code, str(PYTHON_DIR), name],
                           capture_output=True, text=True)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == "before\nwritten\n"
    out = tmp_path / "redirected.txt"                 # stdout a regular file: not renamed over
    with open(out, "w") as f:
        redirected = subprocess.run([sys.executable, "-c", code, str(PYTHON_DIR), name],
                                    stdout=f, stderr=subprocess.PIPE, text=True)
    assert redirected.returncode == 0, redirected.stderr
    assert out.read_text() == "before\nwritten\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["redirected.txt"]


def test_directory_and_missing_parent_are_errors(tmp_path):
    with pytest.raises(MpimatchError, match="is a directory"):
        write_atomic(tmp_path, "x")
    with pytest.raises(MpimatchError, match="is a directory"):
        check_writable(tmp_path)
    with pytest.raises(MpimatchError, match="does not exist"):
        check_writable(tmp_path / "no" / "x.json")


def test_bench_json_to_a_device_keeps_the_device(tmp_path, replay_exe):
    """End to end: `mpimatch bench --json DEVICE` writes through the device (issue 13)."""
    dev = null_device(tmp_path)
    proc = run_cli("bench", "--stream", REPO / "examples" / "tiny.mms", "--engines", "list",
                   "--reps", "1", "--out", tmp_path / "o", "--json", dev, "--quiet",
                   env=python_cli_env())
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(dev).st_mode)
    assert (tmp_path / "o" / "results.json").is_file()


def test_a_full_device_names_the_file_not_standard_output(tmp_path, replay_exe):
    """A failed write names the file written (before: 'error writing standard output',
    as the OSError of write() carries no file name)."""
    dev = tmp_path / "full"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        skip_unavailable("mknod of a character device needs CAP_MKNOD", kind="kernel")
    with pytest.raises(OSError) as info:
        write_atomic(dev, "x" * 100000)
    assert info.value.filename == str(dev)
    profile = tmp_path / "profile.json"
    made = run_cli("profile", REPO / "examples" / "tiny.mms", "--out", profile,
                   env=python_cli_env())
    assert made.returncode == 0, made.stderr
    proc = run_cli("cluster", profile, "--k", "1", "--out", dev, env=python_cli_env())
    assert proc.returncode == 1, proc.stderr
    assert f"error writing {dev}: No space left on device" in proc.stderr
    assert "standard output" not in proc.stderr and "Traceback" not in proc.stderr
