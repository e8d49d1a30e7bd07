"""``gpujob preflight``: the checks of ``submit`` and the quota preflight of every choice of
region and strategy, for CI; nothing is built, uploaded or created (``failover.check_only``).
A service with a preflight of its own (``preflight(job, gcp, extra, output_format)``: GKE
reads its cluster) runs that, on the checked job, instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.errors import UsageError

if TYPE_CHECKING:
    from gpujob.commands.submit_settings import SubmitSettings


def execute(settings: SubmitSettings) -> int:
    """The choice submit would take (stdout), or exit 1 when no choice's quota would do."""
    from gpujob import services
    from gpujob.commands.failover import check_only
    from gpujob.commands.prepare import Remote
    from gpujob.services.base import check_flags

    service = services.get(settings.service)
    own = getattr(service, "preflight", None)  # a service's own preflight (gke: its cluster)
    if own is not None:
        from gpujob.commands.prepare import check_config, report_or_fail

        check_flags(service, settings.given_flags)
        checked = check_config(settings, service)
        report_or_fail(settings, checked.findings)
        return int(own(checked.job, settings.gcp, settings.job_options().extra,
                       settings.output_format))
    if not service.fails_over:
        raise UsageError(f"gpujob preflight reads the quota of a service that checks it before "
                         f"a submit; {service.name} ({service.title}) does not",
                         "add --service vertex (or set GPUJOB_SERVICE=vertex)")
    check_flags(service, settings.given_flags)
    return check_only(settings, service, Remote(settings, service))
