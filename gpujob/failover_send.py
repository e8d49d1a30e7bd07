"""The creates of a submit with choices (``gpujob.failover``): stage once, create in the first
choice left, move on after a refusal for quota or capacity (or, when the job is watched, a
FAILED end for capacity before it ran), never leaving two jobs alive."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, EXIT_OK, InvalidConfig, RemoteError
from gpujob.terminal import printable

# capacity words of Vertex AI and Compute Engine answers besides "resources are insufficient"
# (gpujob.gcp.aiplatform): a zone's stockout
_STOCKOUT = re.compile(r"stockout|resource_pool_exhausted|does not have enough resources",
                       re.IGNORECASE)

if TYPE_CHECKING:
    from pathlib import Path

    from gpujob.backends.base import Backend, JobClient, Request
    from gpujob.failover import Choice, Failover, PrepareJob
    from gpujob.submit_packages import Prepared
    from gpujob.submit_settings import SubmitSettings


def refused_for_room(exc: RemoteError, region: str) -> str | None:
    """Why a create refusal is one for quota or capacity in ``region`` (another region or
    strategy may do); None: any other refusal, which another choice would meet too."""
    from googleapiclient.errors import HttpError

    from gpujob.gcp.aiplatform import capacity_or_quota, resource_quota
    from gpujob.gcp.errors import parse_http_error

    cause = exc.__cause__
    if not isinstance(cause, HttpError):
        return None
    error = parse_http_error(cause)
    if resource_quota(error):
        return f"Vertex AI refused the create for quota: {' '.join(error.message.split())}"
    if capacity_or_quota(error.message, region) is not None or _STOCKOUT.search(error.message):
        return f"Vertex AI refused the create for capacity: {' '.join(error.message.split())}"
    return None


def stocked_out(raw: dict[str, Any]) -> str | None:
    """Why a job that ended FAILED before it ever ran failed for capacity (a stockout) or
    quota; None: it ran, or failed otherwise."""
    from gpujob.gcp.aiplatform import capacity_or_quota

    if raw.get("state") != "JOB_STATE_FAILED" or raw.get("startTime"):
        return None
    message = " ".join(str((raw.get("error") or {}).get("message") or "").split())
    if capacity_or_quota(message, None) is not None or _STOCKOUT.search(message):
        return message
    return None


def confirm_none(client: JobClient, request: Request, region: str) -> None:
    """After a refused create: cancel any job that carries its submission label in ``region``
    after all, so that moving on leaves one job alive at most."""
    from gpujob.gcp.aiplatform import JobName, submission_filter
    from gpujob.gcp.vertex_create import labelled
    from gpujob.vertex_api import SUBMISSION_LABEL

    token = request.body["labels"][SUBMISSION_LABEL]
    vertex = client.vertex  # type: ignore[attr-defined]
    place = vertex.place(region, _collection(request))
    for job in labelled(vertex.list(place, submission_filter(token)), token):
        name = JobName.parse(str(job.get("name", "")))
        if name is None or job.get("state") in _ENDED:
            continue
        state = vertex.cancel(name)
        CONSOLE.err(f"note: job {name.id} of the refused create was made after all; "
                    f"{'it is ' + state if state else 'cancelled it'}")


_ENDED = {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
          "JOB_STATE_CANCELLING", "JOB_STATE_EXPIRED", "JOB_STATE_PARTIALLY_SUCCEEDED"}


def _collection(request: Request) -> str:
    return request.url.partition("?")[0].rsplit("/", 1)[1]


def _stage(plan: Failover, prepared: Prepared) -> None:
    remote = plan.remote
    assert remote is not None
    session = remote.session
    if not (prepared.uploads and prepared.location is not None and session is not None):
        return
    from gpujob.gcp.storage import StorageClient

    count = len(prepared.uploads)
    session.echo(f"Staging {count} package{'s' if count > 1 else ''} in "
                 f"{prepared.location.url}:")
    StorageClient(session).stage(prepared.uploads, session.echo)
    if len(plan.left) > 1:
        session.echo(f"note: every choice's job reads the package{'s' if count > 1 else ''} "
                     f"from {prepared.location.url} (a bucket is readable from every region; "
                     "a multi-region bucket keeps the reads near)")


def send(plan: Failover, settings: SubmitSettings, prepared: Prepared) -> int:
    """Create the job in the first choice left that takes it; follow it as asked."""
    from gpujob.backends import follow as following
    from gpujob.backends import output
    from gpujob.backends import remote as remote_jobs
    from gpujob.failover import Passed, region_of

    remote = plan.remote
    assert remote is not None
    client = remote.open()
    backend = plan.backend
    _stage(plan, prepared)
    watch = settings.wait or settings.stream_logs
    warnings = [f.as_dict() for f in prepared.warnings]
    for index, choice in enumerate(plan.left):
        last = index == len(plan.left) - 1
        request = plan.request_for(prepared.doc.data, choice, prepared.region)
        region = region_of(request.url)
        try:
            created = remote_jobs.create_once(client, request, backend)
        except RemoteError as exc:
            why = refused_for_room(exc, region)
            if why is None or last:
                _tell_passed(plan)
                raise
            try:
                confirm_none(client, request, region)
            except RemoteError as looked:
                _tell_passed(plan)
                raise RemoteError(f"{exc.message}; whether that create made a job after all "
                                  f"could not be checked ({looked.message}), so no other region "
                                  "or strategy was tried", exc.hint) from exc
            _pass(plan, Passed(choice, why))
            continue
        if created is None:
            return EXIT_INTERRUPTED
        status = backend.status(created.raw)
        job_id = remote_jobs.announce(backend, status, request, client.project,
                                       created.recovered)
        why = plan.why(choice)
        if len(plan.choices) > 1:
            CONSOLE.err(f"Chose {choice.label(plan.own)}: {why}.")
            _tell_passed(plan, choice)
        commands = backend.commands(job_id, client.project, status.location)
        extra = {"warnings": warnings, "failover": plan.summary(choice, why)}
        # the job's ID is the result: at once, unless a stockout may still replace the job
        early = settings.output_format == "text" and (last or not watch)
        if early:
            CONSOLE.line(printable(job_id))
        if not watch:
            CONSOLE.err("Follow it with:")
            for command in (commands.describe, commands.wait, commands.follow_logs):
                CONSOLE.err(f"  {command}")
            if settings.output_format == "json":
                CONSOLE.json(output.envelope(backend, created.raw, **extra))
            return EXIT_OK
        final = _follow(settings, client, backend, created.raw, job_id, status.state, commands,
                        printed=early)
        if final is None:
            return EXIT_INTERRUPTED
        stockout = stocked_out(final)
        if stockout is not None and not last:
            _pass(plan, Passed(choice, f"job {job_id} ended FAILED before it ran: {stockout}"))
            continue
        if settings.output_format == "text" and not early:
            CONSOLE.line(printable(job_id))
        if settings.output_format == "json":
            CONSOLE.json(output.envelope(backend, final, **extra))
        return following.outcome(backend, final, client.project)
    raise AssertionError("the loop returns or raises on its last choice")


def _follow(settings: SubmitSettings, client: JobClient, backend: Backend, raw: dict[str, Any],
            job_id: str, state: str, commands: Any, printed: bool) -> dict[str, Any] | None:
    """Wait for the job, or stream its logs, to its end: the job as it ended; None after
    Ctrl-C (said as for any followed job, with the job's ID on stdout)."""
    from gpujob.backends import follow as following
    from gpujob.backends.base import JobRef

    ref = client.resolve(JobRef(job_id))
    try:
        if settings.stream_logs:
            return following.stream(backend, client, ref, raw, settings.poll_interval)
        return following.wait(backend, client, ref, settings.poll_interval, None,
                              last_state=state)
    except KeyboardInterrupt:
        if settings.output_format == "text" and not printed:
            CONSOLE.line(printable(job_id))
        if settings.stream_logs:
            following.stopped("streaming the logs of", job_id, commands.follow_logs)
        else:
            following.stopped("waiting for", job_id, commands.wait)
        return None


def _pass(plan: Failover, passed: Any) -> None:
    plan.passed.append(passed)
    CONSOLE.err(f"note: {passed.choice.label(plan.own)}: {passed.reason}; trying the next "
                "choice")


def _tell_passed(plan: Failover, taken: Choice | None = None) -> None:
    for passed in plan.passed_before(taken):
        CONSOLE.err(f"  passed over {passed.choice.label(plan.own)}: {passed.reason}")


def run(settings: SubmitSettings, backend: Backend, workdir: Path,
        prepare_job: PrepareJob) -> int:
    """``submit`` to Vertex AI with the quota preflight and the choices: ``submit.run`` hands
    over its ``prepare_job`` (the checks, then the build before which the preflight runs)."""
    from gpujob.failover import Failover, Opened

    plan = Failover(settings, backend)
    first = plan.offline()
    plan.remote = remote = Opened(first, backend)
    checked: list[bool] = []

    def before_build(doc: Any, region: str | None) -> None:
        remote.check_access(doc, region)
        plan.check_quota(doc.data, region)
        checked.append(True)

    prepared = prepare_job(first, workdir, before_build)
    if not checked:
        plan.check_quota(prepared.doc.data, prepared.region)
    if not plan.left:  # only an unknown quota leaves none without a refusal: not reached
        raise InvalidConfig("no region and strategy left to try")
    try:
        return send(plan, first, prepared)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
