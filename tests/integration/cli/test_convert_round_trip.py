"""Converting a config and then dry-running the converted file gives the body that dry-running
the original gives: for every config in configs/ (written as a CustomJobSpec, as a whole
CustomJob, and a tuning job as a HyperparameterTuningJob), the converted file sent with the
flags its header names; the submission label, fresh for every submit, aside."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from vertex_translation import PYTORCH

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
LABEL = "gpujob-submission"


def header_command(text: str) -> list[str]:
    """The gpujob command the converted file's header gives, as arguments."""
    line = next(line for line in text.splitlines() if line.startswith("#   gpujob submit "))
    return shlex.split(line.removeprefix("#   "))


def dry_run(cli, *args: object) -> dict:
    """The body ``gpujob submit --dry-run ARGS`` prints, without the submission label."""
    result = cli("submit", "--dry-run", *args)
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert set(body["labels"]) >= {LABEL}
    del body["labels"][LABEL]
    if not body["labels"]:
        del body["labels"]
    return body


@pytest.mark.parametrize("whole", [False, True], ids=["spec", "whole-job"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_every_config_converts_and_dry_runs_into_the_same_body(cli, tmp_path, config, whole):
    out = tmp_path / "vertex.yaml"
    flags = ["--executor-image-uri", PYTORCH, "--job-id", "round_trip"]
    result = cli("convert", config, *flags, "-o", out, *(["--whole-job"] if whole else []))
    assert result.code == 0, result.err
    command = header_command(out.read_text(encoding="utf-8"))
    assert command[:4] == ["gpujob", "submit", str(out), "--service"]
    assert dry_run(cli, *command[2:]) == dry_run(cli, config, "--service", "vertex", *flags)


def test_the_command_line_s_changes_survive_the_round_trip(cli, tmp_path):
    config = ROOT / "configs" / "basic-gpu-quickstart.yaml"
    out = tmp_path / "quick.yaml"
    flags = ["--executor-image-uri", PYTORCH, "--labels", "team=ml", "--job-id", "quick_1",
             "--set", "trainingInput.scheduling.maxRunningTime=600s", "--region", "us-west1"]
    result = cli("convert", config, *flags, "-o", out, "--", "--epochs", "1")
    assert result.code == 0, result.err
    command = header_command(out.read_text(encoding="utf-8"))
    assert command[3:] == ["--service", "vertex", "--region", "us-west1", "--display-name",
                           "quick_1", "--labels", "team=ml"]
    body = dry_run(cli, *command[2:])
    assert body == dry_run(cli, config, "--service", "vertex", *flags, "--", "--epochs", "1")
    assert body["displayName"] == "quick_1" and body["labels"] == {"team": "ml"}
    assert body["jobSpec"]["scheduling"] == {"timeout": "600s"}
    assert body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == ["--epochs", "1"]


def test_without_a_job_id_only_the_generated_name_differs(cli, tmp_path):
    """submit names a job without jobId after its file and the time; the converted file is
    named after the original's file."""
    config = ROOT / "configs" / "t4-compute-engine.yaml"
    out = tmp_path / "t4.yaml"
    assert cli("convert", config, "--executor-image-uri", PYTORCH, "-o", out).code == 0
    converted = dry_run(cli, *header_command(out.read_text(encoding="utf-8"))[2:])
    original = dry_run(cli, config, "--service", "vertex", "--executor-image-uri", PYTORCH)
    assert converted.pop("displayName") == "t4-compute-engine"
    assert original.pop("displayName").startswith("t4_compute_engine_")
    assert converted == original
