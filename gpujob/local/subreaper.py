"""Run one replica under a subreaper that stops the replica's whole process tree (Linux).

``python -I -S subreaper.py LIFELINE_FD ARGV...`` is what gpujob starts for each replica: it runs
ARGV in a session of its own and, having called ``prctl(PR_SET_CHILD_SUBREAPER)``, becomes the
parent of every process the replica starts and then leaves behind, whatever session or process
group that process moved to (``setsid``, a double fork). So it can always find them all: they are
its descendants in ``/proc``. It

- forwards SIGTERM to every process of the tree;
- on ``KILL_TREE`` (SIGUSR1), or once gpujob has gone (LIFELINE_FD, the read end of a pipe only
  gpujob writes to, reads end of file: even after a SIGKILL of gpujob), SIGKILLs the whole tree;
- when the replica itself ends, SIGKILLs what it left behind, as a container's end does;

and then exits as the replica did (its exit code, or killed by the same signal), so gpujob sees
the replica's status, and end of file on the replica's output means every writer is gone.

It runs from its file with the standard library alone (``-I -S``: no site, no gpujob import);
gpujob imports it only for its path and ``KILL_TREE``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import select
import signal
import sys
import time

KILL_TREE = signal.SIGUSR1
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_HANDLED = (signal.SIGTERM, KILL_TREE, signal.SIGCHLD)


def _prctl(option: int, value: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(option, value, 0, 0, 0) == 0  # type: ignore[no-any-return]


def descendants(root: int) -> list[int]:
    """The processes below ``root`` that are still running (zombies left out), from /proc."""
    children: dict[int, list[tuple[int, bytes]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read()
        except OSError:  # it has just gone
            continue
        state, ppid = stat[stat.rfind(b")") + 2:].split()[:2]
        children.setdefault(int(ppid), []).append((int(name), state))
    found, todo = [], [root]
    while todo:
        for pid, state in children.get(todo.pop(), []):
            if state != b"Z":
                found.append(pid)
            todo.append(pid)
    return found


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


def _spawn(argv: list[str]) -> int:
    """Fork and exec ``argv`` in a new session, signals blocked in between so none is lost."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
    pid = os.fork()
    if pid:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return pid
    try:
        signal.set_wakeup_fd(-1)
        for signum in (*_HANDLED, signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores the last two
            signal.signal(signum, signal.SIG_DFL)
        os.setsid()
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # should this process ever die first
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        os.execvp(argv[0], argv)
    except BaseException as exc:  # the child must never return into the parent's code
        os.write(2, f"gpujob: cannot run {argv[0]}: {exc}\n".encode(errors="replace"))
    os._exit(127)


class Tree:
    """The replica (``child``) and everything below this process."""

    def __init__(self, child: int) -> None:
        self.child = child
        self.status: int | None = None  # the child's wait status, once reaped

    def reap(self) -> None:
        """Collect every ended child (the replica, orphans handed to us) without waiting."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.child:
                self.status = status

    def signal(self, signum: int) -> None:
        _signal_all(descendants(os.getpid()), signum)

    def kill(self) -> None:
        """SIGKILL the tree until nothing is left of it (a process may fork as it is killed)."""
        while True:
            self.reap()
            pids = descendants(os.getpid())
            if not pids:
                self.reap()
                return
            _signal_all(pids, signal.SIGKILL)
            time.sleep(0.005)  # let the kernel finish them before looking again


def _exit_as(status: int) -> None:
    """End this process as the replica ended: same exit code, or the same signal."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the replica's core, not ours
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP have no handler
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    lifeline, command = int(argv[0]), argv[1:]
    os.set_inheritable(lifeline, False)
    if not _prctl(_PR_SET_CHILD_SUBREAPER, 1):
        os.write(2, b"gpujob: warning: PR_SET_CHILD_SUBREAPER failed: processes this replica "
                    b"starts in new sessions may be left running\n")
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    for signum in _HANDLED:  # handled (not ignored), so the child gets the default on exec
        signal.signal(signum, lambda *_: None)
    tree = Tree(_spawn(command))
    while True:
        tree.reap()
        if tree.status is not None:
            break
        ready, _, _ = select.select([wake_read, lifeline], [], [])
        signals = os.read(wake_read, 256) if wake_read in ready else b""
        if lifeline in ready or KILL_TREE in signals:  # gpujob has gone, or asks for it
            tree.kill()
            break
        if signal.SIGTERM in signals:
            tree.signal(signal.SIGTERM)
    tree.kill()  # what the replica left behind
    assert tree.status is not None  # nothing is left below: the replica has been reaped
    _exit_as(tree.status)


if __name__ == "__main__":
    main(sys.argv[1:])
