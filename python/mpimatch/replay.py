"""Run the C executables and read what they report (JSON)."""
from __future__ import annotations

import json
import subprocess
from typing import Any, Dict, List, Sequence, Set

from . import tools
from .errors import EXIT_FAILURE, MpimatchError


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
    """An engine's required hints as names ('no_any_source', 'no_any_tag'): the list
    `mpimatch-replay --list --json` gives as hints_required."""
    return set(engine.get("hints_required") or [])
