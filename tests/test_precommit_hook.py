"""The pre-commit hook this repository offers, run by pre-commit itself against a throwaway git
repository, offline: pre-commit builds the hook's environment from this checkout with pip, which
takes gpujob's dependencies from wheels made from the test environment's own installation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from fakes.wheels import wheel_from_installed
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.slow  # pre-commit builds the hook's environment

ROOT = Path(__file__).resolve().parent.parent
# pre-commit comes with the test extra, next to this interpreter
PRE_COMMIT = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or "pre-commit"

GOOD = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  masterType: n1-highcpu-16
  masterConfig:
    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}
  runtimeVersion: '2.11'
  pythonVersion: '3.7'
  packageUris: [gs://bucket/trainer-0.1.tar.gz]
  pythonModule: trainer.task
"""
# three T4s on a master: T4 comes in 1, 2 or 4 per machine
BAD = GOOD.replace("count: 4", "count: 3")


def _closure(names: list[str]) -> set[str]:
    """The installed distributions these need, transitively (extras not asked for left out)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(name) or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hook-wheels")
    for name in _closure(["gpujob", "hatchling"]) - {"gpujob"}:
        wheel_from_installed(name, out)
    return out


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_the_hook_validates_job_configs_and_leaves_other_yaml_alone(
        tmp_path: Path, wheelhouse: Path, monkeypatch: pytest.MonkeyPatch):
    repo = tmp_path / "user-repo"
    (repo / "configs").mkdir(parents=True)
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / "configs" / "good.yaml").write_text(GOOD)
    (repo / "configs" / "bad.yaml").write_text(BAD)
    # not a job config: the hook's default file pattern must not hand it to gpujob
    (repo / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs: {}\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")

    for name in list(os.environ):
        if name.startswith("PIP_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no index, no machine-wide constraints
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheelhouse))
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))

    result = subprocess.run(
        [PRE_COMMIT, "try-repo", str(ROOT), "gpujob-validate", "--all-files", "--color", "never"],
        cwd=repo, capture_output=True, text=True, timeout=600)

    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "gpujob validate" in out and "Failed" in out, out
    assert "configs/bad.yaml:6:" in out, out  # the count, at its line, from gpujob's report
    assert "hint: use 1, 2 or 4 × T4 on n1-highcpu-16" in out, out
    # both configs in one run, the workflow file not among them
    assert "2 files checked: 1 valid, 1 invalid" in out, out
    assert "configs/good.yaml:" not in out and "ci.yml" not in out, out
