"""`mpimatch trace`: run an MPI program under libmpimatch-trace.so.

    mpimatch trace --out DIR [--mpi openmpi|mpich] -- mpirun -np 8 ./app args

Finds which MPI the launcher belongs to (from `LAUNCHER --version`: Open MPI
or MPICH's Hydra) unless --mpi says, finds the tracer built for it, passes
LD_PRELOAD and MPIMATCH_TRACE_DIR to every rank the way that launcher wants
(Open MPI: -x VAR=VALUE; Hydra: -genv VAR VALUE), runs it, and checks that
one trace file per rank appeared (docs/trace-format.md).
"""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import tools
from .errors import EXIT_FAILURE, MpimatchError

MPIS = ("openmpi", "mpich")
LIB_NAME = "libmpimatch-trace.so"
LIB_ENV = "MPIMATCH_TRACE_LIB"
HEADER_SIZE, RECORD_SIZE = 256, 80
MAGIC = b"MMTRACE\0"


def by_hand(mpi: str = "<openmpi|mpich>", lib: str = f"<build>/lib/<mpi>/{LIB_NAME}") -> str:
    """How to trace without this command."""
    return (f"to trace by hand, give every rank LD_PRELOAD={lib} and MPIMATCH_TRACE_DIR=DIR "
            f"(the tracer must match the program's MPI, here {mpi}): Open MPI's mpirun takes "
            f"'-x LD_PRELOAD=... -x MPIMATCH_TRACE_DIR=DIR', MPICH's mpiexec "
            f"'-genv LD_PRELOAD ... -genv MPIMATCH_TRACE_DIR DIR'; launchers that pass their "
            f"environment on (srun) take 'LD_PRELOAD=... MPIMATCH_TRACE_DIR=DIR srun ...'")


def detect_mpi(launcher: str) -> str:
    """openmpi or mpich, from the launcher's --version output."""
    exe = shutil.which(launcher)
    if exe is None:
        raise MpimatchError(f"launcher '{launcher}' not found on PATH")
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
        said = proc.stdout + proc.stderr
    except (OSError, subprocess.TimeoutExpired) as err:
        said = str(err)
    if "Open MPI" in said or "OpenRTE" in said:
        return "openmpi"
    if "HYDRA" in said or "MPICH" in said:
        return "mpich"
    first = said.strip().splitlines()[0] if said.strip() else "nothing"
    raise MpimatchError(
        f"cannot tell which MPI the launcher '{launcher}' belongs to ('{launcher} --version' "
        f"says: {first[:100]}); pass --mpi openmpi|mpich if it is mpirun/mpiexec of one of them, "
        f"or {by_hand()}")


def tracer_candidates(mpi: str) -> List[Path]:
    """Where the tracer for `mpi` may be, in search order."""
    out: List[Path] = []
    env_dir = os.environ.get(tools.ENV_VAR)
    bins = [Path(env_dir)] if env_dir else tools.build_dirs()
    dump = shutil.which("mpimatch-trace-dump")
    for b in bins:
        out.append(b.parent / "lib" / mpi / LIB_NAME)
    if dump and not env_dir:
        prefix = Path(dump).resolve().parent.parent
        for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu"):
            out.append(prefix / libdir / "mpimatch" / mpi / LIB_NAME)
    return out


def find_tracer(mpi: str) -> Path:
    explicit = os.environ.get(LIB_ENV)
    if explicit:
        if Path(explicit).is_file():
            return Path(explicit).resolve()
        raise MpimatchError(f"{LIB_ENV}={explicit} is not a file")
    looked = tracer_candidates(mpi)
    for p in looked:
        if p.is_file():
            return p.resolve()
    raise tools.ToolNotFound(
        f"the tracer for {mpi} ({LIB_NAME}) is not built (looked in "
        f"{', '.join(str(p) for p in looked) or 'no build directory'}); it is built when "
        f"CMake finds {mpi} (pkg-config {'ompi-c' if mpi == 'openmpi' else 'mpich'}), or "
        f"set {LIB_ENV} to its path")


def launch_command(mpi: str, launcher: Sequence[str], lib: Path, out: Path) -> List[str]:
    """The launcher command with the tracer's environment for every rank."""
    preload = str(lib)
    if os.environ.get("LD_PRELOAD"):
        preload += ":" + os.environ["LD_PRELOAD"]
    if mpi == "openmpi":
        extra = ["-x", f"LD_PRELOAD={preload}", "-x", f"MPIMATCH_TRACE_DIR={out}"]
    else:
        extra = ["-genv", "LD_PRELOAD", preload, "-genv", "MPIMATCH_TRACE_DIR", str(out)]
    return [launcher[0], *extra, *launcher[1:]]


def read_header(path: Path) -> Tuple[int, int, int]:
    """(rank, size, whole records) of a trace file; MpimatchError if not one."""
    data = path.read_bytes()[:HEADER_SIZE]
    if len(data) < HEADER_SIZE or data[:8] != MAGIC:
        raise MpimatchError(f"{path}: offset 0: not a complete mpimatch trace header")
    rank, size = struct.unpack_from("<ii", data, 16)
    return rank, size, (path.stat().st_size - HEADER_SIZE) // RECORD_SIZE


def check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise MpimatchError(f"--out {out}: exists and is not a directory")
    old = sorted(out.glob("rank-*.mmt")) if out.is_dir() else []
    if old:
        raise MpimatchError(f"--out {out} already holds a trace ({old[0].name}, ...): "
                            f"choose an empty directory or remove those files")
    out.mkdir(parents=True, exist_ok=True)


def summarize(out: Path) -> Dict:
    """Check that one file per rank appeared; per-rank record counts."""
    files = sorted(out.glob("rank-*.mmt"))
    if not files:
        raise MpimatchError(f"no trace files appeared in {out}: did the program call MPI_Init "
                            f"(C bindings; Fortran is not traced), and is its MPI the one the "
                            f"tracer was built for? Otherwise {by_hand()}", EXIT_FAILURE)
    ranks: Dict[int, int] = {}
    size = 0
    for f in files:
        rank, size, nrec = read_header(f)
        ranks[rank] = nrec
    missing = sorted(set(range(size)) - set(ranks))
    if missing:
        raise MpimatchError(f"{out}: {len(ranks)} of {size} rank files; missing ranks "
                            f"{', '.join(map(str, missing[:10]))}", EXIT_FAILURE)
    index = out / "index.json"
    meta = json.loads(index.read_text()) if index.is_file() else {}
    return {"dir": str(out), "ranks": size, "records": ranks, "index": bool(meta),
            "mpi": meta.get("mpi"), "pvars": meta.get("pvars")}


def run_trace(out: Path, launcher: Sequence[str], mpi: Optional[str]) -> Tuple[int, Dict]:
    if not launcher:
        raise MpimatchError("no command to trace: mpimatch trace --out DIR -- mpirun -np N ./app")
    which = mpi or detect_mpi(launcher[0])
    lib = find_tracer(which)
    out = out.resolve()
    check_out_dir(out)
    cmd = launch_command(which, launcher, lib, out)
    try:
        code = subprocess.run(cmd).returncode
    except OSError as err:
        raise MpimatchError(f"cannot run {launcher[0]}: {err}")
    if code != 0:
        partial = sorted(out.glob("rank-*.mmt"))
        raise MpimatchError(
            f"the traced program exited with status {code}; {len(partial)} rank file(s) in "
            f"{out} are readable up to their last whole record (mpimatch-trace-dump)",
            EXIT_FAILURE)
    return code, summarize(out)
