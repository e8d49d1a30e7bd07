"""An AI Platform config as a JobSet (``jobset.x-k8s.io/v1alpha2``), the object GKE runs it as.

One ReplicatedJob per replica kind the config uses (``master``, ``worker``, ``ps``,
``evaluator``, in that order: the master's global index is 0), each Job one pod
(``parallelism = completions = 1``, ``backoffLimit: 0``, ``restartPolicy: Never``, as Google's
GPU recipes run them). A pod asks for its GPUs as ``nvidia.com/gpu`` and selects its node by
the labels GKE puts on nodes: ``cloud.google.com/gke-accelerator`` (the GPU),
``node.kubernetes.io/instance-type`` (the machine type). A TPU machine type runs one slice, a
pod per host (``tpu``). The job succeeds when the master does (AI Platform's rule: parameter
servers never exit). What the machine's pods get (/dev/shm, Arm, GPUDirect) is ``pods``', what
Spot, flex-start, reservations and restarts need is ``capacity``'s, the pods' service account,
priority class and Kueue topology are ``scheduling``'s, a native config's NFS shares
``volumes``'. Sources: docs/gke.md.

What a replica sees is set as on Vertex AI: ``CLUSTER_SPEC`` and ``TF_CONFIG`` over the pods'
DNS names (``<jobset>-<rjob>-<index>-0.<jobset>``, JobSet's headless service), its index read
from the annotation JobSet puts on the pod (Kubernetes expands ``$(VAR)`` in later values),
``MASTER_ADDR``/``MASTER_PORT``, what launchers read (``launchers``: ``WORLD_SIZE``, ``RANK``,
``PET_*``, ``JAX_*``), a native config's own ``env``, and the job dir's ``AIP_*``
directories; the trainer's arguments get ``--job-dir DIR``, as AI Platform passed them.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.config.job import JobView, Replica, view
from gpujob.config.native_form import display_name
from gpujob.numbers import duration_seconds
from gpujob.services.gke import capacity, domains, launchers, pods, scheduling, tpu, volumes
from gpujob.services.gke.flags import extra as extra  # the service's own flags
from gpujob.services.labels import SUBMISSION_LABEL as SUBMISSION_LABEL  # on every JobSet

if TYPE_CHECKING:
    from gpujob.config.document import Document
    from gpujob.findings import JsonPath
    from gpujob.services.gke.catalog import GkeCatalog
    from gpujob.settings import JobOptions

API_VERSION = "jobset.x-k8s.io/v1alpha2"
GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
JOBSET_LABEL = "jobset.sigs.k8s.io/"  # the prefix of the labels and annotations JobSet sets
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
MACHINE_LABEL = "node.kubernetes.io/instance-type"
GPU_RESOURCE = "nvidia.com/gpu"
PORT = 2222  # AI Platform's and Vertex's TF_CONFIG port
CONTAINER = "trainer"
# config kind -> (ReplicatedJob name, Vertex worker pool, TF_CONFIG task type)
ROLES = {"master": ("master", 0, "chief"), "worker": ("worker", 1, "worker"),
         "parameterServer": ("ps", 2, "ps"), "evaluator": ("evaluator", 3, "evaluator")}
POD_SUFFIX = 6  # "-abcde": the random suffix of an Indexed Job's pod name
INDEX_ENV = "GPUJOB_REPLICA_INDEX"
OUTPUT_DIRS = {"AIP_MODEL_DIR": "model", "AIP_CHECKPOINT_DIR": "checkpoints",
               "AIP_TENSORBOARD_LOG_DIR": "logs"}
_GCS_PATH = re.compile(r"/gcs/([a-z0-9][-a-z0-9_.]{1,221}[a-z0-9])/")
_GENERATED = re.compile(r"(?P<stem>.+)_(?P<day>\d{8})_(?P<time>\d{6})_\d{3}_(?P<hex>[0-9a-f]{6})")


class Translation(NamedTuple):
    """The JobSet, its name and namespace, and for each value the config path it came from."""

    body: dict[str, Any]
    name: str
    namespace: str
    origins: Mapping[JsonPath, JsonPath]
    # --gpudirect auto turned GPUDirect on: what a submit sends where the cluster lacks its
    # networks (``networks.choose``)
    auto: pods.Auto | None = None
    # objects made with the JobSet (a ComputeDomain: ``domains``), printed before it
    companions: tuple[dict[str, Any], ...] = ()


def namespace_of(options: JobOptions) -> str:
    return extra(options, "--namespace") or "default"


def used(job: JobView) -> list[Replica]:
    """The replicas the JobSet runs: each kind with a machine type and a count above 0."""
    return job.active()


def longest_suffix(job: JobView, cat: GkeCatalog | None = None) -> int:
    """The characters JobSet adds to its name in the longest pod name:
    ``-<rjob>-<replicas-1>-<pods-1>-abcde`` (a Job runs one pod, or a TPU slice's hosts)."""
    def pods(r: Replica) -> int:
        return tpu.hosts(cat, r) if cat is not None else 1

    return max((len(f"-{ROLES[r.kind][0]}-{r.count - 1}-{pods(r) - 1}") + POD_SUFFIX
                for r in used(job)), default=len("-master-0-0") + POD_SUFFIX)


def budget(job: JobView, cat: GkeCatalog | None = None) -> int:
    """The longest JobSet name whose pods' names stay within 63 characters."""
    return 63 - longest_suffix(job, cat)


def jobset_name(job_id: str, generated: bool, limit: int) -> str:
    """The JobSet's name for ``job_id``: lower case, ``_`` as ``-`` (Kubernetes names take no
    ``_``). gpujob's generated ID (``STEM_YYYYMMDD_HHMMSS_MMM_RANDOM``) is shortened to fit
    ``limit``: the file name's stem, cut, then the time and its random part, which keep it
    unique."""
    name = job_id.lower().replace("_", "-")
    found = _GENERATED.fullmatch(job_id) if generated else None
    if found is None or len(name) <= limit:
        return name
    tail = f"-{found['time']}-{found['hex']}"
    stem = found["stem"].lower().replace("_", "-")[:max(limit - len(tail), 1)].rstrip("-")
    return f"{stem or 'job'}{tail}"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _hosts(name: str, rjob: str, count: int) -> list[str]:
    return [f"{name}-{rjob}-{i}-0.{name}:{PORT}" for i in range(count)]


# the largest request etcd stores by default (--max-request-bytes, 1.5 MiB:
# https://etcd.io/docs/v3.5/dev-guide/limit/): a JobSet must fit in it
MAX_BYTES = 1536 * 1024


def listing_bytes(job: JobView, name: str) -> int:
    """About how many bytes the replicas' addresses take in the JobSet: each ReplicatedJob's
    CLUSTER_SPEC and TF_CONFIG list every replica (computed, not built: a config may ask for
    millions)."""
    one = sum(r.count * (2 * len(name) + len(ROLES[r.kind][0]) + 16) for r in used(job))
    return 2 * len(used(job)) * one


def _environment(job: JobView, name: str, replica: Replica, listed: bool = True,
                 gpus: int = 0, hosts: int = 1) -> list[dict[str, Any]]:
    """What the replica sees, as on Vertex AI; its index comes from its pod's annotations.
    ``listed=False``: without the cluster's addresses (a JobSet too large to send);
    ``hosts``: a TPU slice's (above 1, the launchers count the slice's hosts)."""
    replicas = used(job) if listed else []
    pools = {f"workerpool{ROLES[r.kind][1]}": _hosts(name, ROLES[r.kind][0], r.count)
             for r in replicas}
    tf_cluster = {ROLES[r.kind][2]: _hosts(name, ROLES[r.kind][0], r.count)
                  for r in replicas if r.kind != "evaluator"}
    _, pool, tf_type = ROLES[replica.kind]
    index = f"$({INDEX_ENV})"
    spec = _dumps({"cluster": pools, "environment": "cloud",
                   "task": {"type": f"workerpool{pool}", "index": 0}}).replace(
        '"index":0}', f'"index":{index}}}')
    tf = _dumps({"cluster": tf_cluster, "environment": "cloud",
                 "task": {"type": tf_type, "index": 0}}).replace('"index":0}',
                                                                 f'"index":{index}}}')

    def annotation(key: str) -> dict[str, Any]:
        return {"fieldRef": {"fieldPath": f"metadata.annotations['{JOBSET_LABEL}{key}']"}}

    master = f"{name}-master-0-0.{name}"
    env: list[dict[str, Any]] = [
        {"name": INDEX_ENV, "valueFrom": annotation("job-index")},
        {"name": "CLUSTER_SPEC", "value": spec},
        {"name": "TF_CONFIG", "value": tf},
        {"name": "MASTER_ADDR", "value": master},
        {"name": "MASTER_PORT", "value": str(PORT)},
        {"name": "CLOUD_ML_JOB_ID", "value": name},
    ]
    if hosts > 1:  # one Job of ``hosts`` pods: each one host of the slice
        rank = {"fieldRef": {"fieldPath": f"metadata.annotations['{tpu.INDEX_ANNOTATION}']"}}
        env += launchers.variables(job, replica, master, PORT, rank, gpus, nodes=hosts)
    else:
        env += launchers.variables(job, replica, master, PORT,
                                   annotation("job-global-index"), gpus)
    job_dir = job.training_input.get("jobDir")
    if isinstance(job_dir, str) and job_dir:
        base = job_dir.rstrip("/")
        env += [{"name": k, "value": f"{base}/{sub}/"} for k, sub in OUTPUT_DIRS.items()]
    return env


def buckets(ti: Mapping[str, Any]) -> list[str]:
    """The buckets a package job's pods mount."""
    return _packages(ti)[0]


def _packages(ti: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The buckets a package job mounts (Cloud Storage FUSE, at ``/gcs/BUCKET`` as on Vertex)
    and the packages' paths there."""
    buckets, paths = [], []
    uris = ti.get("packageUris")  # not a list: the schema refused it
    for uri in uris if isinstance(uris, list) else []:
        if isinstance(uri, str) and uri.startswith("gs://") and "/" in uri[5:]:
            bucket, _, rest = uri[5:].partition("/")
            if bucket not in buckets:
                buckets.append(bucket)
            paths.append(f"/gcs/{bucket}/{rest}")
    return buckets, paths


def _code(job: JobView, replica: Replica, options: JobOptions,
          args: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The container's image, command and args, and the buckets its pod mounts."""
    ti = job.training_input
    image = replica.image or (job.master.image if replica.kind != "master" else None)
    command = replica.config.get("containerCommand") or (
        job.master.config.get("containerCommand") if replica.image is None else None)
    container: dict[str, Any] = {"name": CONTAINER}
    if image:
        container["image"] = image
        if command:
            container["command"] = [str(c) for c in command]
        own = replica.config.get("containerArgs")
        container["args"] = [str(a) for a in own] if isinstance(own, list) else list(args)
        # what a container reads under /gcs/BUCKET/ (Vertex's mount) is mounted the same way
        named = " ".join(container.get("command", []) + container["args"])
        return container, list(dict.fromkeys(_GCS_PATH.findall(named)))
    buckets, paths = _packages(ti)
    module = str(ti.get("pythonModule") or "")
    install = (f"python3 -m pip install --quiet --user {' '.join(map(shlex.quote, paths))} && "
               if paths else "")
    container["image"] = options.executor_image_uri or ""
    container["command"] = ["sh", "-c", f'{install}exec python3 -m {shlex.quote(module)} "$@"',
                            "sh"]
    container["args"] = list(args)
    return container, buckets


def gpus_of(replica: Replica, cat: GkeCatalog) -> tuple[Any, int]:
    """The replica's GPU (the catalog's record) and count: its acceleratorConfig, else its
    machine type's built-in GPUs; (None, 0) for a CPU replica."""
    gpu = cat.gpus.get(replica.accel_type or "")
    machine = cat.machine_types.get(replica.machine or "")
    count = replica.accel_count
    if gpu is None and machine is not None and machine.built_in and machine.gpus:
        kind, counts = next(iter(machine.gpus.items()))
        gpu, count = cat.gpus.get(kind), counts[-1]
    return (gpu, int(count)) if gpu is not None and count else (None, 0)


def _user_env(container: dict[str, Any], given: Any) -> None:
    """The config's own variables (a native config's env), after gpujob's: each replaces one of
    gpujob's of its name, as the last of a name is the one a container sees."""
    if not isinstance(given, list):
        return
    env = container.setdefault("env", [])
    for item in given:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            env[:] = [e for e in env if e.get("name") != item["name"]]
            env.append({"name": item["name"], "value": str(item.get("value", ""))})


def _pod(job: JobView, name: str, replica: Replica, cat: GkeCatalog,
         options: JobOptions, args: list[str], choice: pods.Choice | None = None,
         queue: str | None = None) -> dict[str, Any]:
    container, buckets = _code(job, replica, options, args)
    gpu, count = gpus_of(replica, cat)
    found = tpu.slice_of(cat, replica)
    container["env"] = _environment(job, name, replica,
                                    listed=listing_bytes(job, name) <= MAX_BYTES, gpus=count,
                                    hosts=found.hosts if found is not None else 1)
    container["ports"] = [{"containerPort": PORT, "name": "cluster"}]
    selector = {MACHINE_LABEL: replica.machine}
    spec: dict[str, Any] = {"restartPolicy": "Never", "subdomain": name}
    if found is not None:
        tpu.place(found, spec, container)
    elif gpu is not None and count:
        selector[ACCELERATOR_LABEL] = gpu.label
        container["resources"] = {"limits": {GPU_RESOURCE: str(count)}}
        spec["tolerations"] = [{"key": GPU_RESOURCE, "operator": "Exists",
                                "effect": "NoSchedule"}]
    spec["nodeSelector"] = {**selector, **spec.get("nodeSelector", {})}
    capacity.pod(spec, options, queue, replica.config)
    spec["containers"] = [container]
    pod: dict[str, Any] = {"spec": spec}
    pods.apply(pod, replica, cat, count, choice)
    volumes.add(spec, container, replica.config.get(volumes.KEY))
    _user_env(container, replica.config.get("env"))
    if buckets:  # Cloud Storage FUSE's sidecar is injected for this annotation
        pod.setdefault("metadata", {}).setdefault("annotations", {})[
            "gke-gcsfuse/volumes"] = "true"
        spec["volumes"] = spec.get("volumes", []) + [{"name": f"gcs-{i}", "csi": {
            "driver": "gcsfuse.csi.storage.gke.io", "readOnly": True,
            "volumeAttributes": {"bucketName": b, "mountOptions": "implicit-dirs"}}}
            for i, b in enumerate(buckets)]
        container["volumeMounts"] = container.get("volumeMounts", []) + [
            {"name": f"gcs-{i}", "mountPath": f"/gcs/{b}", "readOnly": True}
            for i, b in enumerate(buckets)]
    scheduling.place(pod, job.training_input, extra(options, "--priority"),
                     scheduling.topology(extra(options, "--topology")), name)
    return {key: pod[key] for key in ("metadata", "spec") if key in pod}


def _labels(job: JobView, queue: str | None) -> dict[str, str]:
    """The config's labels, and Kueue's queue label with --queue (the submission's own label
    is added by the request, once per submit)."""
    given = job.data.get("labels")
    labels = {str(k): str(v) for k, v in given.items()} if isinstance(given, dict) else {}
    if queue:
        labels[QUEUE_LABEL] = queue
    return labels


def translate(doc: Document, cat: GkeCatalog, options: JobOptions) -> Translation:
    """The JobSet for ``doc`` (an AI Platform config, checked by the rules)."""
    job = view(doc.data)
    ti = job.training_input
    # without a jobId (convert, which generates none): the file's name, as Vertex names its job
    job_id = str(doc.data.get("jobId") or display_name(doc))
    generated = doc.locate(("jobId",)).flag == "file name and time"
    name = jobset_name(job_id, generated, budget(job, cat))
    namespace, queue = namespace_of(options), extra(options, "--queue")
    given = ti.get("args")
    args = [str(a) for a in given] if isinstance(given, list) else []
    job_dir = ti.get("jobDir")
    if isinstance(job_dir, str) and job_dir:  # as AI Platform passes it, and the Vertex service
        args += ["--job-dir", job_dir]
    origins: dict[JsonPath, JsonPath] = {("metadata", "name"): ("jobId",)}
    replicated: list[dict[str, Any]] = []
    choice = pods.decide(job, cat, options)
    given_scheduling = ti.get("scheduling")
    deadline = duration_seconds(given_scheduling.get("maxRunningTime")
                                if isinstance(given_scheduling, dict) else None)
    for replica in used(job):
        rjob = ROLES[replica.kind][0]
        index = len(replicated)
        here: JsonPath = ("spec", "replicatedJobs", index)
        origins[(*here, "replicas")] = replica.count_path
        origins[(*here, "template")] = replica.type_path
        hosts = tpu.hosts(cat, replica)  # a Job runs one pod, or one per TPU host
        template = {"spec": {"parallelism": hosts, "completions": hosts, "backoffLimit": 0,
                             "completionMode": "Indexed",
                             "template": _pod(job, name, replica, cat, options, args,
                                              choice, queue)}}
        capacity.job(template["spec"], options)
        if deadline:  # Kubernetes takes whole seconds, at least 1
            template["spec"]["activeDeadlineSeconds"] = max(int(deadline), 1)
        replicated.append({"name": rjob, "replicas": replica.count, "template": template})
    spec: dict[str, Any] = {}
    if queue:
        spec["suspend"] = True  # Kueue admits it (and unsuspends it), as Google's recipes do
    spec.update({"network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
                 "successPolicy": {"operator": "All", "targetReplicatedJobs": ["master"]},
                 "failurePolicy": {"maxRestarts": 0},
                 "replicatedJobs": replicated})
    body = {"apiVersion": API_VERSION, "kind": "JobSet",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": _labels(job, queue)},
            "spec": spec}
    capacity.jobset(body, options, queue, deadline)
    domain = domains.wanted(job, cat)
    if domain is not None:
        for each in replicated:
            pod = each["template"]["spec"]["template"]["spec"]
            if pod["nodeSelector"].get(MACHINE_LABEL) == domain.machine:
                domains.claim(pod, pod["containers"][0], name, domain)
    companions = (domains.body(name, namespace, domain),) if domain is not None else ()
    auto = None
    if choice is not None and choice.on and choice.mode == "auto":
        p = choice.settings
        off = options._replace(extra=pods.with_mode(options, "off"))
        auto = pods.Auto(p["name"], choice.machine, choice.nodes, p["nics"],
                         tuple(p["networks"]), lambda: translate(doc, cat, off).body)
    return Translation(body, name, namespace, origins, auto, companions)


