"""``gpujob validate``: output formats, exit codes, and what a CI job relies on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpujob import __version__

VALID = "trainingInput:\n  scaleTier: BASIC\n  runtimeVersion: '2.11'\n"
TYPO = "trainingInput:\n  scaleTier: BASIC\n  runtimeVersion: '2.11'\n  masterTyp: n1-highcpu-16\n"


def test_valid_file_exits_0_with_a_summary_on_stderr(cli, write):
    result = cli("validate", write(VALID))
    assert (result.code, result.out) == (0, "")
    assert result.err == "1 file checked: 1 valid, 0 invalid\n"


def test_text_report_points_at_the_line_with_a_hint(cli, write):
    path = write(TYPO)
    result = cli("validate", path)
    assert result.code == 1
    assert result.out == (f"{path}:4:3: trainingInput.masterTyp: unknown key 'masterTyp' "
                          "[schema.unknown-key]\n  hint: did you mean 'masterType'?\n")
    assert result.err == "1 file checked: 0 valid, 1 invalid (1 error, 0 warnings)\n"


def test_a_number_too_long_for_python_is_one_finding_at_its_place(cli, write):
    path = write(VALID + "  workerCount: " + "9" * 5000 + "\n")
    result = cli("validate", path)
    assert result.code == 1
    assert result.out == (
        f"{path}:4:16: trainingInput.workerCount: number too large (5,000 digits) [load.number]\n"
        "  hint: no field of a Job holds a number this long; counts are int64, at most "
        "9223372036854775807\n")


def test_a_control_character_is_one_line_at_its_place(cli, write):
    path = write(b"trainingInput:\n  scaleTier: BASIC\n  region: us-cen\x07tral1\n")
    result = cli("validate", path)
    assert result.code == 1
    assert result.out == (
        f"{path}:3:17: control character U+0007 is not allowed in YAML [load.syntax]\n"
        "  hint: delete it (most editors do not show it), or write it as an escape such as "
        "\\u0007 inside a double-quoted string\n")


# a file name (in a pull request, say) that holds line breaks and terminal escapes
FORGING_NAME = "x\nprod.yaml:1:1: trainingInput: looks fine [note]\n\x1b[2Jy.yaml"


def test_a_file_name_cannot_forge_report_lines(cli, write):
    path = write(TYPO, FORGING_NAME)
    shown = path.replace("\n", "\\n").replace("\x1b", "\\x1b")
    result = cli("validate", path)
    assert result.code == 1
    assert result.out == (f"{shown}:4:3: trainingInput.masterTyp: unknown key 'masterTyp' "
                          "[schema.unknown-key]\n  hint: did you mean 'masterType'?\n")


def test_a_file_name_in_github_annotations_has_no_terminal_escapes(cli, write):
    path = write(TYPO, FORGING_NAME)
    result = cli("validate", "--format", "github", path)
    escaped = (path.replace(":", "%3A").replace("\n", "%0A")
               .replace("\x1b", "\\x1b"))
    assert result.out.startswith(f"::error file={escaped},line=4,col=3,")
    assert "\x1b" not in result.out


def _unknown_keys(count: int) -> str:
    return "trainingInput: {" + ",".join(f'"k{i:x}":0' for i in range(count)) + "}\n"


def test_a_report_shows_at_most_50_findings_of_a_kind_per_file(cli, write):
    """100,000 unknown keys in a file under 1 MiB made a 50 MB report."""
    text = _unknown_keys(100_000)
    assert len(text) < 1024 * 1024
    path = write(text)
    result = cli("validate", path)
    assert result.code == 1
    assert len(result.out) < 30_000
    lines = result.out.splitlines()
    assert sum("[schema.unknown-key]" in line for line in lines) == 51
    assert lines[-2:] == [
        f"{path}:1:401: 99,950 more like the 50 above, left out [schema.unknown-key]",
        "  hint: a report shows at most 50 findings of a kind per file"]
    assert "[container.image-or-runtime]" in result.out  # another kind
    # the summary still counts every finding
    assert result.err == "1 file checked: 0 valid, 1 invalid (100001 errors, 0 warnings)\n"


def test_every_format_and_submit_cap_the_findings(cli, write):
    path = write(_unknown_keys(60))
    report = json.loads(cli("validate", "--format", "json", path).out)
    errors = report["files"][0]["errors"]
    assert len(errors) == 52  # 50 unknown keys, the missing scaleTier, and the note
    assert errors[-1]["message"] == "10 more like the 50 above, left out"
    github = cli("validate", "--format", "github", path).out
    assert github.count("::error ") == 52
    result = cli("submit", path, "--dry-run")
    assert result.code == 1
    assert result.err.count("[schema.unknown-key]") == 51
    assert "10 more like the 50 above, left out [schema.unknown-key]" in result.err


def test_json_report_has_the_stable_shape(cli, write):
    good, bad = write(VALID, "good.yaml"), write(TYPO, "bad.yaml")
    result = cli("validate", "--format", "json", good, bad)
    assert result.code == 1
    assert result.err == ""  # stdout is the whole result, stderr stays quiet
    assert json.loads(result.out) == {
        "version": 1,
        "files": [
            {"path": good, "valid": True, "errors": [], "warnings": []},
            {"path": bad, "valid": False, "warnings": [], "errors": [{
                "path": "trainingInput.masterTyp", "line": 4, "column": 3,
                "rule": "schema.unknown-key", "message": "unknown key 'masterTyp'",
                "hint": "did you mean 'masterType'?"}]},
        ],
    }


def test_json_report_of_an_unreadable_file_has_null_positions(cli, write):
    path = write(b"\x00\x01binary", "blob.yaml")
    report = json.loads(cli("validate", "--format", "json", path).out)
    (err,) = report["files"][0]["errors"]
    assert (err["path"], err["line"], err["column"], err["rule"]) == ("", None, None,
                                                                       "load.binary")


def test_github_format_emits_escaped_annotations(cli, write):
    path = write(VALID + "labels: {Team: 'a,b'}\n", "a,b.yaml")
    result = cli("validate", "--format", "github", path)
    assert result.code == 1
    escaped = path.replace(",", "%2C").replace(":", "%3A")
    assert result.out == (
        f"::error file={escaped},line=4,col=10,title=gpujob schema.pattern::labels.Team: "
        "'Team' is not a valid label key%0Ahint: label keys start with a lowercase letter and "
        "hold up to 63 lowercase letters, digits, '_' and '-'\n"
        f"::error file={escaped},line=4,col=16,title=gpujob schema.pattern::labels.Team: "
        "'a,b' is not a valid label value%0Ahint: label values hold up to 63 lowercase "
        "letters, digits, '_' and '-' (quote numbers: '1')\n")


def test_a_directory_means_the_configs_in_it(cli, write, tmp_path: Path):
    write(VALID, "configs/a.yaml")
    write(TYPO, "configs/nested/b.yml")
    write("not a config", "configs/README.md")
    result = cli("validate", "--format", "json", tmp_path / "configs")
    assert [f["path"] for f in json.loads(result.out)["files"]] == [
        str(tmp_path / "configs" / "a.yaml"), str(tmp_path / "configs" / "nested" / "b.yml")]


def test_missing_files_are_a_usage_error_naming_all_of_them(cli, tmp_path: Path, write):
    result = cli("validate", write(VALID), tmp_path / "nope.yaml", tmp_path / "*.yml")
    assert result.code == 2
    assert result.out == ""
    assert f"error: no such file: {tmp_path}/nope.yaml, {tmp_path}/*.yml" in result.err
    assert "hint:" in result.err


def test_no_files_is_a_usage_error(cli):
    result = cli("validate")
    assert result.code == 2
    assert "Missing argument 'FILE...'" in result.err


def test_unknown_format_is_a_usage_error(cli, write):
    assert cli("validate", "--format", "xml", write(VALID)).code == 2


def test_standard_input(cli):
    result = cli("validate", "-", stdin=TYPO.encode())
    assert result.code == 1
    assert result.out.startswith("<stdin>:4:3: trainingInput.masterTyp: unknown key")


def test_format_from_the_environment(cli, write):
    result = cli("validate", write(VALID), env={"GPUJOB_FORMAT": "json"})
    assert json.loads(result.out)["version"] == 1


def test_version(cli):
    result = cli("--version")
    assert (result.code, result.out) == (0, f"gpujob {__version__}\n")


@pytest.mark.parametrize("command", [[], ["validate"], ["submit"]])
def test_help_has_examples_and_exit_codes(cli, command):
    result = cli(*command, "--help")
    assert result.code == 0
    assert "gpujob" in result.out and "Exit codes:" in result.out
    assert "Examples:" in result.out or not command


def test_submit_help_names_the_environment_variables(cli):
    out = cli("submit", "--help").out
    for name in ("GPUJOB_PROJECT", "GPUJOB_REGION", "GPUJOB_JOB_DIR"):
        assert name in out


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_validate_and_help_do_not_import_the_google_libraries(write):
    """The fast path stays fast: no googleapiclient, google.auth or httplib2 behind validate."""
    path = write(VALID)
    probe = ("import sys; from gpujob.cli import main; code = main({args!r}); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2', 'google_auth_httplib2', 'requests')); "
             "print(code, heavy, file=sys.stderr)")
    for args in (["validate", path], ["--help"], ["submit", "--help"]):
        result = _run("-c", probe.format(args=args))
        assert result.stderr.strip().endswith("[]"), (args, result.stderr)


def test_validate_loads_no_module_of_the_submit_path(write):
    """What only a submit or a job command needs (the service seam's request, job and status
    types, built as dataclasses) stays out of validate's start-up: a tenth of it, once; and so
    do the standard modules it does without (pathlib and what pathlib imports, textwrap,
    numbers) and click's shell completion, which only a TAB needs (issue 34)."""
    probe = ("import sys; from gpujob.cli import main; "
             "code = main(['validate', '--service', {service!r}, {path!r}]); "
             "print(code, sorted(m for m in ('gpujob.services.base', 'dataclasses', "
             "'gpujob.submit', 'gpujob.gcp', 'pathlib', 'urllib.parse', 'textwrap', 'numbers', "
             "'click.shell_completion') if m in sys.modules), file=sys.stderr)")
    for service in ("vertex", "ai-platform", "gke"):
        result = _run("-c", probe.format(service=service, path=write(VALID)))
        assert result.stderr.strip().splitlines()[-1] in ("0 []", "1 []"), (service,
                                                                             result.stderr)


def test_python_dash_m_gpujob_works(write):
    result = _run("-m", "gpujob", "validate", write(TYPO))
    assert result.returncode == 1
    assert "unknown key 'masterTyp'" in result.stdout


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_reader_that_goes_away_is_not_an_error(write, unbuffered):
    """``gpujob validate … | head``: when the reader has gone, gpujob stops quietly (exit 1, as
    click and Python's documentation do), whether stdout is buffered or not."""
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", "validate", write(TYPO)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # gone before gpujob writes its report
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert b"Traceback" not in err and b"BrokenPipe" not in err and b"internal error" not in err


def test_ctrl_c_says_interrupted_once_and_exits_130():
    """A Ctrl-C (SIGINT) while gpujob runs: one line on stderr, no traceback, exit 130."""
    import signal

    # 'ready' once validate reads its config (from standard input, where it then waits): the
    # Ctrl-C comes while gpujob runs, however long it took to get there
    child = ("import io, os, sys\nfrom gpujob.cli import main\n"
             "class Announcing(io.RawIOBase):\n"
             "    said = False\n"
             "    def readable(self):\n        return True\n"
             "    def readinto(self, buffer):\n"
             "        if not self.said:\n"
             "            self.said = True\n            os.write(2, b'ready\\n')\n"
             "        return os.readv(0, [buffer])\n"
             "sys.stdin = io.TextIOWrapper(io.BufferedReader(Announcing()))\n"
             "sys.exit(main(['validate', '-']))\n")
    proc = subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stderr.readline() == b"ready\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip() == b"interrupted" and b"\n\n" not in err, err


@pytest.mark.default_service
def test_many_files_find_the_cache_directory_and_the_prices_once(cli, tmp_path: Path,
                                                                 monkeypatch):
    """Each file's cost line needs the price table: it is read once, and the cache directory
    (where a refreshed table would be) is looked up once, not once per file."""
    from gpujob.catalog import overlay
    from gpujob.services.vertex.pricing import prices

    monkeypatch.setenv("GPUJOB_CACHE_DIR", str(tmp_path / "cache"))  # a lookup not made yet
    looked: list[object] = []
    real = overlay.cache_dir
    monkeypatch.setattr(overlay, "cache_dir", lambda environ=None: looked.append(1) or real(
        environ))
    read: list[object] = []
    monkeypatch.setattr(prices, "build", lambda data, origin: read.append(origin) or
                        prices.PriceTable(data, origin))
    prices.built_in.cache_clear()
    source = (Path(__file__).resolve().parents[3] / "configs" / "t4-compute-engine.yaml")
    folder = tmp_path / "configs"
    folder.mkdir()
    for i in range(20):
        (folder / f"job{i:02d}.yaml").write_text(source.read_text(encoding="utf-8"))
    result = cli("validate", folder)
    prices.built_in.cache_clear()  # the next test reads the real one again
    assert result.code == 0, result.err
    assert len([line for line in result.err.splitlines() if line.startswith("cost: ")]) == 20
    assert (len(looked), read) == (1, ["built-in"])
