"""``gpujob convert`` with a local trainer package: built and uploaded as ``submit --package-path``
builds and stages it (the GCS emulator behind the fake Google's token check), the converted
config names it at the address ``submit`` uses, and ``gpujob submit`` of that config sends it."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from conftest import PROJECT, REGION
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

from gpujob.config.load import load_file

# an image with Python, not a prebuilt one: each replica installs the package from the /gcs/ mount
IMAGE = "us-docker.pkg.dev/proj-a/images/python:3.11"


def _installed(pool: dict) -> str:
    """The package a pool installs, as a gs:// URI (its command names its /gcs/ path)."""
    (path,) = re.findall(r"/gcs/(\S+\.tar\.gz)", pool["containerSpec"]["command"][2])
    return f"gs://{path}"


def _package_uri(path: str) -> str:
    loaded = load_file(path)
    assert loaded.document is not None
    (pool,) = loaded.document.data["workerPoolSpecs"]
    return _installed(pool)


@pytest.mark.slow
def test_convert_stages_the_package_where_submit_would_and_submit_sends_it(
        cli, google, key, gcs, vertex, write, trainer, offline_builds, tmp_path):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES.replace("trainingInput:\n", "trainingInput:\n"
                   f"  jobDir: gs://{gcs.bucket}/runs\n"))
    package = trainer()
    flags = ("--package-path", str(package), "--module-name", "trainer.task",
             "--executor-image-uri", IMAGE)
    dry = cli("submit", config, *flags, "--service", "vertex", "--dry-run", "--project",
              PROJECT)
    assert dry.code == 0, dry.err
    would = _installed(json.loads(dry.out)["jobSpec"]["workerPoolSpecs"][0])

    out = str(tmp_path / "out.yaml")
    result = cli("convert", config, *flags, "-o", out)
    assert result.code == 0, result.err
    uri = _package_uri(out)
    assert uri == would  # the content address submit --package-path stages to
    name = uri.removeprefix(f"gs://{gcs.bucket}/")
    sdist = gcs.emulator.content(gcs.bucket, name)
    assert name == f"runs/packages/{hashlib.sha256(sdist).hexdigest()}/trainer-0.0.0.tar.gz"
    err = result.err.splitlines()
    assert f"Staging 1 package in gs://{gcs.bucket}/runs/packages/ (from jobDir):" in err
    assert any(line.startswith(f"  trainer-0.0.0.tar.gz: uploaded to {uri} (") for line in err)
    assert not any("to-be-staged" in line for line in err)
    assert f"Wrote {out}" in err

    sent = cli("submit", out, "--service", "vertex", "--region", REGION)
    assert sent.code == 0, sent.err
    (create,) = google.calls("customJobs.create")
    (pool,) = create.body["jobSpec"]["workerPoolSpecs"]
    assert _installed(pool) == uri
    assert pool["containerSpec"]["command"][2].endswith(" && exec python3 -m trainer.task \"$@\"")


def test_convert_with_a_package_and_no_staging_location_says_where_to_stage(
        cli, write, trainer):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)
    result = cli("convert", config, "--package-path", str(trainer()), "--executor-image-uri",
                 IMAGE)
    assert result.code == 2
    assert result.err.splitlines()[-2:] == [
        "error: local packages need a place in Cloud Storage: --staging-bucket or --job-dir "
        "must be given",
        "  hint: pass --staging-bucket gs://BUCKET (or set GPUJOB_STAGING_BUCKET), or --job-dir "
        "gs://BUCKET/PATH; packages then go to gs://BUCKET/packages/ or "
        "gs://BUCKET/PATH/packages/"]
    assert result.out == ""


def test_convert_takes_a_local_file_in_packages_and_uploads_it(cli, google, key, gcs, write,
                                                               tmp_path):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES)
    dep = tmp_path / "dist" / "trainer-0.1.tar.gz"
    dep.parent.mkdir()
    dep.write_bytes(b"not really a tarball, but bytes to stage")
    out = str(tmp_path / "out.yaml")
    result = cli("convert", config, "--packages", str(dep), "--executor-image-uri", IMAGE,
                 "--staging-bucket", f"gs://{gcs.bucket}", "-o", out)
    assert result.code == 0, result.err
    digest = hashlib.sha256(dep.read_bytes()).hexdigest()
    uri = f"gs://{gcs.bucket}/packages/{digest}/trainer-0.1.tar.gz"
    assert _package_uri(out) == uri
    assert gcs.emulator.content(gcs.bucket, f"packages/{digest}/trainer-0.1.tar.gz") == \
        dep.read_bytes()
    assert f"Staging 1 package in gs://{gcs.bucket}/packages/ (from --staging-bucket):" in \
        result.err.splitlines()


def test_convert_refuses_a_bad_package_before_building_or_uploading(cli, write, trainer):
    config = write(RUNTIME_JOB_WITHOUT_PACKAGES.replace("trainingInput:\n", "trainingInput:\n"
                   "  jobDir: gs://bkt/runs\n"))
    result = cli("convert", config, "--package-path", str(trainer()), "--executor-image-uri",
                 IMAGE, "--scale-tier", "custom", "--master-machine-type", "n1-nosuch-8")
    assert result.code == 1
    assert "Staging" not in result.err and "Built" not in result.err
    assert result.err.splitlines()[-1] == f"error: {config}: 1 problem; nothing was written"


def test_convert_help_says_it_uploads_packages_at_submits_address(cli):
    result = cli("convert", "--help")
    text = " ".join(result.out.split())
    assert "--package-path DIR" in text
    assert "the address gpujob submit would use" in text
    assert "--staging-bucket gs://BUCKET" in text
