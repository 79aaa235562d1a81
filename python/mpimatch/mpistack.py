"""The MPI stacks mpimatch runs programs on (Open MPI 4.1): each stack's `mpirun`
arguments and environment, whether it is available here, and a runner that puts
one `mpirun` under a timeout, kills everything it started when the time is up,
and removes the shared-memory files the run left behind.

Stacks (docs/conformance.md):
  ob1        --mca pml ob1 --mca btl self,vader: Open MPI's own matching, the reference
  ucx        --mca pml ucx over UCX's posix and self transports
  rxm        --mca pml cm --mca mtl ofi on libfabric's stock tcp;ofi_rxm (loopback)
  mpimatch   --mca pml cm --mca mtl ofi on the mpimatch provider (libmpimatch-fi.so),
             the engine chosen with FI_MPIMATCH_ENGINE: "mpimatch" is the provider's
             default engine, "mpimatch:ENGINE" a named one.
  mpimatch-tcp    the provider with every rank as if on its own host (FI_MPIMATCH_FORCE_TCP=all):
                  all traffic over its TCP channel on loopback
  mpimatch-mixed  the provider with rank 1 as if on another host (FI_MPIMATCH_FORCE_TCP=1):
                  rank 1 talks TCP, the others shared memory among themselves
  mpimatch-static, mpimatch-dynamic  as mpimatch-mixed, polling its channels with the
                  static or dynamic scheme (FI_MPIMATCH_POLL, docs/provider.md#polling)
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .tools import REPO_ROOT, in_checkout

# Open MPI's own mpirun and mpicc (Debian's plain names follow the alternatives, which may be MPICH).
MPIRUN = "mpirun.openmpi" if shutil.which("mpirun.openmpi") else "mpirun"
MPICC = "mpicc.openmpi" if shutil.which("mpicc.openmpi") else "mpicc"
MPIRUN_BASE = ("--allow-run-as-root", "--oversubscribe")
PROVIDER_LIB = "libmpimatch-fi.so"
PROVIDER_ENV = "MPIMATCH_PROVIDER_LIB"   # the provider library's path, overriding the search
# A sanitized provider (ASan + UBSan build) in programs that are not: the sanitizer runtime
# to preload into every rank (gcc -print-file-name=libasan.so), and the options they run with.
PRELOAD_ENV = "MPIMATCH_PROVIDER_PRELOAD"
SANITIZER_OPTIONS = (("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:exitcode=86"),
                     ("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1"))
ENGINE_ENV = "FI_MPIMATCH_ENGINE"
HINTS_ENV = "FI_MPIMATCH_HINTS"         # MPI 4.0 assertions for engines that need them (hash)
FORCE_TCP_ENV = "FI_MPIMATCH_FORCE_TCP"  # all, none, or AV indices (ranks) as if on other hosts
STATS_ENV = "FI_MPIMATCH_STATS"
# The provider stacks that use its TCP channel on one machine: name -> FI_MPIMATCH_FORCE_TCP.
TCP_STACKS = {"mpimatch-tcp": "all", "mpimatch-mixed": "1"}
POLL_ENV = "FI_MPIMATCH_POLL"   # the channel polling scheme: rr, static, dynamic
# Mixed channels (rank 1 on TCP) under each polling scheme but rr: name -> FI_MPIMATCH_POLL.
POLL_STACKS = {"mpimatch-static": "static", "mpimatch-dynamic": "dynamic"}
SHM_DIR = Path("/dev/shm")


@dataclass(frozen=True)
class Stack:
    """One way to run an MPI program: the arguments after `mpirun -np N` and the
    environment variables exported to every rank (with -x)."""
    name: str
    description: str
    mca: Tuple[str, ...]
    env: Tuple[Tuple[str, str], ...] = ()
    engine: Optional[str] = None

    def mpirun(self, np: int, argv: Sequence[str], extra: Sequence[str] = ()) -> List[str]:
        """The whole command line: mpirun, -np, the stack's arguments, `extra` mpirun
        options (e.g. --tag-output), the program."""
        cmd = [MPIRUN, *MPIRUN_BASE, "-np", str(np), *self.mca, *extra]
        for key, value in self.env:
            cmd += ["-x", f"{key}={value}"]
        return cmd + [str(a) for a in argv]

    def environ(self, base: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
        """The environment for mpirun itself (the stack's variables set here too)."""
        env = dict(os.environ if base is None else base)
        env.update(self.env)
        return env


OB1 = Stack("ob1", "Open MPI ob1 over vader (shared memory) and self",
            ("--mca", "pml", "ob1", "--mca", "btl", "self,vader"))
UCX = Stack("ucx", "Open MPI pml ucx over UCX posix shared memory and self",
            ("--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any",
             "--mca", "pml_ucx_devices", "any"), (("UCX_TLS", "posix,self"),))
RXM = Stack("rxm", "Open MPI pml cm + mtl ofi on libfabric tcp;ofi_rxm over loopback",
            ("--mca", "pml", "cm", "--mca", "mtl", "ofi",
             "--mca", "mtl_ofi_provider_exclude", ""), (("FI_TCP_IFACE", "lo"),))


# Where `cmake --install` puts the provider (<prefix>/<libdir>/libfabric), common prefixes.
INSTALLED_DIRS = ("/usr/local/lib/libfabric", "/usr/local/lib64/libfabric",
                  "/usr/local/lib/x86_64-linux-gnu/libfabric", "/usr/lib/x86_64-linux-gnu/libfabric",
                  "/usr/lib64/libfabric", "/usr/lib/libfabric")


def provider_library() -> Optional[Path]:
    """libmpimatch-fi.so: $MPIMATCH_PROVIDER_LIB, else the checkout's build tree
    (build/lib*, then anywhere under build/), else an installed one, else None."""
    given = os.environ.get(PROVIDER_ENV)
    if given:
        return Path(given) if Path(given).is_file() else None
    if in_checkout():
        build = REPO_ROOT / "build"
        for lib in sorted(build.glob(f"lib*/{PROVIDER_LIB}")) + sorted(build.rglob(PROVIDER_LIB)):
            if lib.is_file():
                return lib
    for d in INSTALLED_DIRS:
        if (Path(d) / PROVIDER_LIB).is_file():
            return Path(d) / PROVIDER_LIB
    return None


def provider_stack(engine: Optional[str] = None, library: Optional[Path] = None,
                   hints: Sequence[str] = (), force_tcp: Optional[str] = None,
                   stats: Optional[Path] = None, name: Optional[str] = None,
                   env_extra: Sequence[Tuple[str, str]] = ()) -> Stack:
    """The mpimatch provider under pml cm + mtl ofi; `engine` None is its default engine;
    `hints` the assertions an engine needs (e.g. no_any_source, no_any_tag for hash);
    `force_tcp` FI_MPIMATCH_FORCE_TCP (all, or ranks as if on other hosts); `stats` a
    directory for the statistics files (FI_MPIMATCH_STATS); `env_extra` further
    FI_MPIMATCH_* variables (e.g. the polling scheme)."""
    lib = library or provider_library()
    if lib is None:
        raise FileNotFoundError(f"{PROVIDER_LIB} is not built (set {PROVIDER_ENV} or build it "
                                f"with CMake where libfabric-dev is installed)")
    env = [("FI_PROVIDER_PATH", str(Path(lib).resolve().parent)), ("FI_PROVIDER", "mpimatch")]
    if engine:
        env.append((ENGINE_ENV, engine))
    if hints:
        env.append((HINTS_ENV, ",".join(hints)))
    if force_tcp:
        env.append((FORCE_TCP_ENV, force_tcp))
    if stats is not None:
        env.append((STATS_ENV, str(Path(stats).resolve())))
    env += list(env_extra)
    preload = os.environ.get(PRELOAD_ENV)
    if preload:   # Open MPI's own leaks are not the provider's: leak checks off
        env += [("LD_PRELOAD", preload), *SANITIZER_OPTIONS]
    return Stack(name or ("mpimatch" + (f":{engine}" if engine else "")),
                 f"Open MPI pml cm + mtl ofi on the mpimatch provider ({engine or 'default'} engine"
                 + (f", TCP for {force_tcp}" if force_tcp else "") + ")",
                 ("--mca", "pml", "cm", "--mca", "mtl", "ofi",
                  "--mca", "mtl_ofi_provider_include", "mpimatch"), tuple(env), engine)


def _quiet(cmd: Sequence[str], timeout: float = 60) -> Optional[str]:
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def _cached(*cmd: str) -> Optional[str]:
    return _quiet(cmd)


def unavailable(stack: Stack) -> Optional[str]:
    """Why `stack` cannot run here, or None when it can."""
    info = _cached("ompi_info", "--parsable", "--all") if stack.name != "ob1" else None
    if _cached(MPIRUN, "--version") is None:
        return "mpirun (Open MPI) is not installed"
    if stack.name == "ob1":
        return None
    if info is None:
        return "ompi_info failed"
    if stack.name == "ucx":
        return None if "mca:pml:ucx:" in info else "Open MPI has no pml ucx"
    if "mca:mtl:ofi:" not in info:
        return "Open MPI has no mtl ofi"
    if stack.name == "rxm":
        return None if _cached("fi_info", "-p", "tcp;ofi_rxm") else "libfabric has no tcp;ofi_rxm"
    if stack.name.startswith("mpimatch"):
        return None if provider_library() else f"{PROVIDER_LIB} is not built"
    return None


# ---- running one program under a timeout ----------------------------------------------

@dataclass
class Outcome:
    """What one mpirun did."""
    stack: str
    command: List[str]
    returncode: Optional[int]   # None: killed at the timeout
    stdout: str
    stderr: str
    seconds: float
    timeout: float
    leftovers: List[str] = field(default_factory=list)   # processes or files it left
    session: int = 0    # the session id the run had (its mpirun's pid)
    stopped: bool = False   # the watch function ended it (killed, not timed out)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None and not self.stopped

    def summary(self) -> str:
        if self.stopped:
            return f"stopped by its watcher after {self.seconds:.1f} s under {self.stack}"
        if self.timed_out:
            return f"timed out after {self.timeout:g} s under {self.stack}"
        return f"exit status {self.returncode} under {self.stack} after {self.seconds:.1f} s"


def _session_members(sid: int) -> List[int]:
    """Processes whose session id is `sid` (the session a run was started in)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if len(fields) > 3 and int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def _kill_session(sid: int, grace: float = 2.0) -> List[int]:
    """SIGTERM, then SIGKILL, every process of session `sid`; those that were there."""
    found = _session_members(sid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = _session_members(sid)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + grace
        while time.monotonic() < end and _session_members(sid):
            time.sleep(0.05)
    return found


def _shm_of(pids: Sequence[int]) -> set:
    """Files under /dev/shm that the processes `pids` have mapped or open."""
    found = set()
    prefix = str(SHM_DIR) + "/"
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
                path = line.split(None, 5)[5] if len(line.split(None, 5)) == 6 else ""
                if path.startswith(prefix):
                    found.add(path.replace(" (deleted)", ""))
        except (OSError, IndexError):
            pass
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith(prefix):
                    found.add(target.replace(" (deleted)", ""))
        except OSError:
            pass
    return found


def run(stack: Stack, np: int, argv: Sequence[str], timeout: float,
        env: Optional[Mapping[str, str]] = None, cwd: Optional[Path] = None,
        poll: float = 0.05, extra: Sequence[str] = (),
        watch: Optional[Callable[["Watched"], bool]] = None) -> Outcome:
    """Run `argv` on `np` ranks under `stack`, in a session of its own. At the timeout
    every process of that session is killed (mpirun, its daemons, the ranks). While it
    runs, the files under /dev/shm that its processes map or open are noted (every
    `poll` seconds), so the ones still there at the end, and only those, are removed
    and reported in `leftovers`: a correct run leaves none (the provider removes its
    segments at exit, issue 12), a killed one may. Files of other jobs running at the
    same time are never touched.

    `watch`, if given, is called at every poll with a Watched view of the run (mpirun's
    pid, the seconds so far, its standard output so far); when it returns True the run
    is ended like a timed-out one (every process of the session killed), and the
    outcome says `stopped` (tests that hang a job on purpose, then look at it)."""
    import tempfile
    cmd = stack.mpirun(np, argv, extra)
    shm: set = set()
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out_f, stderr=err_f, text=True,
                                env=stack.environ(env), cwd=cwd, start_new_session=True)
        code: Optional[int] = None
        stopped = False
        while True:
            shm |= _shm_of(_session_members(proc.pid))
            try:
                code = proc.wait(timeout=poll)
                break
            except subprocess.TimeoutExpired:
                stopped = watch is not None and watch(Watched(proc.pid, time.monotonic() - start,
                                                              out_f.fileno()))
                if stopped or time.monotonic() - start > timeout:
                    shm |= _shm_of(_session_members(proc.pid))
                    _kill_session(proc.pid)
                    proc.wait()
                    code = None
                    break
        seconds = time.monotonic() - start
        leftovers = [f"process {pid}" for pid in _kill_session(proc.pid)]
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    for path in sorted(shm):
        if os.path.exists(path):
            leftovers.append(path)
            try:
                os.unlink(path)
            except OSError:
                pass
    return Outcome(stack.name, cmd, code, out, err, seconds, timeout, leftovers, proc.pid,
                   stopped)


@dataclass
class Watched:
    """A running job as a watch function of run() sees it."""
    pid: int           # mpirun's (the session's id too)
    seconds: float     # since it started
    _out_fd: int

    def stdout(self) -> str:
        """What the job wrote to its standard output so far (read without moving the
        file offset the job writes at)."""
        chunks, off = [], 0
        while True:
            b = os.pread(self._out_fd, 65536, off)
            if not b:
                break
            chunks.append(b)
            off += len(b)
        return b"".join(chunks).decode(errors="replace")

    def processes(self, name: str) -> List[int]:
        """The session's processes whose command name is `name` (the ranks of a program)."""
        found = []
        for pid in _session_members(self.pid):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == name[:15]:
                    found.append(pid)
            except OSError:
                pass
        return found


def catches(pid: int, sig: int) -> bool:
    """Has process pid a handler for signal sig (its SigCgt mask in /proc)?"""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


RESULT_LINE = re.compile(r"^(?P<name>\w+) np=(?P<np>\d+) digest=(?P<digest>[0-9a-f]{16}): "
                         r"(?P<verdict>ok|FAILED.*)$", re.M)


def result_line(outcome: Outcome) -> Optional[re.Match]:
    """The conformance programs' last result line (tests/mpi/conformance/conformance.h)."""
    found = list(RESULT_LINE.finditer(outcome.stdout))
    return found[-1] if found else None


def signal_job(pid: int, sig: int) -> bool:
    """Send sig to pid (mpirun forwards SIGUSR1/SIGUSR2 to every rank of its job while
    the job runs); False when it is gone."""
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False
