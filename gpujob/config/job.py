"""A typed, read-only view of a job: its replicas in the service's order (machine type, count,
accelerators), its region, its scale tier. The rules, the local runner and translators read a
job through it instead of through the dict.

The view reads a config defensively: a value of the wrong type reads as None (the schema
reports it), so whatever reads the view never meets a surprise. Each replica carries the JSON
paths of its fields, so a finding can point at what the user wrote.
NamedTuples, not dataclasses: ``gpujob validate`` makes one view per file (and annotations
that are not strings: see ``services/ai_platform/records.py``).
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gpujob import numbers
from gpujob.findings import JsonPath

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

TI = "trainingInput"
# the replica kinds of an AI Platform Job, in the service's order, with their names in prose
KINDS = (("master", "master"), ("worker", "worker"), ("parameterServer", "parameter server"),
         ("evaluator", "evaluator"))
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def as_int(value: Any) -> int | None:
    """An int64 field's value (an integer, or a string of ASCII digits, within int64), else
    None: the one number rule (``gpujob.numbers``), so the view reads what the schema accepts."""
    return numbers.as_count(value)


def as_str(value: Any) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return MappingProxyType(value) if isinstance(value, dict) else _EMPTY


class Replica(NamedTuple):
    """One kind of replica as the config describes it."""

    kind: str  # master, worker, parameterServer, evaluator
    label: str  # "parameter server"
    machine: str | None
    count: int  # type: ignore[assignment]  # the master: 1 when its machine type is set
    config: Mapping[str, Any]  # its ReplicaConfig ({} when absent)
    image: str | None  # its custom container image (config.imageUri), if it names one
    accel_type: str | None
    accel_count: int | None
    type_path: JsonPath
    count_path: JsonPath
    config_path: JsonPath
    accel_path: JsonPath


class JobView(NamedTuple):
    data: Mapping[str, Any]  # the whole job
    training_input: Mapping[str, Any]  # {} when absent or not a mapping
    scale_tier: str | None
    region: str | None
    runtime_version: str | None
    python_version: str | None
    replicas: tuple[Replica, ...]  # every kind, in the service's order; the master first

    @property
    def master(self) -> Replica:
        return self.replicas[0]

    def active(self) -> list[Replica]:
        """The replicas that will run: a machine type and a count above 0."""
        return [r for r in self.replicas if r.count > 0 and r.machine]

    def has(self, path: JsonPath) -> bool:
        """Whether the job sets ``path`` (to any value)."""
        node: Any = self.data
        for key in path:
            if not isinstance(node, Mapping) or key not in node:
                return False
            node = node[key]
        return True


# per kind: the keys of its fields, and their paths (type, count, config, acceleratorConfig)
_FIELDS = {kind: ((f"{kind}Type", f"{kind}Count", f"{kind}Config"),
                  ((TI, f"{kind}Type"), (TI, f"{kind}Count"), (TI, f"{kind}Config"),
                   (TI, f"{kind}Config", "acceleratorConfig"))) for kind, _ in KINDS}


def _replica(ti: Mapping[str, Any], kind: str, label: str) -> Replica:
    (type_key, count_key, config_key), paths = _FIELDS[kind]
    config = _mapping(ti.get(config_key))
    accel = config.get("acceleratorConfig")
    accel = accel if isinstance(accel, dict) else _EMPTY
    machine = as_str(ti.get(type_key))
    count = (1 if machine else 0) if kind == "master" else (as_int(ti.get(count_key)) or 0)
    return Replica(kind, label, machine, count, config, as_str(config.get("imageUri")),
                   as_str(accel.get("type")), as_int(accel.get("count")), *paths)


def view(data: Mapping[str, Any]) -> JobView:
    """The view of an AI Platform Job (a config as loaded and merged)."""
    ti = _mapping(data.get(TI)) if isinstance(data, Mapping) else _EMPTY
    return JobView(
        data=MappingProxyType(data) if isinstance(data, dict) else _EMPTY,
        training_input=ti,
        scale_tier=as_str(ti.get("scaleTier")),
        region=as_str(ti.get("region")),
        runtime_version=as_str(ti.get("runtimeVersion")),
        python_version=as_str(ti.get("pythonVersion")),
        replicas=tuple(_replica(ti, kind, label) for kind, label in KINDS))
