"""SIGTERM (a CI runner cancelling the step) and SIGHUP (a closed terminal) while gpujob waits on
Google: the quota preflight of ``submit`` and ``preflight``, and ``catalog refresh``. Each is
taken as Ctrl-C is: ``interrupted``, exit 130, instead of gpujob dying by the signal unheard."""

from __future__ import annotations

import secrets
import signal
import subprocess
import sys
import time

import pytest
from conftest import CPUS, REGION
from fakes.faults import Stall
from test_preflight import FORTY_T4, T4

SIGNALS = pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                                  ids=["SIGINT", "SIGTERM", "SIGHUP"])


def _stopped_while_waiting(google, route: str, signum: int, *args: str) -> tuple[int, str, str]:
    """Run ``gpujob ARGS``, send ``signum`` once ``route`` was asked (its answer stalls)."""
    google.inject(route, Stall(30))
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not google.calls(route) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert google.calls(route), f"{route} was never asked"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


@SIGNALS
@pytest.mark.parametrize("command", ["submit", "preflight"])
def test_a_stop_signal_during_the_quota_preflight_is_an_interrupt(
        google, key, write, vertex, monkeypatch, command, signum):
    monkeypatch.delenv("GPUJOB_NO_PREFLIGHT")
    google.quota.set(T4, {REGION: 64})
    google.quota.set(CPUS, {}, default=-1)
    code, out, err = _stopped_while_waiting(google, "consumerQuotaMetrics.list", signum,
                                            command, write(FORTY_T4), "--service", "vertex")
    assert (code, out) == (130, ""), err
    assert err.splitlines()[-1] == "interrupted"
    assert google.calls("customJobs.create") == []


@SIGNALS
def test_a_stop_signal_during_catalog_refresh_is_an_interrupt(google, key, monkeypatch,
                                                               tmp_path, signum):
    api_key = "AIza" + secrets.token_urlsafe(24)
    google.catalogs.api_keys.add(api_key)
    monkeypatch.setenv("GPUJOB_BILLING_API_KEY", api_key)
    monkeypatch.setenv("GPUJOB_CLOUDBILLING_ENDPOINT", google.url)
    monkeypatch.setenv("GPUJOB_CACHE_DIR", str(tmp_path / "cache"))
    code, out, err = _stopped_while_waiting(google, "skus.list", signum, "catalog", "refresh",
                                            "--parts", "prices")
    assert (code, out) == (130, ""), err
    assert err.splitlines()[-1] == "interrupted"
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json"))
