"""Install commands in the docs install this project, never its namesake on the package index, and
the CI example's steps do what it says when run."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
# the pages and the example files (text: a developer's __pycache__ beside them is not a doc)
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.*")
                                    if p.suffix in (".md", ".yaml", ".yml", ".py", ".sh"))]
# `pip install ARGS`, up to the end of the line or the next shell operator
PIP_INSTALL = re.compile(r"pip3?\s+install\s+([^\n&|;]+)")
TAKES_VALUE = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url",
               "--extra-index-url", "-f", "--find-links", "-t", "--target"}


def _targets(args: str) -> list[str]:
    words = shlex.split(args.replace("`", " "))
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in TAKES_VALUE:
            skip = True
        elif not word.startswith("-"):
            out.append(word)
    return out


def _installs() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        for match in PIP_INSTALL.finditer(path.read_text(encoding="utf-8")):
            found += [(path.name, t) for t in _targets(match.group(1))]
    return found


def _names_namesake(target: str) -> bool:
    """True for a requirement that pip would look up on the index as `gpujob`."""
    if target.startswith((".", "/")) or "://" in target.split("@")[0]:
        return False  # this checkout (., '.[test]', a path) or a URL
    try:
        req = Requirement(target)
    except InvalidRequirement:
        return False
    return canonicalize_name(req.name) == "gpujob" and not req.url


def test_every_install_command_in_the_docs_names_this_project():
    installs = _installs()
    assert ("README.md", ".[example]") in installs and ("README.md", ".[test]") in installs
    assert any(doc == "github-actions.yml" and "git+" in t for doc, t in installs), installs
    wrong = [(doc, t) for doc, t in installs if _names_namesake(t)]
    assert not wrong, f"these would install the unrelated `gpujob` from the index: {wrong}"


@pytest.mark.parametrize("target, namesake", [
    ("gpujob", True), ("gpujob==0.1.0", True), ("GPUJob[test]", True),
    (".[test]", False), ("gpujob @ git+https://example.com/org/gpujob@v1", False),
    ("torch==2.13.0", False)])
def test_the_namesake_check_itself(target: str, namesake: bool):
    assert _names_namesake(target) is namesake


@pytest.mark.slow
def test_the_github_actions_example_runs_its_checks(tmp_path: Path):
    workflow = yaml.safe_load((ROOT / "docs" / "examples" / "github-actions.yml").read_text())
    steps = {s["name"]: s["run"] for s in workflow["jobs"]["check"]["steps"] if "name" in s}
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for name in ("Validate", "Dry-run"):
        result = subprocess.run(["bash", "-euc", steps[name]], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=300)
        # validate: the example configs have warnings but no errors; dry-run: every one builds
        assert result.returncode == 0, (name, result.stdout, result.stderr)


def test_the_github_actions_dry_run_passes_each_jobs_flags(tmp_path: Path):
    """A config that leaves its region to its command line validates, and the dry-run step
    passes it the flags in the file beside it (NAME.flags); without them it would fail."""
    workflow = yaml.safe_load((ROOT / "docs" / "examples" / "github-actions.yml").read_text())
    steps = {s["name"]: s["run"] for s in workflow["jobs"]["check"]["steps"] if "name" in s}
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "taxi.yaml").write_text(
        "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n"
        "  masterConfig: {imageUri: 'gcr.io/p/t:1'}\n")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env = {k: v for k, v in env.items() if not k.startswith("GPUJOB_")}

    def run(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-euc", steps[name]], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    assert run("Validate").returncode == 0
    without = run("Dry-run")
    assert without.returncode == 1
    assert "no region for the job" in without.stderr
    (configs / "taxi.flags").write_text("--region us-central1 --labels team=vision\n")
    passed = run("Dry-run")
    assert passed.returncode == 0, passed.stderr
