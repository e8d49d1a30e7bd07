"""SIGTERM's flag: set by the signal handler, read by the training loop (``trainer.task``).

The handler takes no lock. A preempted replica's processes get SIGTERM twice, a moment apart:
from the VM (or ``gpujob local``'s supervisor) and again from torch's agent, which passes its
own on. Python runs a handler between two bytecodes of the main thread, so the second handler
can run inside the first: one that set a ``threading.Event`` waited there for the lock the first
held, for ever, and the process hung mid-epoch until its agent killed it.
"""

from __future__ import annotations

import signal
from types import FrameType


class Stop:
    """``requested`` once this process got SIGTERM."""

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True  # one assignment: nothing to wait for, however handlers nest


def on_sigterm() -> Stop:
    """Note SIGTERM from now on (instead of ending the process) in the returned flag."""
    stop = Stop()
    signal.signal(signal.SIGTERM, stop._handle)
    return stop
