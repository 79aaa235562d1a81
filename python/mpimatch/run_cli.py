"""`mpimatch run`: run an unmodified MPI program (Open MPI) with its messages matched
by a libmpimatch engine, through the libfabric provider libmpimatch-fi.so
(docs/provider.md). It adds to the given mpirun command the MCA parameters (pml cm,
mtl ofi, mtl_ofi_provider_include mpimatch) and the environment (FI_PROVIDER_PATH,
FI_PROVIDER and the FI_MPIMATCH_* variables the options set), exported to every rank
with -x and set for mpirun itself; --print shows that plain mpirun line instead."""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, List, Tuple

from rich.console import Console

from . import mpistack
from .atomic import check_writable_dir
from .command import add_command
from .errors import EXIT_USAGE, MpimatchError

LAUNCHERS = ("mpirun", "mpiexec", "orterun", "prterun")


def register(sub: Any) -> None:
    p = add_command(
        sub, "run", cmd_run,
        help="run an MPI program on the mpimatch libfabric provider",
        description="Run COMMAND (an Open MPI mpirun line) with pml cm + mtl ofi on the "
                    "mpimatch provider, matching done by engine E. Example:\n"
                    "  mpimatch run --engine list --stats /tmp/st -- mpirun -np 4 ./app\n"
                    "--print shows the plain mpirun line and runs nothing.")
    p.add_argument("--engine", metavar="E", help="the engine (FI_MPIMATCH_ENGINE; default: the "
                                                 "provider's, rank)")
    p.add_argument("--hints", metavar="H[,H]", help="asserted hints, no_any_source,no_any_tag "
                                                    "(FI_MPIMATCH_HINTS; engines such as hash need them)")
    p.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                   help="an engine parameter, one per flag (FI_MPIMATCH_PARAMS; `mpimatch "
                        "engines` lists them), e.g. --param bins=64")
    p.add_argument("--stats", metavar="DIR", help="write each rank's statistics to DIR "
                                                  "(FI_MPIMATCH_STATS; created if missing)")
    p.add_argument("--stats-interval", metavar="MS", type=int,
                   help="with --stats: each rank also appends a sample of its queues every MS "
                        "milliseconds (FI_MPIMATCH_STATS_INTERVAL; `mpimatch report DIR` plots them)")
    p.add_argument("--profile", metavar="DIR", help="every rank writes its matching operations to "
                                                    "DIR as an event stream (FI_MPIMATCH_PROFILE; "
                                                    "created if missing; `mpimatch advise DIR` "
                                                    "profiles them)")
    p.add_argument("--dump", metavar="DIR", help="on SIGUSR2 (kill -USR2 <mpirun pid>) every rank "
                                                 "writes a snapshot of its queues to DIR "
                                                 "(FI_MPIMATCH_DUMP; created if missing; "
                                                 "`mpimatch queues DIR` reads them)")
    p.add_argument("--dump-signal", metavar="SIG", help="the snapshot signal: USR2 (default), USR1 "
                                                        "or a number (FI_MPIMATCH_DUMP_SIGNAL)")
    p.add_argument("--force-tcp", metavar="WHO", help="TCP channel for peers on this host too: "
                                                      "all, or ranks a,b (FI_MPIMATCH_FORCE_TCP)")
    p.add_argument("--tcp-iface", metavar="IF", help="interface or IPv4 address the TCP channel "
                                                     "listens on (FI_MPIMATCH_TCP_IFACE)")
    p.add_argument("--poll", choices=("rr", "static", "dynamic"),
                   help="channel polling scheme (FI_MPIMATCH_POLL; docs/provider.md#polling)")
    p.add_argument("--poll-ratio", metavar="N", type=int,
                   help="static: shared-memory polls per network poll, 1..1000 "
                        "(FI_MPIMATCH_POLL_RATIO)")
    p.add_argument("--poll-history", metavar="N", type=int,
                   help="dynamic: messages between ratio updates, 1..1024 "
                        "(FI_MPIMATCH_POLL_HISTORY)")
    p.add_argument("--tuning", metavar="FILE",
                   help="thresholds file written by `mpimatch tune` (FI_MPIMATCH_TUNING)")
    p.add_argument("--lib", metavar="PATH", help="libmpimatch-fi.so to use (default: "
                                                 f"${mpistack.PROVIDER_ENV}, the build tree, "
                                                 "then the installed one)")
    p.add_argument("--print", dest="print_only", action="store_true",
                   help="print the mpirun line and the environment, run nothing")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="mpirun (or mpiexec) and its arguments")


def _engine_names() -> List[str]:
    try:
        from .replay import list_engines
        return [e["name"] for e in list_engines()]
    except Exception:   # the C tools are not built: the provider checks the name itself
        return []


def build_command(args: argparse.Namespace) -> List[str]:
    """The mpirun line with the provider's MCA parameters and -x variables inserted after
    the launcher (and its environment applied by the caller)."""
    cmd = list(args.command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise MpimatchError("run: no command (give it after --, e.g. -- mpirun -np 2 ./app)")
    if not os.path.basename(cmd[0]).startswith(LAUNCHERS):
        raise MpimatchError(f"run: {cmd[0]!r} is not mpirun or mpiexec (Open MPI's launcher "
                            f"passes the MCA parameters and the environment to every rank)")
    if args.engine:
        names = _engine_names()
        if names and args.engine not in names:
            raise MpimatchError(f"run: --engine {args.engine}: no such engine "
                                f"(known: {', '.join(names)})")
    lib = Path(args.lib) if args.lib else mpistack.provider_library()
    if lib is None or not lib.is_file():
        raise MpimatchError(f"run: {mpistack.PROVIDER_LIB} not found"
                            + (f" at {args.lib}" if args.lib else
                               f" (build it, install it, or set {mpistack.PROVIDER_ENV})"))
    hints = tuple(h for h in (args.hints or "").split(",") if h)
    stats = None
    if args.stats:
        stats = Path(args.stats)
        if not args.print_only:
            check_writable_dir(stats, create=True)
    stack = mpistack.provider_stack(args.engine, library=lib, hints=hints,
                                    force_tcp=args.force_tcp, stats=stats)
    extra = stack.mca + tuple(a for k, v in stack.env for a in ("-x", f"{k}={v}"))
    if args.param:
        extra += ("-x", f"FI_MPIMATCH_PARAMS={_params(args.param)}")
    if args.tcp_iface:
        extra += ("-x", f"FI_MPIMATCH_TCP_IFACE={args.tcp_iface}")
    if args.stats_interval is not None:
        if not args.stats:
            raise MpimatchError("run: --stats-interval needs --stats DIR (where the samples go)")
        if not 0 < args.stats_interval <= 3600000:
            raise MpimatchError("run: --stats-interval: milliseconds from 1 to 3600000")
        extra += ("-x", f"FI_MPIMATCH_STATS_INTERVAL={args.stats_interval}")
    if args.profile:
        profile = Path(args.profile)
        if not args.print_only:
            check_writable_dir(profile, create=True)
        extra += ("-x", f"FI_MPIMATCH_PROFILE={profile.resolve()}")
    if args.dump:
        dump = Path(args.dump)
        if not args.print_only:
            check_writable_dir(dump, create=True)
        extra += ("-x", f"FI_MPIMATCH_DUMP={dump.resolve()}")
    if args.dump_signal:
        extra += ("-x", f"FI_MPIMATCH_DUMP_SIGNAL={args.dump_signal}")
    return [cmd[0], *extra, *_poll_options(args), *cmd[1:]]


def _params(params: List[str]) -> str:
    """FI_MPIMATCH_PARAMS's value: the --param flags' key=value, comma separated (the
    provider splits at commas, so a value holds none; the provider checks the names and
    values against its engine and fails fi_getinfo naming the variable)."""
    for p in params:
        key, eq, value = p.partition("=")
        if not eq or not key or not value or "," in p or any(c.isspace() for c in p):
            raise MpimatchError(f"run: --param {p!r}: one KEY=VALUE per flag, no commas or "
                                f"spaces (e.g. --param bins=64)")
    return ",".join(params)


def _poll_options(args: argparse.Namespace) -> Tuple[str, ...]:
    """-x options of --poll, --poll-ratio, --poll-history and --tuning, checked as the
    provider checks them (docs/provider.md#polling, #thresholds)."""
    out: Tuple[str, ...] = ()
    if args.poll:
        out += ("-x", f"FI_MPIMATCH_POLL={args.poll}")
    for name, value, hi in (("ratio", args.poll_ratio, 1000), ("history", args.poll_history, 1024)):
        if value is None:
            continue
        if not 1 <= value <= hi:
            raise MpimatchError(f"run: --poll-{name}: an integer from 1 to {hi}")
        out += ("-x", f"FI_MPIMATCH_POLL_{name.upper()}={value}")
    if args.tuning:
        tuning = Path(args.tuning)
        if not tuning.is_file():
            raise MpimatchError(f"run: --tuning {args.tuning}: no such file")
        out += ("-x", f"FI_MPIMATCH_TUNING={tuning.resolve()}")
    return out


def cmd_run(args: argparse.Namespace, out: Console) -> int:
    cmd = build_command(args)
    if args.print_only:
        print(shlex.join(cmd))
        return 0
    env = dict(os.environ)
    for i, a in enumerate(cmd[:-1]):
        if a == "-x" and "=" in cmd[i + 1]:
            key, _, value = cmd[i + 1].partition("=")
            env[key] = value
    try:
        return subprocess.run(cmd, env=env).returncode
    except FileNotFoundError:
        raise MpimatchError(f"run: {cmd[0]}: command not found", EXIT_USAGE) from None
