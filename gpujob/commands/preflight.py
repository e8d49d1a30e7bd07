"""``gpujob preflight``: the checks of ``submit`` and the quota preflight of every choice of
region and strategy, for CI; nothing is built, uploaded or created (``failover.check_only``).
A service with a preflight of its own (``preflight(job, gcp, extra, output_format)``: GKE
reads its cluster) runs that, on the checked job, instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.submit.settings import SubmitSettings


def execute(settings: SubmitSettings, availability: bool = False) -> int:
    """The choice submit would take (stdout), or exit 1 when no choice's quota would do."""
    from gpujob.services.capabilities import Capability, check_flags
    from gpujob.submit.failover import check_only
    from gpujob.submit.prepare import Remote

    settings = settings.with_catalog()
    service = settings.check.service
    service.require(Capability.PREFLIGHT, "gpujob preflight")
    if not service.supports(Capability.PLACEMENT):  # a preflight of its own (GKE: the cluster)
        from gpujob.submit.prepare import check_config, report_or_fail

        given = settings.given_flags
        # with --availability, --project names where the advice is asked (GKE: the cluster's)
        check_flags(service, [f for f in given if not (availability and f == "--project")])
        checked = check_config(settings, service)
        report_or_fail(settings, checked.findings)
        asked = (settings.gcp.project if "--project" in given else None,
                 settings.gcp.region if "--region" in given else None)
        return service.preflight(checked.job, settings.gcp, settings.check.job.extra,
                                 settings.output_format, asked if availability else None)
    check_flags(service, settings.given_flags)
    return check_only(settings, service, Remote(settings, service), availability)
