"""What gpujob needs of a JobSet before it is sent: the rules the API server (the CRD's schema),
JobSet's webhook and the Job and Pod validation of the objects JobSet makes would apply, so that
a JobSet is refused here rather than left with pods that never start. Sources (JobSet
``v1alpha2``): kubernetes-sigs/jobset ``api/jobset/v1alpha2/jobset_types.go`` and
``pkg/webhooks/jobset_webhook.go``; Kubernetes' Job and Pod API reference
(https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from gpujob.findings import JsonPath
from gpujob.services.gke.names import DNS_1035

# a Kubernetes quantity that is a whole number (extended resources such as nvidia.com/gpu take
# no fractions)
WHOLE = re.compile(r"[0-9]+")
POD_SUFFIX = "-abcde"  # the 5 random characters of an Indexed Job's pod name, as the webhook counts


def requirements(body: dict[str, Any], image: bool = True) -> list[tuple[JsonPath, str]]:
    """Each (path, problem) of ``body`` that the API server or JobSet would refuse;
    ``image=False``: a container may still lack its image (a package job checked before
    ``submit --executor-image-uri`` names it)."""
    return list(_problems(body, image))


def _problems(body: dict[str, Any], image: bool) -> Iterator[tuple[JsonPath, str]]:
    if body.get("apiVersion") != "jobset.x-k8s.io/v1alpha2" or body.get("kind") != "JobSet":
        yield (), "is not a jobset.x-k8s.io/v1alpha2 JobSet"
    name = str((body.get("metadata") or {}).get("name", ""))
    if not DNS_1035.fullmatch(name) or len(name) > 63:
        yield ("metadata", "name"), f"{name!r} is not a DNS-1035 label of at most 63 characters"
    replicated = (body.get("spec") or {}).get("replicatedJobs")
    if not isinstance(replicated, list) or not replicated:
        yield ("spec", "replicatedJobs"), "a JobSet runs at least one ReplicatedJob"
        return
    seen: set[str] = set()
    for i, rjob in enumerate(replicated):
        here: JsonPath = ("spec", "replicatedJobs", i)
        rname, replicas = str(rjob.get("name", "")), rjob.get("replicas", 1)
        if not DNS_1035.fullmatch(rname) or rname in seen:
            yield (*here, "name"), f"{rname!r} is not a unique DNS-1035 label"
        seen.add(rname)
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            yield (*here, "replicas"), f"{replicas!r} is not a whole number of Jobs"
            continue
        spec = ((rjob.get("template") or {}).get("spec")) or {}
        pods = spec.get("completions") or spec.get("parallelism") or 1
        longest = f"{name}-{rname}-{max(replicas - 1, 0)}-{pods - 1}{POD_SUFFIX}"
        if len(longest) > 63:
            yield (*here, "name"), (f"the longest pod name, {longest}, passes 63 characters")
        if spec.get("parallelism") and not spec.get("completions"):
            yield (*here, "template", "spec"), "an Indexed Job with parallelism needs completions"
        pod = ((spec.get("template") or {}).get("spec")) or {}
        if pod.get("restartPolicy") not in ("Never", "OnFailure"):
            yield (*here, "template", "spec", "template", "spec", "restartPolicy"), \
                "a Job's pods restart Never or OnFailure"
        containers = pod.get("containers")
        if not isinstance(containers, list) or not containers:
            yield (*here, "template", "spec", "template", "spec", "containers"), \
                "a pod runs at least one container"
            continue
        for j, c in enumerate(containers):
            at = (*here, "template", "spec", "template", "spec", "containers", j)
            if not c.get("name") or (image and not c.get("image")):
                yield at, "a container has a name and an image"
            for kind in ("limits", "requests"):
                for resource, value in ((c.get("resources") or {}).get(kind) or {}).items():
                    if "/" in resource and not WHOLE.fullmatch(str(value)):
                        yield (*at, "resources", kind, resource), \
                            f"{value!r}: an extended resource takes a whole number"
