"""What every GKE test shares: the handlers of SIGTERM and SIGHUP come back after each test
(a GKE command makes them end gpujob as Ctrl-C does, ``api.stop_signals_as_ctrl_c``, for the
rest of the process, which here is the test run's)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _stop_signals_restored() -> Iterator[None]:
    kept = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    yield
    for signum, handler in kept.items():
        signal.signal(signum, handler)
