"""Fixtures for the commands that talk to Google: the fake Google on 127.0.0.1 (AI Platform,
Vertex AI, Cloud Logging, IAM Credentials, OAuth, metadata: one server), a service account key it
trusts (Application Default Credentials through GOOGLE_APPLICATION_CREDENTIALS), and a clock
that never really sleeps."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.clock import FakeClock
from fakes.gcs import Emulator, StorageFront
from fakes.google import CLOUD_PLATFORM, FakeGoogle
from fakes.keys import ServiceAccountKey, service_account_key
from fakes.vertex import VertexAI
from jobs import CONTAINER_JOB
from vertex_jobs import custom_job, tuning_job

from gpujob.gcp import clock as gpujob_clock

PROJECT = "proj-a"
_BUCKETS = itertools.count(1)  # the gcs fixture's buckets: staging-bkt-1, -2, …
PROJECT_NUMBER = "123456789012"  # Vertex AI names resources by project number
REGION = "us-central1"
ACCOUNT = f"trainer@{PROJECT}.iam.gserviceaccount.com"

CONFIG = CONTAINER_JOB + "  enableWebAccess: false\nlabels: {team: vision}\n"
CPUS = "aiplatform.googleapis.com/custom_model_training_cpus"  # N1 and E2 vCPUs


def errors_of(err: str) -> list[str]:
    """The error and hint lines of ``err``."""
    return [line for line in err.splitlines() if line.startswith(("error:", "  hint:"))]


@pytest.fixture
def google(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGoogle]:
    """The fake, with gpujob's endpoints pointed at it; it knows PROJECT (as PROJECT_NUMBER)."""
    with FakeGoogle() as fake:
        fake.add_project(PROJECT, PROJECT_NUMBER)
        for name in ("GPUJOB_API_ENDPOINT", "GPUJOB_LOGGING_ENDPOINT", "GPUJOB_IAM_ENDPOINT",
                     "GPUJOB_SERVICEUSAGE_ENDPOINT"):
            monkeypatch.setenv(name, fake.url)
        # the tests of submit written before the quota preflight count its requests without
        # it; test_preflight.py and test_failover.py take it back (``preflight``)
        monkeypatch.setenv("GPUJOB_NO_PREFLIGHT", "1")
        yield fake


@pytest.fixture
def preflight(monkeypatch: pytest.MonkeyPatch, google: FakeGoogle) -> None:
    """The quota preflight on, as for every user, with vCPUs unlimited (a limit of -1) unless
    a test sets them."""
    monkeypatch.delenv("GPUJOB_NO_PREFLIGHT")
    google.quota.set(CPUS, {}, default=-1)


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


@pytest.fixture
def vertex(google: FakeGoogle) -> VertexAI:
    """The fake Vertex AI: ``google.vertex``, on the same server (fakes/vertex.py says how it
    behaves). GPUJOB_API_ENDPOINT already points at it."""
    return google.vertex


@pytest.fixture
def vertex_job(vertex: VertexAI):
    """Put a Vertex job in the fake as if it had been submitted; returns the stored job (its id
    is ``job["name"].rsplit("/", 1)[1]``). ``tuning=True`` makes a hyperparameter tuning job."""

    def add(display_name: str = "train", state: str = "JOB_STATE_PENDING",
            labels: dict[str, str] | None = None, tuning: bool = False,
            location: str = REGION, project: str = PROJECT, created: str | None = None):
        body = (tuning_job if tuning else custom_job)(display_name, labels)
        return vertex.add_job(project, location, body, state=state, created=created)

    return add


@pytest.fixture
def authorized_http(key: ServiceAccountKey):
    """google-auth's httplib2 transport with ``key``'s service account credentials (tokens from
    the fake's token endpoint)."""
    import google_auth_httplib2
    import httplib2
    from google.oauth2 import service_account

    credentials = service_account.Credentials.from_service_account_info(
        key.info, scopes=[CLOUD_PLATFORM])
    return google_auth_httplib2.AuthorizedHttp(credentials, http=httplib2.Http(timeout=10))


@pytest.fixture
def discovery_client(google: FakeGoogle, authorized_http):
    """``discovery_client("aiplatform", "v1")``: google-api-python-client's client built from
    its bundled document, pointed at the fake, authorized by ``key``."""
    from googleapiclient.discovery import build_from_document
    from googleapiclient.discovery_cache import get_static_doc

    def build(api: str, version: str, http=None):
        return build_from_document(get_static_doc(api, version), http=http or authorized_http,
                                   client_options={"api_endpoint": google.url})

    return build


@pytest.fixture
def aiplatform(discovery_client):
    """aiplatform v1 against the fake (as a Vertex client of gpujob would be built)."""
    return discovery_client("aiplatform", "v1")
