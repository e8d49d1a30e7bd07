"""Fixtures for the commands that talk to Google: the fake Google on 127.0.0.1, a service account
key it trusts (Application Default Credentials through GOOGLE_APPLICATION_CREDENTIALS), and a
clock that never really sleeps."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.clock import FakeClock
from fakes.gcs import Emulator, StorageFront
from fakes.google import FakeGoogle
from fakes.keys import ServiceAccountKey, service_account_key
from jobs import CONTAINER_JOB

from gpujob.gcp import clock as gpujob_clock

PROJECT = "proj-a"
_BUCKETS = itertools.count(1)  # the gcs fixture's buckets: staging-bkt-1, -2, …
ACCOUNT = f"trainer@{PROJECT}.iam.gserviceaccount.com"

CONFIG = CONTAINER_JOB + "  enableWebAccess: false\nlabels: {team: vision}\n"


@pytest.fixture
def google(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGoogle]:
    """The fake, with gpujob's endpoints pointed at it."""
    with FakeGoogle() as fake:
        for name in ("GPUJOB_API_ENDPOINT", "GPUJOB_LOGGING_ENDPOINT", "GPUJOB_IAM_ENDPOINT"):
            monkeypatch.setenv(name, fake.url)
        yield fake


@pytest.fixture
def key(google: FakeGoogle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> ServiceAccountKey:
    """A service account key the fake trusts, found through GOOGLE_APPLICATION_CREDENTIALS."""
    made = service_account_key(ACCOUNT, PROJECT, google.token_uri)
    google.trust(made)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", made.write(tmp_path / "sa.json"))
    return made


@pytest.fixture(scope="session")
def gcs_emulator() -> Iterator[Emulator]:
    """One GCS emulator for the whole run (stopping one takes half a second)."""
    emulator = Emulator()
    try:
        yield emulator
    finally:
        emulator.stop()


@pytest.fixture
def gcs(google: FakeGoogle, gcs_emulator: Emulator, monkeypatch: pytest.MonkeyPatch
        ) -> Iterator[StorageFront]:
    """Cloud Storage: the shared emulator, with a new bucket for this test (``gcs.bucket``),
    behind a front that checks the fake Google's tokens; gpujob's storage endpoint points at
    the front."""
    bucket = f"staging-bkt-{next(_BUCKETS)}"
    gcs_emulator.create_bucket(bucket)
    front = StorageFront(google, gcs_emulator, bucket)
    monkeypatch.setenv("GPUJOB_STORAGE_ENDPOINT", front.url)
    try:
        yield front
    finally:
        front.stop()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(gpujob_clock, "SYSTEM", fake)
    return fake


@pytest.fixture
def config(write) -> str:
    return write(CONFIG)


@pytest.fixture
def submitted(google: FakeGoogle):
    """Put a job in the fake as if it had been submitted; returns the stored job."""

    def add(job_id: str = "j1", state: str = "QUEUED", project: str = PROJECT, **extra):
        job = {"jobId": job_id, "trainingInput": {"scaleTier": "BASIC", "region": "us-central1"},
               **extra}
        return google.add_job(project, job, state=state)

    return add


@pytest.fixture
def leaked(google: FakeGoogle, key: ServiceAccountKey):
    """The access tokens, JWT assertions and private key lines that appear in a text."""

    def find(text: str) -> list[str]:
        found = [t for t in google.issued if t in text]
        for request in google.calls("token"):
            found += [a for a in request.body.get("assertion", []) if a in text]
        pem = [line for line in key.info["private_key"].splitlines() if "-----" not in line]
        return found + [line for line in pem if line in text]

    return find
