"""What a GPU pod gets from its machine type, as Google's recipes and xpk give it (the catalog's
``pod_settings``, with their sources): a memory-backed ``/dev/shm`` (a container's own is 64 MB,
which NCCL and DataLoader workers outgrow), the machine's tolerations and node selectors (A4X:
Arm), and on a job of 2 or more nodes of an A3/A4 machine its GPUDirect profile (TCPX, TCPXO,
RDMA with gIB): the pod's network interfaces, the daemon sidecar or NCCL plugin installer, the
host volumes and the NCCL environment. ``--gpudirect auto|on|off`` chooses (``decide``)."""

from __future__ import annotations

import copy
import shlex
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.services.gke import sizes
from gpujob.services.gke.flags import extra

if TYPE_CHECKING:
    from gpujob.config.job import JobView, Replica
    from gpujob.services.gke.catalog import GkeCatalog
    from gpujob.settings import JobOptions

FLAG = "--gpudirect"
MODES = ("auto", "on", "off")
SHM = "dshm"


def check_mode(value: str) -> tuple[str, str] | None:
    """The ServiceFlag check of --gpudirect."""
    if value.lower() in MODES:
        return None
    return (f"is not one of {', '.join(MODES)}",
            "auto: on for a job of 2 or more nodes of a machine with GPU NICs (A3, A4, A4X) "
            "where the cluster has the networks")


class Choice(NamedTuple):
    """What --gpudirect chose for the job's machine with GPU NICs."""

    machine: str
    profile: str  # the catalog's key: tcpx, tcpxo, rdma-a4, ...
    settings: Mapping[str, Any]  # the profile
    nodes: int  # pods of that machine in the job
    mode: str  # auto, on, off
    on: bool


class Auto(NamedTuple):
    """What --gpudirect auto turned on, assuming the cluster has the networks, and the JobSet
    to send where it has not."""

    name: str  # GPUDirect-TCPXO
    machine: str
    nodes: int
    nics: int
    networks: tuple[str, ...]
    # the JobSet without GPUDirect (as --gpudirect off gives it), translated only when a
    # submit finds the networks missing (``networks.choose``), not on every check
    off: Callable[[], dict[str, Any]]


def machine_settings(cat: GkeCatalog, machine: str | None) -> Mapping[str, Any]:
    return ((cat.pod_settings.get("machines") or {}).get(machine or "")) or {}


def mode_of(options: JobOptions) -> str:
    given = extra(options, FLAG)
    return (given or "auto").lower()


def with_mode(options: JobOptions, mode: str) -> tuple[tuple[str, str], ...]:
    """``options.extra`` with --gpudirect ``mode``."""
    return (*((n, v) for n, v in options.extra if n != FLAG), (FLAG, mode))


def decide(job: JobView, cat: GkeCatalog, options: JobOptions) -> Choice | None:
    """GPUDirect for the job: None when no replica runs on a machine with a GPUDirect profile;
    auto turns it on for 2 or more such nodes (one node talks to itself over NVLink), assuming
    the cluster has the networks: a submit reads them (``networks.choose``)."""
    profiles = cat.pod_settings.get("gpudirect") or {}
    counts: dict[str, int] = {}
    for r in job.active():
        if machine_settings(cat, r.machine).get("gpudirect"):
            counts[r.machine or ""] = counts.get(r.machine or "", 0) + r.count
    if not counts:
        return None
    machine = max(counts, key=lambda m: counts[m])
    key = machine_settings(cat, machine)["gpudirect"]
    mode = mode_of(options)
    on = mode == "on" or (mode == "auto" and counts[machine] >= 2)
    return Choice(machine, key, profiles[key], counts[machine], mode, on)


def _add(items: list[dict[str, Any]], new: list[Any], key: str = "name") -> None:
    """Append ``new``'s items, each replacing one of the same ``key`` already there."""
    for item in copy.deepcopy(new):
        items[:] = [i for i in items if i.get(key) != item.get(key)] + [item]


def _add_tolerations(spec: dict[str, Any], new: list[Any]) -> None:
    tolerations = spec.setdefault("tolerations", [])
    for t in copy.deepcopy(new):
        if t not in tolerations:
            tolerations.append(t)


def launch_prelude(launch: Mapping[str, Any]) -> str:
    """What the recipes' command runs before the workload: source the NCCL init script the gIB
    plugin installs, then export what overrides it."""
    var = launch["source"]
    exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in launch["exports"].items())
    return f'if [ -n "${{{var}}}" ]; then source "${{{var}}}"; fi; {exports}exec "$@"'


def apply(pod: dict[str, Any], replica: Replica, cat: GkeCatalog, gpus: int,
          choice: Choice | None) -> None:
    """Give ``pod`` (a pod template; its first container the trainer) what its machine's pods
    get; ``gpus``: its GPU limit (0: a CPU pod, which gets none of it)."""
    if not gpus or not cat.pod_settings:
        return
    spec = pod["spec"]
    container = spec["containers"][0]
    own = machine_settings(cat, replica.machine)
    size = own.get("shm_size") if own else (cat.pod_settings.get("shm_default") or {}).get(
        "size")
    shm: dict[str, Any] = {"medium": "Memory"}
    if size:
        shm["sizeLimit"] = size
    _add_tolerations(spec, own.get("tolerations") or [])
    spec.setdefault("nodeSelector", {}).update(own.get("node_selector") or {})
    volumes = spec.setdefault("volumes", [])
    mounts = container.setdefault("volumeMounts", [])
    if choice is not None and choice.on and replica.machine == choice.machine:
        _gpudirect(pod, container, choice.settings)
    # last, as xpk adds it: the pod's /dev/shm
    _add(volumes, [{"name": SHM, "emptyDir": shm}])
    _add(mounts, [{"name": SHM, "mountPath": "/dev/shm"}], "mountPath")
    sizes.request(container, cat, replica.machine)


def _gpudirect(pod: dict[str, Any], container: dict[str, Any], p: Mapping[str, Any]) -> None:
    """The GPUDirect profile ``p`` in the pod: interfaces, volumes, daemon or plugin
    installer, the trainer's mounts and NCCL environment, and the recipes' launch."""
    spec = pod["spec"]
    pod.setdefault("metadata", {}).setdefault("annotations", {}).update(p["annotations"])
    _add(spec["volumes"], p["volumes"])
    if p["init_containers"]:
        _add(spec.setdefault("initContainers", []), p["init_containers"])
    _add(container.setdefault("env", []), p["env"])
    _add(container["volumeMounts"], p["mounts"], "mountPath")
    _add_tolerations(spec, p["tolerations"])
    launch = p.get("launch")
    if launch and container.get("command"):
        container["command"] = ["bash", "-c", launch_prelude(launch), "bash",
                                *container["command"]]
    elif launch:  # the image's entrypoint runs: the exports are set, the script is not sourced
        _add(container["env"], [{"name": k, "value": v} for k, v in launch["exports"].items()])


def unwrapped(replica: Replica, job: JobView, choice: Choice | None) -> bool:
    """Whether the replica runs its image's entrypoint on a GPUDirect profile whose NCCL init
    script the command must source (gpujob can wrap only a command it knows)."""
    if choice is None or not choice.on or replica.machine != choice.machine:
        return False
    if not (choice.settings.get("launch") and (replica.image or job.master.image)):
        return False
    command = replica.config.get("containerCommand") or (
        job.master.config.get("containerCommand") if replica.image is None else None)
    return not command
