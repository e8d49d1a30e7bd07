"""Helpers the Vertex translation tests share: translate a YAML text, check a body against the
bundled aiplatform v1 discovery document, and show findings as a user sees them."""

from __future__ import annotations

from datetime import date
from typing import Any

from fakes.discovery import request_violations

from gpujob.catalog import load
from gpujob.config.load import loads
from gpujob.services.vertex.translate.job import Translation, translate
from gpujob.settings import JobOptions

CAT = load("vertex")
TODAY = date(2026, 11, 23)  # every image of the prebuilt-containers page is past its availability
PYTORCH = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"


def run(text: str, today: date = TODAY, source: str = "job.yaml", **options: Any) -> Translation:
    loaded = loads(text.encode(), source)
    assert loaded.document is not None, loaded.findings
    return translate(loaded.document, CAT, today, JobOptions(**options))


def shown(t: Translation) -> list[str]:
    """Each finding as ``line:col severity rule: message``."""
    out = []
    for f in t.findings:
        where = f"{f.location.line}:{f.location.column}" if f.location.line else (
            f.location.flag or "")
        out.append(f"{where} {f.severity} {f.rule.removeprefix('vertex-translate.')}: "
                   f"{f.message}")
    return out


def problems(t: Translation) -> list[tuple[str, str]]:
    """The body against the create method's request schema (strict encodings), plus Vertex's
    one-of rule: every pool that is not an empty placeholder runs exactly one kind of code."""
    found = request_violations("aiplatform.v1", t.body, "projects", "locations", t.collection,
                               "create")
    spec = t.body.get("jobSpec") or t.body.get("trialJobSpec") or {}
    for i, pool in enumerate(spec.get("workerPoolSpecs", [])):
        if pool and ("containerSpec" in pool) == ("pythonPackageSpec" in pool):
            found.append((f"workerPoolSpecs[{i}]", "needs exactly one of containerSpec and "
                          "pythonPackageSpec"))
        if pool and not CAT.accepts(pool["machineSpec"]["machineType"],
                                    pool["machineSpec"].get("acceleratorType"),
                                    pool["machineSpec"].get("acceleratorCount")):
            found.append((f"workerPoolSpecs[{i}]", "a machine Vertex would refuse"))
    return found


def pools(t: Translation) -> list[tuple[Any, ...]]:
    """(machine type, accelerator type, count, replicas) of each pool, () for an empty one."""
    spec = t.body.get("jobSpec") or t.body["trialJobSpec"]
    return [(p["machineSpec"]["machineType"], p["machineSpec"].get("acceleratorType"),
             p["machineSpec"].get("acceleratorCount"), p["replicaCount"]) if p else ()
            for p in spec["workerPoolSpecs"]]
