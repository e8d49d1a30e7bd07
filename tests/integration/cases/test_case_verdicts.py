"""The case files checked for Vertex AI, and one verdict from every command that checks.

``tests/cases/vertex/{valid,invalid}`` hold configs checked with ``--service vertex``; their
expected reports are written as in ``tests/cases`` (``test_cases.py``). A case that carries
``# submit: FLAGS`` (and, for Vertex AI, ``# convert: FLAGS``) is also dry-run and converted
with those flags, and each command must accept or refuse it as ``validate`` does: a user who
sees ``validate`` pass must not meet a refusal from ``submit --dry-run`` or ``convert``.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from test_cases import CASES, expected_lines, reported_lines

VERTEX = CASES / "vertex"


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def _directive(path: Path, name: str) -> list[str] | None:
    prefix = f"# {name}: "
    for line in path.read_bytes().decode("utf-8", "replace").splitlines():
        if line.startswith(prefix):
            return shlex.split(line[len(prefix):])
    return None


def _rel(path: Path) -> str:
    return str(path.relative_to(CASES.parent.parent))


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES.parent.parent)


@pytest.mark.parametrize("path", _files(VERTEX / "invalid"), ids=lambda p: p.name)
def test_vertex_invalid_case_reports_exactly_its_problems(cli, path: Path):
    result = cli("validate", "--service", "vertex", _rel(path))
    assert result.code == 1, result.out + result.err
    expected = expected_lines(path)
    assert expected, f"{path.name} states no expected message"
    assert reported_lines(result.out, _rel(path)) == expected
    assert "Traceback" not in result.err


@pytest.mark.parametrize("path", _files(VERTEX / "valid"), ids=lambda p: p.name)
def test_vertex_valid_case_passes(cli, path: Path):
    result = cli("validate", "--service", "vertex", _rel(path))
    assert result.code == 0, result.out
    assert reported_lines(result.out, _rel(path)) == expected_lines(path)


def _commands() -> list[tuple[str, str, Path]]:
    found = []
    for service, root in (("vertex", VERTEX), ("ai-platform", CASES)):
        for kind in ("valid", "invalid"):
            for path in _files(root / kind):
                for command in ("submit", "convert"):
                    if _directive(path, command) is not None:
                        found.append((service, command, path))
    return found


@pytest.mark.parametrize(("service", "command", "path"), _commands(),
                         ids=lambda v: v.name if isinstance(v, Path) else str(v))
def test_dry_run_and_convert_reach_validates_verdict(cli, tmp_path: Path, service: str,
                                                     command: str, path: Path):
    flags = _directive(path, command) or []
    if command == "submit":
        args = ["submit", _rel(path), "--dry-run", "--project", "demo-proj", *flags]
    else:
        args = ["convert", _rel(path), *flags, "-o", str(tmp_path / "converted.yaml")]
    result = cli(*args, env={"GPUJOB_SERVICE": service})
    valid = path.parent.name == "valid"
    assert result.code == (0 if valid else 1), result.err
    assert "Traceback" not in result.err
    if not valid:  # the same first problem, at the same place of the same file
        first = expected_lines(path)[0]
        where = first if first.startswith("command line") else f"{_rel(path)}:{first}"
        assert where in result.err.splitlines(), result.err
    elif command == "convert":  # the file gcloud's --config reads, not just an exit code
        assert (tmp_path / "converted.yaml").read_text(encoding="utf-8").startswith(
            "# Vertex AI "), result.err
    else:
        assert json.loads(result.out), result.out  # the body, as JSON
    if command == "convert" and not valid:
        assert not (tmp_path / "converted.yaml").exists()
