"""A GKE command run in the test's process makes SIGTERM and SIGHUP a Ctrl-C for the rest of
that process (``api.stop_signals_as_ctrl_c``); the root conftest puts them back after every
test (``stop_signals_kept``, around each test), so that no test after it in the same worker sees
SIGTERM as Ctrl-C."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.kubernetes import FakeKubernetes
from gke_cluster import STOP_SIGNALS, connect, stop_signals_kept


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        connect(fake, tmp_path, monkeypatch)
        yield fake


def handlers() -> dict[int, object]:
    return {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}


def test_a_gke_command_makes_sigterm_a_ctrl_c_until_the_signals_are_put_back(
        cluster, cli, request: pytest.FixtureRequest):
    # one test, not two in a row: which worker runs a test, and after which, is xdist's choice
    assert "_stop_signals_restored" in request.fixturenames  # the conftest's, around each test
    before = handlers()
    assert before[signal.SIGTERM] is signal.SIG_DFL
    with stop_signals_kept():
        result = cli("list", "--service", "gke")
        assert result.code == 0, result.err
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        with pytest.raises(KeyboardInterrupt):
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
    assert handlers() == before
