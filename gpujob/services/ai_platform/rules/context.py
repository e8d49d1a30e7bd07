"""What AI Platform's rules see: the job and the helpers every service's rules share
(``gpujob.checks.context.Checking``), over AI Platform's catalog."""

from __future__ import annotations

from collections.abc import Callable

from gpujob.checks.context import Checking
from gpujob.config.job import TI, JobView, Replica
from gpujob.findings import JsonPath, Location
from gpujob.services.ai_platform.records import Catalog, ScaleTier

AI_PLATFORM = ("ai-platform",)  # the services AI Platform's rules are registered for


class Context(Checking):
    """One job being checked for AI Platform Training, over its catalog."""

    def __init__(self, job: JobView, catalog: Catalog, locate: Callable[..., Location],
                 refused: set[JsonPath], *, relax_region: bool) -> None:
        super().__init__(job, locate, refused, relax_region=relax_region)
        self.catalog = catalog
        self._gpus: list[tuple[str, JsonPath, str]] | None = None
        self.tier_name = None if self.broken((TI, "scaleTier")) else job.scale_tier
        self.tier: ScaleTier | None = catalog.scale_tiers.get(self.tier_name or "")
        # the config describes the cluster itself (scale tier CUSTOM, or none given)
        self.custom = self.tier_name is None or (self.tier is not None and self.tier.custom)

    # -- what the job is -----------------------------------------------------------------------

    def active(self) -> list[Replica]:
        """Replicas that will run."""
        return self.job.active()

    def gpus_in_use(self) -> list[tuple[str, JsonPath, str]]:
        """(GPU type, path of what asks for it, who asks) for every GPU the job will use: the
        scale tier's, those attached to Compute Engine machines, those built into legacy
        machine types."""
        if self._gpus is None:
            cat = self.catalog
            out: list[tuple[str, JsonPath, str]] = []
            if self.tier and self.tier.gpu:
                out.append((self.tier.gpu[0], (TI, "scaleTier"), f"scaleTier {self.tier_name}"))
            for r in self.active() if self.custom else []:
                machine = cat.machine_types.get(r.machine or "")
                gpu = cat.gpu_types.get(r.accel_type or "")
                if gpu and gpu.kind == "gpu" and machine and machine.category == "compute_engine":
                    out.append((gpu.api_name, (*r.accel_path, "type"), f"the {r.label}"))
                elif machine and machine.category == "legacy" and machine.built_in:
                    out.append((machine.built_in[0], r.type_path,
                                f"the {r.label}'s {machine.name}"))
            self._gpus = out
        return self._gpus
