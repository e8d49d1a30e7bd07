"""How Vertex AI will schedule a job, checked offline over its CustomJobSpec (a native config's, or
the one an AI Platform config translates to): what the flex-start strategy (Dynamic Workload
Scheduler) takes, reservations and what they do not go with, GPUs whose capacity comes only
through a reservation (or usually through one, or Spot), MIG partitions and the set-up RDMA
machines need. The facts are the Vertex catalog's ``scheduling`` section (dated, with sources);
a catalog without it is not checked here.

The findings are made over the request's paths; ``place`` says where the user wrote each (the
config's path and its place in the file, or the flag that set it), or None for a value the
schema refused, which its own finding is about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from gpujob.findings import Finding, JsonPath, Location, Severity
from gpujob.numbers import as_count, duration_seconds, seconds_in_words
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.records import Scheduling
from gpujob.services.vertex.translate.extras import SPECIFIC_KEY
from gpujob.suggest import and_list

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

FLEX = "vertex.flex-start"
RESERVATION = "vertex.reservation"
CAPACITY = "vertex.capacity"
PARTITION = "vertex.gpu-partition"
RETRIES = "vertex.retries"
RDMA = "vertex.rdma"
DWS_DOC = "https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws"
RES_DOC = "https://cloud.google.com/vertex-ai/docs/training/use-reservations"
CC_DOC = "https://cloud.google.com/vertex-ai/docs/training/configure-compute"

# (rule id, most severe finding, what it checks): ``gpujob rules`` lists them
RULES: tuple[tuple[str, Severity, str], ...] = (
    (FLEX, "error", "FLEX_START (Dynamic Workload Scheduler) takes L4, A100, H100, H200 and "
     "B200 GPUs, one machine in every pool, a timeout of at most 7 days; maxWaitDuration is "
     "for it alone."),
    (RESERVATION, "error", "A reservation goes with neither FLEX_START nor a persistent "
     "resource, is named by its resource name, and must match the machines (a note)."),
    (CAPACITY, "error", "GB200 capacity comes only through a reservation; for B200, H200 and "
     "H100 Mega, a note says that reservations or Spot are the usual way in."),
    (PARTITION, "error", "A machine with gpuPartitionSize (MIG partitions) has acceleratorCount "
     "1."),
    (RETRIES, "warning", "restartJobOnWorkerRestart is not set with disableRetries, which "
     "turns it off."),
    (RDMA, "note", "A note: machines with GPUDirect-RDMA GPUs (GB200, B200, H200) need their "
     "NCCL set-up script sourced before the training command."),
)
Place = Callable[[JsonPath], "tuple[JsonPath, Location] | None"]


class _Machine(NamedTuple):
    index: int  # type: ignore[assignment]  # the field hides tuple.index
    path: JsonPath  # the machineSpec's, in the request
    machine_type: str
    accelerator: str | None
    count: int | None  # type: ignore[assignment]  # the field hides tuple.count
    partition: str | None
    affinity: Mapping[str, Any]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _machines(spec: Mapping[str, Any], here: JsonPath) -> list[_Machine]:
    pools = spec.get("workerPoolSpecs")
    out = []
    for i, pool in enumerate(pools if isinstance(pools, list) else []):
        machine = pool.get("machineSpec") if isinstance(pool, Mapping) else None
        if not isinstance(machine, Mapping) or _text(machine.get("machineType")) is None:
            continue
        affinity = machine.get("reservationAffinity")
        out.append(_Machine(i, (*here, "workerPoolSpecs", i, "machineSpec"),
                            machine["machineType"], _text(machine.get("acceleratorType")),
                            as_count(machine.get("acceleratorCount")),
                            _text(machine.get("gpuPartitionSize")),
                            affinity if isinstance(affinity, Mapping) else {}))
    return out


class _Out:
    def __init__(self, place: Place) -> None:
        self.place = place
        self.findings: list[Finding] = []
        self._said: set[tuple[str, str]] = set()

    def add(self, severity: Severity, rule: str, path: JsonPath, message: str,
            hint: str | None = None) -> None:
        where = self.place(path)
        if where is None or (rule, message) in self._said:
            return
        self._said.add((rule, message))
        self.findings.append(Finding(severity, rule, message, where[0], where[1], hint))


def check(spec: Mapping[str, Any], here: JsonPath, cat: VertexCatalog,
          place: Place, region: str | None = None) -> list[Finding]:
    """The scheduling findings for the CustomJobSpec ``spec`` found at ``here`` in the request,
    for a job in ``region`` (None: not known, its reservations' zones are not checked)."""
    facts = cat.scheduling
    if facts is None or not isinstance(spec, Mapping):
        return []
    out = _Out(place)
    scheduling = found if isinstance(found := spec.get("scheduling"), Mapping) else {}
    strategy = _text(scheduling.get("strategy"))
    machines = _machines(spec, here)
    sched_path = (*here, "scheduling")
    if strategy == facts.flex_start:
        _flex(out, facts, cat, machines, scheduling, sched_path)
    elif "maxWaitDuration" in scheduling:
        out.add("error", FLEX, (*sched_path, "maxWaitDuration"), "maxWaitDuration bounds the "
                f"wait of the {facts.flex_start} strategy (Dynamic Workload Scheduler) alone, "
                f"and this job's strategy is {strategy or 'not set (STANDARD)'}",
                f"remove maxWaitDuration, or set scheduling.strategy {facts.flex_start} "
                f"({DWS_DOC})")
    _reservations(out, facts, machines, spec, strategy, region)
    _capacity(out, facts, cat, machines, strategy)
    for m in machines:
        if m.partition is not None and m.count not in (None, 1):
            out.add("error", PARTITION, (*m.path, "acceleratorCount"), f"worker pool {m.index} "
                    f"partitions its GPUs (gpuPartitionSize {m.partition}), and then takes one "
                    f"GPU, not {m.count}", "set acceleratorCount 1: Vertex splits that GPU into "
                    "MIG partitions of the size given")
    if scheduling.get("disableRetries") is True and \
            scheduling.get("restartJobOnWorkerRestart") is True:
        out.add("warning", RETRIES, (*sched_path, "restartJobOnWorkerRestart"),
                "restartJobOnWorkerRestart does nothing with disableRetries, which sets it to "
                "false", "leave out one of them (--restart-job-on-worker-restart, "
                "--disable-retries)")
    rdma = next((m for m in machines if m.accelerator in facts.rdma), None)
    if rdma is not None:
        out.add("note", RDMA, (*rdma.path, "machineType"), f"{rdma.machine_type} machines "
                f"({_name(cat, rdma.accelerator)} GPUs) have GPUDirect-RDMA: the training "
                f"command needs `{facts.rdma_setup}` run before it, for NCCL to use it",
                f"put it in front of the command, e.g. `{facts.rdma_setup} && python -m "
                f"trainer.task` ({CC_DOC})")
    return out.findings


def _name(cat: VertexCatalog, accelerator: str | None) -> str:
    info = cat.accelerators.get(accelerator or "")
    return info.name if info else str(accelerator)


def _flex(out: _Out, facts: Scheduling, cat: VertexCatalog, machines: list[_Machine],
          scheduling: Mapping[str, Any], sched_path: JsonPath) -> None:
    taken = and_list(list(dict.fromkeys(_name(cat, a) for a in facts.flex_accelerators)))
    strategy = f"the {facts.flex_start} strategy (Dynamic Workload Scheduler)"
    first = machines[0] if machines else None
    for m in machines:
        if m.accelerator in facts.flex_accelerators or (first and m is not first and _key(m) !=
                                                         _key(first)):
            continue  # (a pool unlike the first: "the same machine" speaks for it)
        what = f"{_name(cat, m.accelerator)} GPUs" if m.accelerator else "no GPU"
        path = (*m.path, "acceleratorType" if m.accelerator else "machineType")
        out.add("error", FLEX, path, f"{strategy} takes only {taken} GPUs, and worker pool "
                f"{m.index} has {what} ({m.machine_type})",
                "use a machine with one of them (`gpujob gpus --service vertex --gpu l4` lists "
                f"the machines of one), or another strategy, SPOT or STANDARD ({DWS_DOC})")
    if first is not None:
        for m in machines[1:]:
            if _key(m) != _key(first):
                out.add("error", FLEX, (*m.path, "machineType"), f"{strategy} needs the same "
                        f"machine configuration in every worker pool: pool {m.index} has "
                        f"{_shape(m)}, pool {first.index} {_shape(first)}",
                        f"give every pool pool {first.index}'s machine, or choose another "
                        f"strategy ({DWS_DOC})")
    timeout = duration_seconds(scheduling.get("timeout"))
    if timeout is not None and timeout > facts.flex_max_timeout_s:
        most = facts.flex_max_timeout_s
        out.add("error", FLEX, (*sched_path, "timeout"), f"{strategy} runs a job for at most "
                f"{seconds_in_words(most)} ({most}s), and its timeout is "
                f"{scheduling['timeout']} ({seconds_in_words(timeout)})",
                f"set the timeout to {most}s or less (and checkpoint to "
                f"resume in a new job), or choose another strategy ({DWS_DOC})")


def _key(m: _Machine) -> tuple[str, str | None, int | None]:
    return m.machine_type, m.accelerator, m.count


def _shape(m: _Machine) -> str:
    gpus = f" with {m.count} × {m.accelerator}" if m.accelerator else " without GPUs"
    return f"{m.machine_type}{gpus}"


def _reservations(out: _Out, facts: Scheduling, machines: list[_Machine],
                  spec: Mapping[str, Any], strategy: str | None, region: str | None) -> None:
    reserving = [m for m in machines if m.affinity.get("reservationAffinityType") in
                 ("ANY_RESERVATION", "SPECIFIC_RESERVATION")]
    if not reserving:
        return
    first = reserving[0]
    path = (*first.path, "reservationAffinity")
    kind = first.affinity["reservationAffinityType"]
    if strategy == facts.flex_start:
        out.add("error", RESERVATION, path, f"the job draws on a reservation ({kind}), and its "
                f"strategy is {facts.flex_start}: Vertex does not combine the two",
                f"leave out the reservation, or choose another strategy ({RES_DOC})")
    if _text(spec.get("persistentResourceId")):
        out.add("error", RESERVATION, path, f"the job draws on a reservation ({kind}), and it "
                f"runs on a persistent resource ({spec['persistentResourceId']}), whose "
                "machines it uses instead", "leave out one of them: a persistent resource "
                f"draws on a reservation when it is made ({RES_DOC})")
    for m in reserving:
        if m.affinity["reservationAffinityType"] == "SPECIFIC_RESERVATION":
            _specific(out, m, (*m.path, "reservationAffinity"), facts, region)
    pools = "; ".join(f"pool {m.index}: {_shape(m)}" for m in reserving)
    out.add("note", RESERVATION, path, f"the machines must match the reservation exactly "
            f"(machine type, GPU type and count, in a zone of the job's region: {pools}); "
            "gpujob cannot see the reservation offline", "`gcloud compute reservations "
            f"describe NAME --zone ZONE` shows what it holds ({RES_DOC})")


def _specific(out: _Out, m: _Machine, path: JsonPath, facts: Scheduling,
              region: str | None) -> None:
    key, values = m.affinity.get("key"), m.affinity.get("values")
    names = [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
    if key != SPECIFIC_KEY or not names:
        out.add("error", RESERVATION, path, "a SPECIFIC_RESERVATION names its reservation: key "
                f"{SPECIFIC_KEY} and values [its resource name]",
                "e.g. reservationAffinity {reservationAffinityType: SPECIFIC_RESERVATION, key: "
                f"{SPECIFIC_KEY}, values: [projects/PROJECT/zones/ZONE/reservations/NAME]}}")
        return
    full = [n for n in names if re.fullmatch(facts.reservation_name, n)]
    short = [n for n in names if n not in full]
    unnamed = [n for n in short if facts.reservation_short_name is not None
               and not re.fullmatch(facts.reservation_short_name, n)]
    if unnamed:
        out.add("error", RESERVATION, path, f"reservation {unnamed[0]!r} is not a "
                "reservation's name", "give its resource name, projects/PROJECT/zones/ZONE/"
                "reservations/NAME (NAME: up to 63 lowercase letters, digits and hyphens, "
                f"starting with a letter) ({RES_DOC})")
    elif short:
        out.add("warning", RESERVATION, path, f"reservation {short[0]!r} is not a reservation's "
                "resource name, which the API asks for", "give projects/PROJECT/zones/ZONE/"
                f"reservations/{short[0].rsplit('/', 1)[-1]} ({RES_DOC})")
    for name in full:
        zone = name.split("/")[3]
        if region and zone.rsplit("-", 1)[0] != region:
            out.add("error", RESERVATION, path, f"reservation {name} is in zone {zone}, and "
                    f"the job runs in {region}: a reservation is zonal, and Vertex AI draws on "
                    "it from its own region alone", f"run the job in {zone.rsplit('-', 1)[0]} "
                    f"(--region), or name a reservation in a zone of {region} ({RES_DOC})")
            return


def _capacity(out: _Out, facts: Scheduling, cat: VertexCatalog, machines: list[_Machine],
              strategy: str | None) -> None:
    for m in machines:
        reserved = m.affinity.get("reservationAffinityType") in ("ANY_RESERVATION",
                                                                 "SPECIFIC_RESERVATION")
        name = _name(cat, m.accelerator)
        if m.accelerator in facts.reservation_only and not reserved:
            out.add("error", CAPACITY, (*m.path, "acceleratorType"), f"{name} capacity "
                    f"({m.machine_type}) comes only through a reservation, and worker pool "
                    f"{m.index} draws on none", "reserve the machines with Google Cloud "
                    "(a shared reservation), then name it: --reservation NAME, or "
                    f"machineSpec.reservationAffinity ({CC_DOC})")
        elif m.accelerator in facts.reservation_or_spot and not reserved \
                and strategy not in ("SPOT", facts.flex_start):
            out.add("note", CAPACITY, (*m.path, "acceleratorType"), f"{name} machines "
                    f"({m.machine_type}) are usually had through a reservation or as Spot VMs; "
                    "on demand, the job may wait long for them",
                    f"--reservation NAME (or any), or --strategy SPOT ({CC_DOC})")
