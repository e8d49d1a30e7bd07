"""Each command's --help describes the JSON it prints (issue 12: list --help described it
wrongly, submit --help named a key its envelope does not have)."""

from __future__ import annotations

import json
import re

import pytest

ENVELOPE = {"version", "service", "job", "raw"}


def _format_help(cli, command: str) -> str:
    text = " ".join(cli(command, "--help").out.split())
    return re.search(r"--format \[text\|json\] (.*?) \[default: text\]", text).group(1)


def test_list_prints_what_its_help_says(cli, google, key, submitted):
    submitted("j1")
    said = _format_help(cli, "list")
    assert said.startswith('json prints {"version": 1, "service", "project", "jobs": '
                           "[ENVELOPE, …]} on stdout, each ENVELOPE as describe --format json "
                           "prints it")
    printed = json.loads(cli("list", "--format", "json").out)
    assert set(printed) == {"version", "service", "project", "jobs"}
    assert printed["version"] == 1
    described = json.loads(cli("describe", "j1", "--format", "json").out)
    assert printed["jobs"] == [described]


@pytest.mark.parametrize("command, extra", [("describe", set()), ("wait", set())])
def test_describe_and_wait_print_the_envelope_their_help_names(cli, google, key, submitted,
                                                               clock, command, extra):
    submitted("j1", state="SUCCEEDED")
    said = _format_help(cli, command)
    assert said.startswith("json prints the job's JSON envelope (version 1: service, job, raw")
    assert set(json.loads(cli(command, "j1", "--format", "json").out)) == ENVELOPE | extra


def test_submit_prints_the_envelope_its_help_names(cli, google, key, config):
    said = _format_help(cli, "submit")
    assert said.startswith("json prints the JSON envelope of the job (version 1: service, job, "
                           "raw: the API's object, warnings)")
    printed = json.loads(cli("submit", config, "--job-id", "j1", "--format", "json").out)
    assert set(printed) == ENVELOPE | {"warnings"}
