"""`mpimatch run` (python/mpimatch/run_cli.py): the mpirun line it builds for the
mpimatch libfabric provider, its errors, and a real Open MPI run through it (with every
rank on the TCP channel and the statistics files checked) where the provider is built."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from conftest import REPO, run_cli
from mpimatch import mpistack

RING_PROBE = REPO / "build" / "bin" / "openmpi" / "mm_ring_probe"


@pytest.fixture
def fake_lib(tmp_path, monkeypatch) -> Path:
    """A stand-in provider library file, so --print works without a build."""
    lib = tmp_path / "lib" / mpistack.PROVIDER_LIB
    lib.parent.mkdir()
    lib.write_bytes(b"")
    return lib


def test_print_shows_the_plain_mpirun_line(fake_lib, tmp_path) -> None:
    proc = run_cli("run", "--engine", "list", "--hints", "no_any_source", "--stats",
                   str(tmp_path / "st"), "--force-tcp", "all", "--lib", str(fake_lib), "--print",
                   "--", "mpirun", "-np", "4", "./app", "--flag")
    assert proc.returncode == 0, proc.stderr
    cmd = shlex.split(proc.stdout.strip())
    assert cmd[0] == "mpirun" and cmd[-4:] == ["-np", "4", "./app", "--flag"]
    text = " ".join(cmd)
    for part in ("--mca pml cm", "--mca mtl ofi", "--mca mtl_ofi_provider_include mpimatch",
                 f"-x FI_PROVIDER_PATH={fake_lib.parent.resolve()}", "-x FI_PROVIDER=mpimatch",
                 "-x FI_MPIMATCH_ENGINE=list", "-x FI_MPIMATCH_HINTS=no_any_source",
                 f"-x FI_MPIMATCH_STATS={(tmp_path / 'st').resolve()}",
                 "-x FI_MPIMATCH_FORCE_TCP=all"):
        assert part in text, (part, text)
    assert not (tmp_path / "st").exists()   # --print runs and creates nothing


def test_print_passes_the_polling_options(fake_lib, tmp_path) -> None:
    tuning = tmp_path / "t.conf"
    tuning.write_text("shm_eager = 1024\n")
    proc = run_cli("run", "--poll", "dynamic", "--poll-ratio", "20", "--poll-history", "10",
                   "--tuning", str(tuning), "--lib", str(fake_lib), "--print", "--",
                   "mpirun", "-np", "2", "./app")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for part in ("-x FI_MPIMATCH_POLL=dynamic", "-x FI_MPIMATCH_POLL_RATIO=20",
                 "-x FI_MPIMATCH_POLL_HISTORY=10", f"-x FI_MPIMATCH_TUNING={tuning.resolve()}"):
        assert part in text, (part, text)
    assert shlex.split(text)[-3:] == ["-np", "2", "./app"]


def test_print_passes_the_engine_parameters(fake_lib) -> None:
    proc = run_cli("run", "--engine", "bins", "--param", "bins=64", "--param", "seed=7",
                   "--lib", str(fake_lib), "--print", "--", "mpirun", "-np", "2", "./app")
    assert proc.returncode == 0, proc.stderr
    assert "-x FI_MPIMATCH_PARAMS=bins=64,seed=7" in proc.stdout, proc.stdout


@pytest.mark.parametrize("args,message", [
    (["--param", "bins", "--", "mpirun", "./a"], "one KEY=VALUE per flag"),
    (["--param", "bins=64,seed=7", "--", "mpirun", "./a"], "one KEY=VALUE per flag"),
    (["--param", "=64", "--", "mpirun", "./a"], "one KEY=VALUE per flag"),
    (["--", "./app"], "is not mpirun or mpiexec"),
    ([], "no command"),
    (["--poll-ratio", "0", "--", "mpirun", "./a"], "--poll-ratio: an integer from 1 to 1000"),
    (["--poll-history", "2000", "--", "mpirun", "./a"], "--poll-history: an integer from 1 to 1024"),
    (["--tuning", "/nonexistent/t.conf", "--", "mpirun", "./a"], "no such file"),
    (["--lib", "/nonexistent/libmpimatch-fi.so", "--", "mpirun", "./a"], "not found at"),
])
def test_bad_usage_is_a_clear_error(args, message, fake_lib) -> None:
    if "--lib" not in args:
        args = ["--lib", str(fake_lib), *args]
    proc = run_cli("run", "--print", *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_engine_is_refused(fake_lib) -> None:
    from mpimatch.run_cli import _engine_names
    if not _engine_names():
        pytest.skip("mpimatch-replay is not built: the provider checks the name itself")
    proc = run_cli("run", "--engine", "nope", "--lib", str(fake_lib), "--print", "--",
                   "mpirun", "./a")
    assert proc.returncode == 2 and "no such engine" in proc.stderr and "list" in proc.stderr


def test_runs_an_open_mpi_program_over_tcp(tmp_path) -> None:
    stack = mpistack.Stack("mpimatch", "", ())
    why = mpistack.unavailable(stack)
    if why or not RING_PROBE.is_file():
        pytest.skip(why or f"{RING_PROBE} is not built")
    stats = tmp_path / "stats"
    proc = run_cli("run", "--engine", "bins", "--param", "bins=64", "--force-tcp", "all",
                   "--stats", str(stats), "--",
                   mpistack.MPIRUN, *mpistack.MPIRUN_BASE, "-np", "4", str(RING_PROBE))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ring_probe: ok" in proc.stdout
    files = sorted(stats.glob("mpimatch-fi-*.json"))
    assert len(files) == 4
    for f in files:
        doc = json.loads(f.read_text())
        assert doc["results"][0]["engine"] == "bins"
        assert doc["results"][0]["params"]["bins"] == 64, doc["results"][0]["params"]
        assert doc["channels"]["tcp"]["connects"] >= 4   # every peer, itself included
        assert doc["channels"]["tcp"]["cells_recv"] > 0
