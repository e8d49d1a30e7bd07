"""Where credentials and the project come from, and what is said when they are missing.

Every credential here is real google-auth: JWT grants signed with a key made in the test,
exchanged at the fake token endpoint; impersonation through the IAM Credentials endpoint that
google-auth lets callers replace (``iam_endpoint_override``); the metadata server through the
address google-auth reads from GCE_METADATA_HOST.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from fakes.google import Reply
from fakes.keys import service_account_key

TARGET = "runner@proj-b.iam.gserviceaccount.com"


def test_no_credentials_lists_the_ways_to_provide_them(cli, google, config):
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 3
    assert result.out == ""
    assert result.err.splitlines() == [
        "error: no Google Cloud credentials found",
        "  hint: provide them one of these ways: run `gcloud auth application-default login`; "
        "set GOOGLE_APPLICATION_CREDENTIALS=KEY.json; pass --credentials-file KEY.json; or run on "
        "Google Cloud, where the metadata server provides them (any of these can be combined "
        "with --impersonate-service-account EMAIL)",
    ]
    assert google.requests == []


def test_a_missing_application_credentials_file_is_named(cli, google, config, tmp_path):
    missing = tmp_path / "gone.json"
    result = cli("describe", "j1", env={"GOOGLE_APPLICATION_CREDENTIALS": str(missing)})
    assert result.code == 3
    assert result.err.startswith(f"error: GOOGLE_APPLICATION_CREDENTIALS={missing} cannot be "
                                 f"used: File {missing} was not found.")
    assert google.requests == []


def test_credentials_file_instead_of_adc(cli, google, tmp_path, submitted):
    made = service_account_key("ci@proj-c.iam.gserviceaccount.com", "proj-c", google.token_uri)
    google.trust(made)
    submitted("j1", project="proj-c")
    result = cli("describe", "j1", "--credentials-file", made.write(tmp_path / "ci.json"))
    assert result.code == 0, result.err
    (get,) = google.calls("jobs.get")
    assert get.principal == "ci@proj-c.iam.gserviceaccount.com"
    assert get.path == "/v1/projects/proj-c/jobs/j1"  # the key's project


def test_a_credentials_file_that_is_not_one(cli, google, write):
    path = write('{"type": "nonsense"}', "bad.json")
    result = cli("list", "--credentials-file", path)
    assert result.code == 3
    assert result.err.splitlines() == [
        f"error: --credentials-file {path} cannot be used: its type is 'nonsense'",
        "  hint: pass a service account key, or an authorized user file written by gcloud; other "
        "credential types work through GOOGLE_APPLICATION_CREDENTIALS"]


def test_a_credentials_file_that_is_not_json(cli, google, write):
    path = write("not json", "bad.json")
    result = cli("list", "--credentials-file", path)
    assert result.code == 3
    assert result.err.startswith(f"error: --credentials-file {path} cannot be read: Expecting "
                                 "value: line 1 column 1")


FILE_HINT = ("  hint: pass a service account key, or an authorized user file written by gcloud; "
             "other credential types work through GOOGLE_APPLICATION_CREDENTIALS")
ADC_HINT = ("  hint: point it at a service account key or a credentials file, or unset it to use "
            "gcloud's application default credentials")


def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "key.fifo"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("make, kind", [
    (lambda tmp: "/dev/zero", "a character device"),  # endless: it was read whole (E13)
    (_fifo, "a pipe"),  # nobody writes to it: it blocked
], ids=["endless", "pipe"])
def test_a_credentials_file_that_is_not_a_file(cli, google, tmp_path, make, kind):
    path = make(tmp_path)
    result = cli("list", "--credentials-file", path)
    assert result.code == 3, result.err
    assert result.err.splitlines() == [
        f"error: --credentials-file {path} is {kind}, not a credentials file", FILE_HINT]
    result = cli("list", "--project", "p", env={"GOOGLE_APPLICATION_CREDENTIALS": path})
    assert result.code == 3, result.err
    assert result.err.splitlines() == [
        f"error: GOOGLE_APPLICATION_CREDENTIALS={path} is {kind}, not a credentials file",
        ADC_HINT]
    assert google.requests == []


def test_a_credentials_file_too_large_to_be_one(cli, google, write):
    path = write('{"type": "service_account", "x": "' + "a" * (1 << 20) + '"}', "big.json")
    for args, env, named in (
            (["--credentials-file", path], {}, f"--credentials-file {path}"),
            ([], {"GOOGLE_APPLICATION_CREDENTIALS": path},
             f"GOOGLE_APPLICATION_CREDENTIALS={path}")):
        result = cli("list", "--project", "p", *args, env=env)
        assert result.code == 3, result.err
        assert result.err.splitlines()[0] == (
            f"error: {named} is larger than 1 MiB: not a credentials file (a key file is a few "
            "KB)")
    assert google.requests == []


def test_a_directory_is_not_a_credentials_file(cli, google, tmp_path):
    result = cli("list", "--credentials-file", tmp_path)
    assert result.code == 2
    assert result.err == (f"error: --credentials-file: {tmp_path} is a directory, not a "
                          "credentials file\n")


def test_a_key_the_token_endpoint_refuses(cli, google, tmp_path, monkeypatch):
    untrusted = service_account_key("old@proj-a.iam.gserviceaccount.com", "proj-a",
                                    google.token_uri, slot=1)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", untrusted.write(tmp_path / "old.json"))
    result = cli("list")
    assert result.code == 3
    assert ("error: listing the jobs of project proj-a failed: could not get an access token: "
            "invalid_grant: unknown signing key") in result.err
    assert google.calls("jobs.list") == []


def test_no_project_anywhere_is_a_usage_error(cli, google, key, tmp_path):
    info = dict(key.info)
    del info["project_id"]
    path = tmp_path / "noproject.json"
    path.write_text(json.dumps(info))
    result = cli("list", "--credentials-file", str(path))
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: no Google Cloud project given, and the credentials name none",
        "  hint: pass --project PROJECT (or set GPUJOB_PROJECT, GOOGLE_CLOUD_PROJECT or "
        "CLOUDSDK_CORE_PROJECT)",
    ]


def test_gcloud_application_default_credentials_file(cli, google, tmp_path, submitted):
    """The file ``gcloud auth application-default login`` writes, found through CLOUDSDK_CONFIG.

    google-auth always refreshes user credentials at Google's own token endpoint (it ignores the
    file's token_uri), so the file carries a current token, as a cached one, that the fake
    issued: what is tested is that gpujob finds and uses this file."""
    token = google.issue_token("user:ana@example.com")
    expiry = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = Path(os.environ["CLOUDSDK_CONFIG"])
    folder.mkdir(parents=True)
    (folder / "application_default_credentials.json").write_text(json.dumps({
        "type": "authorized_user", "client_id": "id.apps.googleusercontent.com",
        "client_secret": "s", "refresh_token": "r", "token": token, "expiry": expiry}))
    submitted("j1", project="proj-u")
    result = cli("describe", "j1", "--project", "proj-u", "--format", "json", "--verbose")
    assert result.code == 0, result.err
    (get,) = google.calls("jobs.get")
    assert get.principal == "user:ana@example.com"
    assert "credentials: gcloud's application default credentials; project: proj-u" in result.err
    assert token not in result.out + result.err


def test_impersonation(cli, google, key, config, clock):
    google.allow_impersonation(key.email, TARGET)
    result = cli("submit", config, "--job-id", "j1", "--impersonate-service-account", TARGET,
                 "--verbose")
    assert result.code == 0, result.err
    (grant,) = google.calls("iam.generateAccessToken")
    assert grant.principal == key.email  # asked for with the key's own token
    assert grant.path == f"/v1/projects/-/serviceAccounts/{TARGET}:generateAccessToken"
    assert grant.body["scope"] == ["https://www.googleapis.com/auth/cloud-platform"]
    (create,) = google.calls("jobs.create")
    assert create.principal == TARGET
    assert create.path == "/v1/projects/proj-a/jobs"  # the source credentials' project
    assert (f"credentials: {TARGET}, impersonated with GOOGLE_APPLICATION_CREDENTIALS=") \
        in result.err
    assert google.rejected == []


def test_a_malformed_impersonation_answer_leaks_no_token(cli, google, key, config, leaked):
    """google-auth puts the whole IAM answer, token included, in its error: gpujob shows only
    the message, also with --verbose."""
    token = google.issue_token(TARGET)
    google.allow_impersonation(key.email, TARGET)
    google.inject("iam.generateAccessToken", Reply(200, {"accessToken": token,
                                                         "expireTime": "tomorrow"}))
    result = cli("submit", config, "--job-id", "j1", "--impersonate-service-account", TARGET,
                 "--verbose")
    assert result.code == 3
    assert ("could not get an access token: Unable to acquire impersonated credentials: No "
            "access token or invalid expiration in response.") in result.err
    assert token not in result.err and leaked(result.out + result.err) == []


def test_impersonation_from_the_environment_refused(cli, google, key, config):
    result = cli("submit", config, "--job-id", "j1",
                 env={"GPUJOB_IMPERSONATE_SERVICE_ACCOUNT": TARGET})
    assert result.code == 3
    assert ("error: submitting job j1 failed: could not get an access token: Unable to acquire "
            "impersonated credentials") in result.err
    assert "Permission 'iam.serviceAccounts.getAccessToken' denied" in result.err
    assert "roles/iam.serviceAccountTokenCreator" in result.err
    assert google.calls("jobs.create") == []


def test_verbose_shows_requests_but_never_secrets(cli, google, key, config, leaked):
    result = cli("submit", config, "--job-id", "j1", "--verbose")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    key_file = os.environ["GOOGLE_APPLICATION_CREDENTIALS"]
    assert lines[0] == (f"credentials: GOOGLE_APPLICATION_CREDENTIALS={key_file} ({key.email}); "
                        "project: proj-a")
    assert lines[1] == f"> POST {google.url}v1/projects/proj-a/jobs?alt=json"
    assert lines[2].startswith("< 200 OK (")
    assert google.issued and google.calls("token")  # there were secrets to leak
    assert leaked(result.out + result.err) == []


def test_application_default_credentials_from_the_metadata_server(google, submitted,
                                                                  tmp_path):
    """On Google Cloud the metadata server gives the credentials and the project. google-auth
    reads the metadata address once, at import, so this runs gpujob in a fresh process."""
    submitted("j1", project=google.metadata_project)
    host = google.url.removeprefix("http://").rstrip("/")
    env = {k: v for k, v in os.environ.items() if k != "NO_GCE_CHECK"}
    env.update(GCE_METADATA_HOST=host, GCE_METADATA_IP=host)
    result = subprocess.run([sys.executable, "-m", "gpujob", "describe", "j1", "--verbose"],
                            capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "credentials: the metadata server; project: meta-project" in result.stderr
    (get,) = google.calls("jobs.get")
    assert get.principal == google.metadata_account
    assert get.path == "/v1/projects/meta-project/jobs/j1"


def test_credentials_of_another_universe(cli, google, key, tmp_path):
    """A key of a sovereign or partner cloud (its ``universe_domain`` is not googleapis.com) is
    a credentials error, not an internal one (E14); nothing is sent, no token is asked for."""
    other = dict(key.info, universe_domain="example-sovereign.cloud")
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other), encoding="utf-8")
    for args, env in ((["--credentials-file", path], {}),
                      ([], {"GOOGLE_APPLICATION_CREDENTIALS": str(path)})):
        result = cli("list", *args, env=env)
        assert result.code == 3, result.err
        assert result.err.splitlines() == [
            "error: listing the jobs of project proj-a failed: the credentials belong to the "
            "universe domain example-sovereign.cloud, not to googleapis.com, where gpujob sends "
            "its requests",
            "  hint: use credentials of Google Cloud itself (a service account key of a project "
            "there, or gcloud auth application-default login): gpujob does not reach sovereign "
            "or partner clouds"]
    assert google.requests == []
