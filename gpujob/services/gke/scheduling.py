"""Cluster facts a JobSet's pods carry: the Kubernetes service account they run as
(``--service-account KSA`` or the config's ``serviceAccount``, when it is a Kubernetes name:
``serviceAccountName``), their priority class (``--priority``: ``priorityClassName``, as xpk
writes it) and Kueue's topology-aware placement (``--topology``: the pod template's
``kueue.x-k8s.io/podset-preferred-topology``, or ``…-required-topology`` with ``required:``,
as the AI Hypercomputer recipes write them, with one ``kueue.x-k8s.io/podset-group-name`` on
every ReplicatedJob so that the master and its workers are placed in one domain). Sources:
GKE-RUNS.md §12 (Kueue's topology_aware_scheduling.md, REC values, XPK workload.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# a label key: an optional DNS subdomain prefix and '/', then a name of at most 63 characters
LABEL_KEY = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                       r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
GROUP = "kueue.x-k8s.io/podset-group-name"
REQUIRED_PREFIX = "required:"


class Topology(NamedTuple):
    level: str  # the node label of a topology level: kubernetes.io/hostname
    required: bool


def topology(value: str | None) -> Topology | None:
    if not value:
        return None
    required = value.startswith(REQUIRED_PREFIX)
    return Topology(value[len(REQUIRED_PREFIX):] if required else value, required)


def check_subdomain(what: str) -> Callable[[str], tuple[str, str] | None]:
    def check(value: str) -> tuple[str, str] | None:
        if len(value) <= 253 and SUBDOMAIN.fullmatch(value):
            return None
        return (f"cannot name {what}", "use lower-case letters, digits, '-' and '.', starting "
                "and ending with a letter or digit")

    return check


def check_topology(value: str) -> tuple[str, str] | None:
    level = topology(value)
    if level is not None and len(level.level) <= 316 and LABEL_KEY.fullmatch(level.level):
        return None
    return ("is not a node label of a topology level", "give the node label of the level, "
            "e.g. kubernetes.io/hostname or cloud.google.com/gce-topology-block (required:LABEL "
            "to require one domain)")


def service_account(ti: Mapping[str, Any]) -> str | None:
    """The Kubernetes service account the pods run as (None: the namespace's default, or a
    Google service account, which Workload Identity maps a Kubernetes one to)."""
    value = ti.get("serviceAccount")
    if isinstance(value, str) and len(value) <= 253 and SUBDOMAIN.fullmatch(value):
        return value
    return None


def place(pod: dict[str, Any], ti: Mapping[str, Any], priority: str | None,
          level: Topology | None, group: str) -> None:
    """Give one ReplicatedJob's pod template its service account, priority class and Kueue
    topology annotations (``group``: the JobSet's one podset group)."""
    spec = pod["spec"]
    account = service_account(ti)
    if account:
        spec["serviceAccountName"] = account
    if priority:
        spec["priorityClassName"] = priority
    if level is not None:
        annotations = pod.setdefault("metadata", {}).setdefault("annotations", {})
        annotations[REQUIRED if level.required else PREFERRED] = level.level
        annotations[GROUP] = group
    if "metadata" in pod:  # metadata first, as kubectl prints a pod template
        pod_items = list(pod.items())
        pod.clear()
        pod.update(sorted(pod_items, key=lambda kv: kv[0] != "metadata"))
