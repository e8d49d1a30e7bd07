"""What the API server and JobSet's webhook refuse in a JobSet (``refusals``: the ``causes`` of a
422 ``Invalid``): the CRD's schema (jobset.x-k8s.io_jobsets.yaml, v1alpha2), JobSet's webhook
and the Job and Pod validation, written independently of gpujob's own rules."""

from __future__ import annotations

import re
from typing import Any

DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
QUANTITY = re.compile(r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                      r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
# the fields of JobSetSpec in the CRD (jobset.x-k8s.io_jobsets.yaml, v1alpha2)
SPEC_FIELDS = {"coordinator", "failurePolicy", "managedBy", "network", "replicatedJobs",
               "startupPolicy", "successPolicy", "suspend", "ttlSecondsAfterFinished",
               "volumeClaimPolicies"}
RJOB_FIELDS = {"dependsOn", "groupName", "name", "replicas", "template"}


def refusals(js: Any) -> list[dict[str, str]]:
    """Why the API server or JobSet's webhook would refuse ``js`` (``causes`` of a 422)."""
    causes: list[dict[str, str]] = []

    def cause(path: str, message: str) -> None:
        causes.append({"reason": "FieldValueInvalid", "message": message, "field": path})

    if not isinstance(js, dict) or js.get("apiVersion") != "jobset.x-k8s.io/v1alpha2" \
            or js.get("kind") != "JobSet":
        return [{"reason": "FieldValueInvalid", "message": "not a v1alpha2 JobSet",
                 "field": "kind"}]
    name = str((js.get("metadata") or {}).get("name", ""))
    if not DNS_1035.fullmatch(name) or len(name) > 63:
        cause("metadata.name", f"{name!r}: a DNS-1035 label is required")
    spec = js.get("spec")
    if not isinstance(spec, dict):
        return [*causes, {"reason": "FieldValueRequired", "message": "Required value",
                           "field": "spec"}]
    for key in set(spec) - SPEC_FIELDS:
        cause(f"spec.{key}", "unknown field")
    rjobs = spec.get("replicatedJobs")
    if not isinstance(rjobs, list) or not rjobs:
        cause("spec.replicatedJobs", "Required value")
        return causes
    names = [r.get("name") for r in rjobs if isinstance(r, dict)]
    if len(set(names)) != len(names):
        cause("spec.replicatedJobs", "Duplicate value: names must be unique")
    for i, r in enumerate(rjobs):
        at = f"spec.replicatedJobs[{i}]"
        if not isinstance(r, dict) or "name" not in r or "template" not in r:
            cause(at, "name and template are required")
            continue
        for key in set(r) - RJOB_FIELDS:
            cause(f"{at}.{key}", "unknown field")
        replicas = r.get("replicas", 1)
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            cause(f"{at}.replicas", "must be an integer >= 0")
            continue
        job = (r["template"] or {}).get("spec") or {}
        pods = job.get("completions") or 1
        longest = f"{name}-{r['name']}-{max(replicas - 1, 0)}-{pods - 1}-abcde"
        if len(longest) > 63 or not DNS_1035.fullmatch(str(r["name"])):
            cause(f"{at}.name", "JobSet name is too long, job names generated for this JobSet "
                  "will exceed 63 characters")
        pod = (job.get("template") or {}).get("spec") or {}
        if pod.get("restartPolicy", "OnFailure") not in ("Never", "OnFailure"):
            cause(f"{at}.template.spec.template.spec.restartPolicy", "Unsupported value")
        containers = pod.get("containers")
        if not isinstance(containers, list) or not containers:
            cause(f"{at}.template.spec.template.spec.containers", "Required value")
            continue
        for j, c in enumerate(containers):
            where = f"{at}.template.spec.template.spec.containers[{j}]"
            if not c.get("name") or not c.get("image"):
                cause(where, "name and image are required")
            limits = (c.get("resources") or {}).get("limits") or {}
            for resource, value in limits.items():
                if not QUANTITY.match(str(value)) or (
                        "/" in resource and not str(value).isdigit()):
                    cause(f"{where}.resources.limits[{resource}]", f"{value!r}: must be a "
                          "whole-number quantity")
    return causes
