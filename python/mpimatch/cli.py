"""The `mpimatch` command: engines, replay, stream, gen, threads, bench, profile, cluster,
trace, import, convert, tables, run, queues, report, advise, train.

A thin front end over the C executables (mpimatch-replay, mpimatch-stream,
mpimatch-gen, ...): it passes arguments through and propagates their exit codes;
it draws what the C tools do not (the engine list, bench and directory reports).
Every subcommand is registered the same way (command.add_command).
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from pathlib import Path
from typing import Any, List, Optional, Sequence

from rich.console import Console

from . import __version__, cluster_cli, queues, run_cli, samples_report, tables_cli, tools, tune
from .advise import cli as advise_cli
from .bench import cli as bench_cli
from .command import ENGINES_DISAGREE, EXIT_STATUS, add_actions, add_command, formatter
from .errors import EXIT_FAILURE, MpimatchError, raise_broken_pipe
from .replay import list_engines, run_tool
from .report import engines_view



def _add_replay_options(p: argparse.ArgumentParser, engine_default: Optional[str]) -> None:
    p.add_argument("--engine", default=engine_default, metavar="NAME|a,b|all",
                   help="engine(s) to run: one name, a comma-separated list, or 'all'"
                        + (f" (default: {engine_default})" if engine_default else ""))
    # one value per --param, as mpimatch-replay and mpimatch bench take it: with nargs="+"
    # `--param bins=64 STREAM` took STREAM for a second parameter ("STREAM is required")
    p.add_argument("--param", action="append", default=[],
                   metavar="[ENGINE:]KEY=VALUE", help="engine parameter (repeatable)")
    p.add_argument("--np", type=int, metavar="N",
                   help="number of processes (overrides the stream's '# np=' line)")
    p.add_argument("--hints", metavar="auto|none|no_any_source,no_any_tag",
                   help="hints given to the engines (the C tool's default: auto)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="seed of the hashed engines' key hash (their parameter seed=, unless "
                        "--param sets it): default 1, so depths and probe counts repeat run "
                        "to run; 0: each engine draws a secret one (docs/replay.md)")
    p.add_argument("--entries", choices=["array", "fresh"],
                   help="where the calls' entries come from: array (the C tool's default), "
                        "the stream's, written before the timing; fresh, each written field "
                        "by field just before its call, as an MPI library builds it "
                        "(docs/replay.md)")


def _replay_args(args: argparse.Namespace, reps: Optional[int]) -> List[str]:
    """Options for mpimatch-replay from parsed arguments (not --json/--quiet)."""
    out: List[str] = []
    if args.engine:
        out += ["--engine", args.engine]
    for value in args.param:
        out += ["--param", value]
    if args.np is not None:
        out += ["--np", str(args.np)]
    if args.hints:
        out += ["--hints", args.hints]
    if args.seed is not None:
        out += ["--seed", str(args.seed)]
    if args.entries:
        out += ["--entries", args.entries]
    if reps is not None:
        out += ["--reps", str(reps)]
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mpimatch", formatter_class=formatter,
        description="Compare MPI message-matching engines on event streams.",
        epilog=EXIT_STATUS)
    parser.add_argument("--version", action="version", version=f"mpimatch {__version__}")
    sub = add_actions(parser, "command", "COMMAND")
    for register in REGISTER:
        register(sub)
    return parser


# ---------------------------------------------------------------- the subcommands, in help order

def register_engines(sub: Any) -> None:
    p = add_command(sub, "engines", cmd_engines,
                    help="list the engines and their parameters",
                    description="List the engines the C library provides, with their "
                                "summary, origin, required hints and parameters.")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def register_replay(sub: Any) -> None:
    p = add_command(sub, "replay", cmd_replay,
                    help="replay one stream with one or more engines",
                    description="Replay STREAM through mpimatch-replay, which prints its "
                                "table (ns/event, events/s, queue depths and lengths, "
                                "memory). Engines that run together must agree.",
                    exit_one=ENGINES_DISAGREE)
    p.add_argument("stream", metavar="STREAM", help="event stream (text .mms or binary)")
    _add_replay_options(p, engine_default=None)
    p.add_argument("--reps", type=int, metavar="R", help="timed repetitions (C tool's default)")
    p.add_argument("--matches", metavar="FILE", help="write the outcome lines to FILE ('-': standard output)")
    p.add_argument("--json", metavar="FILE", help="write the C tool's JSON results to FILE ('-': standard output, no table)")
    p.add_argument("--quiet", action="store_true", help="print no table")
    p.add_argument("--paths", action="store_true",
                   help="also time each matching path (fail/success from recv/send, probe, "
                        "mprobe, cancel; docs/replay.md)")
    p.add_argument("--match-profile", metavar="FILE",
                   help="write the matching profile (list semantics, untimed: attempts, "
                        "successes, failures, elements traversed, message sizes, queue lengths, "
                        "per phase and in all) as JSON; without --engine nothing is timed "
                        "(docs/advise.md)")
    p.add_argument("--phase-events", type=int, metavar="W",
                   help="events per phase of --match-profile (default 1024)")
    _add_replay_dir_options(p)


def register_stream(sub: Any) -> None:
    p = add_command(sub, "stream", None,
                    help="convert, check or print a stream (mpimatch-stream)",
                    description="Pass through to mpimatch-stream.")
    actions = add_actions(p, "stream_command", "ACTION")
    q = add_command(actions, "convert", cmd_stream, help="convert between text and binary",
                    description="Convert IN to OUT (mpimatch-stream convert).")
    q.add_argument("input", metavar="IN")
    q.add_argument("output", metavar="OUT")
    q.add_argument("--to", choices=["text", "binary"], help="output format")
    q = add_command(actions, "check", cmd_stream, help="validate a stream",
                    description="Validate FILE; errors name file:line.")
    q.add_argument("file", metavar="FILE")
    q.add_argument("--check-resolved", action="store_true",
                   help="replay with the list engine and check src_resolved=/tag_resolved= "
                        "of every receive (trace conversion)")
    q = add_command(actions, "cat", cmd_stream, help="print a stream as text",
                    description="Print FILE (text or binary) as text.")
    q.add_argument("file", metavar="FILE")
    for q in actions.choices.values():
        q.add_argument("--np", type=int, metavar="N",
                       help="number of processes (overrides the stream's '# np=')")


def register_gen(sub: Any) -> None:
    p = add_command(sub, "gen", cmd_gen,
                    help="list the workload generators or write a workload's stream",
                    description="Pass through to mpimatch-gen: with --list, the workload "
                                "generators and their parameters; with SPEC "
                                "(NAME[:key=value,...], e.g. shuffle:n=4096,seed=7), the "
                                "event stream of that workload (docs/workloads.md).")
    p.add_argument("spec", nargs="?", metavar="SPEC", help="workload, NAME[:key=value,...]")
    p.add_argument("--list", action="store_true", help="list the generators")
    p.add_argument("--json", action="store_true", help="with --list: print JSON")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE, complete or not at all (default: standard output)")
    p.add_argument("--format", choices=["text", "binary"], help="stream format (default: text)")


def _register_passthrough(sub: Any, name: str, func: Any, help: str, description: str,
                          example: str) -> None:
    """A subcommand that hands its arguments unparsed to a C tool (which has the --help)."""
    p = add_command(sub, name, func, add_help=False, help=help,
                    description=f"Pass through to mpimatch-{name} (mpimatch {name} --help "
                                f"prints its usage): {description}")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help=f"e.g. {example}")


def register_coll(sub: Any) -> None:
    _register_passthrough(sub, "coll", cmd_coll,
                          help="show the point-to-point transfers of one collective call",
                          description="the algorithm and selection rule, then every transfer "
                                      "or, with --pairs, the messages and bytes per (src, dst) "
                                      "pair (docs/collectives.md).",
                          example="--op bcast --n 8 --bytes 4096 --pairs")


def register_threads(sub: Any) -> None:
    _register_passthrough(sub, "threads", cmd_threads,
                          help="the stencil benchmark of Schonbein et al. (Euro-Par 2018) "
                               "with real threads",
                          description="receiving and sending pthreads post and deliver each "
                                      "stencil decomposition's messages at once into one "
                                      "thread-safe engine; measured search depths and drain "
                                      "times beside the paper's and the generator's modelled "
                                      "depths (docs/threads.md).",
                          example="--case stencil3d:lx=4,ly=4,lz=4 --phases 10 --json out.json")


def register_trace(sub: Any) -> None:
    p = add_command(
        sub, "trace", cmd_trace,
        help="run an MPI program under the tracer (libmpimatch-trace.so)",
        description="Run LAUNCHER ARGS (mpirun/mpiexec of Open MPI or MPICH) with "
                    "libmpimatch-trace.so preloaded into every rank, writing one trace file "
                    "per rank to DIR (docs/trace-format.md); then check that every rank's "
                    "file appeared and print a summary. The MPI is found from "
                    "'LAUNCHER --version' unless --mpi is given.")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (empty or new)")
    p.add_argument("--mpi", choices=["openmpi", "mpich"], help="the launcher's MPI")
    p.add_argument("launcher", nargs=argparse.REMAINDER, metavar="-- LAUNCHER ARGS",
                   help="e.g. -- mpirun -np 8 ./app args")


def register_import(sub: Any) -> None:
    """`mpimatch import dumpi DIR --out TRACE_DIR` (docs/dumpi.md)."""
    p = add_command(sub, "import", None,
                    help="import traces of other tools as mpimatch traces",
                    description="Convert traces recorded by other tools into the mpimatch "
                                "trace format (docs/trace-format.md).")
    formats = add_actions(p, "import_format", "FORMAT")
    q = add_command(formats, "dumpi", cmd_import_dumpi,
                    help="SST DUMPI traces (mpimatch-import-dumpi)",
                    description="Read an SST DUMPI run (a directory with PREFIX.meta and "
                                "PREFIX-NNNN.bin, or the .meta file) and write "
                                "TRACE_DIR/rank-NNNNNN.mmt and index.json. A rank file "
                                "cut short is read to its last whole record with a "
                                "warning; a corrupted or foreign file is an error naming "
                                "the file, offset and reason (docs/dumpi.md).")
    q.add_argument("input", metavar="DIR", help="DUMPI run directory or .meta file")
    q.add_argument("--out", required=True, metavar="TRACE_DIR", help="output directory")
    q.add_argument("--mpi", choices=["openmpi", "mpich"],
                   help="the MPI the run used (default openmpi)")
    q.add_argument("--quiet", action="store_true", help="no warnings")


def register_convert(sub: Any) -> None:
    p = add_command(
        sub, "convert", cmd_convert,
        help="turn a trace into one matching stream per rank (mpimatch-convert)",
        description="Convert TRACE_DIR (a trace of libmpimatch-trace.so) into STREAM_DIR/"
                    "rank-NNNNNN.mms and STREAM_DIR/index.json: receives at their call "
                    "times, messages after a LogGP-style network time, collectives expanded "
                    "as the traced MPI runs them (docs/convert.md). Pass through to "
                    "mpimatch-convert; network options in nanoseconds, gap per byte in ps.")
    p.add_argument("trace_dir", metavar="TRACE_DIR")
    p.add_argument("--out", required=True, metavar="STREAM_DIR")
    p.add_argument("--mpi", choices=["openmpi", "mpich"],
                   help="collective selection rules (default: the trace's MPI)")
    p.add_argument("--rank", metavar="LIST", help="write only these ranks, e.g. 0,2,5-7")
    p.add_argument("--clock", choices=["causal", "trace", "first-record"],
                   help="how hosts' clocks are lined up: corrected by message causality "
                        "(causal, the default), the trace's SYNC records (trace) or each "
                        "host's first record (first-record); docs/convert.md, \"Clocks\"")
    p.add_argument("--text", action="store_true", help="also write text streams")
    p.add_argument("--quiet", action="store_true", help="no summary line")
    for opt in CONVERT_MODEL_OPTIONS:
        p.add_argument(opt, type=int, metavar="N")


def _add_replay_dir_options(p: argparse.ArgumentParser) -> None:
    """Options of `mpimatch replay STREAM_DIR` (a directory of per-rank streams)."""
    g = p.add_argument_group("stream directories (STREAM is a directory, docs/replay.md)")
    g.add_argument("--out", metavar="DIR",
                   help="write report.json, PNG plots and report.html into DIR")
    g.add_argument("--jobs", type=int, metavar="N",
                   help="ranks replayed at once (default: the core count)")
    g.add_argument("--every", type=int, default=1, metavar="K",
                   help="queue-length sample interval in events (default: 1)")
    g.add_argument("--per-rank", action="store_true", help="also print the per-rank table")
    g.add_argument("--distributed", action="store_true",
                   help="replay across the processes of an MPI job (run under mpirun or srun, "
                        "mpi4py needed): each process replays a shard of the ranks' streams, "
                        "process 0 writes the report")


CONVERT_MODEL_OPTIONS = (
    "--latency-intra", "--latency-inter", "--overhead", "--overhead-intra", "--overhead-inter",
    "--gap", "--gap-intra", "--gap-inter", "--gap-per-byte", "--gap-per-byte-intra",
    "--gap-per-byte-inter")


# ---------------------------------------------------------------- commands

UNLIMITED_WIDTH = 1000  # columns when standard output is not a terminal


def cmd_engines(args: argparse.Namespace, out: Console) -> int:
    engines = list_engines()
    if args.json:
        print(json.dumps(engines, indent=2))
    elif out.is_terminal:
        out.print(engines_view(engines))
    else:
        # a pipe or a file: the grid pads every line to its widest cell (hundreds of
        # trailing blanks on UNLIMITED_WIDTH); print the same lines without them
        with out.capture() as cap:
            out.print(engines_view(engines))
        print("\n".join(ln.rstrip() for ln in cap.get().splitlines()))
    return 0


def cmd_replay(args: argparse.Namespace, out: Console) -> int:
    if Path(args.stream).is_dir():
        if args.match_profile or args.phase_events is not None:
            raise MpimatchError(f"--match-profile profiles one stream; {args.stream} is a "
                                f"directory of per-rank streams (mpimatch advise {args.stream} "
                                f"pools their profiles)")
        if args.paths:
            raise MpimatchError(f"--paths times the paths of one stream; {args.stream} is a "
                                f"directory of per-rank streams (replay one rank's file)")
        return cmd_replay_dir(args, out)
    dir_only = [opt for opt, given in (("--out", args.out is not None),
                                       ("--jobs", args.jobs is not None),
                                       ("--every", args.every != 1),
                                       ("--per-rank", args.per_rank)) if given]
    if dir_only:
        raise MpimatchError(f"{', '.join(dir_only)}: for a directory of per-rank streams; "
                            f"{args.stream} is one stream (write its results with --json FILE "
                            f"or --matches FILE)")
    # One renderer: mpimatch-replay prints its own table (and --paths tables).
    argv = [args.stream, *_replay_args(args, args.reps)] + ["--paths"] * args.paths
    if args.matches:
        argv += ["--matches", args.matches]
    if args.json:
        argv += ["--json", args.json]
    if args.match_profile:
        argv += ["--match-profile", args.match_profile]
    if args.phase_events is not None:
        argv += ["--phase-events", str(args.phase_events)]
    if args.quiet or args.json == "-":  # JSON to standard output: no table beside it
        argv.append("--quiet")
    return run_tool(tools.REPLAY, argv)


def cmd_stream(args: argparse.Namespace, out: Console) -> int:
    action = args.stream_command
    if action == "convert":
        argv = ["convert", args.input, args.output] + (["--to", args.to] if args.to else [])
    else:
        argv = [action, args.file]
        if getattr(args, "check_resolved", False):
            argv.append("--check-resolved")
    if args.np is not None:
        argv += ["--np", str(args.np)]
    return run_tool(tools.STREAM, argv)


def cmd_gen(args: argparse.Namespace, out: Console) -> int:
    argv: List[str] = []
    if args.list:
        argv.append("--list")
    if args.json:
        argv.append("--json")
    if args.spec is not None:
        argv.append(args.spec)
    if args.output:
        argv += ["--output", args.output]
    if args.format:
        argv += ["--format", args.format]
    return run_tool(tools.GEN, argv)


def cmd_coll(args: argparse.Namespace, out: Console) -> int:
    return run_tool(tools.COLL, args.args)


def cmd_threads(args: argparse.Namespace, out: Console) -> int:
    return run_tool(tools.THREADS, args.args)


def cmd_convert(args: argparse.Namespace, out: Console) -> int:
    argv = [args.trace_dir, "--out", args.out]
    if args.mpi:
        argv += ["--mpi", args.mpi]
    if args.rank:
        argv += ["--rank", args.rank]
    if args.clock:
        argv += ["--clock", args.clock]
    argv += ["--text"] * args.text + ["--quiet"] * args.quiet
    for opt in CONVERT_MODEL_OPTIONS:
        value = getattr(args, opt[2:].replace("-", "_"))
        if value is not None:
            argv += [opt, str(value)]
    return run_tool(tools.CONVERT, argv)


def cmd_trace(args: argparse.Namespace, out: Console) -> int:
    from .trace import run_trace
    launcher = list(args.launcher)
    if launcher and launcher[0] == "--":
        launcher = launcher[1:]
    code, info = run_trace(Path(args.out), launcher, args.mpi)
    total = sum(info["records"].values())
    out.print(f"traced {info['ranks']} rank(s) with {info['mpi'] or args.mpi or 'MPI'}: "
              f"{total} records in {info['dir']}"
              + ("" if info["index"] else " (no index.json: MPI_Finalize was not reached)")
              + (", MPI_T queue samples included" if info["pvars"] else ""), highlight=False)
    for rank in sorted(info["records"]):
        out.print(f"  rank-{rank:06d}.mmt  {info['records'][rank]} records", highlight=False)
    return code


def cmd_replay_dir(args: argparse.Namespace, out: Console) -> int:
    from .replay_dir_cmd import replay_dir
    return replay_dir(args, _replay_args(argparse.Namespace(**{**vars(args), "engine": args.engine or "all"}),
                                         args.reps), out)


def cmd_import_dumpi(args: argparse.Namespace, out: Console) -> int:
    argv = [args.input, "--out", args.out]
    if args.mpi:
        argv += ["--mpi", args.mpi]
    if args.quiet:
        argv.append("--quiet")
    return run_tool(tools.IMPORT_DUMPI, argv)


REGISTER = (register_engines, register_replay, register_stream, register_gen, register_coll,
            register_threads, bench_cli.register, cluster_cli.register, register_trace, register_import,
            register_convert, tables_cli.register, run_cli.register, queues.register,
            samples_report.register, advise_cli.register, tune.register)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    # mpimatch coll and threads pass their options through to the C tool unparsed
    args, extra = parser.parse_known_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)     # the command, for reports
    if extra and getattr(args, "func", None) in (cmd_coll, cmd_threads):
        args.args = extra + args.args
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    out = Console()
    if not out.is_terminal:
        # a log or a pipe: tables take the width they need instead of being cut to 80
        # columns (where "col+ll" and "col+pnp" would both print as "col…")
        out = Console(width=UNLIMITED_WIDTH)
    out.on_broken_pipe = raise_broken_pipe  # type: ignore[method-assign]
    try:
        return args.func(args, out)
    except MpimatchError as err:
        print(f"mpimatch: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("mpimatch: interrupted", file=sys.stderr)
        return 130
    except OSError as err:
        if err.errno not in _WRITE_ERRNOS:
            raise
        where = err.filename if err.filename is not None else "standard output"
        print(f"mpimatch: error writing {where}: {err.strerror or err}", file=sys.stderr)
        _silence_stdout()
        return EXIT_FAILURE


# A write that failed (a full disk, /dev/full, a closed pipe, a quota):
# a message and status 1, not a traceback.
_WRITE_ERRNOS = (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's final flush of what
    could not be written does not fail again (and print a second error)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
