"""Jobs in a remote service, for every service: submit one and report it, describe, list,
cancel, wait for and read the logs of jobs. Written over ``base.Backend``.

Results go to stdout (the job ID, or the JSON envelope with ``--format json``; YAML; a table; log
lines); progress, links and next steps go to stderr.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.backends import follow as following
from gpujob.backends import output
from gpujob.backends.base import (
    Backend,
    CreateInterrupted,
    JobClient,
    JobOptions,
    JobRef,
    JobStatus,
    Request,
)
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, EXIT_OK
from gpujob.terminal import printable


class Follow(NamedTuple):
    """After submitting: return at once, ``wait`` for the end, or ``stream_logs``, polling
    every ``poll_interval`` seconds."""

    wait: bool = False
    stream_logs: bool = False
    poll_interval: float = 10.0

if TYPE_CHECKING:
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings


def _create(client: JobClient, request: Request, backend: Backend) -> Any:
    """The create, or None after Ctrl-C, SIGTERM or SIGHUP (said on stderr: the job may
    exist)."""
    from gpujob import interrupts

    try:
        with interrupts.as_ctrl_c():
            return client.create(request)
    except KeyboardInterrupt as exc:
        CONSOLE.err()
        what = f"job {request.job_id}" if request.job_id else "the job"
        CONSOLE.err(f"Interrupted while submitting {what}: it may or may not have been created.")
        if isinstance(exc, CreateInterrupted):
            CONSOLE.err(exc.look)
        elif request.job_id:
            CONSOLE.err(f"Check with: "
                        f"{backend.commands(request.job_id, client.project).describe}")
        return None


def _announce(backend: Backend, status: JobStatus, request: Request, project: str,
              recovered: bool) -> str:
    """Tell on stderr what was submitted (``status``: the created job's), and where to see it;
    the job's ID."""
    job_id = status.id if status.id != "?" else (request.job_id or "?")
    if recovered:
        CONSOLE.err(f"note: job {job_id} was already created by an earlier attempt of this "
                    "submission whose answer was lost; it was not submitted twice")
    named = f" ({status.display_name})" if status.display_name else ""
    where = f", region [{status.location}]" if status.location else ""
    CONSOLE.err(f"Job [{job_id}]{named} submitted to project [{project}]{where}; state: "
                f"{status.state}.")
    _links(backend, job_id, project, status.location, "  ")
    return job_id


def _links(backend: Backend, job_id: str, project: str, location: str | None,
           indent: str = "") -> None:
    links = backend.links(job_id, project, location)
    CONSOLE.err(f"{indent}console: {links.console}")
    CONSOLE.err(f"{indent}logs:    {links.logs}")


def submit(backend: Backend, body: dict[str, Any], gcp: GcpSettings, output_format: str = "text",
           follow: Follow | None = None, session: Session | None = None,
           warnings: list[dict[str, Any]] | None = None, client: JobClient | None = None,
           options: JobOptions | None = None) -> int:
    """Create the job ``body`` (the request the dry-run prints) and report it; then follow it
    when asked (``follow``: wait for its end, or stream its logs; polling every
    ``poll_interval`` seconds). Exit 0, 3 (remote failure), 4 (``--wait``/``--stream-logs``: the
    job failed) or 130. ``client``: one already open (the submit's own), else one
    in ``session`` (the one that staged the packages), else in a new one. ``warnings``: the
    checks' warnings, for the JSON envelope; ``options``: what the command line adds to the
    request (``base.JobOptions``)."""
    follow = follow or Follow()
    client = client or backend.client(gcp, session)
    project = client.project
    request = backend.request(body, gcp, project, options)
    created = _create(client, request, backend)
    if created is None:
        return EXIT_INTERRUPTED
    status = backend.status(created.raw)
    job_id = _announce(backend, status, request, project, created.recovered)
    ref = client.resolve(JobRef(job_id))
    commands = backend.commands(job_id, project, status.location)
    extra = {"warnings": warnings or []}
    if output_format == "text":
        CONSOLE.line(printable(job_id))  # the service's answer names it
    if not (follow.wait or follow.stream_logs):
        CONSOLE.err("Follow it with:")
        for command in (commands.describe, commands.wait, commands.follow_logs):
            CONSOLE.err(f"  {command}")
        if output_format == "json":
            CONSOLE.json(output.envelope(backend, created.raw, **extra))
        return EXIT_OK
    try:
        if follow.stream_logs:
            final = following.stream(backend, client, ref, created.raw, follow.poll_interval)
        else:
            final = following.wait(backend, client, ref, follow.poll_interval, None,
                                   last_state=status.state)
    except KeyboardInterrupt:
        if follow.stream_logs:
            return following.stopped("streaming the logs of", job_id, commands.follow_logs)
        return following.stopped("waiting for", job_id, commands.wait)
    if output_format == "json":
        CONSOLE.json(output.envelope(backend, final, **extra))
    return following.outcome(backend, final, project)


def describe(backend: Backend, job: str, gcp: GcpSettings, output_format: str = "text") -> int:
    """Print the job (YAML, or the envelope) and its links."""
    client, ref = _open(backend, job, gcp)
    found = client.get(ref)
    if output_format == "json":
        CONSOLE.json(output.envelope(backend, found))
    else:
        import yaml

        CONSOLE.out(yaml.safe_dump(found, sort_keys=False, allow_unicode=True, width=100))
    status = backend.status(found)
    _links(backend, ref.id, client.project, status.location or ref.location)
    for line in status.summary:
        CONSOLE.err(line)
    if status.waiting:
        CONSOLE.err(status.waiting)
    return EXIT_OK


def list_jobs(backend: Backend, gcp: GcpSettings, filter_: str | None, limit: int | None,
              output_format: str = "text") -> int:
    """Print the project's jobs (a table, or the envelopes)."""
    client = backend.client(gcp)
    jobs = list(client.list(filter_, limit))
    if output_format == "json":
        CONSOLE.json(output.job_list(backend, client.project, jobs))
    elif not jobs:
        CONSOLE.err(f"no jobs in project {client.project}"
                    + (f" match {filter_}" if filter_ else ""))
    else:
        CONSOLE.out(output.job_table(backend, jobs))
    return EXIT_OK


def cancel(backend: Backend, job: str, gcp: GcpSettings) -> int:
    """Ask for the job's cancellation; it ends CANCELLED shortly after (``gpujob wait``)."""
    client, ref = _open(backend, job, gcp)
    state = client.cancel(ref)
    if state:
        CONSOLE.err(f"Job [{ref.id}] is already {state}.")
    else:
        CONSOLE.err(f"Cancellation of job [{ref.id}] requested; it ends CANCELLED shortly.")
        CONSOLE.err(f"  {backend.commands(ref.id, client.project, ref.location).wait}")
    return EXIT_OK


def wait(backend: Backend, job: str, gcp: GcpSettings, poll_interval: float,
         timeout: float | None, output_format: str = "text") -> int:
    """Wait for the job to end: exit 0 when it succeeded, 4 when it failed or was cancelled."""
    client, ref = _open(backend, job, gcp)
    try:
        final = following.wait(backend, client, ref, poll_interval, timeout)
    except KeyboardInterrupt:
        return following.stopped("waiting for", ref.id,
                                 backend.commands(ref.id, client.project, ref.location).wait)
    if output_format == "json":
        CONSOLE.json(output.envelope(backend, final))
    return following.outcome(backend, final, client.project)


def logs(backend: Backend, job: str, gcp: GcpSettings, follow: bool,
         poll_interval: float) -> int:
    """Print the job's log; with ``follow``, keep printing until the job ends."""
    from gpujob.gcp.logs import format_entry

    client, ref = _open(backend, job, gcp)
    found = client.get(ref)
    if not follow:
        for entry in client.log_entries(ref, backend.status(found).created):
            CONSOLE.line(format_entry(entry))
        return EXIT_OK
    try:
        final = following.stream(backend, client, ref, found, poll_interval)
    except KeyboardInterrupt:
        return following.stopped("following the logs of", ref.id,
                                 backend.commands(ref.id, client.project,
                                                  ref.location).follow_logs)
    CONSOLE.err(f"job {ref.id} ended {backend.status(final).state}")
    return EXIT_OK


def _open(backend: Backend, job: str, gcp: GcpSettings) -> tuple[JobClient, JobRef]:
    """A client in the job's project (a full job name's wins over --project), and the job as
    the service names it (``JobClient.resolve``)."""
    ref = backend.parse_ref(job)
    client = backend.client(replace(gcp, project=ref.project) if ref.project else gcp)
    return client, client.resolve(ref)
