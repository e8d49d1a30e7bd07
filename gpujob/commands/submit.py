"""``gpujob submit`` and ``gpujob local``: check the job, then run it here, print its request
(``--dry-run``), or send it, each through ``gpujob.submit``'s steps. The service is chosen once
(``--service``) and asked, never tested."""

from __future__ import annotations

import tempfile
from pathlib import Path

from gpujob.submit.settings import SubmitSettings


def execute(settings: SubmitSettings) -> int:
    """Check the job, then run it here, print its request (``--dry-run``), or send it."""
    from gpujob.errors import UsageError
    from gpujob.services.capabilities import Capability, check_flags
    from gpujob.submit import dry_run, local, send
    from gpujob.submit.prepare import prepare_job

    settings = settings.with_catalog()
    service = settings.check.service
    check_flags(service, settings.given_flags)  # a local run reads only its flags
    if settings.recover_exit_codes and not settings.recover:
        raise UsageError("--recover-on-exit-codes is for a job followed with --recover N",
                         "add --recover N: the number of times the job may be created again")
    if settings.local:
        service.require(Capability.LOCAL, "a local run")
    elif not settings.dry_run:
        if settings.recover:
            service.require(Capability.RECOVER, "--recover")
        service.require(Capability.JOBS, "gpujob submit (without --dry-run)")
    with tempfile.TemporaryDirectory(prefix="gpujob-build-") as workdir:
        if settings.local:
            return local.run(settings, service, prepare_job(settings, service, Path(workdir)))
        if settings.dry_run:
            return dry_run.show(settings, service, prepare_job(settings, service, Path(workdir)))
        return send.run(settings, service, Path(workdir))
