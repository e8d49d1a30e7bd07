"""Time as the retry, wait and follow loops see it; tests swap ``SYSTEM`` for a clock that does
not really sleep."""

from __future__ import annotations

import random
import time


class Clock:
    """The real clock: monotonic seconds, sleeping, and the random numbers backoff jitter uses."""

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def random(self) -> float:
        return random.random()


SYSTEM = Clock()
