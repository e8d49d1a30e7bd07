"""A native config's NFS shares (``nfsMounts``) as Kubernetes ``nfs`` volumes, mounted where
Vertex AI mounts them: ``/mnt/nfs/MOUNT_POINT`` (NfsMount ``server``, ``path``, ``mountPoint``:
https://cloud.google.com/vertex-ai/docs/training/train-nfs-share)."""

from __future__ import annotations

import re
from typing import Any

KEY = "gpujobNfsMounts"  # in a replica's config: the pool's nfsMounts
_NAME = re.compile(r"[^a-z0-9-]+")


def shares(given: Any) -> list[dict[str, str]]:
    """The well-formed mounts of a pool's ``nfsMounts``."""
    out = []
    for m in given if isinstance(given, list) else []:
        if isinstance(m, dict) and all(isinstance(m.get(k), str) and m[k]
                                       for k in ("server", "path", "mountPoint")):
            out.append({k: m[k] for k in ("server", "path", "mountPoint")})
    return out


def add(spec: dict[str, Any], container: dict[str, Any], given: Any) -> None:
    """The pod's nfs volumes and the container's mounts of them."""
    for i, m in enumerate(shares(given)):
        name = f"nfs-{i}-{_NAME.sub('-', m['mountPoint'].lower()).strip('-')}"[:63].rstrip("-")
        spec.setdefault("volumes", []).append(
            {"name": name, "nfs": {"server": m["server"], "path": m["path"]}})
        container.setdefault("volumeMounts", []).append(
            {"name": name, "mountPath": f"/mnt/nfs/{m['mountPoint']}"})
