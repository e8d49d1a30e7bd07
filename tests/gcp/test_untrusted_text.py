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
