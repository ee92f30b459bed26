"""What the file system says about a path, in the policy's terms: its canonical form, the file
an open descriptor really is, and OS errors as coded errors with the path shown safely."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ..errors import FileNotFound, PathDenied, RlmError

__all__ = ["opened_path", "os_error", "realpath_fixed", "show"]

_SHOWN_MAX = 200
_MAX_REALPATH_ROUNDS = 8
_NOT_FOUND_ERRNOS = {errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG}


def os_error(exc: OSError, shown: str) -> RlmError:
    """An OS error on a path as the coded error a caller can act on."""
    if exc.errno in _NOT_FOUND_ERRNOS:
        return FileNotFound(f"{shown} does not exist; check the path and the current folder")
    if exc.errno == errno.ELOOP:
        return PathDenied(f"{shown} is a symlink loop or changed while it was being read")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return PathDenied(f"{shown} is not readable by this process; check its permissions")
    return PathDenied(f"{shown} cannot be accessed ({errno.errorcode.get(exc.errno or 0)})")


def realpath_fixed(path: str | Path) -> Path | None:
    """realpath() repeated until it stops changing: a path with no symlink left in it."""
    # One non-strict realpath() is not enough: on a symlink loop it gives up and returns the
    # rest unresolved, so `loop/../link_out/secret` came back looking inside the root while
    # still passing through `link_out` (found by the hostile-path property test).
    current = os.path.realpath(path)
    for _ in range(_MAX_REALPATH_ROUNDS):
        following = os.path.realpath(current)
        if following == current:
            return Path(current)
        current = following
    return None


def opened_path(fd: int) -> str | None:
    """The path the kernel actually opened, where /proc tells us (Linux); else None."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def show(raw: str) -> str:
    """A path for an error message: quoted, control characters escaped, length capped."""
    text = raw if len(raw) <= _SHOWN_MAX else raw[:_SHOWN_MAX] + "…"
    return repr(text)
