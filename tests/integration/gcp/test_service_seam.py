"""The seam between gpujob and a service, against the fake Google: the request is what is sent,
each call says whether it may be retried, and the advice in errors is the call's own."""

from __future__ import annotations

import json

import httplib2
import pytest
from fakes.google import error_body, permission_denied, shutdown
from googleapiclient.errors import HttpError
from jobs import CONTAINER_JOB

from gpujob import services
from gpujob.errors import RemoteError
from gpujob.gcp.errors import Action, explain
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings
from gpujob.services.ai_platform import api as ml
from gpujob.settings import JobOptions


@pytest.fixture
def session(google, key, clock) -> Session:
    return Session(GcpSettings(api_endpoint=google.url, endpoints={"logging": google.url}))


def _action(**extra) -> Action:
    return Action(what="doing it", project="proj-a", permission="x.things.do", **{
        "role": "roles/x.user", "service": "x.googleapis.com", "retry_safe": True, **extra})


def _http_error(status: int, body: dict) -> HttpError:
    return HttpError(httplib2.Response({"status": str(status)}), json.dumps(body).encode())


def test_the_client_sends_the_request_the_service_built(google, session):
    service = services.get("ai-platform")
    body = {"jobId": "j1", "trainingInput": {"scaleTier": "BASIC", "region": "us-central1",
                                             "masterConfig": {"imageUri": "gcr.io/p/t:1"}}}
    request = service.request(body, session.settings, "proj-a", JobOptions())
    assert (request.method, request.url) == ("POST", f"{google.url}v1/projects/proj-a/jobs")
    created = service.client(session.settings, session).create(request)
    assert created.raw["jobId"] == "j1" and not created.recovered
    (create,) = google.calls("jobs.create")
    assert (create.path, create.body) == ("/v1/projects/proj-a/jobs", body)


def test_a_request_for_another_address_is_not_sent(google, session):
    """The request is the one truth: a client never sends a body somewhere the request does
    not say."""
    client = ml.MlClient(session)
    with pytest.raises(AssertionError, match=r"not to POST https://elsewhere\.example/"):
        client.create_job({"jobId": "j1"}, "https://elsewhere.example/v1/projects/proj-a/jobs")
    assert google.calls("jobs.create") == []


def test_a_call_that_is_not_safe_to_repeat_is_tried_once(session, clock):
    tries = []

    def reset() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise ConnectionResetError(104, "Connection reset by peer")
        return "answered"

    with pytest.raises(ConnectionResetError):
        session.call(_action(retry_safe=False), reset)
    assert (len(tries), clock.sleeps) == (1, [])

    tries.clear()
    assert session.call(_action(retry_safe=True), reset) == "answered"
    assert (len(tries), len(clock.sleeps)) == (2, 1)


def test_a_network_failure_of_a_call_not_safe_to_repeat_says_to_look_first():
    error = explain(ConnectionResetError(104, "Connection reset by peer"),
                    _action(retry_safe=False))
    assert isinstance(error, RemoteError)
    assert error.hint == ("check the network and the endpoint; the request may have reached the "
                          "service: see whether it acted before trying again")
    safe = explain(ConnectionResetError(104, "Connection reset by peer"), _action())
    assert safe.hint.endswith("the request may be retried safely")


def test_the_role_and_the_service_in_advice_are_the_calls_own():
    denied = explain(_http_error(403, error_body(403, "PERMISSION_DENIED", "denied")), _action())
    assert denied.hint == ("the caller needs the x.things.do permission on project proj-a, for "
                           "example through the roles/x.user role")
    disabled = explain(_http_error(403, error_body(403, "PERMISSION_DENIED", "it is disabled")),
                       _action())
    assert disabled.hint.startswith("enable the API: gcloud services enable x.googleapis.com "
                                    "--project proj-a")
    quota = explain(_http_error(429, error_body(429, "RESOURCE_EXHAUSTED", "slow down")),
                    _action())
    assert quota.hint.startswith("the x.googleapis.com quota of project proj-a")
    named = explain(_http_error(403, permission_denied("x.other.do", "projects/proj-a")),
                    _action())
    assert "needs the x.other.do permission" in named.hint


def test_the_shutdown_hint_is_the_ml_apis_advice_only():
    error = _http_error(400, shutdown())
    assert explain(error, _action(advice=ml.shutdown_advice)).hint == ml.SHUTDOWN_HINT
    assert explain(error, _action()).hint == ("gpujob submit --dry-run prints the exact body "
                                              "that was sent")


def test_format_json_puts_the_warnings_in_the_envelope(cli, google, key, write):
    config = write(CONTAINER_JOB + "  evaluatorType: n1-standard-4\n")
    result = cli("submit", config, "--job-id", "j1", "--format", "json")
    assert result.code == 0, result.err
    envelope = json.loads(result.out)
    assert [w["rule"] for w in envelope["warnings"]] == ["replica.unused"]
    assert envelope["warnings"][0]["path"] == "trainingInput.evaluatorType"
    assert "replica.unused" not in result.err  # no second copy as text
    assert envelope["raw"] == google.jobs[("proj-a", "j1")]


def test_format_json_reports_an_invalid_config_as_validate_does(cli, google, key, write):
    config = write(CONTAINER_JOB.replace("masterType", "masterTyp"))
    result = cli("submit", config, "--job-id", "j1", "--format", "json")
    validated = cli("validate", "--format", "json", config)
    assert result.code == validated.code == 1
    assert json.loads(result.out) == json.loads(validated.out)
    assert result.err.splitlines() == [
        f"error: {config}: 1 problem; nothing was submitted"]
    assert google.requests == []
