"""The collective oracle: what the installed Open MPI really sends for one collective
call, per (src, dst) pair, against what mpimatch expands it into (`mpimatch-coll
--pairs --json`). docs/collectives.md, "Checking against Open MPI".

tests/mpi/coll_oracle.c makes one collective call; it runs under mpirun with Open MPI's
pml monitoring (`pml_monitoring_enable 2` separates the library's internal messages,
negative tags, as "I" lines), optionally with one coll/tuned algorithm forced. Each
rank's DIR/prof.<rank>.prof then holds "I <src> <dst> <B> bytes <M> msgs sent" lines.
Messages of persistent requests (alltoall(v) basic_linear's isend_init) are counted as
"E" (application) lines instead; the program sends nothing of its own, so both count.
One call per run: Open MPI 4.1.4 does not register the pml_monitoring_flush MPI_T
variable that would dump the counts per phase."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import tools

REPO_SOURCE = Path(__file__).resolve().parents[2] / "tests" / "mpi" / "coll_oracle.c"
Pairs = Dict[Tuple[int, int], Tuple[int, int]]  # (src, dst) -> (messages, bytes)

# Open MPI 4.1.4 coll/tuned algorithm numbers (coll_tuned_<op>_algorithm, the lists in
# ompi/mca/coll/tuned/coll_tuned_<op>_decision.c) -> mpimatch algorithm names. A name
# mpimatch-coll does not accept (yet) is skipped at run time (algorithms()), so a new
# algorithm is checked as soon as it is registered; a new mapping is a new line.
OMPI_ALGS: Dict[str, Dict[int, str]] = {
    "bcast": {1: "linear", 2: "chain", 3: "pipeline", 4: "split_binary", 5: "binary",
              6: "bmtree", 7: "knomial", 8: "scatter_allgather",
              9: "scatter_ring_allgather"},
    "reduce": {1: "linear", 2: "chain", 3: "pipeline", 4: "binary", 5: "binomial",
               6: "in_order_binary", 7: "rabenseifner"},
    "allreduce": {1: "linear", 2: "nonoverlapping", 3: "recursive_doubling", 4: "ring",
                  5: "segmented_ring", 6: "rabenseifner"},
    "allgather": {1: "gather_bcast", 2: "bruck", 3: "recursive_doubling", 4: "ring",
                  5: "neighbor_exchange"},
    "allgatherv": {1: "gather_bcast", 2: "bruck", 3: "ring", 4: "neighbor_exchange"},
    "alltoall": {1: "linear", 2: "pairwise", 3: "modified_bruck", 4: "linear_sync"},
    "alltoallv": {1: "linear", 2: "pairwise"},
    "barrier": {1: "linear", 3: "recursive_doubling", 4: "dissemination", 6: "tree"},
    "gather": {1: "linear", 2: "binomial", 3: "linear_sync"},
    "scatter": {1: "linear", 2: "binomial", 3: "linear_nb"},
    "reduce_scatter": {1: "nonoverlapping", 2: "recursive_halving", 3: "ring",
                       4: "butterfly"},
    "reduce_scatter_block": {1: "nonoverlapping", 2: "recursive_doubling",
                             3: "recursive_halving", 4: "butterfly"},
}

LAUNCHERS = ("mpirun.openmpi", "mpirun")
COMPILERS = ("mpicc.openmpi", "mpicc")
ROOTED = {"bcast", "reduce", "gather", "gatherv", "scatter", "scatterv"}
_LINE = re.compile(r"^[IE]\t(\d+)\t(\d+)\t(\d+) bytes\t(\d+) msgs sent")


class OracleError(RuntimeError):
    """Open MPI, the program or mpimatch-coll failed; the message says which and why."""


def _which(names) -> Optional[str]:
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def unavailable() -> Optional[str]:
    """None when Open MPI's mpicc and mpirun are here, else why not."""
    if not _which(COMPILERS):
        return "Open MPI's mpicc (mpicc.openmpi) not found"
    run = _which(LAUNCHERS)
    if not run:
        return "Open MPI's mpirun (mpirun.openmpi) not found"
    try:
        v = subprocess.run([run, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{run} --version failed: {e}"
    if not re.search(r"\((OpenRTE|Open MPI)\)", v.stdout + v.stderr):
        return f"{run} is not Open MPI's mpirun"
    return None


def build(workdir: Path) -> Path:
    """Compile tests/mpi/coll_oracle.c with Open MPI's mpicc into workdir (once)."""
    exe = Path(workdir) / "mm_coll_oracle"
    if exe.is_file() and exe.stat().st_mtime >= REPO_SOURCE.stat().st_mtime:
        return exe
    cc = _which(COMPILERS)
    if not cc:
        raise OracleError("Open MPI's mpicc (mpicc.openmpi) not found")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    p = subprocess.run([cc, "-O1", "-o", str(exe), str(REPO_SOURCE)], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        raise OracleError(f"{cc} {REPO_SOURCE} failed:\n{p.stderr}")
    return exe


@dataclass(frozen=True)
class Call:
    """One collective call: bytes = count * elem as mpimatch-coll --bytes means it."""
    op: str
    n: int
    count: int
    elem: int = 8
    root: int = 0
    alg: str = "auto"  # an mpimatch name; forced in Open MPI through OMPI_ALGS

    @property
    def bytes(self) -> int:
        return self.count * self.elem

    def label(self) -> str:
        r = f" root={self.root}" if self.op in ROOTED else ""
        return f"{self.op} n={self.n} bytes={self.bytes} elem={self.elem}{r} alg={self.alg}"


def ompi_number(op: str, alg: str) -> Optional[int]:
    """Open MPI's coll_tuned algorithm number for our name, None if none."""
    for k, name in OMPI_ALGS.get(op, {}).items():
        if name == alg:
            return k
    return None


def parse_prof(directory: Path) -> Pairs:
    """Sum the "I" and "E" lines of every rank's prof file in directory. The program
    sends nothing of its own, and Open MPI's algorithms that use persistent requests
    (alltoall basic_linear) are counted as "E" (external) by the monitoring."""
    out: Pairs = {}
    files = sorted(Path(directory).glob("prof.*.prof"))
    if not files:
        raise OracleError(f"no monitoring output (prof.*.prof) in {directory}")
    for f in files:
        for lineno, line in enumerate(f.read_text().splitlines(), 1):
            if not line.startswith(("I\t", "E\t")):
                continue
            m = _LINE.match(line)
            if not m:
                raise OracleError(f"{f}:{lineno}: not a monitoring 'I'/'E' line: {line[:80]!r}")
            s, d, b, k = (int(x) for x in m.groups())
            pm, pb = out.get((s, d), (0, 0))
            out[(s, d)] = (pm + k, pb + b)
    return out


def observe(call: Call, exe: Path, timeout: float = 120) -> Pairs:
    """Run call under mpirun with monitoring; Open MPI's messages per pair."""
    run = _which(LAUNCHERS)
    if not run:
        raise OracleError("Open MPI's mpirun (mpirun.openmpi) not found")
    cmd = [run, "--allow-run-as-root", "--oversubscribe", "-np", str(call.n),
           "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3"]
    if call.alg != "auto":
        k = ompi_number(call.op, call.alg)
        if k is None:
            raise OracleError(f"{call.op}: no Open MPI algorithm number for '{call.alg}' "
                              "(OMPI_ALGS)")
        cmd += ["--mca", "coll_tuned_use_dynamic_rules", "1",
                "--mca", f"coll_tuned_{call.op}_algorithm", str(k)]
        if call.op in ("bcast", "reduce"):
            # the fixed decision calls the chain with fan-out 0 (one chain); a forced
            # run would otherwise use the MCA default fan-out
            cmd += ["--mca", f"coll_tuned_{call.op}_algorithm_chain_fanout", "0"]
    with tempfile.TemporaryDirectory(prefix="mm-oracle-") as tmp:
        cmd += ["--mca", "pml_monitoring_filename", f"{tmp}/prof", str(exe),
                f"{call.op}:{call.count}:{call.elem}:{call.root}"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OracleError(f"{call.label()}: mpirun took more than {timeout:.0f} s")
        if p.returncode != 0:
            raise OracleError(f"{call.label()}: mpirun exited {p.returncode}:\n"
                              f"{(p.stderr or p.stdout)[-2000:]}")
        return parse_prof(Path(tmp))


def expand(call: Call, exe: Optional[Path] = None) -> Tuple[Pairs, Dict]:
    """mpimatch's pairs for call (mpimatch-coll --pairs --json) and the whole answer."""
    coll = exe or tools.find_tool("mpimatch-coll")
    cmd = [str(coll), "--op", call.op, "--n", str(call.n), "--bytes", str(call.bytes),
           "--elem", str(call.elem), "--root", str(call.root), "--alg", call.alg,
           "--lib", "openmpi", "--pairs", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise OracleError(f"{call.label()}: mpimatch-coll: {p.stderr.strip()}")
    doc = json.loads(p.stdout)
    return {(q["src"], q["dst"]): (q["msgs"], q["bytes"]) for q in doc["pairs"]}, doc


def algorithms(op: str, exe: Optional[Path] = None) -> List[str]:
    """The names of OMPI_ALGS[op] that mpimatch-coll accepts for op today."""
    coll = exe or tools.find_tool("mpimatch-coll")
    ok = []
    for name in OMPI_ALGS.get(op, {}).values():
        p = subprocess.run([str(coll), "--op", op, "--n", "4", "--alg", name, "--pairs"],
                           capture_output=True, text=True, timeout=60)
        if "is not an algorithm of" not in p.stderr:
            ok.append(name)
    return ok


def diff(ours: Pairs, theirs: Pairs) -> List[str]:
    """The pairs that differ, one line each: 'src->dst: ours M msg/B B, ompi ...'."""
    lines = []
    for k in sorted(set(ours) | set(theirs)):
        a, b = ours.get(k, (0, 0)), theirs.get(k, (0, 0))
        if a != b:
            lines.append(f"{k[0]}->{k[1]}: ours {a[0]} msg/{a[1]} B, "
                         f"ompi {b[0]} msg/{b[1]} B")
    return lines


@dataclass
class Outcome:
    call: Call
    status: str          # "match", "MISMATCH", "error"
    detail: List[str]
    alg: str = ""        # the algorithm mpimatch used (auto: the rule's)
    substitute: bool = False


def check(call: Call, prog: Path, coll: Optional[Path] = None) -> Outcome:
    """Compare one call; errors (a call our algorithm cannot do, mpirun failing) are
    outcomes too, so a sweep goes on."""
    try:
        ours, doc = expand(call, coll)
    except OracleError as e:
        return Outcome(call, "error", [str(e)])
    try:
        theirs = observe(call, prog)
    except OracleError as e:
        return Outcome(call, "error", [str(e)], doc["alg"], doc["substitute"])
    d = diff(ours, theirs)
    return Outcome(call, "MISMATCH" if d else "match", d, doc["alg"], doc["substitute"])


def default_workdir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mpimatch-oracle"
