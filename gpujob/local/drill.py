"""A preemption drill for local runs (``--preempt-after``, ``--recover``).

A preempted VM's processes get SIGTERM, and are killed when the VM's shutdown period is over
(30 s for a Spot VM: GKE-RUNS.md, "Reclaim: the VM gets a 30 s notice", from Google's page on
Spot VMs in GKE); the job then ends, and a service that restarts it runs it again with the same
output directory, so that the trainer resumes from its checkpoints. The drill does that here:
each attempt is preempted ``SECONDS`` after it started, or once a file matching a pattern under
the job dir is written during it (``checkpoints/epoch-*.pt``: right after a checkpoint, whenever
that comes), and with ``--recover N`` the job starts again with the same job dir, at most N
times. Only the drill's preemptions are recovered: a trainer that fails by itself is not.
"""

from __future__ import annotations

import glob
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from gpujob.errors import UsageError

SPOT_GRACE = 30.0  # seconds a Spot VM's processes get between SIGTERM and the end (see above)


@dataclass(frozen=True)
class Drill:
    """``--preempt-after``: ``seconds`` after an attempt starts, or once a file matching
    ``written`` (a pattern under the job dir) is written during it; ``grace``: seconds from
    SIGTERM to SIGKILL; ``recover``: how many times the job starts again after a preemption."""

    flag: str  # as given, for the messages
    seconds: float | None = None
    written: str | None = None
    grace: float = SPOT_GRACE
    recover: int = 0

    def attempt(self, job_dir: str) -> Preemption:
        """The preemption of an attempt that starts now."""
        return Preemption(self, job_dir, time.monotonic(), time.time_ns())


def parse(text: str, grace: float | None, recover: int) -> Drill:
    """``--preempt-after SECONDS|FILE``: a number of seconds, else a path or glob pattern
    relative to the job dir."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = None
    if seconds is not None:
        if not 0 <= seconds < math.inf:
            raise UsageError(f"--preempt-after {text}: not a number of seconds",
                             "give --preempt-after SECONDS, e.g. 60, or a file the trainer "
                             "writes under the job dir, e.g. 'checkpoints/*.pt'")
        return Drill(text, seconds=seconds, grace=_grace(grace), recover=recover)
    if not text.strip() or Path(text).is_absolute() or ".." in Path(text).parts:
        raise UsageError(f"--preempt-after {text!r}: neither a number of seconds nor a path "
                         "under the job dir",
                         "give --preempt-after SECONDS, or a path (a glob pattern too) "
                         "relative to the job dir, e.g. 'checkpoints/*.pt'")
    return Drill(text, written=text, grace=_grace(grace), recover=recover)


def _grace(grace: float | None) -> float:
    return SPOT_GRACE if grace is None else grace


@dataclass
class Preemption:
    """One attempt's preemption (``processes.Preempt``): ``fired`` once it was due, ``landed``
    once the replicas were stopped for it (their primary still ran)."""

    drill: Drill
    job_dir: str
    started: float  # time.monotonic() when the attempt started
    started_ns: int  # time.time_ns() then: files written since count
    fired: bool = field(default=False)
    landed: bool = field(default=False)

    @property
    def grace(self) -> float:
        return self.drill.grace

    @property
    def why(self) -> str:
        return (f"preempted (--preempt-after {self.drill.flag}; SIGKILL after "
                f"{self.drill.grace:g}s)")

    def due(self) -> bool:
        if not self.fired:
            self.fired = self._due()
        return self.fired

    def _due(self) -> bool:
        if self.drill.seconds is not None:
            return time.monotonic() - self.started >= self.drill.seconds
        assert self.drill.written is not None
        for path in glob.glob(os.path.join(glob.escape(self.job_dir), self.drill.written)):
            try:
                if os.stat(path).st_mtime_ns >= self.started_ns:
                    return True
            except OSError:  # replaced or removed since the glob: the next look sees it
                continue
        return False


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``: how long an attempt ran."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
