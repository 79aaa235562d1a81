"""How every `mpimatch` subcommand is registered: one function, so each has the same help
layout and an exit-status epilog of its own statuses. A command module offers register(sub), which calls
add_command once per subcommand; cli.build_parser calls the registers in order."""
from __future__ import annotations

import argparse
from typing import Any, Callable, Optional


def exit_status(one: str = "internal error") -> str:
    """The exit-status epilog of a command whose status 1 means `one` (and, in every
    mpimatch tool, out of memory or a write error, always with a message)."""
    return (f"exit status: 0 ok; 1 {one}; 1 also out of memory or a write error\n"
            "(a full disk, /dev/full, a closed pipe), always with a message; 2 usage error or\n"
            "bad input (the C tool's message names file:line), or an output path that cannot be\n"
            "created; 127 the C executables were not found.\n"
            "The C tools are looked for in $MPIMATCH_BIN_DIR, then <repo>/build/bin, then PATH.")


# Each command lists only its own statuses: 1 means "engines disagree" only where engines
# are compared (replay, bench).
ENGINES_DISAGREE = "engines disagree or internal error"
EXIT_STATUS = exit_status("engines disagree (replay, bench) or internal error")  # mpimatch --help

Command = Callable[..., int]        # (args, console) -> exit status


def formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


def add_command(sub: Any, name: str, func: Optional[Command], help: str, description: str,
                exit_one: str = "internal error", **kw: Any) -> argparse.ArgumentParser:
    """Add subcommand `name` to `sub` (what add_subparsers returned), run by func(args, out);
    func None for a command whose actions are subcommands of their own (add_actions).
    exit_one: what exit status 1 means for it."""
    p = sub.add_parser(name, formatter_class=formatter, epilog=exit_status(exit_one), help=help,
                       description=description, **kw)
    if func is not None:
        p.set_defaults(func=func)
    return p


def add_actions(p: argparse.ArgumentParser, dest: str, metavar: str) -> Any:
    """The subcommands of command p (mpimatch stream ACTION, mpimatch import FORMAT)."""
    sub = p.add_subparsers(dest=dest, metavar=metavar)
    sub.required = True
    return sub
