"""gcloud's command line works unchanged: ``gpujob submit [training] JOB --config CONFIG [gcloud
flags] [--async] -- ARGS`` dry-runs the same Job body as gpujob's own form."""

from __future__ import annotations

import json

import pytest

CONFIG = """\
trainingInput:
  scaleTier: BASIC
  region: us-central1
  runtimeVersion: '2.11'
  pythonVersion: '3.7'
  packageUris: [gs://my-bucket/packages/trainer-0.1.tar.gz]
  pythonModule: trainer.task
  args: [--from-file]
"""

# gcloud's flags for a distributed T4 job, as its documentation writes them
CLUSTER = ["--scale-tier", "custom", "--master-machine-type", "n1-highcpu-16",
           "--master-accelerator", "count=4,type=nvidia-tesla-t4", "--worker-count", "2",
           "--worker-machine-type", "n1-highcpu-16",
           "--worker-accelerator", "count=4,type=nvidia-tesla-t4",
           "--parameter-server-count", "1", "--parameter-server-machine-type", "n1-highmem-8",
           "--region", "europe-west4", "--runtime-version", "2.11", "--python-version", "3.7",
           "--module-name", "trainer.task", "--packages", "gs://my-bucket/t-0.2.tar.gz",
           "--job-dir", "gs://my-bucket/out", "--labels", "team=ml,env=dev",
           "--use-chief-in-tf-config", "true"]


@pytest.fixture
def body(cli, write):
    """The dry-run body of ``gpujob ARGS`` (``{config}`` stands for the config's path)."""
    path = write(CONFIG)

    def dry_run(*args: str, stdin: bytes | None = None) -> dict:
        command, *rest = (a.format(config=path) for a in args)
        result = cli(command, "--dry-run", "--project", "p", *rest, stdin=stdin)
        assert result.code == 0, result.err
        assert "warning" not in result.err.lower()
        return json.loads(result.out)

    return dry_run


@pytest.mark.parametrize("gpujob_form, gcloud_form", [
    (["submit", "{config}", "--job-id", "j1"],
     ["submit", "j1", "--config", "{config}"]),
    (["submit", "{config}", "--job-id", "j1"],
     ["submit", "training", "j1", "--config", "{config}", "--async"]),
    (["submit", "{config}", "--job-id", "j1", "--region", "europe-west4", "--", "--epochs", "3"],
     ["submit", "training", "j1", "--region=europe-west4", "--config={config}", "--async",
      "--", "--epochs", "3"]),
    (["submit", "{config}", "--job-id", "j1", *CLUSTER, "--", "--lr", "0.1"],
     ["submit", "training", "j1", "--config", "{config}", *CLUSTER, "--async", "--", "--lr",
      "0.1"]),
    (["submit", "{config}", "--job-id", "j1", "--job-dir", "gs://my-bucket/"],
     ["submit", "--config", "{config}", "--job-dir", "gs://my-bucket", "training", "j1"]),
])
def test_gcloud_form_sends_the_same_body(body, gpujob_form, gcloud_form):
    assert body(*gcloud_form) == body(*gpujob_form)


def test_the_gcloud_form_body_in_full(body):
    sent = body("submit", "training", "j1", "--config", "{config}", *CLUSTER, "--async", "--",
                "--lr", "0.1")
    assert sent == {
        "jobId": "j1",
        "labels": {"team": "ml", "env": "dev"},
        "trainingInput": {
            "scaleTier": "CUSTOM", "region": "europe-west4", "runtimeVersion": "2.11",
            "pythonVersion": "3.7", "packageUris": ["gs://my-bucket/t-0.2.tar.gz"],
            "pythonModule": "trainer.task", "args": ["--lr", "0.1"],
            "masterType": "n1-highcpu-16",
            "masterConfig": {"acceleratorConfig": {"count": 4, "type": "NVIDIA_TESLA_T4"}},
            "workerCount": 2, "workerType": "n1-highcpu-16",
            "workerConfig": {"acceleratorConfig": {"count": 4, "type": "NVIDIA_TESLA_T4"}},
            "parameterServerCount": 1, "parameterServerType": "n1-highmem-8",
            "jobDir": "gs://my-bucket/out", "useChiefInTfConfig": True,
        },
    }


def test_the_config_from_standard_input(body):
    text = CONFIG.encode()
    assert body("submit", "j1", "--config", "-", stdin=text) == body(
        "submit", "-", "--job-id", "j1", stdin=text)


def test_async_changes_nothing_and_says_nothing(cli, write):
    path = write(CONFIG)
    plain = cli("submit", path, "--job-id", "j1", "--dry-run")
    with_async = cli("submit", "j1", "--config", path, "--async", "--dry-run")
    assert (with_async.code, with_async.out, with_async.err) == (0, plain.out, plain.err)


@pytest.mark.parametrize("follow", ["--wait", "--stream-logs"])
def test_async_does_not_go_with_following_the_job(cli, write, follow):
    result = cli("submit", "j1", "--config", write(CONFIG), "--async", follow)
    assert result.code == 2
    assert result.out == ""
    assert f"error: --async and {follow} do not go together" in result.err


def test_async_is_for_the_cloud(cli, write):
    result = cli("submit", write(CONFIG), "--local", "--async")
    assert result.code == 2
    assert "error: --async is for jobs in the cloud, not for local runs" in result.err


def test_a_bucket_only_job_dir_is_sent_as_gcloud_sends_it(cli, write):
    result = cli("submit", "j1", "--config", write(CONFIG), "--job-dir", "gs://my-bucket",
                 "--dry-run")
    assert result.code == 0, result.err
    assert json.loads(result.out)["trainingInput"]["jobDir"] == "gs://my-bucket/"
    assert ("note: --job-dir gs://my-bucket is sent as gs://my-bucket/ (the bucket's root), "
            "as gcloud sends it") in result.err.splitlines()


def test_a_bucket_only_job_dir_from_the_environment_too(cli, write):
    result = cli("submit", write(CONFIG), "--dry-run", env={"GPUJOB_JOB_DIR": "gs://my-bucket"})
    assert json.loads(result.out)["trainingInput"]["jobDir"] == "gs://my-bucket/"
    assert "note: GPUJOB_JOB_DIR gs://my-bucket is sent as gs://my-bucket/" in result.err


@pytest.mark.parametrize("job_dir", ["gs://my-bucket/", "gs://my-bucket/out"])
def test_other_job_dirs_are_sent_as_given(cli, write, job_dir):
    result = cli("submit", write(CONFIG), "--dry-run", "--job-dir", job_dir)
    assert json.loads(result.out)["trainingInput"]["jobDir"] == job_dir
    assert "note:" not in result.err


def test_the_files_job_dir_is_sent_as_written(cli, write):
    """gcloud rewrites its flag's value only; the file's jobDir is sent as it is."""
    path = write(CONFIG.replace("  args:", "  jobDir: gs://my-bucket\n  args:"))
    result = cli("submit", path, "--dry-run")
    assert json.loads(result.out)["trainingInput"]["jobDir"] == "gs://my-bucket"


def test_the_positional_job_id_is_checked_where_it_was_given(cli, write):
    path = write(CONFIG)
    result = cli("submit", "my-job", "--config", path, "--dry-run")
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith(
        "command line (JOB): jobId: 'my-job' is not a valid jobId [schema.pattern]")


def test_the_job_id_may_be_given_twice_if_it_is_the_same(cli, write):
    path = write(CONFIG)
    same = cli("submit", "j1", "--config", path, "--job-id", "j1", "--dry-run")
    assert same.code == 0 and json.loads(same.out)["jobId"] == "j1"
    other = cli("submit", "j1", "--config", path, "--job-id", "j2", "--dry-run")
    assert other.code == 2
    assert "error: the job ID is given twice: j1 and --job-id j2" in other.err


@pytest.mark.parametrize("args, message", [
    ([], "Error: Missing argument 'CONFIG'."),
    (["a.yaml", "b.yaml"], "Error: Got unexpected extra argument (b.yaml): give one config "
     "file, or a job ID and the file as gcloud does: gpujob submit JOB --config CONFIG"),
    (["training", "j1", "j2", "--config", "{config}"], "Error: Got unexpected extra argument "
     "(j2)"),
])
def test_usage_errors(cli, write, args, message):
    path = write(CONFIG)
    result = cli("submit", *[a.format(config=path) for a in args])
    assert result.code == 2
    assert result.out == ""
    assert message in result.err
    assert "Usage: gpujob submit [OPTIONS] CONFIG | JOB --config CONFIG" in result.err


@pytest.mark.parametrize("args, lines", [
    (["training", "j1"], ["error: no such file: j1",
                          "  hint: gcloud's form names the file with --config: gpujob submit "
                          "training j1 --config CONFIG"]),
    (["j1", "--config", "missing.yaml"],
     ["error: --config: no such file: missing.yaml",
      "  hint: check the paths (a quoted glob is not expanded by the shell)"]),
])
def test_a_missing_file_is_no_such_file_in_gcloud_form_too(cli, args, lines):
    """As from every command (issue 12), with gcloud's form as the hint where it fits."""
    result = cli("submit", *args)
    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == lines


def test_local_takes_the_config_either_way(cli):
    result = cli("local")
    assert result.code == 2
    assert "Usage: gpujob local [OPTIONS] CONFIG | JOB --config CONFIG" in result.err
    assert "Error: Missing argument 'CONFIG'." in result.err
