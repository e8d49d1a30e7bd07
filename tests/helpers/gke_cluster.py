"""A fake GKE cluster as the GKE tests see it: the kubeconfig context that names it, a
kubeconfig written for a `FakeKubernetes`, and the stop signals a GKE command takes over."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakes.clock import FakeClock

CONTEXT = "gke_proj_us-central1_train"
# ``api.stop_signals_as_ctrl_c`` makes SIGTERM and SIGHUP a Ctrl-C for the rest of the process
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def kubeconfig(path: Path, server: str, user: dict[str, Any], cluster: dict | None = None,
               context: str = CONTEXT) -> Path:
    """A kubeconfig at PATH whose current CONTEXT is the cluster at SERVER, as USER."""
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": context,
        "clusters": [{"name": context, "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": context, "user": user}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}]}))
    return path


def point_kubeconfig(fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     context: str = CONTEXT) -> Path:
    """KUBECONFIG names a kubeconfig whose current context is FAKE, with its token."""
    path = kubeconfig(tmp_path / "kubeconfig", fake.url, {"token": fake.token}, context=context)
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path


def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """gpujob's clock is a FakeClock: its waits and backoffs take no time."""
    from gpujob.gcp import clock as gpujob_clock

    fake = FakeClock()
    monkeypatch.setattr(gpujob_clock, "SYSTEM", fake)
    return fake


def connect(fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            context: str = CONTEXT) -> FakeClock:
    """The test's gpujob talks to FAKE (KUBECONFIG) on a FakeClock, which is returned."""
    point_kubeconfig(fake, tmp_path, monkeypatch, context)
    return fake_clock(monkeypatch)


@contextmanager
def stop_signals_kept() -> Iterator[None]:
    """The stop signals' handlers are put back as they were: a GKE command run in the test's
    process makes SIGTERM and SIGHUP raise KeyboardInterrupt from then on."""
    kept = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)


def custom_job(job_id: str = "run_1", machine: str = "n1-standard-8",
               accelerator: str = "NVIDIA_TESLA_T4", count: int = 2, workers: int = 2,
               worker_gpus: bool = True) -> str:
    """An AI Platform CUSTOM job: a master of MACHINE with COUNT x ACCELERATOR and WORKERS
    workers alike (without GPUs unless WORKER_GPUS; no worker lines when WORKERS is 0)."""
    text = (f"jobId: {job_id}\ntrainingInput:\n  scaleTier: CUSTOM\n  masterType: {machine}\n"
            "  masterConfig:\n    imageUri: us-docker.pkg.dev/p/r/trainer:1\n"
            f"    acceleratorConfig: {{count: {count}, type: {accelerator}}}\n")
    if workers:
        text += f"  workerCount: {workers}\n  workerType: {machine}\n"
        if worker_gpus:
            text += ("  workerConfig:\n"
                     f"    acceleratorConfig: {{count: {count}, type: {accelerator}}}\n")
    return text


# a master and 2 workers of n1-standard-8 with 2 × T4 each: a small GPU job of 3 nodes
T4_JOB = custom_job()
