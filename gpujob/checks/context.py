"""What a rule sees: the typed job view, the catalog in use, and the helpers that turn what it
finds into findings at the place the user wrote. ``Checking`` is what every service's rules
share; ``Context`` adds AI Platform's catalog (Vertex AI's rules have ``rules.vertex``'s)."""

from __future__ import annotations

from collections.abc import Callable

from gpujob.catalog import Catalog, ScaleTier
from gpujob.checks.registry import Rule
from gpujob.config.job import TI, JobView, Replica
from gpujob.findings import Finding, JsonPath, Location
from gpujob.suggest import did_you_mean

REGION_CHECKS_OFF = "(a warning: region checks are off)"


class Checking:
    """What the rules of every service see: the job (its typed view), and how a rule adds a
    finding at the place the user wrote. ``refused``: the paths the schema refused; the rules
    stay quiet about those values (and what they hold), so one mistake gives one message.
    ``relax_region``: region rules report warnings (--no-region-check, local runs)."""

    def __init__(self, job: JobView, locate: Callable[..., Location], refused: set[JsonPath],
                 *, relax_region: bool) -> None:
        self.job = job
        self.ti = job.training_input
        self.replicas = job.replicas
        self.refused = refused
        self.relax_region = relax_region
        self.findings: list[Finding] = []
        self.rule: Rule | None = None  # the rule running, whose id and severity emit uses
        self._locate = locate
        self._warned: set[str] = set()

    def broken(self, path: JsonPath) -> bool:
        """The schema refused this value (or what holds it)."""
        refused = self.refused
        return bool(refused) and any(path[:n] in refused for n in range(1, len(path) + 1))

    def region(self) -> str | None:
        """The job's region, unless the schema refused it."""
        region = self.job.region
        return None if region is None or self.broken((TI, "region")) else region

    def misspelt(self, field: str) -> bool:
        """trainingInput holds an unknown key that may be a misspelling of ``field`` (the schema
        reports it with a did-you-mean; saying ``field`` is missing would repeat it). A clear
        misspelling stands in for its key (``gpujob.checks.typos``): this is about the others."""
        return any(did_you_mean(key, [field]) == field
                   for key in self.ti if (TI, key) in self.refused)

    def where(self, path: JsonPath) -> Location:
        """Where the user wrote ``path`` (to name another place in a message)."""
        return self._locate(path)

    # -- findings ------------------------------------------------------------------------------

    def emit(self, path: JsonPath, message: str, hint: str | None = None, *,
             key: bool = False) -> None:
        """A finding of the running rule at ``path`` (its key with ``key=True``), unless the
        schema refused that value already."""
        rule = self.rule
        assert rule is not None, "emit runs inside a rule"
        if self.broken(path):
            return
        severity = rule.severity
        if rule.region and self.relax_region:
            severity = "warning"
            hint = (hint + "; " if hint else "") + REGION_CHECKS_OFF
        self.findings.append(Finding(severity, rule.id, message, path,
                                     self._locate(path, key=key), hint))

    def once(self, token: str, path: JsonPath, message: str, hint: str | None = None) -> None:
        """``emit``, the first time ``token`` comes up in this job (a warning about K80s is
        given once, however many replicas use them)."""
        assert self.rule is not None, "once runs inside a rule"
        token = f"{self.rule.id}:{token}"
        if token not in self._warned:
            self._warned.add(token)
            self.emit(path, message, hint)


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
