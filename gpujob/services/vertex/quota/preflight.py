"""The quota preflight of a Vertex AI job: will the project's quota in the region hold it?

What the job needs: per quota metric, the GPUs of its pools (by accelerator type) and their
vCPUs (by machine family), replicas counted, a tuning job's trial times its parallel trials; on
demand, or from the preemptible metric for Spot and flex-start jobs (the metric names are data:
``quota`` in the Vertex catalog, with their sources). The limit: Service Usage
(``gpujob.gcp.serviceusage``), every metric's in one listing. In use: what the project's
running, pending and queued custom jobs and tuning jobs in the region hold, counted from their
``list``. Short when need + in use > limit; when the need alone is above the limit, the jobs are
not listed (their count cannot change the verdict).

A limit that cannot be read (no permission, no answer, a metric Service Usage does not know)
makes the check unknown, not failed: the caller warns once and goes on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import RemoteError
from gpujob.services.vertex.paths import count_of, spec_of, strategy_of
from gpujob.services.vertex.quota import metrics as quota_metrics

if TYPE_CHECKING:
    from gpujob.gcp.serviceusage import Limits, ServiceUsageClient
    from gpujob.services.vertex.jobs.api import VertexClient

_VCPUS = re.compile(r"-(\d+)$")


def _catalog() -> Any:
    """The built-in Vertex catalog (read once per run)."""
    from gpujob.catalog import files
    from gpujob.services.vertex import catalog

    return files.built_in(catalog)


def quota_data() -> Mapping[str, Any]:
    """The ``quota`` section of the built-in Vertex catalog: the metric names with their
    sources (read once, with the catalog)."""
    quota = _catalog().quota
    if quota is None:
        raise AssertionError("the built-in Vertex catalog has no quota section")
    return quota


@dataclass(frozen=True)
class Need:
    """``count`` of ``what`` (``NVIDIA_TESLA_T4 GPUs``) against quota ``metric``."""

    metric: str
    count: int
    what: str
    accelerator: str | None = None  # the GPU, for a GPU metric


@dataclass
class Shortfall:
    """A metric whose limit in ``region`` does not hold the job beside the jobs there."""

    need: Need
    region: str
    limit: int
    in_use: int | None  # None: not counted, the need alone is above the limit
    enough_in: list[str] = field(default_factory=list)  # regions whose limit would do

    def line(self) -> str:
        held = "" if self.in_use is None else \
            f", and its running and pending jobs hold {self.in_use}"
        return (f"{self.region}: the job needs {self.need.count} {self.need.what} "
                f"({self.need.metric}); the project's limit there is {self.limit}{held}")

    def as_dict(self) -> dict[str, Any]:
        return {"region": self.region, "metric": self.need.metric, "what": self.need.what,
                "need": self.need.count, "limit": self.limit,
                **({} if self.in_use is None else {"inUse": self.in_use}),
                "enoughIn": self.enough_in}


@dataclass
class Verdict:
    """The preflight of one region: short (``shortfalls``), else fine, or not known for some
    metric (``unknown``: why its limit or use could not be read)."""

    region: str
    strategy: str
    shortfalls: list[Shortfall] = field(default_factory=list)
    unknown: str | None = None
    needs: list[Need] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # accelerators with no metric known

    @property
    def short(self) -> bool:
        return bool(self.shortfalls)


def preemptible(strategy: str | None) -> bool:
    return (strategy or "").upper() in quota_data()["preemptible_strategies"]


def _metric(table: dict[str, Any], key: str, strategy: str | None) -> str | None:
    entry = table.get(key)
    if entry is None:
        return None
    return entry.get("preemptible") if preemptible(strategy) else entry.get("on_demand")


def needs(body: dict[str, Any]) -> list[Need]:
    """What the job ``body`` (a CustomJob or HyperparameterTuningJob) draws on, per metric."""
    data = quota_data()
    machines = _catalog().machine_types
    spec, times = spec_of(body)
    strategy = strategy_of(body)
    counts: dict[str, int] = {}
    words: dict[str, tuple[str, str | None]] = {}

    def add(metric: str, count: int, what: str, accelerator: str | None = None) -> None:
        counts[metric] = counts.get(metric, 0) + count
        words.setdefault(metric, (what, accelerator))

    for pool in spec.get("workerPoolSpecs") or []:
        if not isinstance(pool, dict) or not pool:
            continue
        machine = found if isinstance(found := pool.get("machineSpec"), dict) else {}
        replicas = count_of(pool.get("replicaCount"), 1) * times
        machine_type = str(machine.get("machineType") or "")
        found = _draw(machine, machine_type, strategy)
        if found is not None and found.metric:
            add(found.metric, found.count * replicas, found.what, found.key)
        family = machines[machine_type].family if machine_type in machines else ""
        metric = _metric(data["cpus"], family, strategy)
        vcpus = _VCPUS.search(machine_type)
        if metric and vcpus:
            add(metric, int(vcpus.group(1)) * replicas, f"vCPUs ({family} machines)")
    return [Need(metric, count, *words[metric]) for metric, count in counts.items()]


def _draw(machine: dict[str, Any], machine_type: str, strategy: str | None = None
          ) -> quota_metrics.Draw | None:
    """The accelerators of one replica of a pool and their metric (``quota_metrics``)."""
    known = _catalog().machine_types.get(machine_type)
    return quota_metrics.draw(quota_data(), str(machine.get("acceleratorType") or ""),
                              count_of(machine.get("acceleratorCount"), 0),
                              known.tpu if known else None, machine_type,
                              preemptible(strategy))


def unchecked(body: dict[str, Any]) -> list[str]:
    """The accelerators of ``body`` whose quota is not checked, each with why."""
    spec, _ = spec_of(body)
    out: list[str] = []
    for pool in spec.get("workerPoolSpecs") or []:
        machine = pool.get("machineSpec") if isinstance(pool, dict) else None
        if isinstance(machine, dict):
            found = _draw(machine, str(machine.get("machineType") or ""), strategy_of(body))
            line = quota_metrics.unchecked_line(found) if found and not found.metric else ""
            if line and line not in out:
                out.append(line)
    return out


def in_use(jobs: Iterable[dict[str, Any]]) -> dict[str, int]:
    """What ``jobs`` (the region's running, pending and queued custom jobs) hold, per metric."""
    held: dict[str, int] = {}
    for job in jobs:
        for need in needs(job):
            held[need.metric] = held.get(need.metric, 0) + need.count
    return held


def holding_filter() -> str:
    """The list filter of the jobs that hold quota."""
    return " OR ".join(f'state="{state}"' for state in quota_data()["holding_states"])


class Preflight:
    """The quota preflight of one submit: every metric's limits read at once, in one listing
    (each answer gives every region's), the jobs in use listed once per region, and only where
    the limit alone does not decide."""

    def __init__(self, usage: ServiceUsageClient, vertex: VertexClient) -> None:
        self.usage = usage
        self.vertex = vertex
        self._limits: dict[str, Limits] | RemoteError | None = None
        self._held: dict[str, dict[str, int]] = {}
        self._said: set[str] = set()

    def limits(self, metric: str) -> Limits:
        """The metric's limits, from the one reading of them all (a failure too: it is not
        asked again); ``LookupError`` when Service Usage lists no such metric."""
        if self._limits is None:
            try:
                self._limits = self.usage.all_limits(quota_data()["service"])
            except RemoteError as exc:
                self._limits = exc
        if isinstance(self._limits, RemoteError):
            raise self._limits
        if metric not in self._limits:
            raise LookupError(f"Service Usage lists no quota metric {metric} for the project")
        return self._limits[metric]

    def held(self, region: str) -> dict[str, int]:
        """What the project's custom jobs and tuning jobs (their parallel trials) that hold
        quota in ``region`` hold, per metric."""
        if region not in self._held:
            jobs = [job for collection in ("customJobs", "hyperparameterTuningJobs")
                    for job in self.vertex.list(self.vertex.place(region, collection),
                                                holding_filter())]
            self._held[region] = in_use(jobs)
        return self._held[region]

    def check(self, body: dict[str, Any], region: str) -> Verdict:
        """The verdict on ``body`` in ``region``: the metrics whose limit and use could be read
        are checked; ``unknown`` says why the others could not. A need above the limit is
        short whatever the jobs there hold: their listing is left out then."""
        verdict = Verdict(region, strategy_of(body), needs=needs(body),
                          unchecked=unchecked(body))
        for line in verdict.unchecked:  # said once a run, not once a region
            if line not in self._said:
                self._said.add(line)
                CONSOLE.err(f"note: {line}")
        for need in verdict.needs:
            try:
                limits = self.limits(need.metric)
                limit = limits.limit(region)
                if limit is None:  # unlimited
                    continue
                used = None if need.count > limit else self.held(region).get(need.metric, 0)
            except RemoteError as exc:  # this metric unknown; the others still count
                verdict.unknown = verdict.unknown or exc.message
                continue
            except LookupError as exc:
                verdict.unknown = verdict.unknown or str(exc)
                continue
            if used is None or need.count + used > limit:
                verdict.shortfalls.append(Shortfall(
                    need, region, limit, used, enough_in(limits, need, region)))
        return verdict


def enough_in(limits: Limits, need: Need, but: str) -> list[str]:
    """The training regions other than ``but`` whose limit of ``limits`` holds ``need`` (for a
    GPU, among those the catalog lists it in)."""
    catalog = _catalog()
    regions = catalog.training_regions
    if need.accelerator in catalog.gpu_zones:
        zones = catalog.gpu_zones[need.accelerator][1]
        regions = tuple(r for r in regions if any(z.startswith(r + "-") for z in zones))
    def enough(region: str) -> bool:
        try:
            limit = limits.limit(region)
        except LookupError:
            return False
        return limit is None or limit >= need.count

    return [region for region in regions if region != but and enough(region)]


def console_url(project: str) -> str:
    return f"{quota_data()['console']}?project={project}"


def request_hint(shortfall: Shortfall, project: str) -> str:
    """Where to ask for more, and where the limit would already do."""
    short_name = shortfall.need.metric.rsplit("/", 1)[-1]
    text = (f"ask for more at {console_url(project)} (filter on {short_name}, region "
            f"{shortfall.region})")
    if shortfall.enough_in:
        shown = shortfall.enough_in[:8]
        more = f" and {len(shortfall.enough_in) - 8} more" if len(shortfall.enough_in) > 8 else ""
        text += f"; the limit would do in {', '.join(shown)}{more} (--region)"
    return text
