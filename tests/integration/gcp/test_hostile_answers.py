"""Answers a well-behaved service never gives, and what gpujob makes of them: every one ends in
exit 3 with one line (never an internal error, exit 70), and never "nothing was submitted" for
a job that was created (issue 12: D7, D9, D10, D11, D12)."""

from __future__ import annotations

import pytest
from fakes.google import Drop, Reply, Trickle, error_body, now_text
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

BASIC = RUNTIME_JOB_WITHOUT_PACKAGES + "  packageUris: [gs://my-bucket/t.tar.gz]\n"


def _one_error(result) -> str:
    """The run ended with exit 3 and one ``error:`` line (and maybe a hint); that line."""
    assert result.code == 3, (result.code, result.err)
    errors = [line for line in result.err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.err
    assert "internal error" not in result.err and "Traceback" not in result.err
    return errors[0]


# -- D7: a lost answer for a job whose fields are at their defaults ------------------------------

@pytest.mark.parametrize("tier", ["BASIC", "BASIC_GPU"])
def test_a_lost_create_answer_is_recognised_for_a_basic_job(cli, google, key, write, tier):
    """The service leaves ``scaleTier: BASIC`` (the enum's value 0) out of its answers; the job
    read back after the 409 is still the one that was sent."""
    config = write(BASIC.replace("scaleTier: BASIC", f"scaleTier: {tier}"))
    google.inject("jobs.create", Drop(after=True))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert "scaleTier" not in google.jobs[("proj-a", "j1")]["trainingInput"] or tier != "BASIC"
    assert ("note: job j1 was already created by an earlier attempt of this submission whose "
            "answer was lost; it was not submitted twice") in result.err
    assert "nothing was submitted" not in result.err
    assert result.out == "j1\n"


def test_a_different_job_under_the_id_is_still_told_apart(cli, google, key, write):
    config = write(BASIC)
    google.add_job("proj-a", {"jobId": "j1", "trainingInput": {
        "scaleTier": "BASIC", "region": "us-central1", "runtimeVersion": "2.11",
        "pythonModule": "other.task", "packageUris": ["gs://my-bucket/t.tar.gz"]}},
        created=now_text())
    result = cli("submit", config, "--job-id", "j1")
    assert "already taken in project proj-a by a different job" in _one_error(result)


# -- D12: paging that never ends -----------------------------------------------------------------

def test_a_repeated_page_token_stops_the_listing(cli, google, key):
    google.inject("jobs.list", *[Reply(200, {"jobs": [], "nextPageToken": "same"})
                                 for _ in range(50)], Reply(200, {"jobs": []}))
    result = cli("list")
    line = _one_error(result)
    assert line == ("error: listing the jobs of project proj-a failed: the service gave the "
                    "page token 'same' twice; its answers are not usable")
    assert len(google.calls("jobs.list")) == 2


def test_empty_pages_without_end_stop_the_listing(cli, google, key):
    google.inject("jobs.list", *[Reply(200, {"jobs": [], "nextPageToken": f"t{i}"})
                                 for i in range(60)])
    line = _one_error(cli("list"))
    assert line == ("error: listing the jobs of project proj-a failed: the service gave 50 "
                    "empty pages in a row; its answers are not usable")
    assert len(google.calls("jobs.list")) == 50


def test_a_listing_that_never_ends_stops_after_100_pages(cli, google, key):
    """E09: every page a new token and a job: gpujob neither loops nor keeps pages for ever."""
    google.inject("jobs.list", *[Reply(200, {"jobs": [{"jobId": f"j{i}", "state": "QUEUED"}],
                                             "nextPageToken": f"t{i}"}) for i in range(150)])
    result = cli("list")
    assert _one_error(result) == ("error: listing the jobs of project proj-a failed: the listing "
                                  "did not end after 100 pages; gpujob reads no more")
    assert ("  hint: a project with that many jobs: narrow the listing (gpujob list --filter, "
            "--limit) or name the job by its ID; else the service keeps handing out page tokens: "
            "check --api-endpoint (or GPUJOB_API_ENDPOINT) if set") in result.err.splitlines()
    assert len(google.calls("jobs.list")) == 100 and result.out == ""


# -- D10: success answers that are not what the method declares ----------------------------------

@pytest.mark.parametrize("body, said", [
    (b"<html>ok</html>", "is not a JSON object: '<html>ok</html>'"),
    (b'{"jobId": "j1", "trainingInput": {',
     "is not a JSON object: '{\"jobId\": \"j1\", \"trainingInput\": {'"),
    (b'["j1"]', "is a JSON list, not an object"),
    (b'"j1"', "is not a JSON object: 'j1'"),
    (b"", "is empty"),
    (b'{"jobId": 5}', "has jobId = 5, not a string"),
])
def test_a_create_answer_that_is_not_a_job(cli, google, key, config, body, said):
    google.inject("jobs.create", Reply(200, body))
    result = cli("submit", config, "--job-id", "j1")
    assert _one_error(result) == f"error: submitting job j1 failed: the service's answer {said}"
    assert ("  hint: the job may have been created all the same: gpujob describe j1 --service "
            "ai-platform --project proj-a shows whether it was, before you submit it again"
            ) in result.err.splitlines()
    assert result.out == ""


@pytest.mark.parametrize("command, route, answer, said", [
    (["describe", "j2"], "jobs.get", b"{not json", "is not a JSON object: '{not json'"),
    (["describe", "j2"], "jobs.get", b'{"jobId": "j2", "x": ' + b"9" * 5000 + b"}",
     "holds a number too long to read"),
    (["describe", "j2", "--format", "json"], "jobs.get", {"jobId": "j2", "state": ["x"]},
     'has state = ["x"], not a string'),
    (["wait", "j2"], "jobs.get", {"jobId": "j2", "state": ["x"]},
     'has state = ["x"], not a string'),
    (["list"], "jobs.list", {"jobs": [{"jobId": 5, "state": "QUEUED"}]},
     "has jobs[0].jobId = 5, not a string"),
    (["list"], "jobs.list", {"jobs": {"jobId": "j1"}}, "has jobs as dict, not a list"),
    (["logs", "j2"], "entries.list", {"entries": [5]}, "has entries[0] as int, not an object"),
    (["logs", "j2"], "entries.list", {"entries": 5}, "has entries as int, not a list"),
    (["logs", "j2"], "entries.list", {"entries": [{"resource": "ml_job"}]},
     "has entries[0].resource as str, not an object"),
])
def test_answers_that_are_not_what_the_method_declares(cli, google, key, submitted, command,
                                                       route, answer, said):
    submitted("j2")
    google.inject(route, Reply(200, answer))
    result = cli(*command)
    what = {"jobs.get": "reading job j2", "jobs.list": "listing the jobs of project proj-a",
            "entries.list": "reading the logs of job j2"}[route]
    assert _one_error(result) == f"error: {what} failed: the service's answer {said}"
    assert result.out == ""


def test_an_answer_nested_too_deeply(cli, google, key, submitted):
    submitted("j2")
    google.inject("jobs.get", Reply(200, b'{"a": ' * 100_000 + b"1" + b"}" * 100_000))
    assert _one_error(cli("describe", "j2")) == (
        "error: reading job j2 failed: the service's answer is nested too deeply to read")


# -- D11: error answers, token answers and redirects gpujob cannot follow -----------------------

def test_error_details_of_the_wrong_types(cli, google, key, config):
    google.inject("jobs.create", Reply(403, error_body(403, "PERMISSION_DENIED", "denied", [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "metadata": "not-a-mapping"},
        "not-a-detail",
        {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": 7}])))
    result = cli("submit", config, "--job-id", "j1")
    assert _one_error(result) == "error: submitting job j1 failed: 403 PERMISSION_DENIED: denied"
    assert "needs the ml.jobs.create permission on project proj-a" in result.err


@pytest.mark.parametrize("message, shown", [(["a", "b"], '["a", "b"]'), (5, "5"),
                                            ({"x": 1}, '{"x": 1}')])
def test_an_error_message_that_is_not_text(cli, google, key, config, message, shown):
    google.inject("jobs.create", Reply(400, {"error": {"code": 400, "message": message,
                                                       "status": "INVALID_ARGUMENT"}}))
    result = cli("submit", config, "--job-id", "j1")
    assert _one_error(result) == (
        f"error: submitting job j1 failed: 400 INVALID_ARGUMENT: {shown}")


def test_a_409_whose_message_is_not_text_still_finds_the_job(cli, google, key, config):
    """The 409 path does not depend on the message: the job is read back and recognised."""
    google.inject("jobs.create", Drop(after=True),
                  Reply(409, {"error": {"code": 409, "message": ["taken"],
                                        "status": "ALREADY_EXISTS"}}))
    result = cli("submit", config, "--job-id", "j1")
    assert result.code == 0, result.err
    assert "already created by an earlier attempt" in result.err


@pytest.mark.parametrize("answer, said", [
    (b"garbage", "could not get an access token: the token endpoint's answer could not be read"),
    (b"[]", "could not get an access token: the token endpoint's answer could not be read"),
    ({"access_token": "x", "expires_in": "soon"},
     "could not get an access token: the token endpoint's answer could not be read"),
    ({"expires_in": 3600}, "could not get an access token: No access token in response."),
    ({"access_token": ["x"], "expires_in": 3600}, "['x'] could not be converted to unicode"),
])
def test_a_token_answer_that_cannot_be_read(cli, google, key, config, answer, said):
    google.inject("token", Reply(200, answer))
    result = cli("submit", config, "--job-id", "j1")
    assert _one_error(result).startswith(f"error: submitting job j1 failed: {said}")
    assert google.calls("jobs.create") == []


def test_a_redirect_loop(cli, google, key, submitted):
    submitted("j2")
    loop = f"{google.url}v1/projects/proj-a/jobs/j2"
    google.inject("jobs.get", *[Reply(302, {}, {"Location": loop}) for _ in range(10)])
    line = _one_error(cli("describe", "j2"))
    assert line.startswith("error: reading job j2 failed: Redirected more times than")


# -- D9: --request-timeout bounds the whole answer -----------------------------------------------

def test_request_timeout_bounds_an_answer_that_trickles_in(cli, google, key, config, clock):
    """The create's answer comes a byte every 50 ms (half a minute in all); each attempt is cut
    at --request-timeout (a bound on each read alone would never time out: a byte comes every
    50 ms), and the retry finds the job the first attempt created. No wall-clock bound: on a busy
    machine the run itself may take seconds; the "timed out" note is what shows the cut."""
    google.inject("jobs.create", Trickle(40, pieces=800))
    result = cli("submit", config, "--job-id", "j1", "--request-timeout", "1")
    assert result.code == 0, result.err
    assert "note: submitting job j1: timed out; retrying in 0.8 s (attempt 2 of 5)" in result.err
    assert "already created by an earlier attempt" in result.err
    assert len(google.jobs) == 1


def test_a_token_answer_that_trickles_in_is_cut_too(cli, google, key, config, clock):
    google.inject("token", Trickle(10, pieces=200))
    result = cli("submit", config, "--job-id", "j1", "--request-timeout", "1")
    assert result.code == 0, result.err  # the second token request is answered at once
    assert "timed out; retrying" in result.err
