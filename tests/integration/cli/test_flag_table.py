"""What a new user tripped over on the command line (issue 12): one table of which flags apply
where, with one message per misuse; --set and --unset; each command's --help."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jobs import CONTAINER_JOB

from gpujob.cli import COMMANDS, modes

ROOT = Path(__file__).resolve().parents[3]

# a value for each flag of the table (None: a switch)
VALUES = {"--no-preflight": None, "--wait": None, "--stream-logs": None, "--async": None,
          "--poll-interval": "30",
          "--staging-bucket": "gs://b", "--format": "json", "--project": "p",
          "--api-endpoint": "https://ml.example.com/", "--verbose": None,
          "--credentials-file": __file__, "--impersonate-service-account": "a@p.iam.x.com",
          "--max-attempts": "2", "--retry-deadline": "5", "--request-timeout": "9",
          "--max-local-replicas": "2", "--grace-period": "1", "--max-hourly-cost": "100",
          "--max-cost": "100", "--preempt-after": "30", "--recover": "1", "--order": "cheapest",
          "--recover-on-exit-codes": "137"}
INVALID = "trainingInput: {scaleTier: HUGE}\n"  # stops a run after the flags were judged


def _args(flag: str) -> list[str]:
    value = VALUES[flag]
    return [flag] if value is None else [flag, value]


def _flags(mode: str, use: str) -> list[str]:
    return [flag for flag, uses in modes.table() if uses[mode] == use]


def test_the_docs_show_the_table():
    assert modes.markdown() in (ROOT / "docs" / "local.md").read_text(encoding="utf-8")


def test_every_flag_of_the_table_has_a_value_here():
    assert sorted(VALUES) == sorted(flag for flag, _ in modes.table())


@pytest.mark.parametrize("flag", _flags("local", "refused"))
def test_local_and_submit_local_refuse_alike(cli, write, flag):
    config = write(CONTAINER_JOB)
    local = cli("local", config, *_args(flag))
    submit_local = cli("submit", config, "--local", *_args(flag))
    assert local.code == submit_local.code == 2
    assert local.err == submit_local.err == (
        f"error: {flag} is for jobs in the cloud, not for local runs\n  hint: a local run uses "
        "the package where it is, streams its replicas' output and exits with the master's "
        "status\n")


@pytest.mark.parametrize("flag", _flags("local", "unused"))
def test_local_and_submit_local_note_unused_flags_alike(cli, write, flag):
    config = write(INVALID)
    local = cli("local", config, *_args(flag))
    submit_local = cli("submit", config, "--local", *_args(flag))
    assert local.code == submit_local.code == 1  # on to the checks, which fail
    note = f"note: {flag} is not used by a local run, which talks to no service"
    assert local.err.splitlines()[0] == submit_local.err.splitlines()[0] == note


@pytest.mark.parametrize("flag", _flags("dry-run", "refused"))
def test_dry_run_refuses_what_it_cannot_do(cli, write, flag):
    result = cli("submit", write(CONTAINER_JOB), "--dry-run", *_args(flag))
    assert result.code == 2
    assert result.out == ""
    why = modes.REFUSALS[(modes.group_of(flag) or "", "dry-run")][0]
    assert result.err.splitlines()[0] == f"error: {flag} is {why}"


def test_dry_run_wait_is_refused(cli, write):
    """It was accepted in silence: the user believed the job would be waited for."""
    result = cli("submit", write(CONTAINER_JOB), "--dry-run", "--wait", "--stream-logs")
    assert result.code == 2
    assert result.err.splitlines() == [
        "error: --wait and --stream-logs are for following a submitted job, and --dry-run "
        "submits nothing",
        "  hint: leave out --dry-run to submit the job and follow it"]


def test_dry_run_notes_settings_it_does_not_need(cli, write):
    result = cli("submit", write(CONTAINER_JOB), "--dry-run", "--job-id", "j",
                 *_args("--credentials-file"), *_args("--request-timeout"))
    assert result.code == 0
    assert json.loads(result.out)["jobId"] == "j"
    assert result.err.splitlines()[0] == (
        "note: --credentials-file and --request-timeout are not used by a dry run, which sends "
        "nothing")


@pytest.mark.parametrize("flag", _flags("submit", "refused"))
def test_a_cloud_submit_refuses_the_local_flags(cli, write, flag):
    result = cli("submit", write(CONTAINER_JOB), *_args(flag))
    assert result.code == 2
    assert result.err.splitlines() == [
        f"error: {flag} is for local runs (gpujob local, or submit --local)",
        "  hint: add --local to run the job on this machine"]


def test_mixed_misuses_are_one_error(cli, write):
    result = cli("local", write(CONTAINER_JOB), "--wait", "--staging-bucket", "gs://b",
                 "--project", "p")
    assert result.code == 2
    assert result.err.splitlines()[0] == (
        "error: --staging-bucket and --wait are for jobs in the cloud, not for local runs")


@pytest.mark.parametrize("command", [["local"], ["submit", "--local"]])
def test_local_and_dry_run_do_not_go_together(cli, write, command):
    result = cli(*command, write(CONTAINER_JOB), "--dry-run")
    assert result.code == 2
    assert result.err.splitlines()[0] == "error: --dry-run and --local do not go together"


def test_environment_settings_are_not_flags(cli, write):
    result = cli("submit", write(CONTAINER_JOB), "--dry-run",
                 env={"GPUJOB_REQUEST_TIMEOUT": "5", "GPUJOB_GRACE_PERIOD": "1"})
    assert result.code == 0
    assert "note:" not in result.err and "error:" not in result.err


# -- --set points at the flag; --unset ----------------------------------------------------------

def test_a_set_that_makes_a_mapping_is_reported_at_the_flag(cli, write):
    result = cli("submit", write(CONTAINER_JOB.replace(
        "    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}\n", "")), "--dry-run",
        "--set", "trainingInput.workerConfig.acceleratorConfig.count=3",
        "--set", "trainingInput.workerCount=1", "--worker-machine-type", "n1-highcpu-16")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "command line (--set trainingInput.workerConfig.acceleratorConfig.count): "
        "trainingInput.workerConfig.acceleratorConfig: missing required key 'type' "
        "[schema.required]")


def test_unset_removes_a_field_and_says_so(cli, write):
    config = write(CONTAINER_JOB)
    result = cli("submit", config, "--dry-run", "--unset", "trainingInput.args",
                 "--unset", "trainingInput.masterConfig.acceleratorConfig")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    assert "args" not in body["trainingInput"]
    assert body["trainingInput"]["masterConfig"] == {"imageUri": "gcr.io/p/trainer:1"}
    assert result.err.splitlines()[:2] == [
        f"note: --unset trainingInput.args removed trainingInput.args (set at {config}:8:9)",
        "note: --unset trainingInput.masterConfig.acceleratorConfig removed "
        f"trainingInput.masterConfig.acceleratorConfig (set at {config}:7:24)"]


def test_unset_then_set_replaces_a_whole_mapping(cli, write):
    result = cli("submit", write(CONTAINER_JOB), "--dry-run",
                 "--unset", "trainingInput.masterConfig",
                 "--set", "trainingInput.masterConfig.imageUri=gcr.io/p/other:2")
    assert result.code == 0, result.err
    assert json.loads(result.out)["trainingInput"]["masterConfig"] == {
        "imageUri": "gcr.io/p/other:2"}


@pytest.mark.parametrize("path, said", [
    ("trainingInput.nope", "error: --unset trainingInput.nope: the config has no "
                           "trainingInput.nope"),
    ("trainingInput.args[5]", "error: --unset trainingInput.args[5]: the config has no "
                              "trainingInput.args[5]"),
    ("trainingInput..x", "error: --unset: 'trainingInput..x' is not a path"),
])
def test_unset_of_what_is_not_there(cli, write, path, said):
    result = cli("submit", write(CONTAINER_JOB), "--dry-run", "--unset", path)
    assert result.code == 2
    assert result.err.splitlines()[0] == said


def test_unset_of_a_required_field_is_checked(cli, write):
    result = cli("submit", write(CONTAINER_JOB), "--dry-run", "--unset", "trainingInput.region")
    assert result.code == 1
    assert "removed trainingInput.region" in result.err
    assert "no region for the job" in result.err


# -- --help ---------------------------------------------------------------------------------------

EXIT_CODES = {"validate": {0, 1, 2, 70, 130}, "gpus": {0, 1, 2, 70, 130},
              "submit": {0, 1, 2, 3, 4, 70, 130}, "local": {0, 1, 2, 4, 70, 130},
              "describe": {0, 1, 2, 3, 70, 130}, "list": {0, 1, 2, 3, 70, 130},
              "cancel": {0, 1, 2, 3, 70, 130}, "wait": {0, 1, 2, 3, 4, 70, 130},
              "logs": {0, 1, 2, 3, 70, 130}, "schema": {0, 1, 2, 70, 130},
              "rules": {0, 1, 2, 70, 130}, "convert": {0, 1, 2, 70, 130},
              "completion": {0, 1, 2, 70, 130}, "catalog refresh": {0, 1, 2, 3, 70, 130},
              "preflight": {0, 1, 2, 3, 70, 130}, "cost": {0, 1, 2, 3, 70, 130},
              "reserve": {0, 1, 2, 3, 70, 130}}


def test_every_command_is_in_the_exit_code_test():
    assert sorted({command.split()[0] for command in EXIT_CODES}) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(EXIT_CODES))
def test_each_help_lists_the_exit_codes_its_command_can_return(cli, command):
    result = cli(*command.split(), "--help")
    assert result.code == 0
    section = result.out.split("Exit codes:\n", 1)[1]
    assert {int(code) for code in re.findall(r"^ +(\d+) ", section, re.MULTILINE)} == \
        EXIT_CODES[command]


def test_local_help_shows_no_cloud_only_options(cli):
    text = cli("local", "--help").out
    shown = set(re.findall(r"^  (--[a-z-]+)", text, re.MULTILINE))
    for flag, uses in modes.table():
        assert (flag in shown) == (uses["local"] == "applies"), flag
    for flag in ("--dry-run", "--local"):
        assert flag not in shown
    assert "gs:// path for outputs" not in text and "uploaded to the staging" not in text
    assert "a local directory or a gs:// path (default: a new local directory)" in \
        " ".join(text.split())


def test_submit_help_shows_every_option_of_the_table(cli):
    shown = set(re.findall(r"^  (--[a-z-]+)", cli("submit", "--help").out, re.MULTILINE))
    assert {flag for flag, _ in modes.table()} <= shown
