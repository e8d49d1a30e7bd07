"""A GKE command run in the test's process makes SIGTERM and SIGHUP a Ctrl-C for the rest of
that process (``api.stop_signals_as_ctrl_c``); the root conftest puts them back after every
test, so that no test after it in the same worker sees SIGTERM as Ctrl-C."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.kubernetes import FakeKubernetes
from gke_cluster import connect

# as the worker had them before any test of this module ran
BEFORE = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
# both tests on one worker, in this order (--dist loadgroup), even with -n auto
pytestmark = pytest.mark.xdist_group("gke-stop-signals")


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        connect(fake, tmp_path, monkeypatch)
        yield fake


def test_a_gke_command_makes_sigterm_a_ctrl_c(cluster, cli):
    assert BEFORE[signal.SIGTERM] is signal.SIG_DFL
    result = cli("list", "--service", "gke")
    assert result.code == 0, result.err
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    with pytest.raises(KeyboardInterrupt):
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)


def test_the_next_test_sees_the_stop_signals_as_they_were():
    assert {signum: signal.getsignal(signum) for signum in BEFORE} == BEFORE
