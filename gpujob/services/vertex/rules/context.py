"""What Vertex AI's rules over an AI Platform config read: the config translated for Vertex AI
(``Translated``: its findings, the request body, and where each value came from), the body's
worker pools (``Pool``), and the context a rule is given (``VertexContext``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from gpujob.checks.context import Checking
from gpujob.config.job import TI, JobView
from gpujob.findings import Finding, JsonPath, Location

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.services.vertex.catalog import VertexCatalog
else:
    from gpujob.tuples import NamedTuple

VERTEX = ("vertex",)
POOL_LABELS = ("the master", "the workers", "the parameter servers", "the evaluators")


class Translated(NamedTuple):
    """The AI Platform config translated for Vertex AI: its findings (notes, warnings, errors
    at the config's values), the request body, and for each value of the body the config's
    path it was made from."""

    findings: list[Finding]
    body: Mapping[str, Any]
    origins: Mapping[JsonPath, JsonPath]


class Pool(NamedTuple):
    """A worker pool of the body, with the config's paths its machine came from."""

    index: int  # type: ignore[assignment]  # 0 master, 1 workers, 2 parameter servers, 3 evaluators
    machine_type: str
    accelerator_type: str | None
    accelerator_count: int | None
    machine_path: JsonPath  # masterType, workerType, … or scaleTier
    type_path: JsonPath  # acceleratorConfig.type, or where the machine came from
    count_path: JsonPath


def pools_of(translated: Translated) -> list[Pool]:
    body, origins = translated.body, translated.origins
    name = "trialJobSpec" if "trialJobSpec" in body else "jobSpec"
    spec = body.get(name)
    specs = spec.get("workerPoolSpecs", []) if isinstance(spec, Mapping) else []
    out = []
    for index, pool in enumerate(specs):
        machine = pool.get("machineSpec") if isinstance(pool, Mapping) else None
        if not isinstance(machine, Mapping) or not machine.get("machineType"):
            continue
        here = (name, "workerPoolSpecs", index, "machineSpec")
        machine_path = origins.get((*here, "machineType"), (TI,))
        type_path = origins.get((*here, "acceleratorType"), machine_path)
        out.append(Pool(index, machine["machineType"], machine.get("acceleratorType"),
                        machine.get("acceleratorCount"), machine_path, type_path,
                        origins.get((*here, "acceleratorCount"), type_path)))
    return out


class VertexContext(Checking):
    """One AI Platform config being checked for Vertex AI, over the Vertex catalog."""

    def __init__(self, job: JobView, catalog: VertexCatalog, locate: Callable[..., Location],
                 refused: set[JsonPath], *, relax_region: bool, translated: Translated) -> None:
        super().__init__(job, locate, refused, relax_region=relax_region)
        self.catalog = catalog
        self.translated = translated
        self.pools = pools_of(translated)
        self._by_rule: dict[str, list[Finding]] = {}
        for finding in translated.findings:
            self._by_rule.setdefault(finding.rule, []).append(finding)

    def adopt(self, rule_id: str) -> None:
        """The translation's findings of rule ``rule_id``, as it made them (notes, warnings
        and errors), but for those about a value the schema refused, and for a field said to
        be missing that the schema reported misspelt (``masterTyp``: its did-you-mean is the
        one message)."""
        self.findings += [f for f in self._by_rule.get(rule_id, ())
                          if not self.broken(f.path) and not self._misspelt_missing(f)]

    def _misspelt_missing(self, finding: Finding) -> bool:
        rule, path = finding.rule.rsplit(".", 1)[-1], finding.path
        if rule == "pool" and path == (TI, "scaleTier"):
            return self.misspelt("masterType")
        field = path[1] if len(path) == 2 and isinstance(path[1], str) else ""
        if rule == "pool" and field.endswith("Count"):
            return self.misspelt(field.replace("Count", "Type"))
        if rule == "package" and field:
            return self.misspelt("pythonModule") or self.misspelt("packageUris")
        if rule == "dropped" and field.endswith("Type") and self._custom_cluster():
            # "workerType is not sent: workerCount is not set": workerConf may be the count
            return self.misspelt(field.replace("Type", "Count"))
        return False

    def _custom_cluster(self) -> bool:
        """The config describes its cluster (scaleTier CUSTOM, or none given), where a *Type
        without its *Count is dropped for want of the count, not for the tier's machines."""
        tier = self.catalog.scale_tiers.get(self.job.scale_tier or "CUSTOM")
        return tier is not None and tier.custom
