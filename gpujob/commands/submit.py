"""``gpujob submit`` and ``gpujob local``: load, override, check, build the request once, stage
the trainer's packages, then print the request (``--dry-run``), send it, or run the job here.

The service is chosen once (``--service``) and asked, never tested: whether the config is in a
form of its own (``Service.read``), its checks (``checks.engine``), its request
(``Service.request``), whether it checks quota and tries choices of region and strategy
(``Capability.PLACEMENT``, ``commands.failover``), and what its replicas see in a local run
(``Service.local``)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from gpujob.commands.packages import Prepared
from gpujob.commands.prepare import Remote, prepare_job, stage
from gpujob.commands.submit_settings import SubmitSettings
from gpujob.console import CONSOLE
from gpujob.errors import UsageError

if TYPE_CHECKING:
    from gpujob.services.base import Service


def run_local(settings: SubmitSettings, service: Service, prepared: Prepared) -> int:
    """Run the checked job on this machine (``--local``, ``gpujob local``), as the service's
    replicas would see it."""
    from gpujob.local.cluster import LocalOptions
    from gpujob.local.run import run_local as run_here

    assert prepared.doc is not None, "a local run prepares the config, not a request"
    options = LocalOptions(service, package_path=settings.package_path,
                           catalog=settings.catalog, job=settings.job_options(),
                           packages=prepared.local_packages)
    if settings.max_local_replicas is not None:
        options.max_replicas = settings.max_local_replicas
    if settings.grace_period is not None:
        options.grace_period = settings.grace_period
    if settings.preempt_after is not None:
        from gpujob.local.drill import parse

        options.drill = parse(settings.preempt_after, settings.grace_period,
                              settings.recover or 0)
    elif settings.recover:
        raise UsageError("--recover starts a local run again after the drill's preemption "
                         "(a trainer's own failure is not recovered)",
                         "give --preempt-after SECONDS|FILE too")
    return run_here(prepared.doc, options)


def execute(settings: SubmitSettings) -> int:
    """Check the job, then run it here, print its request (``--dry-run``), or send it."""
    from gpujob import services
    from gpujob.services.base import check_flags
    from gpujob.services.capabilities import Capability

    service = services.get(settings.service)  # a local run reads only its flags
    check_flags(service, settings.given_flags)
    if settings.local:
        service.require(Capability.LOCAL, "a local run")
    elif not settings.dry_run:
        service.require(Capability.JOBS, "gpujob submit (without --dry-run)")
    with tempfile.TemporaryDirectory(prefix="gpujob-build-") as workdir:
        if settings.local:
            return run_local(settings, service, prepare_job(settings, service, Path(workdir)))
        if settings.dry_run:
            return _dry_run(settings, service, prepare_job(settings, service, Path(workdir)))
        remote = Remote(settings, service)
        from gpujob.commands import failover, failover_send

        if failover.applies(settings, service):  # the quota preflight, the choices
            return failover_send.run(settings, service, Path(workdir), remote)
        prepared = prepare_job(settings, service, Path(workdir), remote)
        return _send(settings, service, prepared, remote)


def _dry_run(settings: SubmitSettings, service: Service, prepared: Prepared) -> int:
    """Say what would be staged and sent (stderr), and print the request's body (stdout): the
    request a submit would send."""
    from gpujob.packages.staging import human_size

    for upload in prepared.uploads:
        CONSOLE.err(f"Dry run: would stage {upload.path.name} "
                    f"({human_size(upload.digest.size)}) at {upload.uri} unless it is there "
                    "already (nothing uploaded)")
    request = prepared.request
    assert request is not None, "a dry-run prepares a request"
    CONSOLE.err(f"Dry run: would {request.method} this {request.noun} to {request.url} "
                "(nothing sent)" + ("" if settings.project or not request.project_scoped
                                    else "; no project given (--project or GPUJOB_PROJECT)"))
    if prepared.cost is not None:
        for line in service.describe_costs([(None, prepared.cost)]):
            CONSOLE.err(line)
    if request.media == "yaml" and settings.output_format != "json":
        import yaml

        CONSOLE.out(yaml.safe_dump(request.body, sort_keys=False, allow_unicode=True,
                                   width=100))
    else:
        CONSOLE.json(request.body)
    return 0


def _send(settings: SubmitSettings, service: Service, prepared: Prepared,
          remote: Remote) -> int:
    """Stage the packages, then create the job in the service and follow it as asked."""
    from gpujob.commands import jobs

    client = remote.open()
    if prepared.cost is not None and settings.output_format == "text":
        # what the job will cost an hour and at most, said before money is spent (the JSON
        # envelope has it too; the dry-run's prices line, with its sources, is left out)
        for line in service.describe_costs([(None, prepared.cost)]):
            if line.startswith(("cost:", "worst case:")):
                CONSOLE.err(line)
    stage(client, prepared)
    assert prepared.request is not None, "a submit prepares a request"
    follow = jobs.Follow(settings.wait, settings.stream_logs, settings.poll_interval)
    return jobs.submit(service, prepared.request, client, settings.output_format, follow,
                       warnings=[f.as_dict() for f in prepared.warnings],
                       cost=prepared.cost.as_dict() if prepared.cost is not None else None)
