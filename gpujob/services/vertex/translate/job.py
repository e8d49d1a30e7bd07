"""AI Platform Training job -> Vertex AI request body, driven by the Vertex catalog.

``translate`` takes the merged AI Platform ``Job`` (a ``Document``: data plus where each value
was written), the catalog, the day of the run and the command line's choices, and returns the
body of ``customJobs.create`` (or ``hyperparameterTuningJobs.create`` when the job has
``hyperparameters``) with a finding at each value it changed, dropped or could not translate
(the fields are the aiplatform v1 discovery document's, bundled with google-api-python-client).
The body is laid out as gcloud sends
it: ``displayName``, ``labels``, ``encryptionSpec`` at the top, the rest under ``jobSpec``
(``trialJobSpec``); int64 values (``replicaCount``) as strings, int32 ones as numbers.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from gpujob.config.document import Document
from gpujob.config.native_form import display_name
from gpujob.findings import Finding, JsonPath
from gpujob.numbers import as_count
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.paths import COLLECTIONS, layout
from gpujob.services.vertex.translate import code as vertex_code
from gpujob.services.vertex.translate import extras as vertex_extras
from gpujob.services.vertex.translate import hptuning as vertex_hptuning
from gpujob.services.vertex.translate import pools as vertex_pools
from gpujob.services.vertex.translate.notes import Notes, mapping, strings, text
from gpujob.services.vertex.translate.pools import TI, Pool
from gpujob.settings import JobOptions

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

FLEX_START = "FLEX_START"


class Translation(NamedTuple):
    kind: Literal["CustomJob", "HyperparameterTuningJob"]
    region: str | None  # trainingInput.region: the endpoint's and the parent's location
    body: dict[str, Any]
    findings: list[Finding]  # notes, warnings and errors, in file order
    origins: dict[JsonPath, JsonPath]  # body path -> the config path it was made from
    args: tuple[str, ...] = ()  # the trainer's, as every pool gets them (with --job-dir DIR)

    @property
    def collection(self) -> str:
        """The REST collection: ``customJobs`` or ``hyperparameterTuningJobs``."""
        return COLLECTIONS[self.kind]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]


def translate(doc: Document, cat: VertexCatalog, today: date,
              options: JobOptions | None = None) -> Translation:
    """The Vertex request body for ``doc``; never raises on a malformed config (values the
    schema refuses are left out)."""
    options = options or JobOptions()
    notes = Notes(doc)
    data = doc.data if isinstance(doc.data, dict) else {}
    ti = mapping(data.get(TI))
    region = text(ti.get("region"))
    pools = vertex_pools.build(ti, cat, today, notes)
    job_dir, job_dir_args = _job_dir(ti, notes)
    args = (strings(ti.get("args")) or []) + job_dir_args
    code = vertex_code.build(ti, pools, cat, today, options.executor_image_uri, region, args,
                             notes)
    hp = ti.get("hyperparameters")
    spec_path: tuple[str] = ("trialJobSpec",) if isinstance(hp, dict) else ("jobSpec",)
    spec = {"workerPoolSpecs": _worker_pools(ti, pools, code, spec_path, notes)}
    spec.update(_job_spec_fields(ti, options, job_dir, spec_path, notes))
    vertex_extras.apply(spec, vertex_extras.of(options.extra))
    body: dict[str, Any] = {"displayName": _display_name(data, doc, options)}
    if not options.display_name and text(data.get("jobId")):
        notes.came_from(("displayName",), ("jobId",))
    if isinstance(hp, dict):
        body.update(vertex_hptuning.build(hp, notes))
    body[spec_path[0]] = spec
    labels = mapping(data.get("labels"))
    if labels:
        body["labels"] = {k: v for k, v in labels.items() if isinstance(v, str)}
        notes.came_from(("labels",), ("labels",))
    kms = text(mapping(ti.get("encryptionConfig")).get("kmsKeyName"))
    if kms:
        body["encryptionSpec"] = {"kmsKeyName": kms}
        notes.came_from(("encryptionSpec", "kmsKeyName"), (TI, "encryptionConfig", "kmsKeyName"))
    kind: Literal["CustomJob", "HyperparameterTuningJob"] = (
        "HyperparameterTuningJob" if isinstance(hp, dict) else "CustomJob")
    return Translation(kind, region, layout(body), notes.sorted(), notes.origins, tuple(args))


def _display_name(data: dict[str, Any], doc: Document, options: JobOptions) -> str:
    """--display-name, else the jobId, else as a native config is named after its file. A
    display name may hold what a jobId may not (hyphens, spaces): it is Vertex's name alone."""
    return display_name(doc, options.display_name or text(data.get("jobId")))


def _job_dir(ti: dict[str, Any], notes: Notes) -> tuple[str | None, list[str]]:
    """The job directory, and the arguments that pass it to the trainer (Vertex does not)."""
    job_dir = text(ti.get("jobDir"))
    if job_dir is None:
        return None, []
    args = strings(ti.get("args")) or []
    if any(a == "--job-dir" or a.startswith("--job-dir=") for a in args):
        return job_dir, []
    notes.note("job-dir", (TI, "jobDir"), f"jobDir became baseOutputDirectory {job_dir} (Vertex "
               "sets AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and AIP_TENSORBOARD_LOG_DIR under it) and, "
               f"as Vertex does not pass it, `--job-dir {job_dir}` is appended to the trainer's "
               "arguments in every pool")
    return job_dir, ["--job-dir", job_dir]


def _worker_pools(ti: dict[str, Any], pools: list[Pool], code: list[dict[str, Any]],
                  spec_path: JsonPath, notes: Notes) -> list[dict[str, Any]]:
    """Pools 0-3 in order; an empty pool before a used one is ``{}`` (the API allows it)."""
    if not pools:
        return []
    out: list[dict[str, Any]] = [{} for _ in range(pools[-1].index + 1)]
    for pool, runs in zip(pools, code, strict=True):
        machine: dict[str, Any] = {"machineType": pool.machine_type}
        if pool.accelerator:
            machine["acceleratorType"] = pool.accelerator.type
            machine["acceleratorCount"] = pool.accelerator.count
        spec: dict[str, Any] = {"machineSpec": machine, "replicaCount": str(pool.replicas)}
        disk = _disk(mapping(pool.config.get("diskConfig")))
        if disk:
            spec["diskSpec"] = disk
        spec.update(runs)
        out[pool.index] = spec
        _pool_origins(ti, pool, spec, (*spec_path, "workerPoolSpecs", pool.index), notes)
    return out


def _pool_origins(ti: dict[str, Any], pool: Pool, spec: dict[str, Any], here: JsonPath,
                  notes: Notes) -> None:
    accel = (*pool.config_path, "acceleratorConfig")
    tier = pool.machine_path[-1] == "scaleTier"
    own = not tier and "acceleratorConfig" in pool.config
    args: JsonPath = (TI, "args") if "args" in ti else (*pool.config_path, "containerArgs") \
        if "containerArgs" in pool.config else (TI, "jobDir")  # --job-dir DIR alone
    sources: dict[JsonPath, JsonPath] = {
        ("machineSpec", "machineType"): pool.machine_path,
        ("machineSpec", "acceleratorType"): (*accel, "type") if own else pool.machine_path,
        ("machineSpec", "acceleratorCount"): (*accel, "count") if own else pool.machine_path,
        ("diskSpec",): (*pool.config_path, "diskConfig"),
    }
    if "containerSpec" in spec:  # (validate translates every file: only what the pool runs)
        sources.update({
            ("containerSpec", "imageUri"): (*pool.config_path, "imageUri")
            if "imageUri" in pool.config else (TI, "masterConfig", "imageUri"),
            # a container's own command, or the one that installs and runs the package
            ("containerSpec", "command"): (*pool.config_path, "containerCommand")
            if "containerCommand" in pool.config else (TI, "pythonModule"),
            ("containerSpec", "args"): args})
    if "pythonPackageSpec" in spec:
        sources.update({
            ("pythonPackageSpec", "executorImageUri"): (TI, "runtimeVersion"),
            ("pythonPackageSpec", "packageUris"): (TI, "packageUris"),
            ("pythonPackageSpec", "pythonModule"): (TI, "pythonModule"),
            ("pythonPackageSpec", "args"): args})
    if pool.kind != "master" or tier:  # a master is one replica, whatever its machine
        sources[("replicaCount",)] = pool.machine_path if tier else (TI, f"{pool.kind}Count")
    for (*parent, key), source in sources.items():
        node: Any = spec
        for part in parent:
            node = node.get(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict) and key in node and notes.doc.values.get(source):
            notes.came_from((*here, *parent, key), source)


def _disk(config: dict[str, Any]) -> dict[str, Any]:
    disk: dict[str, Any] = {}
    kind, size = text(config.get("bootDiskType")), as_count(config.get("bootDiskSizeGb"))
    if kind:
        disk["bootDiskType"] = kind
    if size is not None:
        disk["bootDiskSizeGb"] = size
    return disk


def _job_spec_fields(ti: dict[str, Any], options: JobOptions, job_dir: str | None,
                     spec_path: JsonPath, notes: Notes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    scheduling = _scheduling(mapping(ti.get("scheduling")), options, notes)
    if scheduling:
        out["scheduling"] = scheduling
        if "timeout" in scheduling:
            notes.came_from((*spec_path, "scheduling", "timeout"),
                            (TI, "scheduling", "maxRunningTime"))
    for key in ("serviceAccount", "network"):
        if text(ti.get(key)):
            out[key] = ti[key]
            notes.came_from((*spec_path, key), (TI, key))
    if job_dir:
        out["baseOutputDirectory"] = {"outputUriPrefix": job_dir}
        notes.came_from((*spec_path, "baseOutputDirectory", "outputUriPrefix"), (TI, "jobDir"))
    if isinstance(ti.get("enableWebAccess"), bool):
        out["enableWebAccess"] = ti["enableWebAccess"]
        notes.came_from((*spec_path, "enableWebAccess"), (TI, "enableWebAccess"))
    if ti.get("useChiefInTfConfig") is True:
        notes.warn("dropped", (TI, "useChiefInTfConfig"), "useChiefInTfConfig is not sent: "
                   "Vertex has no such field (its primary replica is workerpool0, which "
                   "TF_CONFIG calls chief)")
    return out


def _scheduling(config: dict[str, Any], options: JobOptions,
                notes: Notes) -> dict[str, Any]:
    path = (TI, "scheduling")
    out: dict[str, Any] = {}
    if text(config.get("maxRunningTime")):
        out["timeout"] = config["maxRunningTime"]
    if options.strategy:
        out["strategy"] = options.strategy
    wait = text(config.get("maxWaitTime"))
    if wait and options.strategy == FLEX_START:
        out["maxWaitDuration"] = wait
        notes.note("scheduling", (*path, "maxWaitTime"), f"maxWaitTime became maxWaitDuration "
                   f"{wait}: with the {FLEX_START} strategy Vertex waits this long for the "
                   "resources")
    elif wait:
        notes.error("scheduling", (*path, "maxWaitTime"), "Vertex bounds the wait for "
                    f"resources (maxWaitDuration) only with the {FLEX_START} scheduling "
                    "strategy", f"remove maxWaitTime, or choose the {FLEX_START} strategy "
                    f"(Dynamic Workload Scheduler) with --strategy {FLEX_START}")
    if "priority" in config:
        notes.warn("dropped", (*path, "priority"), "priority is not sent: Vertex has no job "
                   "priority")
    return out
