"""Every submit reaches the service's create through the same calls: a default Vertex AI submit
(the quota preflight on), one with --no-preflight, one over several regions, an AI Platform
submit and a GKE submit each go check -> request -> build -> stage -> send, and create once,
through ``Plan.create`` (``gpujob.submit``): a plain submit is a plan with one choice. What
each sends is read at the fakes: one create, to the service's own endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.kubernetes import FakeKubernetes
from gke_cluster import custom_job, point_kubeconfig
from test_failover import FORTY_T4

from gpujob.submit.failover import Choice, Plan

EAST = "us-east4"
GKE_CONFIG = custom_job("one-path", workers=0)


@pytest.fixture
def creates(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int]]:
    """(service, the create's URL, the plan's number of choices) for each create a submit
    made through ``Plan.create``: the one way to the service's create."""
    seen: list[tuple[str, str, int]] = []
    create = Plan.create

    def recorded(plan: Plan, choice: Choice):
        seen.append((plan.service.name, plan.staged(choice).url, len(plan.choices)))
        return create(plan, choice)

    monkeypatch.setattr(Plan, "create", recorded)
    return seen


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        point_kubeconfig(fake, tmp_path, monkeypatch)
        yield fake


def _vertex_create(google) -> str:
    (create,) = google.calls("customJobs.create")
    return create.path


def test_a_default_vertex_submit_creates_through_the_plan(cli, google, key, config, vertex,
                                                          preflight, creates):
    result = cli("submit", config, "--service", "vertex", "--format", "json")
    assert result.code == 0, result.err
    path = _vertex_create(google)
    assert [(name, url.endswith(path), count) for name, url, count in creates] == [
        ("vertex", True, 1)]
    assert json.loads(result.out)["failover"]["why"] == "the only choice"


def test_a_vertex_submit_without_the_preflight_creates_through_the_plan(
        cli, google, key, config, vertex, creates):
    result = cli("submit", config, "--service", "vertex", "--no-preflight", "--format", "json")
    assert result.code == 0, result.err
    path = _vertex_create(google)
    assert [(name, url.endswith(path), count) for name, url, count in creates] == [
        ("vertex", True, 1)]
    assert "failover" not in json.loads(result.out)  # what it shows is as before


def test_a_submit_over_two_regions_creates_through_the_plan(cli, google, key, write, vertex,
                                                            preflight, creates):
    result = cli("submit", write(FORTY_T4), "--service", "vertex", "--region",
                 f"us-central1,{EAST}")
    assert result.code == 0, result.err
    path = _vertex_create(google)
    assert [(name, url.endswith(path), count) for name, url, count in creates] == [
        ("vertex", True, 2)]


def test_an_ai_platform_submit_creates_through_the_plan(cli, google, key, config, creates):
    result = cli("submit", config, "--service", "ai-platform", "--job-id", "j1")
    assert result.code == 0, result.err
    (create,) = google.calls("jobs.create")
    assert [(name, url.endswith(create.path), count) for name, url, count in creates] == [
        ("ai-platform", True, 1)]


def test_a_gke_submit_creates_through_the_plan(cli, write, cluster, creates):
    result = cli("submit", write(GKE_CONFIG), "--service", "gke")
    assert result.code == 0, result.err
    assert result.out == "one-path\n"
    assert len(cluster.route_calls("POST", "/jobsets")) == 1
    assert [(name, "/jobsets" in url, count) for name, url, count in creates] == [
        ("gke", True, 1)]
