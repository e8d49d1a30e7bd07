"""The aiplatform v1 client (gpujob.gcp.aiplatform) against the fake Vertex AI: the request it
sends, the regional address, reads, and one job per submission whatever the network does."""

from __future__ import annotations

import pytest
from conftest import PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import rate_limited, unavailable
from fakes.faults import Drop, Reply
from vertex_jobs import custom_job

from gpujob.gcp import aiplatform
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings

TOKEN = "20261123-101010-123456-abcd"


@pytest.fixture
def client(google, key, clock) -> aiplatform.VertexClient:
    return aiplatform.VertexClient(Session(GcpSettings(api_endpoint=google.url,
                                                       logging_endpoint=google.url)))


def _body(token: str = TOKEN, **labels: str) -> dict:
    return custom_job("train", {aiplatform.SUBMISSION_LABEL: token, **labels})


def _url(google, region: str = REGION, noun: str = "CustomJob") -> str:
    return aiplatform.jobs_url(GcpSettings(api_endpoint=google.url), PROJECT, region, noun)


def test_create_posts_the_body_once_to_the_url(google, vertex, client):
    created = client.create(_url(google), _body())
    (call,) = google.calls("customJobs.create")
    assert call.path == f"/v1/projects/{PROJECT}/locations/{REGION}/customJobs"
    assert call.body == _body()
    assert not created.recovered
    assert created.job["name"].startswith(f"projects/{PROJECT_NUMBER}/locations/{REGION}/")
    assert len(vertex.jobs) == 1


def test_503_429_then_success_makes_one_job(google, vertex, client, clock):
    google.inject("customJobs.create", Reply(503, unavailable()),
                  Reply(429, rate_limited(), {"Retry-After": "7"}))
    created = client.create(_url(google), _body())
    assert not created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 3
    assert clock.sleeps == [0.75, 7.0]
    lists = google.calls("customJobs.list")
    assert [c.query["filter"] for c in lists] == [[f'labels.gpujob-submission="{TOKEN}"']] * 2


def test_a_lost_answer_is_not_resent_and_the_job_is_adopted(google, vertex, client, clock):
    google.inject("customJobs.create", Drop())
    created = client.create(_url(google), _body())
    assert created.recovered and len(vertex.jobs) == 1
    assert len(google.calls("customJobs.create")) == 1
    assert created.job == next(iter(vertex.jobs.values()))
