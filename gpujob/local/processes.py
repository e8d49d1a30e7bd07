"""Run replicas as child processes, show their output as one prefixed stream, stop them all.

gpujob stops every replica (SIGTERM, then SIGKILL after a grace period) when the primary ends, on
Ctrl-C, SIGTERM or SIGHUP, and on any error of its own; a replica that ends stops whatever it
left behind, as a container's end does. "Stops" means the replica's whole process tree, including
processes that moved to a session or process group of their own (``setsid``, a double fork, as
daemonizing libraries and ``start_new_session=True`` do), and also when gpujob itself is killed
(SIGKILL, the OOM killer).

How, on Linux: each replica runs under a small supervisor process of its own (``subreaper.py``),
a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): whatever the replica starts stays its
descendant, reparented to it when orphaned, so it finds the whole tree in /proc and signals every
process of it. gpujob holds the write end of a pipe whose read end every supervisor watches; when
gpujob dies, however it dies, the supervisors see end of file and kill their trees. The
alternatives fall short: a process group or session misses whatever leaves it; PR_SET_PDEATHSIG
reaches only direct children (it is cleared on fork), so after a SIGKILL of gpujob every
grandchild survived; gpujob as the subreaper catches orphans only while it lives; a cgroup would
contain everything but is not writable by an ordinary process on most machines (CI included).
Since a supervisor exits only once its tree is gone, end of file on a replica's output comes
right after it, and gpujob reads every line before it reports an exit status.

Elsewhere (macOS, no /proc), each replica runs in a session of its own, and that process group is
what is stopped; gpujob says so with a warning when the run starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from gpujob import interrupts
from gpujob.local import subreaper
from gpujob.local.replica_output import Outbox, read_lines

Sink = Callable[[bytes], None]
Notify = Callable[[str], None]


class Preempt(Protocol):
    """When to stop every replica as a preempted VM's (``due``), why, and their grace;
    ``landed`` is set once they were (the primary still ran)."""

    landed: bool

    @property
    def why(self) -> str: ...

    @property
    def grace(self) -> float: ...

    def due(self) -> bool: ...


_AFTER_KILL = 5.0  # without a supervisor: how long to wait for more output once all were killed
_SETTLE = 2.0  # after a master's success, seconds the others get to end by themselves
_REAP = 10.0  # seconds a supervisor gets to kill its tree before it is killed itself
_POLL = 0.1


def _load_prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
_PR_SET_PDEATHSIG = 1
TREES = _PRCTL is not None and os.path.isdir("/proc/self")  # whole trees can be stopped
LIMITED = ("on this system gpujob stops a replica's process group only: what it starts in "
           "a new session or process group, and everything if gpujob itself is killed, may "
           "be left running (whole process trees are stopped on Linux)")


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

    @property
    def prefix(self) -> bytes:
        return f"{self.spec.name} | ".encode()

    def terminate(self) -> None:
        """SIGTERM to the replica and what it started."""
        if TREES:  # the supervisor passes it on to the whole tree
            self.proc.send_signal(signal.SIGTERM)
        else:
            _signal_group(self, signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL to the replica and what it started."""
        if TREES:
            self.proc.send_signal(subreaper.KILL_TREE)
        else:
            _signal_group(self, signal.SIGKILL)

    def reap(self) -> None:
        """Wait until the replica (with a supervisor: its whole tree) has gone."""
        try:
            self.proc.wait(timeout=_REAP if TREES else None)
        except subprocess.TimeoutExpired:  # a supervisor that is stuck (stopped, say)
            self.proc.kill()
            self.proc.wait()


def supervise(specs: Sequence[Spec], *, grace: float, write: Sink | None = None,
              notify: Notify | None = None, preempt: Preempt | None = None) -> int:
    """Run every spec; return the first one's (the primary's) exit status once it has ended,
    its output has been written and the others have been stopped. Raises ``KeyboardInterrupt``
    on Ctrl-C, SIGTERM or SIGHUP, after stopping everything. ``preempt``: once its ``due()``
    holds, every replica is stopped as a preempted VM's processes are, given its ``grace``."""
    write = write or stdout_sink()
    notify = notify or _stderr
    if not TREES:
        notify(f"warning: {LIMITED}")
    box: Outbox[_Running] = Outbox()
    running: list[_Running] = []
    with interrupts.deferred(), _lifeline() as lifeline:
        try:
            for spec in specs:
                running.append(_start(spec, lifeline))
            _read(running, box)  # after every fork: no reader thread exists during one
            return _run(running, box, write, notify, grace, preempt)
        except BaseException:
            _read(running, box)
            _stop(running, box, _quiet(write), notify, grace, why="interrupted")
            raise


def _run(running: list[_Running], box: Outbox[_Running], write: Sink, notify: Notify,
         grace: float, preempt: Preempt | None) -> int:
    primary = running[0]

    def ended(replicas: list[_Running]) -> Callable[[], bool]:
        def check() -> bool:
            _report_early_exits(running, notify)
            return all(r.proc.poll() is not None for r in replicas)

        return check

    primary_ended = ended([primary])
    if preempt is not None:
        _pump(box, write, until=lambda: primary_ended() or preempt.due())
        if primary.proc.poll() is None:  # the drill's preemption came first
            preempt.landed = True
            _stop(running, box, write, notify, preempt.grace, why=preempt.why)
            return primary.proc.returncode
    _pump(box, write, until=primary_ended)
    # every line the primary wrote is out before its status decides anything
    _pump(box, write, until=lambda: primary.eof, quiet=None if TREES else _AFTER_KILL)
    if primary.proc.returncode == 0:  # workers of a finished job end with it, unasked
        _pump(box, write, until=ended(running), deadline=time.monotonic() + _SETTLE)
    _stop(running, box, write, notify, grace,
          why=f"{primary.spec.name} {describe_exit(primary.proc.returncode)}")
    return primary.proc.returncode


def stdout_sink() -> Sink:
    """Writes bytes to stdout as they came (its binary buffer when it has one)."""
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

@contextlib.contextmanager
def _lifeline() -> Iterator[int]:
    """A pipe's read end for the supervisors; its write end, held by gpujob alone until the run
    is over, closes when gpujob dies, however it dies."""
    read, write = os.pipe()
    try:
        yield read
    finally:
        os.close(read)
        os.close(write)


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


def _start(spec: Spec, lifeline: int) -> _Running:
    """Start the replica in a session of its own: under a supervisor that started it so, or
    (without one) directly."""
    if TREES:
        argv = [sys.executable, "-I", "-S", subreaper.__file__, str(lifeline), *spec.argv]
        proc = subprocess.Popen(argv, cwd=spec.cwd, env=spec.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, pass_fds=(lifeline,))
    else:
        proc = subprocess.Popen(spec.argv, cwd=spec.cwd, env=spec.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_child_setup(os.getpid()))
    return _Running(spec, proc)


# -- output -----------------------------------------------------------------------------------

def _read(running: list[_Running], box: Outbox[_Running]) -> None:
    """Start a reader thread for each replica that has none yet."""
    for replica in running:
        if replica.proc.stdout is not None:
            fd = os.dup(replica.proc.stdout.fileno())  # the reader closes its own
            replica.proc.stdout.close()
            replica.proc.stdout = None
            threading.Thread(target=read_lines, args=(fd, replica, replica.prefix, box),
                             name=f"gpujob-{replica.spec.name}", daemon=True).start()


def _pump(box: Outbox[_Running], write: Sink, until: Callable[[], bool],
          deadline: float | None = None, quiet: float | None = None) -> bool:
    """Write output as it arrives until ``until()`` holds (True), or the deadline passes, or
    (``quiet``) nothing has come for that many seconds (False)."""
    last = time.monotonic()
    while True:
        interrupts.check()  # Ctrl-C, SIGTERM, SIGHUP: here, never inside what the loop calls
        if until():
            return True
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return False
        if quiet is not None and now - last >= quiet:
            return False
        item = box.get(timeout=_POLL)
        if item is None:
            continue
        replica, data = item
        if data is None:
            replica.eof = True
        else:
            write(data)
        last = time.monotonic()


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
    """Signal the replica's process group: the replica and what it started there, even once the
    replica itself has exited (its leftovers)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(replica.proc.pid, signum)


def _stop(running: list[_Running], box: Outbox[_Running], write: Sink, notify: Notify,
          grace: float, why: str) -> None:
    """SIGTERM every replica's tree, SIGKILL what is left after ``grace`` seconds (or at a
    second Ctrl-C), reap them, and write the output they still had."""
    if not running:
        return
    try:
        live = [r.spec.name for r in running if r.proc.poll() is None]
        if live:
            notify(f"{why}: stopping {', '.join(live)}"
                   + (" (Ctrl-C again to kill now)" if why == "interrupted" else ""))
        for replica in running:
            replica.terminate()
        _pump(box, write, until=lambda: all(r.proc.poll() is not None for r in running),
              deadline=time.monotonic() + grace)
        for replica in running:
            if replica.proc.poll() is None:
                notify(f"{replica.spec.name} did not stop within {grace:g}s of SIGTERM: "
                       "killing it")
    except KeyboardInterrupt:  # Ctrl-C again: kill now
        pass
    finally:  # whatever happened above, nothing is left running
        for replica in running:
            replica.kill()
        for replica in running:
            replica.reap()
    # with supervisors every writer has gone now: the output ends; without, a process outside
    # the groups may hold a pipe open, and is given up on once it has been quiet a while
    drained = False
    try:
        drained = _pump(box, write, until=lambda: all(r.eof for r in running),
                        quiet=None if TREES else _AFTER_KILL)
    except KeyboardInterrupt:  # Ctrl-C here: leave the rest unwritten
        pass
    else:
        if not drained:
            held = ", ".join(r.spec.name for r in running if not r.eof)
            notify(f"warning: not waiting for the rest of the output of {held}: a process "
                   "it started outside its process group holds it open")
    if not drained:
        box.discard()  # no reader waits for room that will never come
