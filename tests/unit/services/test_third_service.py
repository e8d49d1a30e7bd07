"""A third service is one package and one registry line (issue 20): ``tests/helpers/toy_service``,
registered here and nowhere else, is checked by ``validate``, sent by ``submit --dry-run`` and
browsed by ``gpujob gpus``, with every other module of gpujob as it is."""

from __future__ import annotations

import json

import pytest

from gpujob import services

CONFIG = """\
trainingInput:
  scaleTier: CUSTOM
  region: toy-east1
  masterType: {machine}
  masterConfig:
    imageUri: gcr.io/p/trainer:1
    acceleratorConfig: {{count: {count}, type: TOY_GPU}}
"""
SMALL = """\
trainingInput:
  scaleTier: CUSTOM
  region: toy-east1
  masterType: toy-small
  masterConfig: {imageUri: gcr.io/p/trainer:1}
"""


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(services.SERVICES, "toy", "toy_service")  # the one registry line


def test_validate_runs_the_services_rules_over_its_catalog(cli, write):
    good = write(CONFIG.format(machine="toy-gpu", count=2), "good.yaml")
    bad = write(CONFIG.format(machine="toy-gpu", count=4), "bad.yaml")
    result = cli("validate", "--service", "toy", good, bad)
    assert result.code == 1
    assert result.out == (f"{bad}:4:15: trainingInput.masterType: toy-gpu takes (1, 2) GPUs, "
                          "not 4 [toy.gpus]\n  hint: change the count\n")
    assert "2 files checked: 1 valid, 1 invalid" in result.err


def test_the_job_schema_takes_the_services_gpu_names(cli, write):
    config = write(CONFIG.format(machine="toy-gpu", count=1).replace("TOY_GPU", "NVIDIA_L4"))
    result = cli("validate", "--service", "toy", config)
    assert result.code == 1
    assert "[schema.enum]\n  hint: valid values: TOY_GPU (" in result.out


def test_a_dry_run_prints_the_services_request(cli, write):
    config = write(SMALL)
    result = cli("submit", config, "--service", "toy", "--dry-run", "--job-id", "j1",
                 "--project", "p")
    assert result.code == 0, result.err
    assert "Dry run: would POST this ToyJob to https://toy.example/v1/p/jobs" in result.err
    body = json.loads(result.out)
    assert body["jobId"] == "j1"
    assert body["trainingInput"]["masterType"] == "toy-small"


def test_a_submit_check_and_an_unsupported_flag_are_the_services(cli, write):
    config = write(SMALL.replace("toy-east1", "mars"))
    refused = cli("submit", config, "--service", "toy", "--dry-run")
    assert refused.code == 1
    assert "a toy job runs in toy-east1 [toy.region]" in refused.err
    flag = cli("submit", config, "--service", "toy", "--dry-run", "--strategy", "spot")
    assert flag.code == 2
    assert ("--strategy is not supported by the toy service (Toy training): toy jobs are never "
            "preempted") in flag.err


def test_gpus_lists_the_services_offerings(cli):
    result = cli("gpus", "--service", "toy", "--count", "2")
    assert (result.code, result.out) == (0, "toy-gpu  1, 2 GPUs\n")
    assert cli("gpus", "--service", "toy", "--count", "8").code == 1


def test_nothing_else_names_the_toy_service():
    """The registry line above is the only place gpujob hears of it."""
    from pathlib import Path

    package = Path(services.__file__).resolve().parent.parent
    assert not [p for p in package.rglob("*.py") if "toy" in p.read_text(encoding="utf-8")]
