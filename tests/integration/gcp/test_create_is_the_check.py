"""A submit with nothing to upload is a token and one create (issue 20): no access check before
it. Every refusal that check was there to catch (API disabled, a permission missing, a project
the caller cannot see, a region without training, credentials refused) is said as clearly when
the create meets it: one ``error:`` line, a ``hint:``, exit 3, and no job."""

from __future__ import annotations

import pytest
from conftest import ACCOUNT, PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import field_violations, permission_denied, service_disabled
from fakes.faults import Reply
from fakes.keys import service_account_key

VERTEX = ("--service", "vertex")


def _said(result) -> list[str]:
    """stderr's error and hint lines; the one error line comes first."""
    lines = [line for line in result.err.splitlines()
             if line.startswith(("error:", "  hint:"))]
    assert result.code == 3, result.err
    assert len(lines) == 2 and lines[0].startswith("error:"), result.err
    assert "Traceback" not in result.err
    return lines


def test_a_vertex_submit_is_a_token_and_one_create(cli, google, key, config, vertex, clock):
    result = cli("submit", config, *VERTEX, "--job-id", "j1")
    assert result.code == 0, result.err
    assert [r.route for r in google.requests] == ["token", "customJobs.create"]
    assert len(vertex.jobs) == 1


def test_an_ai_platform_submit_is_a_token_and_one_create(cli, google, key, config, clock):
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert [r.route for r in google.requests] == ["token", "jobs.create"]


def test_a_disabled_api_is_said_by_the_create(cli, google, key, config, vertex, clock):
    vertex.disabled = True
    error, hint = _said(cli("submit", config, *VERTEX, "--job-id", "j1"))
    assert error.startswith(
        "error: submitting custom job j1 failed: 403 PERMISSION_DENIED: Vertex AI API has not "
        f"been used in project {PROJECT_NUMBER} before or it is disabled.")
    assert hint.startswith("  hint: enable the API: gcloud services enable "
                           f"aiplatform.googleapis.com --project {PROJECT} ")
    assert [r.route for r in google.requests] == ["token", "customJobs.create"]
    assert vertex.jobs == {}


def test_a_missing_permission_is_said_by_the_create(cli, google, key, config, vertex, clock):
    vertex.deny("aiplatform.customJobs.create")
    error, hint = _said(cli("submit", config, *VERTEX, "--job-id", "j1"))
    assert error.startswith("error: submitting custom job j1 failed: 403 PERMISSION_DENIED: "
                            "Permission 'aiplatform.customJobs.create' denied")
    assert hint == (f"  hint: {ACCOUNT} needs the aiplatform.customJobs.create permission on "
                    f"project {PROJECT}, for example through the roles/aiplatform.user role")
    assert vertex.jobs == {}


def test_a_project_the_caller_cannot_see_is_named_by_the_create(cli, google, key, config,
                                                                 vertex, clock):
    error, hint = _said(cli("submit", config, *VERTEX, "--job-id", "j1", "--project",
                            "no-such-project"))
    assert "'//aiplatform.googleapis.com/projects/no-such-project/locations/us-central1' " \
           "(or it may not exist)" in error
    assert hint == (f"  hint: {ACCOUNT} needs the aiplatform.customJobs.create permission on "
                    "project no-such-project, for example through the roles/aiplatform.user "
                    "role")


def test_a_region_without_training_is_the_regions_fault_not_the_configs(cli, google, key,
                                                                         config, vertex, clock):
    """The service names the request's parent: the hint is about the region, as the access
    check's was, not "fix it in the config" about a value the config does not have."""
    google.inject("customJobs.create", Reply(400, field_violations([
        ("parent", f"Location {REGION} is not supported for Vertex AI training.")])))
    error, hint = _said(cli("submit", config, *VERTEX, "--job-id", "j1"))
    assert error.startswith("error: submitting custom job j1 failed: 400 INVALID_ARGUMENT")
    assert hint == (f"  hint: Vertex AI does not offer training in {REGION}: choose another "
                    "region (gpujob gpus --service vertex lists them)")
    assert vertex.jobs == {}


@pytest.mark.parametrize("service, route", [(VERTEX, "customJobs.create"), ((), "jobs.create")],
                         ids=["vertex", "ai-platform"])
def test_refused_credentials_are_said_before_anything_is_sent(cli, google, config, vertex,
                                                              clock, tmp_path, monkeypatch,
                                                              service, route):
    untrusted = service_account_key(f"old@{PROJECT}.iam.gserviceaccount.com", PROJECT,
                                    google.token_uri, slot=1)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", untrusted.write(tmp_path / "old.json"))
    error, hint = _said(cli("submit", config, *service, "--job-id", "j1"))
    assert error.endswith("failed: could not get an access token: invalid_grant: unknown "
                          "signing key")
    assert hint.startswith("  hint: the credentials were refused; renew them")
    assert google.calls(route) == []


@pytest.mark.parametrize("answer, hint", [
    (Reply(403, service_disabled(PROJECT_NUMBER)),
     f"  hint: enable the API: gcloud services enable ml.googleapis.com --project {PROJECT}"),
    (Reply(403, permission_denied("ml.jobs.create", f"projects/{PROJECT}")),
     f"  hint: {ACCOUNT} needs the ml.jobs.create permission on project {PROJECT}, for example "
     "through the roles/ml.developer role"),
], ids=["disabled", "permission"])
def test_ai_platforms_create_says_the_same_refusals(cli, google, key, config, clock, answer,
                                                     hint):
    google.inject("jobs.create", answer)
    error, said = _said(cli("submit", config, "--job-id", "j1"))
    assert error.startswith("error: submitting job j1 failed: 403 PERMISSION_DENIED")
    assert said.startswith(hint)
    assert [r.route for r in google.requests] == ["token", "jobs.create"]
