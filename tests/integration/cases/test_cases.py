"""Data-driven cases: every file under tests/cases/ goes through the real ``gpujob validate``.

Each file's expected report is written in it as ``# expect: LINE:COL: PATH: MESSAGE [RULE]`` and
``# expect:   hint: …`` comments (at the end, so they move no line), or, for files that cannot
hold a comment (binary, not UTF-8), in a ``NAME.expect`` file beside it. The report must be
exactly those lines: a missing message and an extra one both fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = Path(__file__).parents[2] / "cases"


def _case_files(kind: str) -> list[Path]:
    return sorted(p for p in (CASES / kind).iterdir() if p.suffix != ".expect")


def expected_lines(path: Path) -> list[str]:
    sidecar = path.with_suffix(".expect")
    if sidecar.exists():
        return sidecar.read_text(encoding="utf-8").splitlines()
    text = path.read_text(encoding="utf-8")
    return [line[len("# expect: "):] for line in text.splitlines()
            if line.startswith("# expect: ")]


def reported_lines(out: str, path: str) -> list[str]:
    prefix = f"{path}:"
    return [line[len(prefix):] if line.startswith(prefix) else line
            for line in out.splitlines()]


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES.parent.parent)


@pytest.mark.parametrize("path", _case_files("invalid"), ids=lambda p: p.name)
def test_invalid_case_reports_exactly_its_problems(cli, path: Path):
    rel = str(path.relative_to(CASES.parent.parent))
    result = cli("validate", rel)
    assert result.code == 1, result.out + result.err
    expected = expected_lines(path)
    assert expected, f"{path.name} states no expected message"
    assert reported_lines(result.out, rel) == expected
    assert "Traceback" not in result.err


@pytest.mark.parametrize("path", _case_files("valid"), ids=lambda p: p.name)
def test_valid_case_passes(cli, path: Path):
    rel = str(path.relative_to(CASES.parent.parent))
    result = cli("validate", rel)
    assert result.code == 0, result.out
    assert reported_lines(result.out, rel) == expected_lines(path)  # warnings, if any
    assert result.err.startswith("1 file checked: 1 valid, 0 invalid")


def test_all_cases_in_one_run_report_every_file(cli):
    """One call, many files: every problem of every file, and the exit code says 'invalid'."""
    files = [str(p.relative_to(CASES.parent.parent))
             for kind in ("valid", "invalid") for p in _case_files(kind)]
    result = cli("validate", *files)
    assert result.code == 1
    for path in _case_files("invalid"):
        rel = str(path.relative_to(CASES.parent.parent))
        first = expected_lines(path)[0]
        assert f"{rel}:{first}" in result.out.splitlines()
    n_valid, n_invalid = len(_case_files("valid")), len(_case_files("invalid"))
    assert result.err.startswith(f"{n_valid + n_invalid} files checked: {n_valid} valid, "
                                 f"{n_invalid} invalid")


def test_a_file_over_the_size_limit_is_refused(cli, tmp_path: Path):
    huge = tmp_path / "huge.yaml"
    huge.write_bytes(b"trainingInput:\n  scaleTier: BASIC\n" + b"#" * (1024 * 1024))
    result = cli("validate", huge)
    assert result.code == 1
    assert result.out.startswith(f"{huge}: the file is over the 1,048,576-byte limit")


@pytest.mark.default_service
@pytest.mark.parametrize("path", _case_files("invalid") + _case_files("valid"),
                         ids=lambda p: p.name)
def test_every_case_checked_for_vertex_gets_a_report(cli, path: Path):
    """The cases were written for AI Platform; checked for Vertex AI (the default), each still
    gets a report, never an internal error, and the translation says nothing about a value the
    schema refused (its finding says what is wrong: ``workerCount: "²"`` is not "not set")."""
    rel = str(path.relative_to(CASES.parent.parent))
    result = cli("validate", "--format", "json", rel)
    assert result.code in (0, 1), result.err
    import json

    report = json.loads(result.out)["files"][0]
    refused = {e["path"] for e in report["errors"] if e["rule"].startswith("schema.")}
    for finding in report["errors"] + report["warnings"] + report.get("notes", []):
        if finding["rule"].startswith("vertex-translate."):
            assert finding["path"] not in refused, finding
