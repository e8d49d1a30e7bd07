"""The pre-commit hook this repository offers, run by pre-commit itself against a throwaway git
repository, offline, with the docs' .pre-commit-config.yaml (docs/ci.md): its rev is the tag a
release makes. pre-commit builds the hook's environment from this checkout (committed and tagged
in a copy) with pip, which takes gpujob's dependencies from wheels made from the test
environment's own installation."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from doc_pages import all_text
from fakes.wheels import wheel_from_installed
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.slow  # pre-commit builds the hook's environment

ROOT = Path(__file__).resolve().parents[2]
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


# the README and the user guide: the example and the release step may be on any page
DOCS = all_text()


def readme_config() -> str:
    """The docs' .pre-commit-config.yaml example."""
    found = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", DOCS, re.DOTALL)
    assert found, "the docs show a .pre-commit-config.yaml"
    return found.group(1)


def release_tag() -> str:
    """The tag the docs' release step makes."""
    (tag,) = re.findall(r"`git tag (\S+) && git push origin \1`", DOCS)
    return tag


def test_the_readme_pins_the_tag_a_release_of_this_version_makes():
    """rev v0.1.0 named a tag that nothing made: the docs' release step tags each release
    v + __version__, and the example's rev is that tag."""
    from gpujob import __version__

    assert release_tag() == f"v{__version__}"
    (hook,) = yaml.safe_load(readme_config())["repos"]
    assert hook["rev"] == release_tag()
    assert f"`v{__version__}` for this one" in DOCS
    assert [h["id"] for h in hook["hooks"]] == ["gpujob-validate"]


def released(tmp_path: Path) -> Path:
    """A repository holding this checkout's gpujob, committed and tagged as the docs'
    release step tags it (a copy: the tests may run from an sdist, with no git history)."""
    repo = tmp_path / "gpujob-repo"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("gpujob", "schemas"):
        shutil.copytree(ROOT / name, repo / name, ignore=skip)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "release")
    _git(repo, "tag", release_tag())
    return repo


def test_the_hook_validates_job_configs_and_leaves_other_yaml_alone(
        tmp_path: Path, offline_builds: Path, monkeypatch: pytest.MonkeyPatch):
    """The docs' .pre-commit-config.yaml, its repo a released gpujob, in a user's repo. pip
    fills the hook's environment offline (conftest's offline_builds, from this module's
    wheelhouse: gpujob's dependencies and its build backend)."""
    repo = tmp_path / "user-repo"
    (repo / "configs").mkdir(parents=True)
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / "configs" / "good.yaml").write_text(GOOD)
    (repo / "configs" / "bad.yaml").write_text(BAD)
    # not a job config: the hook's default file pattern must not hand it to gpujob
    (repo / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs: {}\n")
    config = readme_config().replace("https://github.com/your-org/gpujob",
                                     str(released(tmp_path)))
    (repo / ".pre-commit-config.yaml").write_text(config)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")

    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))

    result = subprocess.run(
        [PRE_COMMIT, "run", "--all-files", "--color", "never"],
        cwd=repo, capture_output=True, text=True, timeout=600)

    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "gpujob validate" in out and "Failed" in out, out
    assert "configs/bad.yaml:6:" in out, out  # the count, at its line, from gpujob's report
    assert "hint: use 1, 2 or 4 × T4 on n1-highcpu-16" in out, out
    # both configs in one run, the workflow file not among them
    assert "2 files checked: 1 valid, 1 invalid" in out, out
    assert "configs/good.yaml:" not in out and "ci.yml" not in out, out
