"""The creates of a submit with choices (``failover``): stage once, create in the first choice
left, move on after a refusal for quota or capacity (or, when the job is watched, a FAILED end
for capacity before it ran), never leaving two jobs alive.

The trainer's package is staged once, in the staging bucket every choice's job reads it from (a
Cloud Storage bucket is readable from every region; a multi-region bucket keeps the reads near).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, RemoteError
from gpujob.terminal import printable

if TYPE_CHECKING:
    from pathlib import Path

    from gpujob.commands.failover import Choice, Passed, Plan
    from gpujob.commands.packages import Prepared
    from gpujob.commands.prepare import Remote
    from gpujob.commands.submit_settings import SubmitSettings
    from gpujob.services.base import Request, Service


def run(settings: SubmitSettings, service: Service, workdir: Path, remote: Remote) -> int:
    """``submit`` with the quota preflight and the choices: every choice checked, the first
    one's findings reported and its packages built, the preflight run before the build (or,
    with nothing to build, before the create), then ``send``."""
    from gpujob.commands.failover import Plan
    from gpujob.commands.prepare import prepare_job

    plan = Plan(settings, service, remote)
    plan.offline()
    first = plan.reorder()  # --order: the order and why, before anything is built or sent
    checked: list[bool] = []

    def before_build(request: Request) -> None:
        remote.open().check_access(request)
        plan.request(plan.left[0], request)
        plan.check_quota()
        checked.append(True)

    prepared = prepare_job(first, service, workdir, remote, plan.checks[plan.left[0]],
                           before_build)
    if not checked:
        assert prepared.request is not None, "a submit prepares a request"
        plan.request(plan.left[0], prepared.request)
        plan.check_quota()
    return send(plan, settings, prepared)


def send(plan: Plan, settings: SubmitSettings, prepared: Prepared) -> int:
    """Create the job in the first choice left that takes it; follow it as asked."""
    from gpujob.commands import follow as following
    from gpujob.commands import jobs, output
    from gpujob.commands.failover import Passed
    from gpujob.commands.prepare import stage
    from gpujob.services.base import JobRef

    client = plan.remote.open()
    service = plan.service
    if stage(client, prepared) and len(plan.left) > 1:
        assert prepared.location is not None
        count = len(prepared.uploads)
        CONSOLE.err(f"note: every choice's job reads the package{'s' if count > 1 else ''} "
                    f"from {prepared.location.url} (a bucket is readable from every region; "
                    "a multi-region bucket keeps the reads near)")
    watch = settings.wait or settings.stream_logs
    warnings = [f.as_dict() for f in prepared.warnings]
    cost = {"cost": prepared.cost.as_dict()} if prepared.cost is not None else {}
    for index, choice in enumerate(plan.left):
        last = index == len(plan.left) - 1
        request = plan.request(choice).staged(prepared.uris)
        try:
            created = jobs.create_once(client, request, service)
        except RemoteError as exc:
            why = plan.placement().refused_for_room(exc, request)
            if why is not None:  # it may have made its job all the same: none may live on
                try:
                    stopped = jobs.clean_up(plan.placement(), exc, request, not last)
                except RemoteError:
                    _tell_passed(plan)
                    raise
                if stopped is not None:
                    return stopped
            if why is None or last:
                _tell_passed(plan)
                raise
            _pass(plan, Passed(choice, why))
            continue
        if created is None:
            return EXIT_INTERRUPTED
        status = service.status(created.raw)
        job_id = jobs.announce(service, status, request, client.project, created.recovered)
        why = plan.why(choice)
        if len(plan.choices) > 1:
            CONSOLE.err(f"Chose {choice.label(plan.own)}: {why}.")
            _tell_passed(plan, choice)
        commands = service.commands(job_id, client.project, status.location)
        extra = {"warnings": warnings, **cost, "failover": plan.summary(choice, why)}
        # the job's ID is the result: at once, unless a stockout may still replace the job
        early = settings.output_format == "text" and (last or not watch)
        if early:
            CONSOLE.line(printable(job_id))
        if not watch:
            return jobs.left_running(service, created.raw, commands, settings.output_format,
                                     extra)
        final = jobs.follow_to_end(service, client, client.resolve(JobRef(job_id)),
                                   created.raw, status.state, commands, jobs.Follow(
                                       settings.wait, settings.stream_logs,
                                       settings.poll_interval))
        if final is None:
            if settings.output_format == "text" and not early:
                CONSOLE.line(printable(job_id))  # the result, as for any followed job
            return EXIT_INTERRUPTED
        stockout = plan.placement().stocked_out(final)
        if stockout is not None and not last:
            _pass(plan, Passed(choice, f"job {job_id} ended FAILED before it ran: {stockout}"))
            continue
        if settings.output_format == "text" and not early:
            CONSOLE.line(printable(job_id))
        if settings.output_format == "json":
            CONSOLE.json(output.envelope(service, final, **extra))
        return following.outcome(service, final, client.project)
    raise AssertionError("the loop returns or raises on its last choice")


def _pass(plan: Plan, passed: Passed) -> None:
    plan.passed.append(passed)
    CONSOLE.err(f"note: {passed.choice.label(plan.own)}: {passed.reason}; trying the next "
                "choice")


def _tell_passed(plan: Plan, taken: Choice | None = None) -> None:
    for passed in plan.passed_before(taken):
        CONSOLE.err(f"  passed over {passed.choice.label(plan.own)}: {passed.reason}")
