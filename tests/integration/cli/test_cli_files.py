"""Files named on the command line: every command says the same about the same path (issue 12:
D23, and "a missing file is no such file from every command")."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from jobs import CONTAINER_JOB

NO_SUCH_HINT = "  hint: check the paths (a quoted glob is not expanded by the shell)"


@pytest.mark.parametrize("command", [["validate"], ["submit"], ["submit", "--dry-run"],
                                     ["local"], ["validate", "--catalog", "{missing}", "{ok}"],
                                     ["gpus", "--catalog", "{missing}"],
                                     ["list", "--credentials-file", "{missing}"]])
def test_a_missing_file_is_no_such_file_from_every_command(cli, write, tmp_path, command):
    ok = write(CONTAINER_JOB)
    missing = str(tmp_path / "nope.yaml")
    args = [a.format(missing=missing, ok=ok) for a in command]
    if "{missing}" not in command:
        args.append(missing)
    result = cli(*args)
    assert result.code == 2
    # a file a flag names is named with its flag (--credentials-file: no such file: …)
    flag = next((f"{a}: " for a, b in itertools.pairwise(command) if b == "{missing}"), "")
    assert result.err.splitlines() == [f"error: {flag}no such file: {missing}", NO_SUCH_HINT]


def test_an_empty_directory_is_not_called_missing(cli, tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "notes.txt").write_text("not a config")
    result = cli("validate", tmp_path / "configs")
    assert result.code == 2
    assert result.err.splitlines() == [
        f"error: no configs in {tmp_path / 'configs'}: the directory has no .yaml, .yml or "
        ".json files"]


def test_submit_of_a_directory_says_so(cli, tmp_path):
    result = cli("submit", tmp_path, "--dry-run")
    assert result.code == 2
    assert result.err.splitlines() == [f"error: {tmp_path} is a directory, not a config file"]


def test_an_over_long_file_name_is_a_usage_error(cli, tmp_path):
    name = str(tmp_path / ("x" * 300 + ".yaml"))
    for command in (["validate"], ["submit", "--dry-run"]):
        result = cli(*command, name)
        assert result.code == 2
        (line,) = result.err.splitlines()
        assert line.startswith(f"error: file name too long: {str(tmp_path)[:20]}")
        assert line.endswith(f"xxxxxxxxxxxxxxx.yaml ({len(name)} characters)")


def test_missing_files_are_named_together(cli, tmp_path, write):
    ok = write(CONTAINER_JOB)
    result = cli("validate", ok, tmp_path / "a.yaml", tmp_path / "b.yaml")
    assert result.code == 2
    assert result.err.splitlines()[0] == (
        f"error: no such file: {tmp_path / 'a.yaml'}, {tmp_path / 'b.yaml'}")


def _as_unprivileged_user() -> list[str]:
    """A prefix that runs a command as a user file permissions apply to (root reads anything)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "running as root, these tests need setpriv (util-linux) to drop privileges"
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def shared_dir():
    """A directory another user can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="gpujob-test-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for sub in path.rglob("*"):
            if sub.is_dir():
                sub.chmod(0o755)
        shutil.rmtree(path)


def test_an_unreadable_directory_under_validate_dir_is_an_error(shared_dir):
    (shared_dir / "cfgs" / "secret").mkdir(parents=True)
    (shared_dir / "cfgs" / "a.yaml").write_text(CONTAINER_JOB)
    (shared_dir / "cfgs" / "secret" / "b.yaml").write_text("trainingInput: [broken\n")
    for path in (shared_dir, shared_dir / "cfgs"):
        path.chmod(0o755)
    (shared_dir / "cfgs" / "a.yaml").chmod(0o644)
    (shared_dir / "cfgs" / "secret").chmod(0)
    result = subprocess.run([*_as_unprivileged_user(), sys.executable, "-m", "gpujob",
                             "validate", str(shared_dir / "cfgs")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"{shared_dir / 'cfgs' / 'secret'}: cannot read the directory: Permission denied "
        "[load.io]",
        "  hint: nothing under it was checked"]
    assert result.stderr == "2 files checked: 1 valid, 1 invalid (1 error, 0 warnings)\n"


def test_an_unreadable_file_under_validate_dir_is_an_error(shared_dir):
    (shared_dir / "cfgs").mkdir()
    (shared_dir / "cfgs").chmod(0o755)
    (shared_dir / "cfgs" / "a.yaml").write_text(CONTAINER_JOB)
    (shared_dir / "cfgs" / "a.yaml").chmod(0)
    result = subprocess.run([*_as_unprivileged_user(), sys.executable, "-m", "gpujob",
                             "validate", str(shared_dir / "cfgs")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"{shared_dir / 'cfgs' / 'a.yaml'}: cannot read the file: Permission denied [load.io]")
