"""No token, refresh token, id token or key material in any output, ``GPUJOB_DEBUG=1``'s
tracebacks included (issue 12: D1), and debugging changes no exit code (D26)."""

from __future__ import annotations

import json
import secrets

import pytest
from fakes.google import Reply

TARGET = "runner@proj-b.iam.gserviceaccount.com"
DEBUG = {"GPUJOB_DEBUG": "1"}


@pytest.mark.parametrize("env", [{}, DEBUG])
def test_an_unreadable_impersonation_answer_shows_no_token(cli, google, key, config, leaked,
                                                            env):
    """google-auth puts the IAM answer, with its access token, in its RefreshError; the debug
    traceback shows that exception's text."""
    token = google.issue_token(TARGET)
    google.allow_impersonation(key.email, TARGET)
    google.inject("iam.generateAccessToken", Reply(200, {"accessToken": token,
                                                         "expireTime": "tomorrow"}))
    result = cli("submit", config, "--job-id", "j1", "--impersonate-service-account", TARGET,
                 env=env)
    assert result.code == 3
    assert token not in result.err and leaked(result.out + result.err) == []
    assert ("error: submitting job j1 failed: could not get an access token: Unable to acquire "
            "impersonated credentials: No access token or invalid expiration in response."
            ) in result.err.splitlines()
    if env:
        assert "Traceback (most recent call last):" in result.err
        assert "google.auth.exceptions.RefreshError: ('Unable to acquire impersonated " \
               "credentials" in result.err
        assert '"accessToken": "[redacted]"' in result.err  # the answer is shown, masked


def test_an_id_token_without_an_access_token_is_not_shown(cli, google, key, config):
    id_token = "idt-" + secrets.token_urlsafe(24)
    refresh_token = "1//" + secrets.token_urlsafe(32)
    google.inject("token", Reply(200, {"id_token": id_token, "refresh_token": refresh_token,
                                       "expires_in": 3600}))
    result = cli("submit", config, "--job-id", "j1", env=DEBUG)
    assert result.code == 3
    assert "RefreshError: ('No access token in response.'" in result.err
    assert id_token not in result.err and refresh_token not in result.err
    assert "'id_token': '[redacted]'" in result.err


@pytest.mark.parametrize("env", [{}, DEBUG])
def test_a_token_gpujob_obtained_is_masked_wherever_it_appears(cli, google, key, config, env):
    """A token of no recognisable shape, quoted back by the service in an error: masked
    because the credentials layer registered it when it was issued."""
    opaque = "opaque-" + secrets.token_hex(16)
    google.inject("token", Reply(200, {"access_token": opaque, "expires_in": 3600,
                                       "token_type": "Bearer"}))
    google.inject("jobs.create", Reply(400, {"error": {
        "code": 400, "status": "INVALID_ARGUMENT",
        "message": f"credentials {opaque} are not accepted for this request"}}))
    result = cli("submit", config, "--job-id", "j1", "--format", "json", env=env)
    assert result.code == 3
    assert opaque not in result.out + result.err
    assert ("error: submitting job j1 failed: 400 INVALID_ARGUMENT: credentials [redacted] are "
            "not accepted for this request") in result.err.splitlines()
    assert ("Traceback" in result.err) == bool(env)


def test_a_key_files_secrets_are_registered_when_it_is_read(cli, google, key, tmp_path):
    """The key's lines are masked from then on, wherever they turn up (here: a line of it in a
    service's error message, which no pattern would recognise)."""
    line = next(part for part in key.info["private_key"].splitlines() if "-----" not in part)
    google.inject("jobs.list", Reply(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                                     "message": f"odd: {line}"}}))
    path = tmp_path / "key.json"
    path.write_text(json.dumps(key.info))
    result = cli("list", "--credentials-file", str(path), env=DEBUG)
    assert result.code == 3
    assert line not in result.err
    assert "error: listing the jobs of project proj-a failed: 400 INVALID_ARGUMENT: odd: " \
           "[redacted]" in result.err.splitlines()
