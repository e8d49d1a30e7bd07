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


def test_the_notes_name_a_package_to_stage_by_what_it_is_not_its_stand_in(cli, tmp_path):
    """The checks run before the build, when a package's address is not known: their notes name
    it as the staged file or the package built from --package-path, never the stand-in."""
    package = tmp_path / "trainer-0.1.tar.gz"
    package.write_bytes(b"not really a tarball, but a file to stage")
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    common = ("submit", "configs/t4-compute-engine.yaml", "--dry-run", "--job-id", "j1",
              "--module-name", "trainer.task",
              "--unset", "trainingInput.masterConfig.imageUri",
              "--unset", "trainingInput.workerConfig.imageUri",
              "--unset", "trainingInput.parameterServerConfig.imageUri",
              "--runtime-version", "2.11", "--executor-image-uri", "python:3.11")
    result = cli(*common, "--packages", str(package))
    assert result.code == 0, result.err
    (note,) = [line for line in result.err.splitlines() if "[vertex-translate.executor-image]"
               in line]
    assert "each replica installs the staged trainer-0.1.tar.gz from the /gcs/ mount" in note
    assert "to-be-staged" not in result.err
    # a --package-path that cannot be built stops after the checks: their notes say it all
    built = cli(*common, "--package-path", str(tmp_path / "trainer"), "--job-dir", "/no/gs")
    assert built.code == 1
    assert "each replica installs the package built from trainer/ from the /gcs/ mount" in \
        built.err
    assert "to-be-staged" not in built.err
