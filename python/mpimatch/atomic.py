"""Output files that appear only when complete: write beside, then rename."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Callable

from .errors import MpimatchError


def umask_mode(mode: int) -> int:
    """mode as open() would give it under the process umask (mkstemp/mkdtemp use 0600/0700)."""
    mask = os.umask(0)
    os.umask(mask)
    return mode & ~mask


def write_atomic(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Call write(file) on a temporary file beside path, then rename it into place."""
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    except OSError as err:
        raise MpimatchError(f"{path}: cannot write: {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, umask_mode(0o666))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
