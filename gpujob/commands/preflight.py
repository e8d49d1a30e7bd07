"""``gpujob preflight``: the checks of ``submit`` and the quota preflight of every choice of
region and strategy, for CI; nothing is built, uploaded or created (``failover.check_only``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.commands.submit_settings import SubmitSettings


def execute(settings: SubmitSettings) -> int:
    """The choice submit would take (stdout), or exit 1 when no choice's quota would do."""
    from gpujob import services
    from gpujob.commands.failover import check_only
    from gpujob.commands.prepare import Remote
    from gpujob.services.base import check_flags
    from gpujob.services.capabilities import Capability

    service = services.get(settings.service)
    service.require(Capability.PLACEMENT, "gpujob preflight")
    check_flags(service, settings.given_flags)
    return check_only(settings, service, Remote(settings, service))
