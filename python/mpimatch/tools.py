"""Locate the C executables (mpimatch-replay, mpimatch-stream, mpimatch-gen).

Search order:
  1. the directory named by $MPIMATCH_BIN_DIR (if set, it is the only place looked);
  2. the source checkout's build tree: <repo>/build/bin, then <repo>/build/tools;
  3. $PATH.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import List, Optional

from .errors import MpimatchError

ENV_VAR = "MPIMATCH_BIN_DIR"
REPLAY = "mpimatch-replay"
STREAM = "mpimatch-stream"
GEN = "mpimatch-gen"
PROFILE = "mpimatch-profile"
IMPORT_DUMPI = "mpimatch-import-dumpi"
CONVERT = "mpimatch-convert"
COLL = "mpimatch-coll"
THREADS = "mpimatch-threads"
EXIT_NOT_FOUND = 127

# python/mpimatch/tools.py -> the repository root, when run from a checkout.
REPO_ROOT = Path(__file__).resolve().parents[2]


class ToolNotFound(MpimatchError):
    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_NOT_FOUND)


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def in_checkout() -> bool:
    """Is this package running from the source checkout (editable install)?"""
    return (REPO_ROOT / "CMakeLists.txt").is_file() and (REPO_ROOT / "include" / "mpimatch.h").is_file()


def build_dirs() -> List[Path]:
    """Build-tree directories of the source checkout, in search order."""
    if not in_checkout():
        return []
    return [REPO_ROOT / "build" / "bin", REPO_ROOT / "build" / "tools"]


def find_tool(name: str) -> Path:
    """Path of the C executable `name`, or raise ToolNotFound saying how to get it."""
    env_dir: Optional[str] = os.environ.get(ENV_VAR)
    if env_dir:
        candidate = Path(env_dir) / name
        if _is_executable(candidate):
            return candidate
        raise ToolNotFound(
            f"{ENV_VAR}={env_dir} but {candidate} is not an executable file; "
            f"point {ENV_VAR} at the directory holding {name} "
            f"(after a CMake build: <build>/bin), or unset it")
    for directory in build_dirs():
        candidate = directory / name
        if _is_executable(candidate):
            return candidate
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    looked = "".join(f"{d}, " for d in build_dirs())
    src = REPO_ROOT if in_checkout() else Path("<mpimatch source>")
    raise ToolNotFound(
        f"cannot find the C executable {name} (looked in {looked}PATH). "
        f"Build it with:  cmake -S {src} -B {src}/build && cmake --build {src}/build -j  "
        f"or set {ENV_VAR} to the directory that holds it")
