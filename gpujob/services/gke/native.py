"""A native Vertex config (a CustomJobSpec or CustomJob file) for GKE: read as gcloud reads it
(``gpujob.config.native_reading``), with the command line applied as for Vertex AI, checked
against its schema, then seen as the AI Platform config it describes (worker pool 0 the master,
1 the workers, 2 the parameter servers, 3 the evaluators) and checked and translated as one
(``rules``), each finding at the native file's own line. A HyperparameterTuningJob is refused:
GKE has no tuning service."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.config.document import Document
from gpujob.config.job import TI
from gpujob.findings import Finding, JsonPath, Location, error
from gpujob.services.gke import capacity, fields, volumes

if TYPE_CHECKING:
    from gpujob.checks.engine import Checked, CheckOptions
    from gpujob.services.gke.catalog import GkeCatalog

KINDS = ("master", "worker", "parameterServer", "evaluator")  # by worker pool


class _Mapped:
    """An AI Platform config made from a native one, and where each of its paths was written."""

    def __init__(self, native: Document, spec: JsonPath) -> None:
        self.native, self.spec = native, spec
        self.data: dict[str, Any] = {TI: {"scaleTier": "CUSTOM"}}
        self.origins: dict[JsonPath, JsonPath] = {(): (), (TI,): spec}

    def set(self, path: JsonPath, value: Any, origin: JsonPath) -> None:
        node = self.data
        for key in path[:-1]:
            node = node.setdefault(str(key), {})
        node[str(path[-1])] = value
        self.origins[path] = origin

    def native_path(self, path: JsonPath) -> JsonPath:
        """The native file's path a finding about ``path`` of the AI Platform form is about."""
        for n in range(len(path), -1, -1):
            if path[:n] in self.origins:
                return self.origins[path[:n]]
        return ()

    def document(self, job_id: str, generated: bool = True) -> Document:
        locate = self.native.locate
        values = {path: locate(origin) for path, origin in self.origins.items()}
        keys = {path: locate(origin, key=True) for path, origin in self.origins.items()}
        values[("jobId",)] = Location("generated", flag="file name and time") if generated \
            else Location("command line", flag="--job-id")
        return Document(self.native.source, {"jobId": job_id, **self.data}, values, keys)


def _map(native: Document, spec_path: JsonPath) -> _Mapped:
    """The AI Platform config ``native``'s CustomJobSpec (at ``spec_path``) describes."""
    out = _Mapped(native, spec_path)
    spec: dict[str, Any] = native.data
    for key in spec_path:
        spec = spec.get(str(key)) or {}
    for i, pool in enumerate((spec.get("workerPoolSpecs") or [])[:4]):
        if not isinstance(pool, dict) or not pool:
            continue
        here = (*spec_path, "workerPoolSpecs", i)
        kind = KINDS[i]
        machine = pool.get("machineSpec") or {}
        out.set((TI, f"{kind}Type"), machine.get("machineType"), (*here, "machineSpec",
                                                                   "machineType"))
        if kind != "master":
            out.set((TI, f"{kind}Count"), pool.get("replicaCount", 1), (*here, "replicaCount"))
        config = (TI, f"{kind}Config")
        out.origins[config] = here
        if machine.get("tpuTopology"):  # a TPU slice (``tpu``)
            out.set((*config, "tpuTopology"), machine["tpuTopology"],
                    (*here, "machineSpec", "tpuTopology"))
        if machine.get("acceleratorType"):
            accel = {"type": machine["acceleratorType"],
                     "count": machine.get("acceleratorCount", 1)}
            out.set((*config, "acceleratorConfig"), accel, (*here, "machineSpec"))
            out.origins[(*config, "acceleratorConfig", "type")] = (*here, "machineSpec",
                                                                   "acceleratorType")
            out.origins[(*config, "acceleratorConfig", "count")] = (*here, "machineSpec",
                                                                    "acceleratorCount")
        reservation = capacity.reservation_name(machine.get("reservationAffinity"))
        if reservation:
            out.set((*config, capacity.RESERVATION_KEY), reservation,
                    (*here, "machineSpec", "reservationAffinity"))
        if volumes.shares(pool.get("nfsMounts")):
            out.set((*config, volumes.KEY), pool["nfsMounts"], (*here, "nfsMounts"))
        container = pool.get("containerSpec")
        package = pool.get("pythonPackageSpec")
        for at_key, code in (("containerSpec", container), ("pythonPackageSpec", package)):
            if isinstance(code, dict) and isinstance(code.get("env"), list):
                out.set((*config, "env"), list(code["env"]), (*here, at_key, "env"))
        if isinstance(container, dict):
            at = (*here, "containerSpec")
            out.set((*config, "imageUri"), container.get("imageUri"), (*at, "imageUri"))
            if container.get("command"):
                out.set((*config, "containerCommand"), container["command"], (*at, "command"))
            out.set((*config, "containerArgs"), list(container.get("args") or []), (*at, "args"))
        elif isinstance(package, dict) and kind == "master":
            at = (*here, "pythonPackageSpec")
            out.set((TI, "packageUris"), package.get("packageUris"), (*at, "packageUris"))
            out.set((TI, "pythonModule"), package.get("pythonModule"), (*at, "pythonModule"))
            out.set((TI, "args"), list(package.get("args") or []), (*at, "args"))
    if spec.get("serviceAccount"):  # the pods' service account (``scheduling``)
        out.set((TI, "serviceAccount"), spec["serviceAccount"], (*spec_path, "serviceAccount"))
    scheduling = spec.get("scheduling")
    if isinstance(scheduling, dict) and scheduling.get("timeout") is not None:
        out.set((TI, "scheduling", "maxRunningTime"), scheduling["timeout"],
                (*spec_path, "scheduling", "timeout"))
    output = (spec.get("baseOutputDirectory") or {}).get("outputUriPrefix")
    if output:
        out.set((TI, "jobDir"), output, (*spec_path, "baseOutputDirectory", "outputUriPrefix"))
    return out


# what a pool's pythonPackageSpec sets that a JobSet takes once, from the master's pool
_PACKAGE_KEYS = ("executorImageUri", "packageUris", "pythonModule", "args")


def _other_packages(native: Document, spec_path: JsonPath) -> list[Finding]:
    """An error for each value of a later pool's pythonPackageSpec that is not the master's: a
    package job's JobSet runs the master's package, module and arguments in every pod, so what
    another pool wrote of its own would be lost without a word."""
    spec: Any = native.data
    for key in spec_path:
        spec = spec.get(str(key)) if isinstance(spec, dict) else None
    pools = spec.get("workerPoolSpecs") if isinstance(spec, dict) else None
    if not isinstance(pools, list) or not pools or not isinstance(pools[0], dict):
        return []
    master = pools[0].get("pythonPackageSpec")
    out = []
    for i, pool in enumerate(pools[1:4], 1):
        package = pool.get("pythonPackageSpec") if isinstance(pool, dict) else None
        if not isinstance(package, dict) or not isinstance(master, dict):
            continue
        for key in _PACKAGE_KEYS:
            if key in package and package[key] != master.get(key):
                path = (*spec_path, "workerPoolSpecs", i, "pythonPackageSpec", key)
                out.append(Finding(
                    "error", "gke.pool-package", f"{key} of worker pool {i} is not the master's: "
                    "on GKE every pod of a package job runs the master's package, module and "
                    "arguments", path, native.locate(path),
                    "give every pool the master's pythonPackageSpec (the trainer can read "
                    "its role from CLUSTER_SPEC or RANK), or run each pool's code as a "
                    "containerSpec"))
    return out


def _executor_image(native: Document, spec_path: JsonPath) -> str | None:
    spec: Any = native.data
    for key in (*spec_path, "workerPoolSpecs"):
        spec = spec.get(key) if isinstance(spec, dict) else None
    first = spec[0] if isinstance(spec, list) and spec else {}
    package = first.get("pythonPackageSpec") if isinstance(first, dict) else None
    return package.get("executorImageUri") if isinstance(package, dict) else None


def check(doc: Document, cat: GkeCatalog, options: CheckOptions, found: str) -> Checked:
    """Every finding of the native config ``doc`` for GKE, and its JobSet (None: errors)."""
    from gpujob.checks import schema
    from gpujob.checks.engine import Checked
    from gpujob.config.merge import generate_job_id
    from gpujob.config.native_flags import apply_flags
    from gpujob.config.native_form import SCHEMAS, SPEC_PATHS
    from gpujob.config.native_reading import read
    from gpujob.services.gke import rules

    if found == "HyperparameterTuningJob":
        return Checked([error("gke.hyperparameters", "GKE has no hyperparameter tuning service",
                              (), doc.locate(()), "submit the study to Vertex AI (--service "
                              "vertex), or run one JobSet per trial")])
    line = options.command_line
    read_doc, notes = read(doc, found, SCHEMAS[found])
    job = apply_flags(read_doc, list(line.overrides), line.user_args)
    found_schema = schema.check(job.doc, SCHEMAS[found])
    if any(f.is_error for f in found_schema):
        return Checked([*notes, *found_schema])
    mapped = _map(job.doc, SPEC_PATHS[found])
    labels = job.labels if job.labels is not None else job.doc.data.get("labels")
    if isinstance(labels, dict):
        mapped.set(("labels",), dict(labels), ("labels",))
    if job.name:  # --job-id names the JobSet, and is checked as a jobId
        as_ap = mapped.document(job.name, generated=False)
    else:
        as_ap = mapped.document(generate_job_id(str(job.doc.data.get("displayName") or "")
                                                or doc.source))
    image = _executor_image(job.doc, SPEC_PATHS[found])
    opts = options._replace(job=options.job._replace(
        executor_image_uri=options.job.executor_image_uri or image,
        strategy=options.job.strategy or _strategy(job.doc, SPEC_PATHS[found])))
    findings, translation = rules.check(as_ap, cat, set(), opts)
    findings = [f._replace(path=mapped.native_path(f.path)) for f in findings]
    unused = fields.native_notes(job.doc, found) + _other_packages(job.doc, SPEC_PATHS[found])
    if job.region:  # --region: where a Vertex job runs; a JobSet runs where its cluster is
        unused.append(Finding("note", "gke.unused", f"--region {job.region} is not used on GKE: "
                              f"{fields.AP['trainingInput.region'][1]}", (),
                              job.region_origin or Location(doc.source, flag="--region")))
    return Checked(sorted([*notes, *found_schema, *unused, *findings], key=_position),
                   translation)


def _strategy(native: Document, spec_path: JsonPath) -> str | None:
    """The config's scheduling.strategy, as --strategy takes it (SPOT, FLEX_START); the
    command line's --strategy comes before it."""
    spec: Any = native.data
    for key in (*spec_path, "scheduling", "strategy"):
        spec = spec.get(key) if isinstance(spec, dict) else None
    return spec.upper() if isinstance(spec, str) and spec.upper() in ("SPOT", "FLEX_START") \
        else None


def _position(finding: Finding) -> tuple[int, int]:
    where = finding.location
    return (where.line or 0, where.column or 0) if where is not None else (0, 0)
