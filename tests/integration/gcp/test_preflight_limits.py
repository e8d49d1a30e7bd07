"""Quota limits the preflight cannot read (Service Usage's ``effectiveLimit`` not an int64, a
bucket's ``dimensions`` not an object): one warning, and the submit goes on, as for a quota that
cannot be read at all (docs/preflight.md)."""

from __future__ import annotations

import pytest
from conftest import REGION
from test_preflight import FOUR_T4, T4, VERTEX

from gpujob.errors import RemoteError

JOB = FOUR_T4
UNREADABLE = [("1.5", '"1.5"'), ("1e3", '"1e3"'), ("9" * 5000, '"' + "9" * 39 + "…"),
              ("9" * 20, '"' + "9" * 20 + '"'), ("None", '"None"')]


@pytest.mark.parametrize("limit, shown", UNREADABLE, ids=["1.5", "1e3", "5000-digits",
                                                           "past-int64", "None"])
def test_a_limit_that_is_not_a_whole_number_is_one_warning_and_the_submit_goes_on(
        cli, google, key, write, vertex, preflight, limit, shown):
    google.quota.set(T4, {REGION: limit})  # the fake writes each limit as its text
    result = cli("submit", write(JOB), *VERTEX)
    assert result.code == 0, result.err
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: the quota preflight could not read the project's quota or jobs (Service "
        f"Usage's answer has the limit {shown} of {T4}, which gpujob cannot read); "
        "submitting without it (--no-preflight skips it)"]
    assert len(vertex.jobs) == 1


def test_the_preflight_command_says_the_quota_was_not_checked(cli, google, key, write, vertex,
                                                              preflight):
    google.quota.set(T4, {REGION: "1.5"})
    result = cli("preflight", write(JOB), *VERTEX)
    assert (result.code, result.out) == (0, f"{REGION}/STANDARD\n")
    assert result.err.count("warning: the quota preflight could not read") == 1


def _answer(limit: object, dimensions: object) -> dict:
    return {"consumerQuotaLimits": [{"unit": "1/{project}/{region}", "quotaBuckets": [
        {"effectiveLimit": "0"}, {"effectiveLimit": limit, "dimensions": dimensions}]}]}


@pytest.mark.parametrize("answer, said", [
    (_answer(None, {"region": REGION}), "the limit null"),
    (_answer("1.5", {"region": REGION}), 'the limit "1.5"'),
    (_answer(True, {"region": REGION}), "the limit true"),
    (_answer("64", [REGION]), 'the dimensions ["us-central1"]'),
    ({"consumerQuotaLimits": {"unit": "1/{project}/{region}"}},
     "consumerQuotaLimits that are not a list of limits"),
    ({"consumerQuotaLimits": [{"unit": "1/{project}/{region}", "quotaBuckets": ["64"]}]},
     "quotaBuckets that are not a list of buckets"),
])
def test_an_answer_gpujob_cannot_read_is_a_remote_error_naming_what(answer, said):
    from gpujob.gcp.serviceusage import read_limits

    with pytest.raises(RemoteError) as raised:
        read_limits(T4, answer)
    assert raised.value.message == (f"Service Usage's answer has {said} of {T4}, which gpujob "
                                    "cannot read")


def test_whole_numbers_as_text_or_json_numbers_are_read():
    from gpujob.gcp.serviceusage import read_limits

    limits = read_limits(T4, _answer(64, {"region": REGION}))
    assert (limits.limit(REGION), limits.limit("us-east4")) == (64, 0)
    assert read_limits(T4, _answer("-1", {"region": REGION})).limit(REGION) is None
