"""--display-name names the Vertex AI job of any config: an AI Platform config's jobId must be
letters, digits and underscores, while a Vertex display name may hold hyphens and spaces. It
replaces the jobId as the job's name on Vertex AI (the jobId keeps its AI Platform rules), and
AI Platform, which names a job by its jobId alone, refuses it."""

from __future__ import annotations

import json
import re

import pytest

CONFIG = """\
jobId: nightly_1
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  masterType: n1-standard-8
  masterConfig: {imageUri: 'gcr.io/p/i:1'}
"""
TUNING = CONFIG + """\
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: accuracy
    maxTrials: 2
    params:
      - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 0.1}
"""

pytestmark = pytest.mark.default_service


def test_an_ai_platform_config_gets_a_hyphenated_vertex_name(cli, write):
    result = cli("submit", write(CONFIG), "--display-name", "nightly-run 1", "--dry-run")
    assert result.code == 0, result.err
    assert json.loads(result.out)["displayName"] == "nightly-run 1"


def test_without_it_the_job_id_names_the_job(cli, write):
    config = write(CONFIG)
    assert json.loads(cli("submit", config, "--dry-run").out)["displayName"] == "nightly_1"
    named = cli("submit", config, "--job-id", "other_2", "--display-name", "night-2", "--dry-run")
    assert named.code == 0, named.err
    assert json.loads(named.out)["displayName"] == "night-2"


def test_a_tuning_job_is_named_too(cli, write):
    result = cli("submit", write(TUNING), "--display-name", "tune-lr", "--dry-run")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert body["displayName"] == "tune-lr" and "studySpec" in body
    assert "/hyperparameterTuningJobs (nothing sent)" in result.err


def test_the_job_id_keeps_ai_platform_s_rules(cli, write):
    """A hyphen belongs in the display name, not the jobId: --job-id still refuses it."""
    result = cli("submit", write(CONFIG), "--job-id", "nightly-1", "--dry-run")
    assert result.code == 1 and result.out == ""
    assert result.err.splitlines()[:2] == [
        "command line (--job-id): jobId: 'nightly-1' is not a valid jobId [schema.pattern]",
        "  hint: start with a letter; use only letters, digits and underscores (no '-' or '.'); "
        "at most 128 characters"]


def test_convert_names_the_job_as_submit_does(cli, write):
    result = cli("convert", write(CONFIG), "--display-name", "nightly-run")
    assert result.code == 0, result.err
    assert "#   gpujob submit FILE --service vertex --region us-central1 --display-name " \
           "nightly-run" in result.out
    assert "--display-name=nightly-run" in result.out


def test_ai_platform_refuses_it_and_says_what_names_its_jobs(cli, write):
    result = cli("submit", write(CONFIG), "--service", "ai-platform", "--display-name", "n-1",
                 "--dry-run")
    assert (result.code, result.out) == (2, "")
    assert result.err.splitlines() == [
        "error: --display-name is not supported by the ai-platform service (AI Platform "
        "Training): an AI Platform job is named by its jobId alone (letters, digits and "
        "underscores): use --job-id, or submit to Vertex AI (--service vertex, the default)",
        "  hint: leave it out, or choose another service with --service"]


@pytest.mark.parametrize(("name", "message"), [
    ("", "error: --display-name is empty"),
    ("  ", "error: --display-name is empty"),
    ("x" * 129, "error: --display-name is 129 characters long; a Vertex AI job's display name "
                "has at most 128"),
])
def test_a_name_vertex_would_refuse_is_a_usage_error(cli, write, name, message):
    result = cli("submit", write(CONFIG), "--display-name", name, "--dry-run")
    assert (result.code, result.out) == (2, "")
    assert result.err.splitlines()[0] == message


def test_the_longest_name_vertex_takes_is_sent(cli, write):
    result = cli("submit", write(CONFIG), "--display-name", "x" * 128, "--dry-run")
    assert result.code == 0, result.err
    assert json.loads(result.out)["displayName"] == "x" * 128


def test_a_config_named_like_every_config_lends_its_directorys_name(cli, tmp_path):
    """config.yaml: every job would be "config"; taxi/config.yaml names its jobs taxi."""
    folder = tmp_path / "taxi"
    folder.mkdir()
    config = folder / "config.yaml"
    config.write_text(CONFIG.replace("jobId: nightly_1\n", ""))
    dry = cli("submit", config, "--dry-run", "--service", "vertex")
    assert dry.code == 0, dry.err
    assert re.fullmatch(r"taxi_\d{8}_\d{6}_\d{3}_[0-9a-f]{6}", json.loads(dry.out)["displayName"])
    converted = cli("convert", config)
    assert converted.code == 0, converted.err
    assert "--display-name taxi\n" in converted.out
    own = folder / "t4-job.yaml"
    own.write_text(CONFIG.replace("jobId: nightly_1\n", ""))
    named = cli("submit", own, "--dry-run", "--service", "vertex")
    assert json.loads(named.out)["displayName"].startswith("t4_job_")  # a name of its own
