"""The one way the Python side writes an output file: complete or not at all.

A regular file (or one that does not exist yet) is written to a temporary file
beside it, then renamed into place: a reader never sees half of it, and a
failure leaves the old file as it was. A symlink is followed: the file it
points to is replaced, the link stays. What is not a regular file is written
straight through, never replaced: a character device (/dev/null), a FIFO, a
socket, and the standard streams (/dev/stdout, /dev/stderr, /dev/fd/N), which
are appended to so that what the process already wrote there stays.
(Renaming over /dev/null, as root, would turn it into a regular file.)
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Callable, Union

from .errors import MpimatchError

Content = Union[str, bytes, Callable[[IO[bytes]], None]]

# Names of an already open descriptor: writing there must not replace what they point to.
_STREAM_PREFIXES = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")


def umask_mode(mode: int) -> int:
    """mode as open() would give it under the process umask (mkstemp/mkdtemp use 0600/0700)."""
    mask = os.umask(0)
    os.umask(mask)
    return mode & ~mask


def _is_stream_name(path: Path) -> bool:
    text = os.path.abspath(str(path))
    return any(text == p.rstrip("/") or (p.endswith("/") and text.startswith(p))
               for p in _STREAM_PREFIXES)


def writes_through(path: Path) -> bool:
    """Is path written in place (a standard stream, device, FIFO or socket), not renamed over?"""
    if _is_stream_name(path):
        return True
    try:
        st = os.stat(path)                  # follows symlinks
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


def check_writable_dir(directory: Path, create: bool = False) -> None:
    """Fail now, before any work, if files cannot be created in `directory`."""
    try:
        if create:
            directory.mkdir(parents=True, exist_ok=True)
        elif not directory.is_dir():
            raise MpimatchError(f"{directory}: the directory does not exist")
        fd, probe = tempfile.mkstemp(prefix=".mpimatch-probe-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise MpimatchError(f"{directory}: cannot write there: {err.strerror or err}") from None


def check_writable(path: Path) -> None:
    """Fail now, before any work, if write_atomic(path, ...) could not write."""
    if writes_through(path):
        if not os.access(path, os.W_OK):
            raise MpimatchError(f"{path}: cannot write there: permission denied")
        return
    target = Path(os.path.realpath(path))
    if target.is_dir():
        raise MpimatchError(f"{path}: is a directory")
    check_writable_dir(target.parent)


def _write(f: IO[bytes], content: Content) -> None:
    if callable(content):
        content(f)
    else:
        f.write(content.encode() if isinstance(content, str) else content)


def _naming(err: OSError, path: Path) -> OSError:
    """err with path as its file name when it has none: a failed write() (a full disk,
    /dev/full) names no file, and the command line would blame standard output."""
    if err.filename is None:
        err.filename = str(path)
    return err


def write_atomic(path: Path, content: Content) -> None:
    """Write content (text, bytes, or a function given the open binary file) to path:
    renamed into place for a regular file, straight through otherwise (see above)."""
    path = Path(path)
    if writes_through(path):
        flags = os.O_WRONLY | (os.O_APPEND if _is_stream_name(path) else 0)
        try:
            fd = os.open(path, flags)
        except OSError as err:
            raise MpimatchError(f"{path}: cannot write: {err.strerror}") from None
        try:
            with os.fdopen(fd, "wb") as f:
                _write(f, content)
        except OSError as err:
            raise _naming(err, path)
        return
    target = Path(os.path.realpath(path))     # a symlink: replace what it points to
    if target.is_dir():
        raise MpimatchError(f"{path}: cannot write: is a directory")
    try:     # replacing a regular file keeps its permission bits (as sed -i does)
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = umask_mode(0o666)
    except OSError as err:
        raise MpimatchError(f"{path}: cannot write: {err.strerror}") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as err:
        raise MpimatchError(f"{path}: cannot write: {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            _write(f, content)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise _naming(err, path)
        raise
