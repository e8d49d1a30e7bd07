"""``gpujob logs`` and ``submit --stream-logs`` through the fake Cloud Logging API."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from fakes.faults import Reply
from fakes.times import parse_time

LINE = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z (\w+) ([\w-]+): (.*)")


def _lines(out: str) -> list[tuple[str, ...]]:
    return [LINE.fullmatch(line).groups() for line in out.splitlines()]


def test_logs_prints_the_jobs_entries_in_order(cli, google, key, submitted):
    job = submitted("j1", state="SUCCEEDED")
    google.add_log("j1", "epoch 1")
    google.add_log("j1", {"message": "loss 0.5", "levelname": "INFO"}, task="worker-replica-0")
    google.add_log("j1", "oops", severity="ERROR")
    google.add_log("other", "not mine")
    result = cli("logs", "j1")
    assert result.code == 0, result.err
    assert _lines(result.out) == [("INFO", "master-replica-0", "epoch 1"),
                                  ("INFO", "worker-replica-0", "loss 0.5"),
                                  ("ERROR", "master-replica-0", "oops")]
    (call,) = google.calls("entries.list")
    assert call.body == {
        "resourceNames": ["projects/proj-a"],
        "filter": '(resource.type="ml_job" OR resource.type="cloudml_job") AND '
                  f'resource.labels.job_id="j1" AND timestamp>="{job["createTime"]}"',
        "orderBy": "timestamp asc", "pageSize": 1000}
    assert google.rejected == []


def test_logs_reads_every_page(cli, google, key, submitted):
    submitted("j1", state="SUCCEEDED")
    for i in range(1003):
        google.add_log("j1", f"line {i}")
    result = cli("logs", "j1")
    assert [m for _, _, m in _lines(result.out)] == [f"line {i}" for i in range(1003)]
    assert [c.body.get("pageToken") for c in google.calls("entries.list")] == [None, "1000"]


def test_follow_prints_each_line_once_until_the_job_ends(cli, google, key, submitted, clock):
    job = submitted("j1", state="RUNNING")
    google.add_log("j1", "starting")
    google.script("j1", ("RUNNING", ["epoch 1"]), ("RUNNING", []),
                  ("SUCCEEDED", ["epoch 2", "done"]))
    result = cli("logs", "j1", "--follow", "--poll-interval", "10")
    assert result.code == 0, result.err
    assert [m for _, _, m in _lines(result.out)] == ["starting", "epoch 1", "epoch 2", "done"]
    assert clock.sleeps == [10.0, 10.0, 10.0]
    assert result.err.splitlines() == ["job j1: SUCCEEDED", "job j1 ended SUCCEEDED"]
    # each read starts at the job's creation, or 30 s before the newest line seen if later
    since = [parse_time(re.search(r'timestamp>="([^"]+)"', c.body["filter"])[1])
             for c in google.calls("entries.list")]
    assert set(since) == {parse_time(job["createTime"])}


def _stamped(entry: dict, seconds: float, base: datetime) -> dict:
    return {**entry, "insertId": f"{entry['insertId']}-{seconds}",
            "timestamp": (base + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")}


def test_follow_prints_a_line_indexed_after_a_later_one(cli, google, key, submitted, clock,
                                                        monkeypatch):
    """Cloud Logging does not index entries in timestamp order: another replica's line can
    arrive after a later-stamped one was printed, and is printed then (E04)."""
    job = submitted("j1", state="RUNNING")
    base = parse_time(job["createTime"])
    entry = google.job_logs.add("j1", "step")
    google.logs["j1"][:] = [_stamped({**entry, "textPayload": "step 1"}, 1, base),
                            _stamped({**entry, "textPayload": "step 3"}, 3, base)]
    late = _stamped({**entry, "textPayload": "step 2 (the other replica's)"}, 2, base)
    google.script("j1", "RUNNING", "RUNNING", "SUCCEEDED")
    sleep = clock.sleep

    def sleep_then_index(seconds: float) -> None:
        sleep(seconds)
        if len(clock.sleeps) == 1:  # after steps 1 and 3 were read
            google.logs["j1"].append(late)

    monkeypatch.setattr(clock, "sleep", sleep_then_index)
    result = cli("logs", "j1", "--follow", "--poll-interval", "10")
    assert result.code == 0, result.err
    assert [m for _, _, m in _lines(result.out)] == ["step 1", "step 3",
                                                     "step 2 (the other replica's)"]
    # the read that found it started 30 s before step 3 (not before the job was created)
    since = [parse_time(re.search(r'timestamp>="([^"]+)"', c.body["filter"])[1])
             for c in google.calls("entries.list")]
    assert since[1] == max(base, base + timedelta(seconds=3 - 30))


def test_stream_logs_prints_a_line_indexed_after_a_later_one(cli, google, key, config, clock,
                                                             monkeypatch):
    """``submit --stream-logs`` follows with the same code (E04)."""
    google.script("j1", "RUNNING", "RUNNING", "SUCCEEDED")
    sleep = clock.sleep

    def sleep_then_log(seconds: float) -> None:
        sleep(seconds)
        if len(clock.sleeps) == 1:  # the job was created; a line, then an earlier-stamped one
            base = parse_time(google.jobs[("proj-a", "j1")]["createTime"])
            entry = google.job_logs.add("j1", "x")
            google.logs["j1"][:] = [_stamped({**entry, "textPayload": "second"}, 40, base)]
        elif len(clock.sleeps) == 2:
            base = parse_time(google.jobs[("proj-a", "j1")]["createTime"])
            entry = google.logs["j1"][0]
            google.logs["j1"].append(_stamped({**entry, "textPayload": "first"}, 20, base))

    monkeypatch.setattr(clock, "sleep", sleep_then_log)
    result = cli("submit", config, "--job-id", "j1", "--stream-logs", "--poll-interval", "10")
    assert result.code == 0, result.err
    assert [LINE.fullmatch(line)[3] for line in result.out.splitlines()[1:]] == [
        "second", "first"]


def test_follow_of_a_finished_job_returns_at_once(cli, google, key, submitted, clock):
    submitted("j1", state="FAILED")
    google.add_log("j1", "Traceback …", severity="ERROR")
    result = cli("logs", "j1", "--follow")
    assert result.code == 0
    assert clock.sleeps == []
    assert _lines(result.out) == [("ERROR", "master-replica-0", "Traceback …")]


def test_ctrl_c_while_following_stops_following_only(cli, google, key, submitted, clock):
    submitted("j1", state="RUNNING")
    google.add_log("j1", "epoch 1")
    clock.interrupt_at = 1
    result = cli("logs", "j1", "--follow")
    assert result.code == 130
    assert _lines(result.out) == [("INFO", "master-replica-0", "epoch 1")]
    assert result.err.splitlines()[-2:] == [
        "Stopped following the logs of job j1; the job keeps running (nothing was cancelled).",
        "Resume with: gpujob logs j1 --service ai-platform --project proj-a --follow"]
    assert google.calls("jobs.cancel") == []


def test_submit_stream_logs(cli, google, key, config, clock):
    google.script("j1", ("RUNNING", ["epoch 1"]), ("SUCCEEDED", ["done"]))
    result = cli("submit", config, "--job-id", "j1", "--stream-logs")
    assert result.code == 0, result.err
    first, *rest = result.out.splitlines()
    assert first == "j1"
    assert [LINE.fullmatch(line)[3] for line in rest] == ["epoch 1", "done"]
    assert "job j1: RUNNING" in result.err and "job j1: SUCCEEDED" in result.err


def test_ctrl_c_during_submit_stream_logs(cli, google, key, config, clock):
    clock.interrupt_at = 1
    result = cli("submit", config, "--job-id", "j1", "--stream-logs")
    assert result.code == 130
    assert "Stopped streaming the logs of job j1; the job keeps running" in result.err
    assert ("Resume with: gpujob logs j1 --service ai-platform --project proj-a --follow"
            in result.err)
    assert google.calls("jobs.cancel") == []


class _Entries:
    """A stand-in for a job's log: answers ``timestamp >= since`` from a growing log."""

    def __init__(self) -> None:
        self.log: list[dict] = []

    def entries(self, since: str | None = None):
        return [e for e in self.log
                if since is None or parse_time(e["timestamp"]) >= parse_time(since)]


def test_following_shows_each_entry_once_and_remembers_only_the_last_30_seconds():
    from gpujob.gcp.logs import Tail

    client = _Entries()
    tail = Tail(client.entries, None)
    client.log += [{"insertId": "a", "timestamp": "2025-01-01T00:00:01Z"},
                   {"insertId": "b", "timestamp": "2025-01-01T00:00:02Z"}]
    assert [e["insertId"] for e in tail.poll()] == ["a", "b"]
    client.log += [{"insertId": "c", "timestamp": "2025-01-01T00:00:02Z"}]  # same second as b
    assert [e["insertId"] for e in tail.poll()] == ["c"]
    assert tail.poll() == []
    client.log += [{"insertId": f"n{i}", "timestamp": f"2025-01-01T00:01:{i:02d}.5Z"}
                   for i in range(50)]
    assert len(tail.poll()) == 50
    assert tail.poll() == []
    # a long log is not held in memory: only what the next read brings again, 00:01:19.5 on
    assert sorted(tail._seen) == [f"n{i}" for i in range(19, 50)]


def test_an_entry_indexed_late_is_shown_within_30_seconds_of_the_newest():
    from gpujob.gcp.logs import Tail

    client = _Entries()
    tail = Tail(client.entries, "2025-01-01T00:00:00Z")
    client.log += [{"insertId": "a", "timestamp": "2025-01-01T00:00:01Z"},
                   {"insertId": "c", "timestamp": "2025-01-01T00:00:40Z"}]
    assert [e["insertId"] for e in tail.poll()] == ["a", "c"]
    client.log += [{"insertId": "b", "timestamp": "2025-01-01T00:00:11Z"},  # 29 s before c
                   {"insertId": "too-late", "timestamp": "2025-01-01T00:00:09Z"}]
    assert [e["insertId"] for e in tail.poll()] == ["b"]
    assert tail.poll() == []


def test_the_drain_after_the_job_ended_is_bounded(cli, google, key, config, clock):
    """A Logging endpoint that ignores the time filter, answering each read with one old entry
    and no insertId: the entry is new again on each read (the tail forgets entries older than
    its window), so the reads after the job's end stop after a few, saying so."""
    from gpujob.submit.follow import DRAIN_READS

    google.script("j1", ("RUNNING", []), ("SUCCEEDED", []))
    old = {"textPayload": "stale", "timestamp": "2026-11-23T00:00:00Z", "severity": "INFO",
           "resource": {"type": "ml_job",
                        "labels": {"job_id": "j1", "task_name": "master-replica-0"}},
           "labels": {"ml.googleapis.com/task_name": "master-replica-0"}}
    google.inject("entries.list", *[Reply(200, {"entries": [old]})] * 40)
    result = cli("submit", config, "--job-id", "j1", "--stream-logs", "--poll-interval", "10")
    assert result.code == 0, result.err
    reads = len(google.calls("entries.list"))
    assert reads < 12  # not the 40 the endpoint would go on giving
    assert result.out.count("stale") == reads
    assert result.err.splitlines()[-1] == (
        f"note: job j1 ended {DRAIN_READS} reads ago and its log still gives new lines; stopped "
        "reading it (gpujob logs j1 prints the whole log)")
