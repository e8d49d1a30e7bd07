"""Jobs in a remote service, for every service: submit one and report it, describe, list,
cancel, wait for and read the logs of jobs. Written over ``base.Service``.

Results go to stdout (the job ID, or the JSON envelope with ``--format json``; YAML; a table; log
lines); progress, links and next steps go to stderr.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.commands import follow as following
from gpujob.commands import output
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, EXIT_OK, RemoteError
from gpujob.services.base import (
    Commands,
    CreateInterrupted,
    JobClient,
    JobRef,
    JobStatus,
    Placement,
    Request,
    Service,
)
from gpujob.services.capabilities import Capability
from gpujob.terminal import printable


class Follow(NamedTuple):
    """After submitting: return at once, ``wait`` for the end, or ``stream_logs``, polling
    every ``poll_interval`` seconds."""

    wait: bool = False
    stream_logs: bool = False
    poll_interval: float = 10.0

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings
    from gpujob.settings import JobSettings


def create_once(client: JobClient, request: Request, service: Service) -> Any:
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
                        f"{service.commands(request.job_id, client.project).describe}")
        return None


def clean_up(placement: Placement, refused: RemoteError, request: Request,
             moving_on: bool = False) -> int | None:
    """After ``refused``, a create refused for quota or capacity, which may have made its job
    all the same: cancel any such job (``Placement.confirm_none``). None when none is left
    alive; exit 130 after Ctrl-C, SIGTERM or SIGHUP, said with what it was doing; else
    ``RemoteError``: the refusal, and the job found alive or how to look for it (``moving_on``:
    another choice was next, and is not tried)."""
    from gpujob import interrupts

    try:
        with interrupts.as_ctrl_c():
            placement.confirm_none(request)
    except CreateInterrupted as exc:
        CONSOLE.err()
        CONSOLE.err("Interrupted while making sure the refused create left no job alive.")
        CONSOLE.err(exc.look)
        return EXIT_INTERRUPTED
    except RemoteError as looked:
        tail = ", so no other region or strategy was tried" if moving_on else ""
        raise RemoteError(f"{refused.message}; {looked.message}{tail}",
                          looked.hint) from refused
    return None


def announce(service: Service, status: JobStatus, request: Request, project: str,
              recovered: bool) -> str:
    """Tell on stderr what was submitted (``status``: the created job's), and where to see it;
    the job's ID."""
    job_id = status.id if status.id != "?" else (request.job_id or "?")
    if recovered:
        CONSOLE.err(f"note: job {job_id} was already created by an earlier attempt of this "
                    "submission whose answer was lost; it was not submitted twice")
    named = f" ({status.display_name})" if status.display_name else ""
    where = f", region [{status.location}]" if status.location else ""
    scope = _scope(service, project, f"project [{project}]")
    CONSOLE.err(f"Job [{job_id}]{named} submitted to {scope}{where}; state: {status.state}.")
    _links(service, job_id, project, status.location, "  ")
    return job_id


def _scope(service: Service, project: str, default: str) -> str:
    """Where the service's jobs are, in its words: ``default`` (``project …``), or (GKE) a
    context and namespace (``scope``)."""
    return service.scope(project) or default


def _links(service: Service, job_id: str, project: str, location: str | None,
           indent: str = "") -> None:
    links = service.links(job_id, project, location)
    CONSOLE.err(f"{indent}{links.label + ':':<8} {links.console}")
    CONSOLE.err(f"{indent}logs:    {links.logs}")


def submit(service: Service, request: Request, client: JobClient, output_format: str = "text",
           follow: Follow | None = None, warnings: list[dict[str, Any]] | None = None,
           cost: dict[str, Any] | None = None) -> int:
    """Send ``request`` (the one the dry-run prints) with ``client`` and report the job; then
    follow it when asked (``follow``: wait for its end, or stream its logs; polling every
    ``poll_interval`` seconds). Exit 0, 3 (remote failure), 4 (``--wait``/``--stream-logs``: the
    job failed) or 130. ``warnings``: the checks' warnings, and ``cost`` the job's $/hour,
    for the JSON envelope (the text says it before the create: ``submit._send``)."""
    follow = follow or Follow()
    project = client.project
    try:
        created = create_once(client, request, service)
    except RemoteError as exc:
        if not service.supports(Capability.PLACEMENT):
            raise  # no way to look for a job the refusal made after all
        placement = service.placement(client)
        if placement.refused_for_room(exc, request) is None:
            raise
        stopped = clean_up(placement, exc, request)
        if stopped is not None:
            return stopped
        raise
    if created is None:
        return EXIT_INTERRUPTED
    status = service.status(created.raw)
    job_id = announce(service, status, request, project, created.recovered)
    ref = client.resolve(JobRef(job_id))
    commands = service.commands(job_id, project, status.location)
    extra: dict[str, Any] = {"warnings": warnings or []}
    if cost is not None:
        extra["cost"] = cost
    if output_format == "text":
        CONSOLE.line(printable(job_id))  # the service's answer names it
    if not (follow.wait or follow.stream_logs):
        return left_running(service, created.raw, commands, output_format, extra)
    final = follow_to_end(service, client, ref, created.raw, status.state, commands, follow)
    if final is None:
        return EXIT_INTERRUPTED
    if output_format == "json":
        CONSOLE.json(output.envelope(service, final, **extra))
    return following.outcome(service, final, project)


def left_running(service: Service, raw: dict[str, Any], commands: Commands,
                 output_format: str, extra: dict[str, Any]) -> int:
    """A submit that does not follow its job: how to follow it, and (json) the job. Exit 0."""
    CONSOLE.err("Follow it with:")
    for command in (commands.describe, commands.wait, commands.follow_logs):
        CONSOLE.err(f"  {command}")
    if output_format == "json":
        CONSOLE.json(output.envelope(service, raw, **extra))
    return EXIT_OK


def follow_to_end(service: Service, client: JobClient, ref: JobRef, raw: dict[str, Any],
                  state: str, commands: Commands, follow: Follow) -> dict[str, Any] | None:
    """Wait for the job, or stream its logs, to its end: the job as it ended; None after
    Ctrl-C, said with how to resume (the job keeps running)."""
    try:
        if follow.stream_logs:
            return following.stream(service, client, ref, raw, follow.poll_interval)
        return following.wait(service, client, ref, follow.poll_interval, None,
                              last_state=state)
    except KeyboardInterrupt:
        if follow.stream_logs:
            following.stopped("streaming the logs of", ref.id, commands.follow_logs)
        else:
            following.stopped("waiting for", ref.id, commands.wait)
        return None


def describe(service: Service, job: str, gcp: GcpSettings, output_format: str = "text",
             extra: tuple[tuple[str, str], ...] = ()) -> int:
    """Print the job (YAML, or the envelope) and its links."""
    client, ref = _open(service, job, gcp, extra)
    found = client.get(ref)
    if output_format == "json":
        CONSOLE.json(output.envelope(service, found))
    else:
        import yaml

        CONSOLE.out(yaml.safe_dump(_shown(found), sort_keys=False, allow_unicode=True,
                                   width=100))
    status = service.status(found)
    _links(service, ref.id, client.project, status.location or ref.location)
    for line in status.summary:
        CONSOLE.err(line)
    if status.waiting:
        CONSOLE.err(status.waiting)
    return EXIT_OK


def _shown(job: dict[str, Any]) -> dict[str, Any]:
    """The job as ``describe`` prints it: its state without Vertex's ``JOB_STATE_`` prefix, as
    every state gpujob shows (the JSON envelope's ``raw`` keeps the API's word)."""
    state = job.get("state")
    if isinstance(state, str) and state.startswith("JOB_STATE_"):
        return {**job, "state": state.removeprefix("JOB_STATE_")}
    return job


def list_jobs(service: Service, gcp: GcpSettings, filter_: str | None, limit: int | None,
              output_format: str = "text",
              extra: tuple[tuple[str, str], ...] = ()) -> int:
    """Print the project's jobs (a table, or the envelopes)."""
    client = service.client(gcp, extra=extra)
    jobs = list(client.list(filter_, limit))
    if output_format == "json":
        CONSOLE.json(output.job_list(service, client.project, jobs))
    elif not jobs:
        scope = _scope(service, client.project, f"project {client.project}")
        CONSOLE.err(f"no jobs in {scope}"
                    + (f" match {filter_}" if filter_ else ""))
    else:
        CONSOLE.out(output.job_table(service, jobs))
    return EXIT_OK


def cancel(service: Service, job: str, gcp: GcpSettings,
           extra: tuple[tuple[str, str], ...] = ()) -> int:
    """Ask for the job's cancellation; it ends CANCELLED shortly after (``gpujob wait``)."""
    client, ref = _open(service, job, gcp, extra)
    state = client.cancel(ref)
    if state:
        CONSOLE.err(f"Job [{ref.id}] is already {state}.")
    elif (said := service.cancelled(ref.id, client.project, ref.location)) is not None:
        for line in said:  # GKE: the JobSet is deleted, no CANCELLED state follows
            CONSOLE.err(line)
    else:
        CONSOLE.err(f"Cancellation of job [{ref.id}] requested; it ends CANCELLED shortly.")
        CONSOLE.err(f"  {service.commands(ref.id, client.project, ref.location).wait}")
    return EXIT_OK


def wait(service: Service, job: str, gcp: GcpSettings, poll_interval: float,
         timeout: float | None, output_format: str = "text",
         extra: tuple[tuple[str, str], ...] = ()) -> int:
    """Wait for the job to end: exit 0 when it succeeded, 4 when it failed or was cancelled."""
    client, ref = _open(service, job, gcp, extra)
    try:
        final = following.wait(service, client, ref, poll_interval, timeout)
    except KeyboardInterrupt:
        return following.stopped("waiting for", ref.id,
                                 service.commands(ref.id, client.project, ref.location).wait)
    if output_format == "json":
        CONSOLE.json(output.envelope(service, final))
    return following.outcome(service, final, client.project)


def logs(service: Service, job: str, gcp: GcpSettings, follow: bool,
         poll_interval: float,
         extra: tuple[tuple[str, str], ...] = ()) -> int:
    """Print the job's log; with ``follow``, keep printing until the job ends."""
    from gpujob.gcp.logs import format_entry

    client, ref = _open(service, job, gcp, extra)
    found = client.get(ref)
    if not follow:
        for entry in client.log_entries(ref, service.status(found).created):
            CONSOLE.line(format_entry(entry))
        return EXIT_OK
    try:
        final = following.stream(service, client, ref, found, poll_interval)
    except KeyboardInterrupt:
        return following.stopped("following the logs of", ref.id,
                                 service.commands(ref.id, client.project,
                                                  ref.location).follow_logs)
    CONSOLE.err(f"job {ref.id} ended {service.status(final).state}")
    return EXIT_OK


def _open(service: Service, job: str, gcp: GcpSettings,
          extra: tuple[tuple[str, str], ...] = ()) -> tuple[JobClient, JobRef]:
    """A client in the job's project (a full job name's wins over --project), and the job as
    the service names it (``JobClient.resolve``)."""
    ref = service.parse_ref(job)
    client = service.client(replace(gcp, project=ref.project) if ref.project else gcp,
                            extra=extra)
    return client, client.resolve(ref)


# -- the commands: execute(settings) ------------------------------------------------------

def _service(settings: JobSettings, command: str) -> Service:
    """The service, which creates and follows jobs (else a usage error naming ``command``)."""
    from gpujob import services
    from gpujob.services.capabilities import Capability

    service = services.get(settings.service)
    service.require(Capability.JOBS, f"gpujob {command}")
    return service


def execute_describe(s: JobSettings) -> int:
    return describe(_service(s, "describe"), s.job or "", s.gcp, s.output_format, s.extra)


def execute_list(s: JobSettings) -> int:
    return list_jobs(_service(s, "list"), s.gcp, s.filter_, s.limit, s.output_format, s.extra)


def execute_cancel(s: JobSettings) -> int:
    return cancel(_service(s, "cancel"), s.job or "", s.gcp, s.extra)


def execute_wait(s: JobSettings) -> int:
    return wait(_service(s, "wait"), s.job or "", s.gcp, s.poll_interval, s.timeout,
                s.output_format, s.extra)


def execute_logs(s: JobSettings) -> int:
    return logs(_service(s, "logs"), s.job or "", s.gcp, s.follow, s.poll_interval, s.extra)
