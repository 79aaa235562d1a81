"""The `mpimatch` command: engines, replay, stream, bench.

A thin front end over the C executables mpimatch-replay and mpimatch-stream:
it passes arguments through, propagates their exit codes and renders their
JSON as tables.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from rich.console import Console

from . import __version__, bench_cli, tools
from .errors import EXIT_FAILURE, MpimatchError
from .replay import list_engines, replay_json, run_tool
from .report import engines_view, stream_report, stream_title

EXIT_STATUS = """\
exit status: 0 ok; 1 engines disagree or internal error; 2 bad input or usage
(the C tool's message names file:line); 127 the C executables were not found.
The C tools are looked for in $MPIMATCH_BIN_DIR, then <repo>/build/bin, then PATH."""


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


def _add_replay_options(p: argparse.ArgumentParser, engine_default: Optional[str]) -> None:
    p.add_argument("--engine", default=engine_default, metavar="NAME|a,b|all",
                   help="engine(s) to run: one name, a comma-separated list, or 'all'"
                        + (f" (default: {engine_default})" if engine_default else ""))
    p.add_argument("--param", action="append", nargs="+", default=[],
                   metavar="[ENGINE:]KEY=VALUE", help="engine parameter (repeatable)")
    p.add_argument("--np", type=int, metavar="N",
                   help="number of processes (overrides the stream's '# np=' line)")
    p.add_argument("--hints", metavar="auto|none|no_any_source,no_any_tag",
                   help="hints given to the engines (the C tool's default: auto)")


def _replay_args(args: argparse.Namespace, reps: Optional[int]) -> List[str]:
    """Options for mpimatch-replay from parsed arguments (not --json/--quiet)."""
    out: List[str] = []
    if args.engine:
        out += ["--engine", args.engine]
    for group in args.param:
        for value in group:
            out += ["--param", value]
    if args.np is not None:
        out += ["--np", str(args.np)]
    if args.hints:
        out += ["--hints", args.hints]
    if reps is not None:
        out += ["--reps", str(reps)]
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mpimatch", formatter_class=_formatter,
        description="Compare MPI message-matching engines on event streams.",
        epilog=EXIT_STATUS)
    parser.add_argument("--version", action="version", version=f"mpimatch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("engines", formatter_class=_formatter, epilog=EXIT_STATUS,
                       help="list the engines and their parameters",
                       description="List the engines the C library provides, with their "
                                   "summary, origin, required hints and parameters.")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_engines)

    p = sub.add_parser("replay", formatter_class=_formatter, epilog=EXIT_STATUS,
                       help="replay one stream with one or more engines",
                       description="Replay STREAM through mpimatch-replay and print a table "
                                   "(ns/event, speed-up vs list when list ran, queue depths, "
                                   "memory). Engines that run together must agree.")
    p.add_argument("stream", metavar="STREAM", help="event stream (text .mms or binary)")
    _add_replay_options(p, engine_default=None)
    p.add_argument("--reps", type=int, metavar="R", help="timed repetitions (C tool's default)")
    p.add_argument("--matches", metavar="FILE", help="write the outcome lines to FILE ('-': standard output)")
    p.add_argument("--json", metavar="FILE", help="write the C tool's JSON results to FILE ('-': standard output, no table)")
    p.add_argument("--quiet", action="store_true", help="print no table")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("stream", formatter_class=_formatter, epilog=EXIT_STATUS,
                       help="convert, check or print a stream (mpimatch-stream)",
                       description="Pass through to mpimatch-stream.")
    ssub = p.add_subparsers(dest="stream_command", metavar="ACTION")
    ssub.required = True
    q = ssub.add_parser("convert", help="convert between text and binary",
                        description="Convert IN to OUT (mpimatch-stream convert).")
    q.add_argument("input", metavar="IN")
    q.add_argument("output", metavar="OUT")
    q.add_argument("--to", choices=["text", "binary"], help="output format")
    q.set_defaults(func=cmd_stream)
    q = ssub.add_parser("check", help="validate a stream",
                        description="Validate FILE; errors name file:line.")
    q.add_argument("file", metavar="FILE")
    q.set_defaults(func=cmd_stream)
    q = ssub.add_parser("cat", help="print a stream as text",
                        description="Print FILE (text or binary) as text.")
    q.add_argument("file", metavar="FILE")
    q.set_defaults(func=cmd_stream)

    bench_cli.add_parser(sub, _formatter, EXIT_STATUS)
    return parser


# ---------------------------------------------------------------- commands

def cmd_engines(args: argparse.Namespace, out: Console) -> int:
    engines = list_engines()
    if args.json:
        print(json.dumps(engines, indent=2))
    else:
        out.print(engines_view(engines))
    return 0


def cmd_replay(args: argparse.Namespace, out: Console) -> int:
    passthrough = _replay_args(args, args.reps)
    if args.matches:
        passthrough += ["--matches", args.matches]
    if args.json == "-":            # JSON to standard output: no table beside it
        return run_tool(tools.REPLAY, [args.stream, *passthrough, "--json", "-", "--quiet"])
    code, data = replay_json(Path(args.stream), passthrough,
                             Path(args.json) if args.json else None)
    if data is not None and not args.quiet:
        out.print(stream_report(data, stream_title(data, args.stream), detailed=True))
    if code == 0 and data is None:
        raise MpimatchError("mpimatch-replay exited 0 but wrote no JSON", EXIT_FAILURE)
    return code


def cmd_stream(args: argparse.Namespace, out: Console) -> int:
    action = args.stream_command
    if action == "convert":
        argv = ["convert", args.input, args.output] + (["--to", args.to] if args.to else [])
    else:
        argv = [action, args.file]
    return run_tool(tools.STREAM, argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = Console()
    try:
        return args.func(args, out)
    except MpimatchError as err:
        print(f"mpimatch: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("mpimatch: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
