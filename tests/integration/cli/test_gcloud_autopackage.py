"""``--worker-pool-spec ...,local-package-path=DIR`` (gcloud's autopackaging, issue 32 item 1):
gpujob builds the module's package and stages it, and every pool runs it on the executor image,
said in a note; what only gcloud's Docker build does is refused with the reason."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.default_service

IMAGE = "us-docker.pkg.dev/proj-a/images/python:3.11"
STAGED = re.compile(r"/gcs/bkt1/packages/[0-9a-f]{64}/trainer-0\.0\.0\.tar\.gz")


@pytest.mark.slow
def test_local_package_path_is_built_and_staged_and_every_pool_runs_it(
        cli, trainer, offline_builds):
    project = trainer().parent
    result = cli("submit", "--region", "us-central1", "--display-name", "x",
                 f"--worker-pool-spec=machine-type=n1-standard-8,accelerator-type="
                 f"NVIDIA_TESLA_T4,executor-image-uri={IMAGE},python-module=trainer.task,"
                 f"local-package-path={project}",
                 "--worker-pool-spec", "machine-type=n1-standard-8,replica-count=2",
                 "--args=--epochs=1", "--staging-bucket", "gs://bkt1", "--dry-run",
                 "--service", "vertex")
    assert result.code == 0, result.err
    assert result.err.splitlines()[0] == (
        f"note: --worker-pool-spec 1: local-package-path: gpujob builds {project}/trainer as a "
        "Python package and stages it (gcloud would build and push a Docker image); every pool "
        f"runs python -m trainer.task from it on {IMAGE}")
    pools = json.loads(result.out)["jobSpec"]["workerPoolSpecs"]
    assert [(p["machineSpec"], p["replicaCount"]) for p in pools] == [
        ({"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
          "acceleratorCount": 1}, "1"), ({"machineType": "n1-standard-8"}, "2")]
    for pool in pools:
        code = pool["containerSpec"]
        assert code["imageUri"] == IMAGE and code["args"] == ["--epochs=1"]
        assert STAGED.search(code["command"][2])
        assert code["command"][2].endswith('exec python3 -m trainer.task "$@"')


@pytest.mark.slow
def test_a_python_script_becomes_the_one_module_of_a_package(cli, tmp_path, offline_builds):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "my-train.py").write_text("print('hi')\n", encoding="utf-8")
    result = cli("submit", "--region", "us-central1", "--display-name", "x",
                 f"--worker-pool-spec=machine-type=n1-standard-8,executor-image-uri={IMAGE},"
                 f"script=my-train.py,local-package-path={tmp_path / 'app'}",
                 "--staging-bucket", "gs://bkt1", "--dry-run", "--service", "vertex")
    assert result.code == 0, result.err
    assert result.err.splitlines()[0] == (
        f"note: --worker-pool-spec 1: local-package-path: gpujob builds {tmp_path}/app/"
        "my-train.py alone (files beside it are not in it) as the package gcloud_script and "
        "stages it (gcloud would build and push a Docker image); every pool runs python -m "
        f"gcloud_script.my_train from it on {IMAGE}")
    code = json.loads(result.out)["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]
    assert re.search(r"/gcs/bkt1/packages/[0-9a-f]{64}/gcloud_script-0\.0\.0\.tar\.gz && "
                     r'exec python3 -m gcloud_script\.my_train "\$@"\Z', code["command"][2])


@pytest.mark.parametrize("spec, lines", [
    ("local-package-path=app,python-module=trainer.task,executor-image-uri=I,"
     "requirements=numpy",
     ["error: --worker-pool-spec 1: requirements is installed into the Docker image gcloud "
      "builds; gpujob builds a Python package instead",
      "  hint: name the dependencies in the package's pyproject.toml or setup.py "
      "(install_requires)"]),
    ("local-package-path=app,script=run.sh,executor-image-uri=I",
     ["error: --worker-pool-spec 1: script=run.sh is not a Python file: the Docker image "
      "gcloud builds runs it with /bin/bash, and gpujob runs Python modules",
      "  hint: run it in an image of your own that holds it: container-image-uri=IMAGE with "
      "--command=/bin/bash,run.sh"]),
    ("local-package-path=app,script=train.py,executor-image-uri=I",
     ["error: --worker-pool-spec 1: script=train.py: no such file: app/train.py",
      "  hint: script is a path under local-package-path"]),
    ("local-package-path=app,python-module=task,executor-image-uri=I",
     ["error: --worker-pool-spec 1: python-module=task is not in a package: gpujob builds the "
      "module's package",
      "  hint: put the module in a package (a directory holding __init__.py) and name it "
      "PACKAGE.task"]),
])
def test_what_only_gcloud_s_docker_build_does_is_refused(cli, spec, lines):
    result = cli("submit", "--region", "us-central1", "--display-name", "x",
                 "--worker-pool-spec", f"machine-type=n1-standard-4,{spec}", "--dry-run",
                 "--service", "vertex")
    assert result.code == 2 and result.out == ""
    assert result.err.splitlines() == lines


def test_a_fifth_pool_is_refused_not_dropped(cli, tmp_path):
    """The package build lays a job out as AI Platform's four replica kinds: a fifth
    --worker-pool-spec is said, not lost."""
    spec = ("machine-type=n1-standard-4,local-package-path=app,python-module=trainer.task,"
            "executor-image-uri=I")
    more = [arg for _ in range(4) for arg in ("--worker-pool-spec",
                                              "machine-type=n1-standard-16,replica-count=1")]
    result = cli("submit", "--region", "us-central1", "--display-name", "x",
                 "--worker-pool-spec", spec, *more, "--dry-run", "--service", "vertex")
    assert result.code == 2 and result.out == ""
    assert result.err.splitlines() == [
        "error: --worker-pool-spec 5: a local-package-path job is built as an AI Platform "
        "cluster of 4 pools at most (primary, workers, parameter servers, evaluators)",
        "  hint: give 4 --worker-pool-spec at most"]
