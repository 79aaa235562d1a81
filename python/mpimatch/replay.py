"""Run the C executables and read what they report (JSON)."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from . import tools
from .errors import EXIT_FAILURE, MpimatchError

HINT_BITS = {1: "no_any_source", 2: "no_any_tag"}   # MM_HINT_* in mpimatch.h


def run_tool(name: str, args: Sequence[str]) -> int:
    """Run a C executable with stdin/stdout/stderr inherited; return its exit code."""
    exe = tools.find_tool(name)
    try:
        return subprocess.call([str(exe), *args])
    except OSError as err:
        raise MpimatchError(f"cannot run {exe}: {err}", EXIT_FAILURE) from None


def _load_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as err:
        raise MpimatchError(f"{what} is not valid JSON: {err}", EXIT_FAILURE) from None


def list_engines() -> List[Dict[str, Any]]:
    """The engines the C library registers (mpimatch-replay --list --json)."""
    exe = tools.find_tool(tools.REPLAY)
    proc = subprocess.run([str(exe), "--list", "--json"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise MpimatchError(
            f"{exe} --list --json failed (exit {proc.returncode}): {proc.stderr.strip()}",
            proc.returncode or EXIT_FAILURE)
    data = _load_json(proc.stdout, f"output of {exe} --list --json")
    engines = data.get("engines") if isinstance(data, dict) else data
    if not isinstance(engines, list):
        raise MpimatchError(f"{exe} --list --json: expected a list of engines", EXIT_FAILURE)
    return engines


def hints_of(engine: Dict[str, Any]) -> Set[str]:
    """An engine's required hints as names ('no_any_source', 'no_any_tag')."""
    raw = engine.get("hints_required", 0)
    if isinstance(raw, int):
        return {name for bit, name in HINT_BITS.items() if raw & bit}
    if isinstance(raw, str):
        return {h.strip() for h in raw.split(",") if h.strip() and h.strip() != "none"}
    return {str(h) for h in raw}


def replay_json(stream: Path, args: Sequence[str],
                json_path: Optional[Path] = None) -> Tuple[int, Optional[Dict[str, Any]]]:
    """Run mpimatch-replay on one stream with --json and --quiet added.

    stderr is inherited, so the C tool's own messages (file:line: reason)
    reach the user unchanged. Returns (exit code, parsed JSON or None when
    the tool wrote none). With json_path None a temporary file is used.
    """
    tmpdir = None
    if json_path is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="mpimatch-")
        json_path = Path(tmpdir.name) / "replay.json"
    try:
        code = run_tool(tools.REPLAY, [str(stream), *args, "--json", str(json_path), "--quiet"])
        data = None
        if json_path.exists() and os.path.getsize(json_path) > 0:
            data = _load_json(json_path.read_text(), f"JSON written by mpimatch-replay ({json_path})")
        return code, data
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
