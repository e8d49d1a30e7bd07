"""The pieces under the commands: what is retried, the waits, and how jobs are compared."""

from __future__ import annotations

import copy
import http.client
import ssl
from datetime import datetime, timezone

import httplib2
import pytest
from fakes.clock import FakeClock
from googleapiclient.errors import HttpError

from gpujob.gcp.errors import json_path
from gpujob.gcp.proto3 import parse_time
from gpujob.gcp.retry import GaveUp, backoff, call, parse_retry_after, transient
from gpujob.gcp.settings import RetryPolicy
from gpujob.services.ai_platform.api import same_job


def http_error(status: int, headers: dict[str, str] | None = None) -> HttpError:
    return HttpError(httplib2.Response({"status": status, **(headers or {})}), b"{}")


@pytest.mark.parametrize("value, seconds", [
    ("7", 7.0), (" 1.5 ", 1.5), ("-3", 0.0), ("Sat, 01 Feb 2025 00:00:30 GMT", 30.0),
    ("Fri, 31 Jan 2025 00:00:00 GMT", 0.0), ("soon", None), ("", None), (None, None),
])
def test_retry_after_in_seconds_or_as_a_date(value, seconds):
    now = datetime(2025, 2, 1, tzinfo=timezone.utc)
    assert parse_retry_after(value, now) == seconds


def test_backoff_doubles_up_to_the_ceiling_with_jitter():
    policy = RetryPolicy(initial_delay=1.0, max_delay=10.0)
    assert [backoff(policy, n, 0.0) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert [backoff(policy, n, 0.999) for n in (1, 6)] == pytest.approx([1.0, 10.0], rel=1e-3)


@pytest.mark.parametrize("exc, reason", [
    (http_error(503, {"retry-after": "3"}), "503"),
    (http_error(429), "429"), (http_error(500), "500"), (http_error(502), "502"),
    (http_error(504), "504"),
    (ConnectionResetError(), "connection reset"),
    (http.client.RemoteDisconnected(), "connection closed without a response"),
    (TimeoutError(), "timed out"),
    (ConnectionRefusedError(), "connection refused"),
    (ssl.SSLEOFError(), "connection reset"),
    (http.client.IncompleteRead(b""), "connection broken mid-response"),
])
def test_transient_failures(exc, reason):
    found = transient(exc)
    assert found is not None and found.reason.startswith(reason)


@pytest.mark.parametrize("exc", [http_error(400), http_error(401), http_error(403),
                                 http_error(404), http_error(409), http_error(501),
                                 httplib2.ServerNotFoundError("no such host"), ValueError()])
def test_failures_never_retried(exc):
    assert transient(exc) is None


def test_retry_after_is_carried_with_the_failure():
    assert transient(http_error(503, {"retry-after": "3"})).retry_after == 3.0


def test_call_retries_until_it_succeeds_and_reports_each_retry():
    clock, seen, answers = FakeClock(), [], [ConnectionResetError(), http_error(503), "ok"]

    def attempt():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    result = call(attempt, RetryPolicy(), clock, lambda n, why, delay: seen.append((n, delay)))
    assert result == "ok"
    assert seen == [(1, 0.75), (2, 1.5)] and clock.sleeps == [0.75, 1.5]


def test_call_stops_at_once_on_a_permanent_failure():
    clock = FakeClock()

    def attempt():
        raise http_error(403)

    with pytest.raises(HttpError):
        call(attempt, RetryPolicy(), clock)
    assert clock.sleeps == []


def test_call_gives_up_after_the_attempts():
    clock, tries = FakeClock(), []

    def attempt():
        tries.append(1)
        raise TimeoutError

    with pytest.raises(GaveUp) as caught:
        call(attempt, RetryPolicy(max_attempts=3), clock)
    assert len(tries) == 3 and caught.value.attempts == 3
    assert isinstance(caught.value.last, TimeoutError)


SENT = {"jobId": "j1", "labels": {"team": "a", "empty": ""},
        "trainingInput": {"scaleTier": "CUSTOM", "masterType": "n1-highcpu-16",
                          "workerCount": 2, "enableWebAccess": False,
                          "masterConfig": {"acceleratorConfig": {"count": 4,
                                                                 "type": "NVIDIA_TESLA_T4"}},
                          "args": ["--x"], "hyperparameters": {"maxTrials": 0}}}
SERVED = {"jobId": "j1", "state": "RUNNING", "createTime": "2025-01-01T00:00:00Z",
          "labels": {"team": "a", "empty": ""},
          "trainingInput": {"scaleTier": "CUSTOM", "masterType": "n1-highcpu-16",
                            "workerCount": "2", "args": ["--x"], "hyperparameters": {},
                            "masterConfig": {"acceleratorConfig": {"count": "4",
                                                                   "type": "NVIDIA_TESLA_T4"}}}}


def test_the_served_form_of_the_sent_job_is_the_same_job():
    assert same_job(SENT, SERVED)


@pytest.mark.parametrize("change", [
    lambda j: j["labels"].update(team="b"),
    lambda j: j["labels"].pop("empty"),  # a label with an empty value is still a label
    lambda j: j["trainingInput"].update(workerCount="3"),
    lambda j: j["trainingInput"].update(region="us-east1"),
    lambda j: j["trainingInput"]["args"].append("--y"),
    lambda j: j["trainingInput"]["masterConfig"]["acceleratorConfig"].update(count="8"),
])
def test_any_difference_in_training_input_or_labels_is_another_job(change):
    served = copy.deepcopy(SERVED)
    change(served)
    assert not same_job(SENT, served)


@pytest.mark.parametrize("text, expected", [
    ("2025-01-31T12:00:00Z", datetime(2025, 1, 31, 12, tzinfo=timezone.utc)),
    ("2025-01-31T12:00:00.123456789Z",
     datetime(2025, 1, 31, 12, 0, 0, 123456, tzinfo=timezone.utc)),
    ("2025-01-31T12:00:00.5Z", datetime(2025, 1, 31, 12, 0, 0, 500000, tzinfo=timezone.utc)),
    ("yesterday", None), (None, None),
])
def test_api_timestamps(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize("field_name, path", [
    ("job.training_input.master_config.accelerator_config.count",
     "trainingInput.masterConfig.acceleratorConfig.count"),
    ("training_input.args", "trainingInput.args"),
    ("job_id", "jobId"),
])
def test_service_field_names_as_the_config_writes_them(field_name, path):
    assert json_path(field_name) == path
