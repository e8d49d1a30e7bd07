"""A clock for gpujob's retry, wait and follow loops that never really sleeps."""

from __future__ import annotations


class FakeClock:
    """Monotonic time that moves only when slept; every sleep is recorded. ``interrupt_at``:
    the sleep (1-based) at which Ctrl-C is pressed."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.interrupt_at: int | None = None

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if self.interrupt_at is not None and len(self.sleeps) >= self.interrupt_at:
            raise KeyboardInterrupt
        self.now += seconds

    def random(self) -> float:
        return 0.5  # backoff waits are then 3/4 of their ceiling: 0.75 s, 1.5 s, 3 s, …
