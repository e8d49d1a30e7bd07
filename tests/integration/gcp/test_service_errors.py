"""The service's refusals as one line with its message and a hint, exit 3, nothing retried."""

from __future__ import annotations

import pytest
from conftest import errors_of
from fakes.google import (
    Reply,
    error_body,
    invalid_field,
    permission_denied,
    service_disabled,
    shutdown,
)


def test_service_disabled_says_how_to_enable_it(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(403, service_disabled("123456789")))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert errors_of(result.err) == [
        "error: submitting job j1 failed: 403 PERMISSION_DENIED: AI Platform Training & "
        "Prediction API has not been used in project 123456789 before or it is disabled. Enable "
        "it by visiting https://console.developers.google.com/apis/api/ml.googleapis.com/"
        "overview?project=123456789 then retry. If you enabled this API recently, wait a few "
        "minutes for the action to propagate to our systems and retry.",
        "  hint: enable the API: gcloud services enable ml.googleapis.com --project proj-a (or "
        "visit https://console.developers.google.com/apis/api/ml.googleapis.com/overview?project="
        "123456789); it can take a few minutes to apply",
    ]
    assert len(google.calls("jobs.create")) == 1 and clock.sleeps == []


@pytest.mark.parametrize("reply, error, hint", [
    (Reply(403, permission_denied("ml.jobs.create", "projects/proj-a")),
     "403 PERMISSION_DENIED: Permission 'ml.jobs.create' denied on resource 'projects/proj-a' "
     "(or it may not exist).",
     "trainer@proj-a.iam.gserviceaccount.com needs the ml.jobs.create permission on project "
     "proj-a, for example through the roles/ml.developer role"),
    (Reply(400, invalid_field("job.training_input.master_config.accelerator_config.count",
                              "Accelerators are not available in the chosen zone.")),
     "400 INVALID_ARGUMENT: Request contains an invalid argument.",
     "the service refused trainingInput.masterConfig.acceleratorConfig.count: Accelerators are "
     "not available in the chosen zone; fix it in the config or with a flag"),
], ids=["permission-denied-names-the-permission-and-the-account",
        "invalid-argument-names-the-field-as-the-config-writes-it"])
def test_a_refusal_is_its_message_and_a_hint(cli, google, key, config, reply, error, hint):
    google.inject("jobs.create", reply)
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert errors_of(result.err) == [f"error: submitting job j1 failed: {error}",
                                     f"  hint: {hint}"]


def test_the_shutdown_answer_is_explained(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(400, shutdown()))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    error, hint = errors_of(result.err)
    assert error == ("error: submitting job j1 failed: 400 FAILED_PRECONDITION: Cloud AI Platform "
                     "has been deprecated. Please use Vertex AI (https://cloud.google.com/"
                     "vertex-ai) instead.")
    assert hint.startswith("  hint: legacy AI Platform Training (ml.googleapis.com) was shut "
                           "down on 2025-01-31 and accepts no new jobs; its successor is Vertex "
                           "AI custom training")
    assert "gpujob validate and gpujob submit --dry-run still check the config" in hint
    assert len(google.calls("jobs.create")) == 1 and clock.sleeps == []


def test_a_refused_token_is_reported_without_showing_it(cli, google, key, config, leaked):
    """401s: google-auth-httplib2 refreshes the token and resends (twice), then gives up."""
    unauthenticated = error_body(401, "UNAUTHENTICATED", "Request had invalid authentication "
                                 "credentials.")
    google.inject("jobs.create", *[Reply(401, unauthenticated)] * 3)
    result = cli("submit", config, "--job-id", "j1", "--verbose")
    assert result.code == 3
    assert ("error: submitting job j1 failed: 401 UNAUTHENTICATED: Request had invalid "
            "authentication credentials.") in result.err
    assert "hint: the access token was refused" in result.err
    assert len(google.calls("token")) == 3 and len(google.calls("jobs.create")) == 3
    assert leaked(result.out + result.err) == []


def test_a_non_json_error_page_is_reported_by_its_status(cli, google, key, config, clock):
    google.inject("jobs.create", *[Reply(502, {"not": "google"})] * 2)
    result = cli("submit", config, "--job-id", "j1", "--max-attempts", "2")
    assert result.code == 3
    assert ("error: submitting job j1 failed: 502: Bad Gateway (gave up after 2 attempts)"
            in result.err)
    assert "hint: the service kept failing; try again later" in result.err


@pytest.mark.parametrize("command", [["describe", "j9"], ["cancel", "j9"], ["wait", "j9"],
                                     ["logs", "j9"]])
def test_an_unknown_job_is_not_found_with_a_way_forward(cli, google, key, command):
    result = cli(*command)
    assert result.code == 3
    assert ("failed: 404 NOT_FOUND: Field: name Error: The specified job projects/proj-a/jobs/j9 "
            "was not found.") in result.err
    assert ("hint: no job j9 in project proj-a; gpujob list --service ai-platform --project "
            "proj-a shows its jobs" in result.err)


def test_reading_logs_without_permission_names_the_logging_permission(cli, google, key,
                                                                      submitted):
    submitted("j1")
    google.inject("entries.list", Reply(403, permission_denied("logging.logEntries.list",
                                                               "projects/proj-a")))
    result = cli("logs", "j1")
    assert result.code == 3
    assert ("hint: trainer@proj-a.iam.gserviceaccount.com needs the logging.logEntries.list "
            "permission on project proj-a, for example through the roles/logging.viewer role"
            in result.err)
