"""``gpujob submit`` against the fake ml v1 API: the request, the output, the project."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes.faults import Stall


def test_submit_posts_exactly_the_dry_run_body_once(cli, google, key, config, clock):
    dry = cli("submit", config, "--dry-run", "--job-id", "j1", "--project", "proj-a")
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    (create,) = google.calls("jobs.create")
    assert create.body == json.loads(dry.out)
    assert create.path == "/v1/projects/proj-a/jobs"
    assert create.principal == key.email  # the bearer token came from the key's JWT grant
    assert create.headers["authorization"].startswith("Bearer ya29.fake-")
    # one token exchange, one create, nothing else: no discovery document was fetched
    assert [r.route for r in google.requests] == ["token", "jobs.create"]
    assert google.rejected == []
    assert clock.sleeps == []


def test_submit_tells_the_job_its_links_and_the_next_commands(cli, google, key, config):
    result = cli("submit", config, "--job-id", "j1")
    assert result.out == "j1\n"
    assert result.err.splitlines() == [
        "Job [j1] submitted to project [proj-a]; state: QUEUED.",
        "  console: https://console.cloud.google.com/mlengine/jobs/j1?project=proj-a",
        "  logs:    https://console.cloud.google.com/logs?resource=ml_job%2Fjob_id%2Fj1"
        "&project=proj-a",
        "Follow it with:",
        "  gpujob describe j1 --service ai-platform --project proj-a",
        "  gpujob wait j1 --service ai-platform --project proj-a",
        "  gpujob logs j1 --service ai-platform --project proj-a --follow",
    ]


def test_format_json_prints_the_job_envelope_on_stdout(cli, google, key, config):
    result = cli("submit", config, "--job-id", "j1", "--format", "json")
    assert result.code == 0
    envelope = json.loads(result.out)
    job = envelope["raw"]
    assert job == google.jobs[("proj-a", "j1")]
    assert envelope == {
        "version": 1, "service": "ai-platform",
        "job": {"id": "j1", "state": "QUEUED", "done": False, "succeeded": False, "message": "",
                "createTime": job["createTime"]},
        "raw": job, "warnings": []}
    # the service's own form: int64 as a string, false left out, its fields added
    assert job["trainingInput"]["masterConfig"]["acceleratorConfig"] == {
        "count": "4", "type": "NVIDIA_TESLA_T4"}
    assert "enableWebAccess" not in job["trainingInput"]
    assert job["state"] == "QUEUED" and job["createTime"]
    assert "Job [j1] submitted" in result.err


@pytest.mark.parametrize("args, env, project", [
    ([], {}, "proj-a"),  # the key file's project_id
    ([], {"CLOUDSDK_CORE_PROJECT": "from-gcloud"}, "from-gcloud"),
    ([], {"GOOGLE_CLOUD_PROJECT": "from-google", "CLOUDSDK_CORE_PROJECT": "x"}, "from-google"),
    ([], {"GPUJOB_PROJECT": "from-gpujob", "GOOGLE_CLOUD_PROJECT": "x"}, "from-gpujob"),
    (["--project", "from-flag"], {"GPUJOB_PROJECT": "x"}, "from-flag"),
])
def test_project_from_flag_then_environment_then_credentials(cli, google, key, config, args,
                                                            env, project):
    result = cli("submit", config, "--job-id", "j1", *args, env=env)
    assert result.code == 0, result.err
    (create,) = google.calls("jobs.create")
    assert create.path == f"/v1/projects/{project}/jobs"


def test_api_endpoint_flag_wins_over_the_environment(cli, google, key, config, monkeypatch):
    monkeypatch.setenv("GPUJOB_API_ENDPOINT", "http://127.0.0.1:9/")  # nothing listens there
    result = cli("submit", config, "--job-id", "j1", "--api-endpoint", google.url.rstrip("/"))
    assert result.code == 0, result.err
    assert len(google.calls("jobs.create")) == 1


def test_dry_run_names_the_endpoint_it_would_use(cli, config):
    result = cli("submit", config, "--dry-run", "--project", "p",
                 "--api-endpoint", "https://private.example/")
    assert "would POST this Job to https://private.example/v1/projects/p/jobs" in result.err


def test_an_invalid_config_sends_nothing(cli, google, key, write):
    result = cli("submit", write("trainingInput:\n  scaleTier: CUSTOM\n  masterTyp: x\n"))
    assert result.code == 1
    assert google.requests == []


def test_a_generated_job_id_is_sent(cli, google, key, config):
    result = cli("submit", config)
    assert result.code == 0, result.err
    (create,) = google.calls("jobs.create")
    assert result.out.strip() == create.body["jobId"]
    # config.yaml, a name any config has: the job is named after its directory
    folder = Path(config).parent.name
    assert create.body["jobId"].startswith(f"{folder}_2")


def test_identical_submits_started_together_each_create_their_job(google, key, config):
    """Generated IDs used to be FILE-STEM_YYYYMMDD_HHMMSS: submits started in the same second
    shared one ID; the service held one job, and the others said an earlier attempt of theirs
    had created it."""
    procs = [subprocess.Popen([sys.executable, "-m", "gpujob", "submit", config],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        results.append((proc.returncode, out, err))
    assert [code for code, _, _ in results] == [0] * 4, [err for _, _, err in results]
    printed = sorted(out.strip() for _, out, _ in results)
    assert len(set(printed)) == 4
    assert printed == sorted(job_id for _, job_id in google.jobs)
    assert len(google.calls("jobs.create")) == 4
    assert not [err for _, _, err in results if "already created" in err]


def test_dry_run_and_the_new_commands_help_import_no_google_library(config):
    """Only the commands that talk to Google load its libraries."""
    probe = ("import sys; from gpujob.cli import main; main({args!r}); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2', 'google_auth_httplib2')), "
             "file=sys.stderr)")
    for args in (["submit", config, "--dry-run"], ["wait", "--help"], ["logs", "--help"],
                 ["list", "--help"]):
        result = subprocess.run([sys.executable, "-c", probe.format(args=args)],
                                capture_output=True, text=True, timeout=60)
        assert result.stderr.strip().endswith("[]"), (args, result.stderr)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_during_the_create_says_the_job_may_exist(google, key, config, signum):
    """A CI runner cancelling a step sends SIGTERM (a closed terminal, SIGHUP): gpujob died by the
    signal with nothing said, while the create it had sent may have made the job; it now says so
    and how to check, as after Ctrl-C, and exits 130."""
    google.inject("jobs.create", Stall(30))  # the service makes the job and answers late
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", "submit", config, "--job-id",
                             "stopped_1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while not google.calls("jobs.create") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert google.calls("jobs.create"), "the create was never sent"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert out == ""
    assert "Interrupted while submitting job stopped_1: it may or may not have been created." \
        in err.splitlines()
    assert any(line.startswith("Check with: gpujob describe stopped_1") for line in
               err.splitlines()), err


def test_sigterm_during_a_vertex_create_gives_the_look_up_by_label(google, key, config, vertex):
    """The same on Vertex AI, whose note names the look-up that finds the job by its label."""
    google.inject("customJobs.create", Stall(30))
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", "submit", config, "--service",
                             "vertex"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not google.calls("customJobs.create") and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out == "", err
    lines = err.splitlines()
    assert "Interrupted while submitting the job: it may or may not have been created." in lines
    assert any(line.startswith("A job this submission made carries its label: gpujob list "
                               "--service vertex") for line in lines), err
