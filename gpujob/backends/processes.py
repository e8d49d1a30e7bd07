"""Run replicas as child processes, show their output as one prefixed stream, stop them all.

Each replica runs in a session of its own, so a Ctrl-C meant for gpujob does not reach the
trainers half-way through: gpujob stops each replica's whole process group itself (SIGTERM, then
SIGKILL after a grace period) when the primary ends, on Ctrl-C, SIGTERM or SIGHUP, and on any
error of its own. On Linux the replicas are also killed when gpujob itself is killed (SIGKILL,
the OOM killer); processes they started in sessions of their own are beyond its reach then.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

Sink = Callable[[bytes], None]
Notify = Callable[[str], None]

_MAX_LINE = 64 * 1024  # a longer line is shown in pieces, each with its prefix
_AFTER_KILL = 5.0  # seconds to collect output once every replica has been killed
_SETTLE = 2.0  # after a master's success, seconds the others get to end by themselves
_POLL = 0.1


@dataclass(frozen=True)
class Spec:
    """One process to run: ``argv`` in ``cwd`` with ``env`` (the complete environment)."""

    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: str


@dataclass
class _Running:
    spec: Spec
    proc: subprocess.Popen[bytes]
    eof: bool = False
    reported: bool = False
    reader: threading.Thread | None = field(default=None, repr=False)

    @property
    def prefix(self) -> bytes:
        return f"{self.spec.name} | ".encode()


def supervise(specs: Sequence[Spec], *, grace: float, write: Sink | None = None,
              notify: Notify | None = None) -> int:
    """Run every spec; return the first one's (the primary's) exit status once it has ended and
    the others have been stopped. Raises ``KeyboardInterrupt`` on Ctrl-C, SIGTERM or SIGHUP,
    after stopping everything."""
    write = write or stdout_sink()
    notify = notify or _stderr
    lines: queue.Queue[tuple[_Running, bytes | None]] = queue.Queue()
    running: list[_Running] = []
    with _signals_interrupt():
        try:
            for spec in specs:
                running.append(_start(spec))
            for replica in running:  # after every fork: no reader thread exists during one
                replica.reader = threading.Thread(target=_read, args=(replica, lines),
                                                  name=f"gpujob-{replica.spec.name}",
                                                  daemon=True)
                replica.reader.start()
            primary = running[0]

            def primary_ended() -> bool:
                _report_early_exits(running, notify)
                return primary.proc.poll() is not None

            _pump(lines, write, until=primary_ended)
            if primary.proc.returncode == 0:  # workers of a finished job end with it, unasked
                def all_ended() -> bool:
                    _report_early_exits(running, notify)
                    return all(r.proc.poll() is not None for r in running)

                _pump(lines, write, until=all_ended, deadline=time.monotonic() + _SETTLE)
            _stop(running, lines, write, notify, grace,
                  why=f"{primary.spec.name} {describe_exit(primary.proc.returncode)}")
            return primary.proc.returncode
        except BaseException:
            _stop(running, lines, _quiet(write), notify, grace, why="interrupted")
            raise


def stdout_sink() -> Sink:
    """Writes bytes to stdout as they came (its binary buffer when it has one), line by line."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)

    def write(data: bytes) -> None:
        if buffer is None:
            stream.write(data.decode("utf-8", "replace"))
        else:
            stream.flush()
            buffer.write(data)
            buffer.flush()
        stream.flush()

    return write


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _quiet(write: Sink) -> Sink:
    """``write`` until it fails once (a closed pipe), then nothing: stopping must go on."""
    failed = False

    def safe(data: bytes) -> None:
        nonlocal failed
        if not failed:
            try:
                write(data)
            except (OSError, ValueError):
                failed = True

    return safe


# -- starting ---------------------------------------------------------------------------------

def _load_prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
_PR_SET_PDEATHSIG = 1


def _child_setup(parent: int) -> Callable[[], None] | None:
    """Runs in the child between fork and exec: die with gpujob (Linux)."""
    if _PRCTL is None:
        return None
    prctl = _PRCTL

    def setup() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # gpujob died before the line above took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return setup


def _start(spec: Spec) -> _Running:
    proc = subprocess.Popen(spec.argv, cwd=spec.cwd, env=spec.env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=_child_setup(os.getpid()))
    return _Running(spec, proc)


def _read(replica: _Running, lines: queue.Queue[tuple[_Running, bytes | None]]) -> None:
    """Forward whole lines, as they arrive; ``None`` when the replica's output ends."""
    pipe = replica.proc.stdout
    assert pipe is not None
    try:
        with pipe:
            for line in iter(lambda: pipe.readline(_MAX_LINE), b""):
                lines.put((replica, line))
    except (OSError, ValueError):  # the pipe was closed under us while stopping
        pass
    finally:
        lines.put((replica, None))


# -- output -----------------------------------------------------------------------------------

def _pump(lines: queue.Queue[tuple[_Running, bytes | None]], write: Sink,
          until: Callable[[], bool], deadline: float | None = None) -> bool:
    """Write lines as they arrive until ``until()`` holds (True) or the deadline passes (False)."""
    while True:
        if until():
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        try:
            replica, line = lines.get(timeout=_POLL)
        except queue.Empty:
            continue
        if line is None:
            replica.eof = True
        else:
            write(replica.prefix + line + (b"" if line.endswith(b"\n") else b"\n"))


def _report_early_exits(running: list[_Running], notify: Notify) -> None:
    for replica in running[1:]:
        code = replica.proc.poll()
        if code is not None and not replica.reported:
            replica.reported = True
            if code != 0 and running[0].proc.poll() is None:
                notify(f"warning: {replica.spec.name} {describe_exit(code)}; the run goes on "
                       f"until {running[0].spec.name} ends (Ctrl-C stops it)")
            elif code != 0:
                notify(f"warning: {replica.spec.name} {describe_exit(code)}")


def describe_exit(code: int) -> str:
    """``exited with code 1``, or ``was killed by SIGKILL`` for a negative status."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


# -- stopping ---------------------------------------------------------------------------------

def _signal_group(replica: _Running, signum: int) -> None:
    """Signal the replica's process group: the replica and what it started, even once the
    replica itself has exited (its leftovers)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(replica.proc.pid, signum)


def _stop(running: list[_Running], lines: queue.Queue[tuple[_Running, bytes | None]],
          write: Sink, notify: Notify, grace: float, why: str) -> None:
    """SIGTERM every replica's group, SIGKILL what is left after ``grace`` seconds (or at a
    second Ctrl-C), reap them, and write the output they still had."""
    if not running:
        return
    try:
        live = [r.spec.name for r in running if r.proc.poll() is None]
        if live:
            notify(f"{why}: stopping {', '.join(live)}"
                   + (" (Ctrl-C again to kill now)" if why == "interrupted" else ""))
        for replica in running:
            _signal_group(replica, signal.SIGTERM)
        _pump(lines, write, until=lambda: all(r.proc.poll() is not None for r in running),
              deadline=time.monotonic() + grace)
        for replica in running:
            if replica.proc.poll() is None:
                notify(f"{replica.spec.name} did not stop within {grace:g}s of SIGTERM: "
                       "killing it")
    except KeyboardInterrupt:  # Ctrl-C again: kill now
        pass
    finally:  # whatever happened above, nothing is left running
        for replica in running:
            _signal_group(replica, signal.SIGKILL)
        for replica in running:
            replica.proc.wait()
    # a pipe still held open by a process outside the groups leaves its (daemon) reader behind
    with contextlib.suppress(KeyboardInterrupt):
        _pump(lines, write, until=lambda: all(r.eof for r in running),
              deadline=time.monotonic() + _AFTER_KILL)


# -- signals ----------------------------------------------------------------------------------

def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP stop the run as Ctrl-C does (in the main thread, where Python can
    handle signals); the previous handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, _raise_interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
