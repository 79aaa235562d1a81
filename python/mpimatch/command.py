"""How every `mpimatch` subcommand is registered: one function, so each has the same help
layout and the same exit-status epilog. A command module offers register(sub), which calls
add_command once per subcommand; cli.build_parser calls the registers in order."""
from __future__ import annotations

import argparse
from typing import Any, Callable, Optional

EXIT_STATUS = """\
exit status (the same in every mpimatch tool): 0 ok; 1 failure while running:
out of memory, a write error (a full disk, /dev/full, a closed pipe), engines
disagree; 2 usage error or bad input (the C tool's message names file:line), or
an output path that cannot be created; 127 the C executables were not found.
The C tools are looked for in $MPIMATCH_BIN_DIR, then <repo>/build/bin, then PATH."""

Command = Callable[..., int]        # (args, console) -> exit status


def formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


def add_command(sub: Any, name: str, func: Optional[Command], help: str, description: str,
                **kw: Any) -> argparse.ArgumentParser:
    """Add subcommand `name` to `sub` (what add_subparsers returned), run by func(args, out);
    func None for a command whose actions are subcommands of their own (add_actions)."""
    p = sub.add_parser(name, formatter_class=formatter, epilog=EXIT_STATUS, help=help,
                       description=description, **kw)
    if func is not None:
        p.set_defaults(func=func)
    return p


def add_actions(p: argparse.ArgumentParser, dest: str, metavar: str) -> Any:
    """The subcommands of command p (mpimatch stream ACTION, mpimatch import FORMAT)."""
    sub = p.add_subparsers(dest=dest, metavar=metavar)
    sub.required = True
    return sub
