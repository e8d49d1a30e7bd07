"""The one way a submit reaches the service: every submit, of every service, with or without
the quota preflight and the choices (``failover``), is a ``Plan`` (one choice for a plain
submit) that goes check -> request -> build -> stage -> send -> follow (``run``). It stages
once, creates in the first choice left (``Plan.create``), moves on after a refusal for quota or
capacity (or, when the job is watched, a FAILED end for capacity before it ran), and never
leaves two jobs alive.

The trainer's package is staged once, in the staging bucket every choice's job reads it from (a
Cloud Storage bucket is readable from every region; a multi-region bucket keeps the reads near).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, RemoteError
from gpujob.terminal import printable

if TYPE_CHECKING:
    from pathlib import Path

    from gpujob.services.base import Created, Request, Service
    from gpujob.submit.failover import Choice, Passed, Plan
    from gpujob.submit.settings import SubmitSettings


def run(settings: SubmitSettings, service: Service, workdir: Path) -> int:
    """``submit``, its steps in order, so that nothing is built or uploaded for a job that
    cannot be sent: every choice checked and the first one's findings reported (exit 1), its
    request (in the project the client opens), where its packages go (exit 2), the remote
    side's access (exit 3, when there is something to stage: else the create is the only
    request, and its refusal says the same), the quota preflight (exit 1), the build (into
    ``workdir``), then ``send``."""
    from gpujob.submit.failover import Plan
    from gpujob.submit.prepare import Remote, build, locate, make_request

    remote = Remote(settings, service)
    plan = Plan(settings, service, remote)
    first, checked = plan.check()
    request = make_request(first, service, checked.job, remote)
    location = locate(checked, first)
    if location is not None:
        remote.open().check_access(request)
    plan.request(plan.left[0], request)
    plan.check_quota()
    plan.built = build(checked, first, workdir, location, request)
    return send(plan, settings)


def send(plan: Plan, settings: SubmitSettings) -> int:
    """Stage the packages the plan built, create the job in the first choice left that takes
    it (``Plan.create``); follow it as asked."""
    from gpujob.submit.prepare import stage

    prepared = plan.built
    assert prepared is not None, "a plan is built before it is sent"
    client = plan.remote.open()
    if prepared.cost is not None and settings.output_format == "text" and not plan.says_choice:
        # what the job will cost an hour and at most, said before money is spent (the JSON
        # envelope has it too; the dry-run's prices line, with its sources, is left out; a
        # plan of choices says the chosen one's once it is made: _report)
        _say_cost(plan, prepared.cost, "")
    if stage(client, prepared) and len(plan.left) > 1:
        assert prepared.location is not None
        count = len(prepared.uploads)
        CONSOLE.err(f"note: every choice's job reads the package{'s' if count > 1 else ''} "
                    f"from {prepared.location.url} (a bucket is readable from every region; "
                    "a multi-region bucket keeps the reads near)")
    if settings.recover:  # every choice's job is attempt 1 of one lineage
        from gpujob.submit.recover import label_first

        label_first(plan)
    for index, choice in enumerate(plan.left):
        last = index == len(plan.left) - 1
        request = plan.staged(choice)
        try:
            created = plan.create(choice)
        except RemoteError as exc:
            stopped = _refused(plan, choice, exc, request, last)
        else:
            stopped = EXIT_INTERRUPTED if created is None else \
                _report(plan, settings, choice, created, request, last)
        if stopped is not None:
            return stopped
    raise AssertionError("the loop returns or raises on its last choice")


def _refused(plan: Plan, choice: Choice, exc: RemoteError, request: Request,
             last: bool) -> int | None:
    """After ``choice``'s create was refused (``exc``): None to try the next choice (a
    refusal for room, nothing of it alive); an exit code (130: interrupted while making
    sure); else the refusal, raised."""
    from gpujob.submit.create import clean_up
    from gpujob.submit.failover import Passed

    placement = plan.placement()
    why = placement.refused_for_room(exc, request) if placement is not None else None
    if placement is not None and why is not None:
        # it may have made its job all the same: none may live on
        try:
            stopped = clean_up(placement, exc, request, not last)
        except RemoteError:
            _tell_passed(plan)
            raise
        if stopped is not None:
            return stopped
    if why is None or last:
        _tell_passed(plan)
        raise exc
    _pass(plan, Passed(choice, why))
    return None


def _report(plan: Plan, settings: SubmitSettings, choice: Choice, created: Created,
            request: Request, last: bool) -> int | None:
    """Say what ``choice``'s create made, then follow the job as asked: the exit code; None
    when it ended FAILED for want of room before it ran and another choice is left."""
    from gpujob.services.base import JobRef
    from gpujob.submit import follow as following
    from gpujob.submit import output
    from gpujob.submit.create import Follow, announce, follow_to_end, left_running
    from gpujob.submit.failover import Passed

    service, client = plan.service, plan.remote.open()
    prepared = plan.built
    assert prepared is not None
    status = service.status(created.raw)
    job_id = announce(service, status, request, client.project, created.recovered)
    why = plan.why(choice)
    if len(plan.choices) > 1:
        CONSOLE.err(f"Chose {choice.label(plan.own)}: {why}.")
        _tell_passed(plan, choice)
    chosen = plan.checks[choice].cost  # the choice's own: its region's and strategy's price
    if plan.says_choice and chosen is not None and settings.output_format == "text":
        _say_cost(plan, chosen, "  ")  # its $/hour and at most, where it was made
    commands = service.commands(job_id, client.project, status.location)
    extra: dict[str, Any] = {"warnings": [f.as_dict() for f in prepared.warnings]}
    if chosen is not None:
        extra["cost"] = chosen.as_dict()
    if plan.says_choice:
        extra["failover"] = plan.summary(choice, why)
    watch = settings.wait or settings.stream_logs or bool(settings.recover)
    # the job's ID is the result: at once, unless a stockout or recovery may still replace it
    early = settings.output_format == "text" and (last or not watch) and not settings.recover
    if early:
        CONSOLE.line(printable(job_id))
    if not watch:
        return left_running(service, created.raw, commands, settings.output_format, extra)
    if settings.recover:  # the attempts, followed one at a time (submit/recover.py)
        from gpujob.submit.recover import after_submit

        return after_submit(plan, settings, choice, created.raw, extra)
    final = follow_to_end(service, client, client.resolve(JobRef(job_id)), created.raw,
                          status.state, commands, Follow(
                              settings.wait, settings.stream_logs, settings.poll_interval))
    if final is None:
        if settings.output_format == "text" and not early:
            CONSOLE.line(printable(job_id))  # the result, as for any followed job
        return EXIT_INTERRUPTED
    placement = plan.placement()
    stockout = placement.stocked_out(final) if placement is not None else None
    if stockout is not None and not last:
        _pass(plan, Passed(choice, f"job {job_id} ended FAILED before it ran: {stockout}"))
        return None
    if settings.output_format == "text" and not early:
        CONSOLE.line(printable(job_id))
    if settings.output_format == "json":
        CONSOLE.json(output.envelope(service, final, **extra))
    return following.outcome(service, final, client.project)


def _say_cost(plan: Plan, cost: Any, indent: str) -> None:
    for line in plan.service.describe_costs([(None, cost)]):
        if line.startswith(("cost:", "worst case:")):
            CONSOLE.err(f"{indent}{line}")


def _pass(plan: Plan, passed: Passed) -> None:
    plan.passed.append(passed)
    CONSOLE.err(f"note: {passed.choice.label(plan.own)}: {passed.reason}; trying the next "
                "choice")


def _tell_passed(plan: Plan, taken: Choice | None = None) -> None:
    for passed in plan.passed_before(taken):
        CONSOLE.err(f"  passed over {passed.choice.label(plan.own)}: {passed.reason}")
