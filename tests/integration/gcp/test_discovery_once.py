"""Each API's discovery document is parsed once per run (issue 20): Vertex AI's is about 3 MB
of JSON, and a submit needs it for its regions, its answers' types, and two service objects
(reads, and the single-send create)."""

from __future__ import annotations

import json
import sys

import pytest
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

from gpujob.gcp import discovery

IMAGE = "us-docker.pkg.dev/proj-a/images/python:3.11"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the discovery documents gpujob (or googleapiclient for it) parses from now
    on: ``json.loads`` (the standard library's) wrapped, the cache of parsed documents emptied
    as in a new process."""
    seen: list[str] = []
    loads = json.loads

    def counting(text, *args, **kwargs):
        value = loads(text, *args, **kwargs)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if (caller.startswith(("gpujob", "googleapiclient")) and isinstance(value, dict)
                and "discoveryVersion" in value):
            seen.append(value.get("name", "?"))
        return value

    discovery.document.cache_clear()
    discovery.buildable.cache_clear()  # what service objects are built from, made from it
    monkeypatch.setattr(json, "loads", counting)
    return seen


def test_a_submit_that_stages_a_package_parses_each_document_once(
        cli, google, key, gcs, write, trainer, vertex, offline_builds, clock, parses):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)
    result = cli("submit", config, "--service", "vertex", "--package-path", trainer(),
                 "--executor-image-uri", IMAGE, "--staging-bucket", f"gs://{gcs.bucket}")
    assert result.code == 0, result.err
    assert sorted(parses) == ["aiplatform", "storage"]


def test_a_submit_then_its_logs_parse_the_api_and_logging_documents_once(
        cli, google, key, config, vertex, clock, parses):
    result = cli("submit", config, "--service", "vertex")
    assert result.code == 0, result.err
    job_id = result.out.strip()
    result = cli("logs", job_id, "--service", "vertex", "--region", "us-central1")
    assert result.code == 0, result.err
    assert sorted(parses) == ["aiplatform", "logging"]


@pytest.mark.parametrize(("api", "version"), [("aiplatform", "v1"), ("serviceusage", "v1beta1"),
                                              ("storage", "v1")])
def test_services_build_from_the_cut_schemas_send_what_the_full_document_would(api, version):
    """``service`` builds from schemas cut to their top-level fields (googleapiclient's method
    docstrings, which print them whole, were a third of a submit's CPU): every method is the
    same, and a listing still has its ``_next``."""
    from googleapiclient.discovery import build_from_document

    full = build_from_document(discovery.document(api, version), http=object())
    cut = discovery.service(api, version, object())
    assert discovery.buildable(api, version)["resources"] == discovery.document(
        api, version)["resources"]
    if api == "aiplatform":
        def jobs(svc):
            return svc.projects().locations().customJobs()
        for build in (lambda s: jobs(s).create(parent="projects/p/locations/r",
                                                body={"displayName": "j"}),
                      lambda s: jobs(s).list(parent="projects/p/locations/r", pageSize=1)):
            one, other = build(full), build(cut)
            assert (one.method, one.uri, one.body) == (other.method, other.uri, other.body)
        assert hasattr(jobs(cut), "list_next")
