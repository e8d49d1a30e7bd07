"""AI Platform Training's rules over a Job config: the cluster, its GPUs and TPUs, what it runs,
a tuning study, where it runs and what a submit needs. Importing this package registers them
(``gpujob.checks.registry``) in the order they run and are listed."""

from __future__ import annotations

from collections.abc import Callable

from gpujob.checks.registry import arrange
from gpujob.checks.rules import run
from gpujob.config.job import JobView
from gpujob.findings import Finding, JsonPath, Location
from gpujob.services.ai_platform.records import Catalog
from gpujob.services.ai_platform.rules import (
    accelerators,
    cluster,
    program,
    study,
    submission,
    tpu,
    where,
)
from gpujob.services.ai_platform.rules.context import Context

arrange(cluster, accelerators, tpu, program, study, where, submission)


def check(job: JobView, catalog: Catalog, locate: Callable[..., Location],
          refused: set[JsonPath], *, submit: bool, relax_region: bool) -> list[Finding]:
    """Every rule finding for one job, in the order the rules found them (``submit``: the job
    is about to be sent; ``relax_region``: region rules give warnings)."""
    if not job.training_input:
        return []
    ctx = Context(job, catalog, locate, refused, relax_region=relax_region)
    return run(ctx, "ai-platform", submit=submit)
