"""Writing a result to a file named with ``-o`` (``convert``), as the user expects of that name.

A regular file is replaced whole or not at all: the text goes to a file beside it, renamed over
it, with the old file's permissions (and, where this process may, its owner). A symlink is
followed, so its target is what gets written; the link stays a link. A file without write
permission is refused, also for root, whom the permission bits do not stop. Anything that is not
a regular file (``/dev/null``, a FIFO, a terminal) is written straight into, as a shell
redirection does: renaming over it would put a regular file in its place (as root, the system's
``/dev/null``).
"""

from __future__ import annotations

import contextlib
import os
import stat

from gpujob.console import safe
from gpujob.errors import OutputError, UsageError


def write_text(text: str, path: str) -> None:
    """Write ``text`` to ``path`` (see the module); ``UsageError`` for a read-only file,
    ``OutputError`` when writing fails."""
    real = os.path.realpath(path)
    try:
        try:
            now = os.stat(real)
        except FileNotFoundError:
            now = None
        if now is not None and not stat.S_ISREG(now.st_mode):
            with open(real, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        if now is not None and (not now.st_mode & 0o222 or not os.access(real, os.W_OK)):
            raise UsageError(f"-o {safe(path)} is read-only",
                             "name another file, or make this one writable (chmod u+w)")
        _replace(text, real, now)
    except OSError as exc:
        raise OutputError(f"cannot write {safe(path)}: {exc.strerror or exc}") from None


def _replace(text: str, real: str, now: os.stat_result | None) -> None:
    """Write beside ``real`` and rename over it, keeping the permissions it had."""
    temporary = f"{real}.gpujob-{os.getpid()}.tmp"
    mode = stat.S_IMODE(now.st_mode) if now is not None else 0o666
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if now is not None:
            os.chmod(temporary, mode)  # exactly, whatever the umask
            with contextlib.suppress(OSError):  # only root may give a file away
                os.chown(temporary, now.st_uid, now.st_gid)
        os.replace(temporary, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
