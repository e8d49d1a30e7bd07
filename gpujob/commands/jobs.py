"""Jobs in a remote service, for every service: describe, list, cancel, wait for and read the
logs of jobs (a submit's create and follow: ``gpujob.submit``). Written over ``base.Service``.

Results go to stdout (the job ID, or the JSON envelope with ``--format json``; YAML; a table; log
lines); progress, links and next steps go to stderr.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK
from gpujob.services.base import JobClient, JobRef, Service
from gpujob.submit import follow as following
from gpujob.submit import output
from gpujob.submit.create import links

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.recovery import Lineage
    from gpujob.settings import RemoteSettings


def describe(service: Service, job: str, gcp: GcpSettings, output_format: str = "text",
             extra: tuple[tuple[str, str], ...] = ()) -> int:
    """Print the job (YAML, or the envelope) and its links; for an attempt of a recovered
    job, its lineage's attempts (stderr; ``recovery`` in the envelope)."""
    client, ref = _open(service, job, gcp, extra)
    found = client.get(ref)
    status = service.status(found)
    lineage, lines = _lineage(service, client, found, status.lineage)
    if output_format == "json":
        CONSOLE.json(output.envelope(service, found, **(
            {"recovery": lineage} if lineage is not None else {})))
    else:
        import yaml

        CONSOLE.out(yaml.safe_dump(_shown(found), sort_keys=False, allow_unicode=True,
                                   width=100))
    links(service, ref.id, client.project, status.location or ref.location)
    for line in status.summary:
        CONSOLE.err(line)
    if status.waiting:
        CONSOLE.err(status.waiting)
    if lineage is not None:
        _tell_lineage(lineage, lines)
    return EXIT_OK


def _lineage(service: Service, client: JobClient, raw: dict[str, Any],
             lineage: Lineage | None) -> tuple[dict[str, Any] | None, list[str]]:
    """The attempts of a recovered job (``--recover``), found by its lineage label in every
    region its labels name (``Recovery.attempts``): ``{"lineage", "attempt", "attempts",
    "spent"}`` (``"error"``: why they could not be listed), and a line for each attempt;
    None for a job of no lineage."""
    from gpujob.errors import RemoteError
    from gpujob.services.capabilities import Capability
    from gpujob.submit.attempts import attempt_dict, attempt_line, total

    if lineage is None or not service.supports(Capability.RECOVER):
        return None, []
    shown: dict[str, Any] = {"lineage": lineage.id, "attempt": lineage.attempt}
    if not lineage.regions:  # an attempt made before the regions label
        shown["elsewhere"] = ("gpujob list --region REGION --filter "
                              f"'labels.gpujob-lineage={lineage.id}'")
    recovery = service.recovery(client, _catalog(service))
    try:
        jobs = recovery.attempts(raw)
    except RemoteError as exc:
        return {**shown, "error": exc.message}, []
    attempts, lines = [], []
    for job in jobs:
        status, ended = service.status(job), recovery.ended(job)
        number = status.lineage.attempt if status.lineage else 1
        attempts.append(attempt_dict(number, status, ended))
        lines.append(attempt_line(number, status, ended))
    return {**shown, "attempts": attempts, "spent": total(attempts)}, lines


def _catalog(service: Service) -> Any:
    """The service's catalog in use: its built-in one, with what ``gpujob catalog refresh``
    wrote (said when old, as every command that reads it says)."""
    from gpujob.settings import CheckOptions

    return CheckOptions(service).loaded().catalog


def _tell_lineage(lineage: dict[str, Any], lines: list[str]) -> None:
    """``describe``'s lines (stderr) about the attempts ``_lineage`` found."""
    from gpujob.submit.attempts import summed

    head = (f"attempt {lineage['attempt']} of a recovered job (lineage "
            f"{lineage['lineage']})")
    if "error" in lineage:
        CONSOLE.err(f"{head}; its other attempts could not be listed: {lineage['error']}")
        return
    CONSOLE.err(f"{head}: {summed(lineage['attempts'])}")
    for line in lines:
        CONSOLE.err(f"  {line}")
    if "elsewhere" in lineage:
        CONSOLE.err(f"  (its job names no regions: those in other regions are listed by "
                    f"{lineage['elsewhere']})")


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
        scope = service.scope(client.project) or f"project {client.project}"
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

def _service(settings: RemoteSettings, command: str) -> Service:
    """The service, which creates and follows jobs (else a usage error naming ``command``)."""
    from gpujob import services
    from gpujob.services.capabilities import Capability

    service = services.get(settings.service)
    service.require(Capability.JOBS, f"gpujob {command}")
    return service


def execute_describe(s: RemoteSettings) -> int:
    return describe(_service(s, "describe"), s.job or "", s.gcp, s.output_format, s.extra)


def execute_list(s: RemoteSettings) -> int:
    return list_jobs(_service(s, "list"), s.gcp, s.filter_, s.limit, s.output_format, s.extra)


def execute_cancel(s: RemoteSettings) -> int:
    return cancel(_service(s, "cancel"), s.job or "", s.gcp, s.extra)


def execute_wait(s: RemoteSettings) -> int:
    if (s.recover_exit_codes or s.max_cost is not None) and not s.recover:
        from gpujob.errors import UsageError

        flag = "--recover-on-exit-codes" if s.recover_exit_codes else "--max-cost"
        raise UsageError(f"{flag} is for a job followed with --recover N",
                         "add --recover N: the number of times the job may be created again")
    if s.recover and s.timeout is not None:
        from gpujob.errors import UsageError

        raise UsageError("--timeout and --recover do not go together: --recover follows every "
                         "attempt to its end", "leave out --timeout (Ctrl-C stops following; "
                         "the attempt keeps running)")
    if s.recover:
        return wait_recovering(s)
    return wait(_service(s, "wait"), s.job or "", s.gcp, s.poll_interval, s.timeout,
                s.output_format, s.extra)


def wait_recovering(s: RemoteSettings) -> int:
    """``wait JOB --recover N``: take over following a job, and create it again after the
    infrastructure ended it (``submit.recover``)."""
    from gpujob import services
    from gpujob.services.capabilities import Capability
    from gpujob.submit.recover import take_over

    service = services.get(s.service)
    service.require(Capability.RECOVER, "gpujob wait --recover")
    service.require(Capability.JOBS, "gpujob wait")
    client, ref = _open(service, s.job or "", s.gcp, s.extra)
    return take_over(service, client, _catalog(service), client.get(ref), s.recover or 0,
                     s.recover_exit_codes, s.poll_interval, s.output_format, s.max_cost)


def execute_logs(s: RemoteSettings) -> int:
    return logs(_service(s, "logs"), s.job or "", s.gcp, s.follow, s.poll_interval, s.extra)
