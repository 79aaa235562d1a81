"""Interim benchmark: replay example streams with every engine and compare.

The full workload suite comes later; for now this replays the shipped
example streams (or the files and directories given) with --engine all.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import __version__
from .atomic import write_atomic
from .errors import EXIT_FAILURE, MpimatchError
from .replay import replay_json
from .tools import REPO_ROOT

EXAMPLES_DIR = REPO_ROOT / "examples"
STREAM_SUFFIXES = (".mms",)


def find_streams(paths: Sequence[str]) -> List[Path]:
    """Stream files named directly, plus the *.mms files of named directories (sorted)."""
    if not paths:
        if not EXAMPLES_DIR.is_dir():
            raise MpimatchError(
                f"no streams given and the examples directory {EXAMPLES_DIR} does not exist "
                f"(it ships with the source checkout); name stream files or directories")
        paths = [str(EXAMPLES_DIR)]
    streams: List[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and f.suffix in STREAM_SUFFIXES)
            if not found:
                raise MpimatchError(f"{p}: no stream files ({', '.join(STREAM_SUFFIXES)}) in directory")
            streams += found
        elif p.is_file():
            streams.append(p)
        else:
            raise MpimatchError(f"{p}: no such file or directory")
    return streams


def run_bench(streams: Sequence[Path], replay_args: Sequence[str],
              on_done: Optional[Callable[[Path, int, Optional[Dict[str, Any]]], None]] = None,
              ) -> Dict[str, Any]:
    """Replay every stream; return the combined results and the worst exit code.

    on_done(stream, exit_code, data) is called after each stream.
    """
    combined: Dict[str, Any] = {"tool": "mpimatch bench", "version": __version__,
                                "args": list(replay_args), "streams": [], "failed": []}
    worst = 0
    for stream in streams:
        code, data = replay_json(stream, replay_args)
        if code == 0 and data is None:
            code = EXIT_FAILURE   # exit 0 without JSON: the C tool misbehaved
        if code == 0:
            combined["streams"].append(data)
        else:
            combined["failed"].append({"stream": str(stream), "exit_code": code})
        worst = max(worst, code)
        if on_done is not None:
            on_done(stream, code, data)
    combined["exit_code"] = worst
    return combined


def write_json_atomic(path: Path, data: Dict[str, Any]) -> None:
    """Write JSON to a temporary file beside `path`, then rename: never a half-written file."""
    write_atomic(path, lambda f: f.write((json.dumps(data, indent=2) + "\n").encode()))
