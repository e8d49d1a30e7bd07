"""The AI Platform Training backend: submit a checked Job, and follow and manage jobs.

Results go to stdout (the job ID, or the API's Job as JSON with ``--format json``; log lines);
progress, links and next steps go to stderr.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gpujob.errors import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    JobFailed,
    RemoteError,
    UsageError,
)
from gpujob.gcp.settings import GcpSettings

if TYPE_CHECKING:
    from gpujob.gcp.api import MlClient
    from gpujob.gcp.logs import LogsClient
    from gpujob.gcp.session import Session

_JOB_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,127}")
_JOB_NAME = re.compile(r"projects/(?P<project>[^/]+)/jobs/(?P<job>[^/]+)")


@dataclass(frozen=True)
class Follow:
    """What to do after submitting: return at once, wait for the end, or stream the logs."""

    wait: bool = False
    stream_logs: bool = False
    poll_interval: float = 10.0


def _echo(line: str = "") -> None:
    print(line, file=sys.stderr, flush=True)


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _print_job(job: dict[str, Any]) -> None:
    _out(json.dumps(job, indent=2, ensure_ascii=False) + "\n")


def console_urls(job_id: str, project: str) -> tuple[str, str]:
    """The job's page and its logs in the Cloud console (as gcloud links them)."""
    return (f"https://console.cloud.google.com/mlengine/jobs/{job_id}?project={project}",
            "https://console.cloud.google.com/logs?resource=ml_job%2Fjob_id%2F"
            f"{job_id}&project={project}")


def follow_up(job_id: str, project: str) -> dict[str, str]:
    """The commands that follow a job, by name."""
    return {"describe": f"gpujob describe {job_id} --project {project}",
            "wait": f"gpujob wait {job_id} --project {project}",
            "logs": f"gpujob logs {job_id} --project {project} --follow"}


def job_id_argument(text: str, settings: GcpSettings) -> tuple[str, GcpSettings]:
    """A job given as ``ID`` or as ``projects/P/jobs/ID`` (its project then wins)."""
    found = _JOB_NAME.fullmatch(text)
    if found:
        text = found["job"]
        settings = replace(settings, project=found["project"])
    if not _JOB_ID.fullmatch(text):
        raise UsageError(f"'{text}' is not a job ID",
                         "job IDs start with a letter and hold letters, digits and '_' (up to "
                         "128); gpujob list shows the project's jobs")
    return text, settings


def _ml(settings: GcpSettings) -> MlClient:
    """The ml v1 client of a new session (credentials and project resolved)."""
    from gpujob.gcp.api import MlClient
    from gpujob.gcp.session import Session

    return MlClient(Session(settings))


def _logs(ml: MlClient) -> LogsClient:
    """The Cloud Logging client, in the same session as ``ml``."""
    from gpujob.gcp.logs import LogsClient

    return LogsClient(ml.session)


def _outcome(job: dict[str, Any], project: str) -> int:
    """Exit 0 for a job that SUCCEEDED; ``JobFailed`` (exit 4) for FAILED or CANCELLED."""
    state = job.get("state")
    if state == "SUCCEEDED":
        return EXIT_OK
    job_id = job.get("jobId", "?")
    reason = job.get("errorMessage") or "no error message"
    raise JobFailed(f"job {job_id} ended {state}: {reason}",
                    f"gpujob logs {job_id} --project {project} shows what it wrote")


def _stopped(what: str, job_id: str, resume: str) -> int:
    _echo()
    _echo(f"Stopped {what} job {job_id}; the job keeps running (nothing was cancelled).")
    _echo(f"Resume with: {resume}")
    return EXIT_INTERRUPTED


def _wait(ml: MlClient, job_id: str, poll_interval: float, timeout: float | None,
          last_state: str | None = None) -> dict[str, Any]:
    """Poll the job until it ends, telling each state change on stderr."""
    from gpujob.gcp.api import TERMINAL_STATES

    clock = ml.session.clock
    start = clock.monotonic()
    while True:
        job = ml.get_job(job_id)
        state = job.get("state", "STATE_UNSPECIFIED")
        if state != last_state:
            _echo(f"job {job_id}: {state}")
            last_state = state
        if state in TERMINAL_STATES:
            return job
        left = None if timeout is None else timeout - (clock.monotonic() - start)
        if left is not None and left <= 0:
            raise RemoteError(f"job {job_id} is still {state} after waiting {timeout:g} s "
                              "(--timeout); it keeps running",
                              f"{follow_up(job_id, ml.project)['wait']} waits again; "
                              f"gpujob cancel {job_id} --project {ml.project} stops it")
        clock.sleep(poll_interval if left is None else min(poll_interval, left))


def _stream(ml: MlClient, logs: LogsClient, job: dict[str, Any],
            poll_interval: float) -> dict[str, Any]:
    """Print the job's log as it grows. Once the job has ended, keep reading until a read
    brings nothing new (lines reach Cloud Logging with a delay); a job that had ended before
    is read once."""
    from gpujob.gcp.api import TERMINAL_STATES
    from gpujob.gcp.logs import Tail, format_entry

    job_id = job["jobId"]
    tail = Tail(logs, job_id, job.get("createTime"))
    state = job.get("state")
    ended = job if state in TERMINAL_STATES else None
    read_once = ended is not None
    while True:
        new = tail.poll()
        for entry in new:
            _out(format_entry(entry) + "\n")
        if ended is not None and (read_once or not new):
            return ended
        ml.session.clock.sleep(poll_interval)
        if ended is None:
            job = ml.get_job(job_id)
            if job.get("state") != state:
                state = job.get("state")
                _echo(f"job {job_id}: {state}")
            if state in TERMINAL_STATES:
                ended = job


def submit(body: dict[str, Any], settings: GcpSettings, output_format: str = "text",
           follow: Follow = Follow(), session: Session | None = None) -> int:
    """Create the job ``body`` (the Job the dry-run prints) and report it; then follow it when
    asked. Exit 0, 3 (remote failure), 4 (``--wait``/``--stream-logs``: the job failed) or 130.
    ``session``: one already open (the one that staged the packages), else a new one."""
    if session is None:
        ml = _ml(settings)
    else:
        from gpujob.gcp.api import MlClient

        ml = MlClient(session)
    try:
        created = ml.create_job(body)
    except KeyboardInterrupt:
        _echo()
        _echo(f"Interrupted while submitting job {body['jobId']}: it may or may not have been "
              "created.")
        _echo(f"Check with: gpujob describe {body['jobId']} --project {ml.project}")
        return EXIT_INTERRUPTED
    job, project = created.job, ml.project
    job_id = job.get("jobId", body["jobId"])
    if created.recovered:
        _echo(f"note: job {job_id} was already created by an earlier attempt of this "
              "submission whose answer was lost; it was not submitted twice")
    _echo(f"Job [{job_id}] submitted to project [{project}]; state: "
          f"{job.get('state', 'unknown')}.")
    page, log_page = console_urls(job_id, project)
    _echo(f"  console: {page}")
    _echo(f"  logs:    {log_page}")
    if output_format == "text":
        _out(f"{job_id}\n")
    if not (follow.wait or follow.stream_logs):
        _echo("Follow it with:")
        for command in follow_up(job_id, project).values():
            _echo(f"  {command}")
        if output_format == "json":
            _print_job(job)
        return EXIT_OK
    try:
        if follow.stream_logs:
            final = _stream(ml, _logs(ml), job, follow.poll_interval)
        else:
            final = _wait(ml, job_id, follow.poll_interval, None, last_state=job.get("state"))
    except KeyboardInterrupt:
        if follow.stream_logs:
            return _stopped("streaming the logs of", job_id, follow_up(job_id, project)["logs"])
        return _stopped("waiting for", job_id, follow_up(job_id, project)["wait"])
    if output_format == "json":
        _print_job(final)
    return _outcome(final, project)


def describe(job: str, settings: GcpSettings, output_format: str = "text") -> int:
    job_id, settings = job_id_argument(job, settings)
    ml = _ml(settings)
    found = ml.get_job(job_id)
    if output_format == "json":
        _print_job(found)
    else:
        import yaml

        _out(yaml.safe_dump(found, sort_keys=False, allow_unicode=True, width=100))
    page, log_page = console_urls(job_id, ml.project)
    _echo(f"console: {page}")
    _echo(f"logs:    {log_page}")
    return EXIT_OK


def list_jobs(settings: GcpSettings, filter_: str | None, limit: int | None,
              output_format: str = "text") -> int:
    ml = _ml(settings)
    jobs = list(ml.list_jobs(filter_, limit))
    if output_format == "json":
        # gpujob's own shape, versioned like validate's and gpus'; each job is the API's Job
        _out(json.dumps({"version": 1, "project": ml.project, "jobs": jobs}, indent=2,
                        ensure_ascii=False) + "\n")
        return EXIT_OK
    if not jobs:
        _echo(f"no jobs in project {ml.project}" + (f" match {filter_}" if filter_ else ""))
        return EXIT_OK
    rows = [("JOB_ID", "STATE", "CREATED")] + [
        (j.get("jobId", "?"), j.get("state", "?"), j.get("createTime", "-")) for j in jobs]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    _out("".join(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}\n" for a, b, c in rows))
    return EXIT_OK


def cancel(job: str, settings: GcpSettings) -> int:
    """Ask for the job's cancellation; it ends CANCELLED shortly after (``gpujob wait``)."""
    job_id, settings = job_id_argument(job, settings)
    ml = _ml(settings)
    state = ml.cancel_job(job_id)
    if state:
        _echo(f"Job [{job_id}] is already {state}.")
    else:
        _echo(f"Cancellation of job [{job_id}] requested; it ends CANCELLED shortly.")
        _echo(f"  {follow_up(job_id, ml.project)['wait']}")
    return EXIT_OK


def wait(job: str, settings: GcpSettings, poll_interval: float, timeout: float | None,
         output_format: str = "text") -> int:
    """Wait for the job to end: exit 0 when it SUCCEEDED, 4 when it FAILED or was CANCELLED."""
    job_id, settings = job_id_argument(job, settings)
    ml = _ml(settings)
    try:
        final = _wait(ml, job_id, poll_interval, timeout)
    except KeyboardInterrupt:
        return _stopped("waiting for", job_id, follow_up(job_id, ml.project)["wait"])
    if output_format == "json":
        _print_job(final)
    return _outcome(final, ml.project)


def logs(job: str, settings: GcpSettings, follow: bool, poll_interval: float) -> int:
    """Print the job's log; with ``follow``, keep printing until the job ends."""
    from gpujob.gcp.logs import format_entry

    job_id, settings = job_id_argument(job, settings)
    ml = _ml(settings)
    client = _logs(ml)
    found = ml.get_job(job_id)
    if not follow:
        for entry in client.entries(job_id, found.get("createTime")):
            _out(format_entry(entry) + "\n")
        return EXIT_OK
    try:
        final = _stream(ml, client, found, poll_interval)
    except KeyboardInterrupt:
        return _stopped("following the logs of", job_id, follow_up(job_id, ml.project)["logs"])
    _echo(f"job {job_id} ended {final.get('state')}")
    return EXIT_OK
