""".ci/run, run in a copy of the repository whose tools are stand-ins that record how they were
called: it runs the README's test command, ruff, the type checker and the strict docs build, and
leaves nothing in the temporary directory."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = 'printf "%s\\n" "$(basename "$0") $*" >> "$CALLS"\n'


def stand_in(path: Path, body: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + RECORD + body, encoding="utf-8")
    path.chmod(0o755)


def test_ci_runs_the_readmes_command_and_removes_its_site(tmp_path: Path):
    repo, bin_dir, temp = tmp_path / "repo", tmp_path / "bin", tmp_path / "tmp"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    temp.mkdir()
    stand_in(bin_dir / "python3", 'mkdir -p .venv/bin\n')  # python3 -m venv .venv
    for tool in ("pytest", "ruff", "mypy"):
        stand_in(repo / ".venv" / "bin" / tool)
    # pip compiles nothing; the tests' Python writes the bytecode of what they import
    stand_in(repo / ".venv" / "bin" / "pip", 'echo "PIP_NO_COMPILE=${PIP_NO_COMPILE-} '
             'PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE-}" > "$CALLS.pip-env"\n')
    # the docs build writes into --site-dir, as mkdocs does
    stand_in(repo / ".venv" / "bin" / "mkdocs", 'touch "$4/index.html"\n')
    calls = tmp_path / "calls"
    done = subprocess.run([str(repo / ".ci" / "run")], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "CALLS": str(calls), "TMPDIR": str(temp),
                                           "PATH": f"{bin_dir}:{os.environ['PATH']}",
                                           "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ("python3 -m venv .venv && .venv/bin/pip install -U pip && .venv/bin/pip install -e "
            "'.[test]' && .venv/bin/pytest" in readme)
    lines = calls.read_text(encoding="utf-8").splitlines()
    assert lines[:6] == ["python3 -m venv .venv", "pip install -U pip", "pip install -e .[test]",
                         "pytest ", "ruff check .", "mypy gpujob"]
    assert (tmp_path / "calls.pip-env").read_text(encoding="utf-8") == (
        "PIP_NO_COMPILE=0 PYTHONDONTWRITEBYTECODE=\n")
    (docs,) = [line for line in lines if line.startswith("mkdocs ")]
    assert docs.startswith(f"mkdocs build --strict --site-dir {temp}/")
    assert list(temp.iterdir()) == []  # the site went with the run
