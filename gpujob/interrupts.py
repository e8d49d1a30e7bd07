"""Ctrl-C, SIGTERM and SIGHUP while gpujob runs processes of its own: noted when they come, acted
on where gpujob checks for them, and the processes stopped with everything they started.

Why not let Python raise ``KeyboardInterrupt`` where the signal finds the main thread: it may be
anywhere, in code that is not written for it. ``subprocess.Popen.poll`` takes a lock with
``acquire(False)`` and releases it in a ``try``/``finally`` that begins one instruction later;
CPython runs signal handlers right after a call returns, so an interrupt there left the lock held
for good, and the next ``Popen.wait()`` without a timeout waited for it forever.

``run_captured`` runs a command (pip, ``python -m build``) in a session of its own, so that its
process group holds what it starts (a build backend, pip's own subprocesses) and a Ctrl-C at the
terminal reaches gpujob alone: on any of the three signals gpujob sends the group SIGINT, as the
terminal would have (pip and build then remove their temporary directories), SIGKILL to what is
left after a few seconds, and raises ``KeyboardInterrupt`` (exit 130, "interrupted").

``as_ctrl_c`` is for code that already handles Ctrl-C where it lands (a create, whose job may
exist once the request is out; the clean-up after a refused one; the waits on Google of the
quota preflight and ``catalog refresh``, where it ends the command): there SIGTERM (a CI runner
cancelling the step) and SIGHUP (a closed terminal) raise ``KeyboardInterrupt`` as SIGINT does,
so they get the same message instead of ending gpujob by the signal with nothing said.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE = 5.0  # seconds a stopped command's process group gets to end after SIGINT
_POLL = 0.1
_pending: list[int] = []


def _note(signum: int, frame: object) -> None:
    _pending.append(signum)


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a stopping signal came since the last check."""
    if _pending:
        _pending.clear()
        raise KeyboardInterrupt


@contextlib.contextmanager
def _handled(signums: Sequence[signal.Signals],
             handler: Callable[[int, object], None]) -> Iterator[None]:
    """Within: ``handler`` takes those of ``signums`` that are not ignored; the previous handlers
    come back on the way out. Outside the main thread (where Python runs no handlers) it changes
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for signum in signums:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within: Ctrl-C, SIGTERM and SIGHUP (those not ignored) are noted for ``check`` instead of
    raising where they land. One that came after the last check is raised on the way out."""
    try:
        with _handled(STOPPING, _note):
            yield
    finally:
        came = bool(_pending)
        _pending.clear()
    if came:
        raise KeyboardInterrupt


def _signal_group(pgid: int, signum: int) -> bool:
    """Signal the process group; False once it is empty."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a member that changed its user: leave it
        return True
    return True


def _stop_group(proc: subprocess.Popen[str], grace: float) -> None:
    """SIGINT to the command's process group, SIGKILL to what is left after ``grace`` seconds;
    returns once the command has been reaped."""
    if not hasattr(os, "killpg"):  # pragma: no cover - Windows: no process groups to signal
        proc.kill()
        proc.communicate()
        return
    deadline = time.monotonic() + grace
    if _signal_group(proc.pid, signal.SIGINT):
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=grace)  # read on: a full pipe must not hold it up
        while _signal_group(proc.pid, 0) and time.monotonic() < deadline:
            time.sleep(0.02)  # what the command started ends after it
    _signal_group(proc.pid, signal.SIGKILL)
    proc.kill()
    proc.communicate()


def run_captured(command: Sequence[str], env: Mapping[str, str] | None = None,
                 grace: float = GRACE) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command)`` with stdout and stderr captured together as text, in a session
    of its own; ``KeyboardInterrupt`` after stopping its whole process group on Ctrl-C, SIGTERM or
    SIGHUP. ``OSError`` when it cannot be started."""
    with deferred():
        proc = subprocess.Popen(list(command), env=dict(env) if env is not None else None,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace",
                                start_new_session=True)
        try:
            while True:
                try:
                    output, _ = proc.communicate(timeout=_POLL)
                except subprocess.TimeoutExpired:
                    check()
                else:
                    return subprocess.CompletedProcess(list(command), proc.returncode, output)
        except BaseException:
            _stop_group(proc, grace)
            raise


def _raise(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def as_ctrl_c() -> contextlib.AbstractContextManager[None]:
    """Within: SIGTERM and SIGHUP (those not ignored) raise ``KeyboardInterrupt`` where they
    land, as Ctrl-C does."""
    return _handled((signal.SIGTERM, signal.SIGHUP), _raise)
