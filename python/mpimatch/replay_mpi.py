"""`mpimatch replay STREAM_DIR --distributed`: the ranks' streams replayed across the
processes of an MPI job (mpi4py under mpirun or srun). Process p of P replays the streams
of ranks p, p + P, p + 2P, ... (each with --jobs local workers); process 0 gathers the
results, in rank order, and writes the same report a serial run writes (docs/replay.md,
"Across nodes")."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .errors import EXIT_FAILURE, MpimatchError

# Debian's python3-mpi4py, for a Python of the same ABI that lacks mpi4py (a virtual
# environment): only the mpi4py package is made visible, nothing else of dist-packages.
DEBIAN_MPI4PY = Path("/usr/lib/python3/dist-packages/mpi4py")


def _import_mpi() -> Any:
    try:
        from mpi4py import MPI
        return MPI
    except ImportError:
        pass
    if (DEBIAN_MPI4PY / "__init__.py").exists():
        shim = Path(tempfile.mkdtemp(prefix="mpimatch-mpi4py-"))
        (shim / "mpi4py").symlink_to(DEBIAN_MPI4PY)
        sys.path.append(str(shim))
        try:
            from mpi4py import MPI
            return MPI
        except ImportError:
            pass
    raise MpimatchError("--distributed needs mpi4py (pip install mpi4py, or Debian's "
                        "python3-mpi4py) and must run under mpirun or srun")


def world() -> Tuple[Any, int, int]:
    """(communicator, this process's rank, the number of processes)."""
    comm = _import_mpi().COMM_WORLD
    return comm, comm.Get_rank(), comm.Get_size()


def shard(n: int, me: int, size: int) -> List[int]:
    """The stream indices process `me` of `size` replays: me, me + size, ..."""
    return list(range(me, n, size))


def run_distributed(files: Sequence[Path],
                    run_dir: Callable[..., List[Dict[str, Any]]], replay_args: Sequence[str],
                    every: int, jobs: int,
                    on_done: Optional[Callable[[int, Dict[str, Any]], None]] = None
                    ) -> Optional[List[Dict[str, Any]]]:
    """Replay this process's shard and gather every result at process 0: the results in
    rank order there, None on the other processes. A process that fails raises there;
    the others learn it through the gather and stop with the same status."""
    comm, me, size = world()
    mine = shard(len(files), me, size)
    error: Optional[str] = None
    results: List[Dict[str, Any]] = []
    try:
        local = run_dir([files[i] for i in mine], replay_args, every, jobs,
                        on_done=(lambda k, res: on_done(mine[k], res)) if on_done else None)
        results = list(zip(mine, local))  # type: ignore[arg-type]
    except MpimatchError as err:
        error = f"process {me} ({os.uname().nodename}): {err}"
    gathered = comm.gather((error, results), root=0)
    errors = [e for e, _ in gathered] if me == 0 else []
    status = comm.bcast(next((e for e in errors if e), None) if me == 0 else None, root=0)
    if status:
        raise MpimatchError(status, EXIT_FAILURE)
    if me != 0:
        return None
    ordered: List[Optional[Dict[str, Any]]] = [None] * len(files)
    for _, part in gathered:
        for i, res in part:
            ordered[i] = res
    return [r for r in ordered if r is not None]
