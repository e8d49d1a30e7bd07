"""The request is built once: the check's translation of a config is the request the dry-run
prints and a submit sends (issue 20), so a dry-run translates the config once."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.default_service


def test_a_dry_run_translates_the_config_once(cli, translations):
    result = cli("submit", "configs/t4-compute-engine.yaml", "--dry-run", "--job-id", "j1")
    assert result.code == 0, result.err
    assert translations == ["configs/t4-compute-engine.yaml"]
    assert json.loads(result.out)["jobSpec"]["workerPoolSpecs"][1]["replicaCount"] == "9"


def test_a_dry_run_with_a_package_translates_once_and_prints_its_staged_address(
        cli, translations, tmp_path):
    """The check sees the package as a stand-in (its address is its content's, known once it
    is read); the request built then names it where it is staged, in packageUris and in the
    command that installs it on an image of the user's."""
    package = tmp_path / "trainer-0.1.tar.gz"
    package.write_bytes(b"not really a tarball, but a file to stage")
    result = cli("submit", "configs/t4-compute-engine.yaml", "--dry-run", "--job-id", "j1",
                 "--packages", str(package), "--module-name", "trainer.task",
                 "--unset", "trainingInput.masterConfig.imageUri",
                 "--unset", "trainingInput.workerConfig.imageUri",
                 "--unset", "trainingInput.parameterServerConfig.imageUri",
                 "--runtime-version", "2.11", "--executor-image-uri", "python:3.11")
    assert result.code == 0, result.err
    assert len(translations) == 1
    staged = next(line.split(" at ")[1].split()[0] for line in result.err.splitlines()
                  if line.startswith("Dry run: would stage trainer-0.1.tar.gz"))
    assert staged.startswith("gs://my-bucket/jobs/t4/packages/")
    assert "to-be-staged" not in result.out
    assert f"/gcs/{staged.removeprefix('gs://')}" in result.out
