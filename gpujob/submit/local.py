"""A submit's job run on this machine (``--local``, ``gpujob local``), as the service's
replicas would see it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.errors import UsageError

if TYPE_CHECKING:
    from gpujob.services.base import Service
    from gpujob.submit.packages import Prepared
    from gpujob.submit.settings import SubmitSettings


def run(settings: SubmitSettings, service: Service, prepared: Prepared) -> int:
    """Run the checked job (``prepared.doc``) with the packages it installs."""
    from gpujob.local.cluster import LocalOptions
    from gpujob.local.run import run_local as run_here

    assert prepared.doc is not None, "a local run prepares the config, not a request"
    options = LocalOptions(settings.check, package_path=settings.package_path,
                           packages=prepared.local_packages)
    if settings.max_local_replicas is not None:
        options.max_replicas = settings.max_local_replicas
    if settings.grace_period is not None:
        options.grace_period = settings.grace_period
    if settings.preempt_after is not None:  # the preemption drill (gpujob.local.drill)
        from gpujob.local.drill import parse

        options.drill = parse(settings.preempt_after, settings.grace_period,
                              settings.recover or 0)
    elif settings.recover:
        raise UsageError("--recover starts a local run again after the drill's preemption "
                         "(a trainer's own failure is not recovered)",
                         "give --preempt-after SECONDS|FILE too")
    return run_here(prepared.doc, options)
