"""The JobSet CRD's schema (kubernetes-sigs/jobset ``config/components/crd/bases/
jobset.x-k8s.io_jobsets.yaml``, which embeds Kubernetes' PodTemplateSpec) applied to a JobSet, and
strictly: a key the schema does not name is an error (the API server would drop it, or refuse it
with ``fieldValidation=Strict``). The CRD belongs to its authors: it is read from the shared
reference folder beside the checkout (``../shared/reference/k8s``), not copied here."""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# GPUJOB_SHARED: the shared folder, for a checkout that is not beside it (a git worktree)
SHARED = Path(os.environ.get("GPUJOB_SHARED") or ROOT.parent / "shared")
CRD = SHARED / "reference" / "k8s" / "jobset.x-k8s.io_jobsets.yaml"


@cache
def schema() -> dict[str, Any]:
    if not CRD.is_file():
        pytest.skip(f"the JobSet CRD is not at {CRD} (scripts/check_jobset_crd.py takes a copy)")
    crd = yaml.safe_load(CRD.read_text(encoding="utf-8"))
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def _unknown(value: Any, node: dict[str, Any], path: str) -> Iterator[str]:
    if isinstance(value, dict) and "properties" in node:
        for key, item in value.items():
            if key not in node["properties"]:
                if not node.get("x-kubernetes-preserve-unknown-fields"):
                    yield f"{path}.{key}: not in the schema"
                continue
            yield from _unknown(item, node["properties"][key], f"{path}.{key}")
    elif isinstance(value, dict) and isinstance(node.get("additionalProperties"), dict):
        for key, item in value.items():
            yield from _unknown(item, node["additionalProperties"], f"{path}.{key}")
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            yield from _unknown(item, node["items"], f"{path}[{i}]")


def problems(body: dict[str, Any]) -> list[str]:
    """Every schema error of ``body``, and every key the schema does not name."""
    found = [f"{'.'.join(map(str, e.path))}: {e.message}"
             for e in jsonschema.Draft7Validator(schema()).iter_errors(body)]
    return found + list(_unknown(body, schema(), ""))
