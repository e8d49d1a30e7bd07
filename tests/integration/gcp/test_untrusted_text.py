"""What the service and other people write reaches the terminal as text, never as commands:
control characters in log lines, display names, error messages are shown escaped (E05), and
``--format json`` is JSON whatever numbers the answer holds (E19)."""

from __future__ import annotations

import json

import pytest
from conftest import REGION
from fakes.faults import Reply

VERTEX = ("--service", "vertex", "--region", REGION)


def _strict(text: str) -> object:
    """``text`` read as JSON, refusing NaN and Infinity, which are not JSON."""
    def refuse(word: str) -> object:
        raise ValueError(f"{word} is not JSON")

    return json.loads(text, parse_constant=refuse)


# -- E19: NaN and Infinity in an answer ---------------------------------------------------------

@pytest.mark.parametrize("command", ["describe", "wait"])
def test_json_output_stays_json_when_the_answer_holds_nan(cli, google, key, vertex_job, clock,
                                                          command):
    job = vertex_job(state="JOB_STATE_SUCCEEDED")
    job_id = job["name"].rsplit("/", 1)[1]
    answer = json.dumps(job)[:-1] + ', "a": NaN, "b": [Infinity, -Infinity, 1.5]}'
    google.inject("customJobs.get", Reply(200, answer.encode()))
    result = cli(command, job_id, *VERTEX, "--format", "json")
    assert result.code == 0, result.err
    raw = _strict(result.out)["raw"]
    # as the protocol buffers' JSON mapping writes them
    assert (raw["a"], raw["b"]) == ("NaN", ["Infinity", "-Infinity", 1.5])
    assert raw["displayName"] == "train"


def test_submit_json_output_stays_json_when_the_answer_holds_nan(cli, google, key, config,
                                                                 clock):
    google.inject("jobs.get", Reply(200, b'{"jobId": "j1", "state": "SUCCEEDED", '
                                         b'"trainingOutput": {"consumedMLUnits": Infinity}}'))
    result = cli("submit", config, "--job-id", "j1", "--wait", "--format", "json")
    assert result.code == 0, result.err
    assert _strict(result.out)["raw"]["trainingOutput"] == {"consumedMLUnits": "Infinity"}


# -- E05: terminal escapes in what others wrote -------------------------------------------------

# an OSC 52 clipboard write, a window title, a screen clear, a forged line of gpujob's; C1's CSI
HOSTILE = ("\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;owned\x07\x1b[2J\rJob succeeded\x9b2J\x7f"
           "\nsecond line\tafter a tab")
# as gpujob shows it: one line (a name, a table cell)
SHOWN = ("\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b]0;owned\\x07\\x1b[2J\\rJob succeeded\\u009b2J"
         "\\x7f\\nsecond line\\tafter a tab")
# in text of several lines (a log message): line breaks and tabs stay
SHOWN_LINES = SHOWN.replace("\\n", "\n").replace("\\t", "\t")
# in a message gpujob makes one line (its white space, \r among it, becomes single spaces)
SHOWN_FLAT = ("\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b]0;owned\\x07\\x1b[2J Job succeeded"
              "\\u009b2J\\x7f second line after a tab")


def _no_controls(text: str) -> None:
    assert not any((c < " " and c not in "\n\t") or "\x7f" <= c <= "\x9f" for c in text), text


def test_a_log_line_cannot_steer_the_terminal(cli, google, key, vertex_job, vertex, clock):
    job = vertex_job(state="JOB_STATE_SUCCEEDED")
    job_id = job["name"].rsplit("/", 1)[1]
    vertex.add_log(job_id, "epoch 1 " + HOSTILE)
    for follow in ((), ("--follow",)):
        result = cli("logs", job_id, *VERTEX, *follow)
        assert result.code == 0, result.err
        _no_controls(result.out)
        assert result.out.endswith(f"workerpool0-0: epoch 1 {SHOWN_LINES}\n")


def test_a_display_name_cannot_steer_the_terminal(cli, google, key, vertex_job):
    vertex_job(display_name="nightly" + HOSTILE, state="JOB_STATE_RUNNING")
    result = cli("list", *VERTEX)
    assert result.code == 0, result.err
    _no_controls(result.out)
    header, row = result.out.splitlines()
    assert row.endswith(f"  nightly{SHOWN}")
    assert header.index("NAME") == row.index("nightly")


def test_a_failed_jobs_message_cannot_steer_the_terminal(cli, google, key, vertex_job, clock):
    job = vertex_job(state="JOB_STATE_FAILED")
    job["error"] = {"code": 3, "message": "replica failed " + HOSTILE}
    result = cli("wait", job["name"].rsplit("/", 1)[1], *VERTEX)
    assert result.code == 4, result.err
    _no_controls(result.err)
    assert f"FAILED: replica failed {SHOWN_FLAT}\n" in result.err


def test_an_error_answer_cannot_steer_the_terminal(cli, google, key, vertex_job):
    job = vertex_job()
    google.inject("customJobs.get", Reply(400, {"error": {
        "code": 400, "message": "bad " + HOSTILE, "status": "INVALID_ARGUMENT"}}))
    result = cli("describe", job["name"].rsplit("/", 1)[1], *VERTEX)
    assert result.code == 3, result.err
    _no_controls(result.err)
    assert f"400 INVALID_ARGUMENT: bad {SHOWN_FLAT}\n" in result.err


def test_a_created_jobs_name_cannot_steer_the_terminal(cli, google, key, config, clock):
    google.inject("jobs.create", Reply(200, {"jobId": "j1" + HOSTILE, "state": "QUEUED"}))
    result = cli("submit", config, "--job-id", "j1")
    assert result.out == f"j1{SHOWN}\n"
    _no_controls(result.err)
