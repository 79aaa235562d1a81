"""The one exception type the command line turns into a message and an exit code."""
from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1   # engines disagree, or an internal error
EXIT_USAGE = 2     # bad input or usage


class MpimatchError(Exception):
    """A user-facing error: printed as 'mpimatch: error: <message>', no traceback."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def raise_broken_pipe() -> None:
    """A rich Console's on_broken_pipe: raise, so that the command line reports it
    (rich itself exits 1 without a word)."""
    raise BrokenPipeError(32, "Broken pipe")
