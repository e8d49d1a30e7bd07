"""What a replica of a Vertex AI custom job sees, for ``gpujob local --service vertex``.

The job is the translation's (``gpujob.services.vertex.translate.job``): its worker pools (0 the
primary, 1
the workers, 2 the parameter servers, 3 the evaluators) with their replica counts and GPUs, and
the arguments each pool's package or container gets (the config's, plus ``--job-dir DIR``,
which Vertex does not pass). The run's job dir stands in for ``baseOutputDirectory``. Every
replica gets (the cluster variables as observed on Vertex; the rest from Google's "Prepare
training code" and "Distributed training" pages, which docs/local.md links):

- ``CLUSTER_SPEC``: ``cluster`` {``workerpool0``: [host:port], …} (the pools that have
  replicas), ``environment`` "cloud", ``task`` {``type``: ``workerpoolN``, ``index``}, ``job``
  (a JSON string: python_module, package_uris, job_args), as observed on Vertex.
- ``TF_CONFIG``: the same cluster named ``chief``, ``worker``, ``ps`` (evaluators are not in it,
  TensorFlow's convention; how Vertex names pools in TF_CONFIG is [unverified]).
- ``MASTER_ADDR``/``MASTER_PORT`` (workerpool0's replica), ``WORLD_SIZE`` (every replica) and
  ``RANK`` (its place in pool order), as users report Vertex sets them [unverified by Google's
  docs] and as Google's SDK ranks replicas.
- ``AIP_MODEL_DIR``, ``AIP_CHECKPOINT_DIR``, ``AIP_TENSORBOARD_LOG_DIR`` under the job dir
  (created when local), and ``CLOUD_ML_JOB_ID`` (here the job's id; Vertex's is numeric).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpujob.config.job import TI
from gpujob.errors import InvalidConfig
from gpujob.findings import Finding, Location
from gpujob.local.cluster import HOST, Group, LocalCluster, LocalOptions, Replica, output_dirs
from gpujob.services.vertex.paths import spec_of

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.config.document import Document
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.services.vertex.translate.job import Translation
    from gpujob.settings import JobOptions
else:
    from gpujob.tuples import NamedTuple


class Role(NamedTuple):
    """What a worker pool is: the replica kind ``gpujob local`` counts it as, TF_CONFIG's task
    type for it, and whether TF_CONFIG lists it in ``cluster``."""

    task: str
    tf_type: str
    in_tf_cluster: bool


# worker pool N -> its role (pool order as in Vertex's distributed-training page)
POOLS: tuple[Role, ...] = (
    Role("master", "chief", True),
    Role("worker", "worker", True),
    Role("ps", "ps", True),
    Role("evaluator", "evaluator", False),
)
POOL_OF = {role.task: index for index, role in enumerate(POOLS)}

# Vertex's directories under baseOutputDirectory (the code-requirements page; a trial's are under
# BASE/TRIAL_ID/, which a local run has none of)
OUTPUT_DIRS = {"AIP_MODEL_DIR": "model", "AIP_CHECKPOINT_DIR": "checkpoints",
               "AIP_TENSORBOARD_LOG_DIR": "logs"}

# Translation errors about what only the cloud needs: the image that runs the code and the
# packages it installs, the scheduling of the job, the tuning service. A local run runs
# ``python -m MODULE`` here, at once and once: it shows them as warnings and goes on. Errors
# about the cluster (machines, GPUs, TPUs, the scale tier) stop it, as the checks' errors do.
CLOUD_ONLY = frozenset({"vertex-translate.package", "vertex-translate.executor-image",
                        "vertex-translate.runtime-version", "vertex-translate.scheduling",
                        "vertex-translate.hyperparameters"})


# The job dir a local run's check translates the job with: the run chooses its own after the
# check (``gpujob.local.run``) and puts it in place of this one (``translate_here``)
JOB_DIR_STAND_IN = "/gpujob-local-run/job-dir"


class _Checked(NamedTuple):
    """What a local run's check translated (the job as the run submits it, with the stand-in
    job dir), against which catalog, and the translation."""

    data: Any
    cat: Any
    executor_image_uri: str | None
    strategy: str | None
    translation: Translation


_CHECKED: list[_Checked] = []  # the last check's, which its run takes instead of translating


class Refused(InvalidConfig):
    """The job cannot be translated into a Vertex cluster; ``findings`` say why."""

    def __init__(self, source: str, findings: list[Finding]) -> None:
        errors = sum(f.is_error for f in findings)
        super().__init__(f"{source}: {errors} problem{'s' if errors > 1 else ''} translating "
                         "the job for Vertex AI; nothing was run")
        self.findings = findings


class VertexJob(NamedTuple):
    """The translated job, as the local run needs it: by worker pool, its replicas (in pool
    order), the arguments its replicas get and the ``job`` of their CLUSTER_SPEC."""

    groups: list[Group]
    args: dict[int, list[str]]
    spec_jobs: dict[int, str]
    findings: list[Finding]  # the translation's, cloud-only errors shown as warnings
    warnings: list[str]


def translate_checked(doc: Document, cat: VertexCatalog, options: JobOptions,
                      package_path: str | None) -> Translation:
    """The translation a local run's check makes, and its run then takes (``translate_here``):
    ``doc`` as the run submits it, with a stand-in for the job dir the run chooses after the
    check."""
    from gpujob.services.vertex.translate.job import translate

    submitted = _as_submitted(doc, JOB_DIR_STAND_IN, package_path)
    translation = translate(submitted, cat, date.today(), options)
    _CHECKED[:] = [_Checked(submitted.data, cat, options.executor_image_uri, options.strategy,
                            translation)]
    return translation


def translate_here(doc: Document, job_dir: str, package_path: str | None = None,
                   cat: VertexCatalog | None = None, executor_image_uri: str | None = None,
                   strategy: str | None = None) -> VertexJob:
    """Translate ``doc`` (checked) as ``submit --service vertex`` would (with
    ``--executor-image-uri`` and ``--strategy``), with ``job_dir`` as its jobDir and, when it
    has no packageUris, the package ``submit --package-path`` would build: the check's
    translation of that job (``translate_checked``) with ``job_dir`` in place of its stand-in,
    else made here; ``Refused`` when the cluster itself cannot be translated."""
    from gpujob.catalog import load
    from gpujob.services.vertex.translate.job import translate
    from gpujob.settings import JobOptions

    cat = cat if cat is not None else load("vertex")
    translation = _checked(doc, package_path, cat, executor_image_uri, strategy, job_dir)
    if translation is None:
        translation = translate(_as_submitted(doc, job_dir, package_path), cat,
                                date.today(), JobOptions(
                                    executor_image_uri=executor_image_uri, strategy=strategy))
    findings = for_local(translation.findings)
    if any(f.is_error for f in findings):
        raise Refused(doc.source, findings)
    groups, warnings = _groups(translation, cat)
    args, spec_jobs = {}, {}
    for index, pool in enumerate(spec_of(translation.body)[0].get("workerPoolSpecs", [])):
        args[index], spec_jobs[index] = _code(pool, translation, doc.data[TI])
    return VertexJob(groups, args, spec_jobs, findings, warnings)


def _checked(doc: Document, package_path: str | None, cat: VertexCatalog,
             executor_image_uri: str | None, strategy: str | None,
             job_dir: str) -> Translation | None:
    """The check's translation of this job, with ``job_dir`` in place of the stand-in (the
    translation takes the jobDir as it is, so nothing else in it depends on it); None when the
    check translated another job (a local package given by --packages is a gs:// stand-in
    there, a path here)."""
    if not _CHECKED:
        return None
    last = _CHECKED[0]
    if (last.cat is not cat or (last.executor_image_uri, last.strategy) != (
            executor_image_uri, strategy)
            or last.data != _as_submitted(doc, JOB_DIR_STAND_IN, package_path).data):
        return None
    t = last.translation

    def put(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(JOB_DIR_STAND_IN, job_dir)
        if isinstance(value, dict):
            return {key: put(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(put(item) for item in value)
        return value

    return t._replace(body=put(t.body), args=put(t.args), findings=[
        f._replace(message=put(f.message), hint=put(f.hint)) for f in t.findings])


def _code(pool: dict[str, Any], translation: Translation,
          ti: dict[str, Any]) -> tuple[list[str], str]:
    """The arguments a pool's replicas get (those the cloud gives its package or container),
    and CLUSTER_SPEC's ``job`` for them (observed on container jobs: empty)."""
    if "pythonPackageSpec" in pool:
        args = list(pool["pythonPackageSpec"].get("args", []))
        job = {"python_module": pool["pythonPackageSpec"]["pythonModule"],
               "package_uris": [str(u) for u in ti.get("packageUris", [])], "job_args": args}
    elif "containerSpec" in pool:
        args = list(pool["containerSpec"].get("args", []))
        job = {"python_module": "", "package_uris": [], "job_args": []}
    else:  # the code cannot run on Vertex as written (a warning says why): the trainer's
        args = list(translation.args)
        job = {"python_module": str(ti.get("pythonModule", "")), "package_uris": [],
               "job_args": args}
    return args, _dumps(job)


def _as_submitted(doc: Document, job_dir: str, package_path: str | None) -> Document:
    """The job as ``submit`` would send it: with the run's job dir; a package job with the
    package ``--package-path`` builds (as submit's checks see it before the build,
    ``submit_packages.Wanted.for_check``); a container job without the module that a local run needs
    only to run in the container's place."""
    from gpujob.config.merge import REMOVE, apply
    from gpujob.config.overrides import Override

    ti = doc.data[TI]
    path = (TI, "jobDir")
    origin = doc.locate(path) if "jobDir" in ti else Location("gpujob local",
                                                               flag="a new job dir")
    overrides = [Override(path, job_dir, origin)]
    container = isinstance(ti.get("masterConfig"), dict) and ti["masterConfig"].get("imageUri")
    if container and "pythonModule" in ti:
        overrides.append(Override((TI, "pythonModule"), REMOVE, Location("gpujob local")))
    elif package_path and not ti.get("packageUris"):
        overrides.append(Override((TI, "packageUris"), [
            f"gs://to-be-staged/{Path(package_path).resolve().name}.tar.gz"],
            Location("command line", flag="--package-path")))
    return apply(doc, overrides)


def translated_by_the_run(finding: Finding) -> bool:
    """A finding of the translation, which a local run makes (and reports) itself: with the
    run's job dir and package, and the cloud-only errors as warnings."""
    from gpujob.services.vertex.translate.notes import RULE

    return finding.rule.startswith(f"{RULE}.")


def for_local(findings: list[Finding], rules: frozenset[str] = CLOUD_ONLY) -> list[Finding]:
    """The errors of ``rules`` (about what only the cloud needs) as warnings: a local run goes
    on without it, and says that Vertex would still refuse the job."""
    return [f._replace(severity="warning", message=f"{f.message} (Vertex would refuse the job; "
                       "a local run does not need it)") if f.is_error and f.rule in rules else f
            for f in findings]


def _groups(translation: Translation, cat: VertexCatalog) -> tuple[list[Group], list[str]]:
    """The replicas of each pool, in pool order, with the GPUs each asks for."""
    groups, warnings = [], []
    for index, pool in enumerate(spec_of(translation.body)[0].get("workerPoolSpecs", [])):
        if not pool:
            continue  # an empty pool before a used one
        machine = pool["machineSpec"]
        accelerator = cat.accelerators.get(machine.get("acceleratorType", ""))
        known = cat.machine_types.get(machine["machineType"])
        gpus = machine.get("acceleratorCount", 0) if accelerator and accelerator.kind == "gpu" \
            else 0
        if (accelerator and accelerator.kind == "tpu") or (known and known.tpu):
            warnings.append(f"the TPUs of workerpool{index} ({machine['machineType']}) are not "
                            "emulated locally: its replicas run on the CPU")
        groups.append(Group(POOLS[index].task, int(pool["replicaCount"]), gpus))
    return groups, warnings


def _dumps(value: Any) -> str:
    """JSON as Vertex writes CLUSTER_SPEC: no spaces."""
    return json.dumps(value, separators=(",", ":"))


def environments(replicas: Sequence[Replica], job: VertexJob, job_id: str, job_dir: str,
                 ports: Sequence[int], host: str,
                 gpus: Mapping[str, list[str]]) -> dict[str, dict[str, str]]:
    """The variables each replica gets, by replica name (``workerpool1-0``); ``ports``: one
    per replica, in order."""
    address = {r.name: f"{host}:{port}" for r, port in zip(replicas, ports, strict=True)}
    pools: dict[str, list[str]] = {}
    tf_cluster: dict[str, list[str]] = {}
    for r in replicas:
        role = POOLS[POOL_OF[r.task]]
        pools.setdefault(f"workerpool{POOL_OF[r.task]}", []).append(address[r.name])
        if role.in_tf_cluster:
            tf_cluster.setdefault(role.tf_type, []).append(address[r.name])
    common = {"MASTER_ADDR": host, "MASTER_PORT": str(ports[0]),
              "WORLD_SIZE": str(len(replicas)), "CLOUD_ML_JOB_ID": job_id,
              **output_dirs(job_dir, OUTPUT_DIRS)}
    result = {}
    for rank, r in enumerate(replicas):
        pool = POOL_OF[r.task]
        cluster_spec = {"cluster": pools, "environment": "cloud",
                        "task": {"type": f"workerpool{pool}", "index": r.index},
                        "job": job.spec_jobs[pool]}
        tf_config = {"cluster": tf_cluster, "environment": "cloud",
                     "task": {"type": POOLS[pool].tf_type, "index": r.index}}
        result[r.name] = {"CLUSTER_SPEC": _dumps(cluster_spec), "TF_CONFIG": _dumps(tf_config),
                          **common, "RANK": str(rank),
                          "CUDA_VISIBLE_DEVICES": ",".join(gpus.get(r.name, []))}
    return result


def cluster(doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
    """The job Vertex AI would run for ``doc`` (checked), translated as ``submit`` would
    (``translate_here``): each replica named by its worker pool, on a port of its own, sees
    what a Vertex replica sees."""
    from dataclasses import replace

    from gpujob.services.vertex.catalog import VertexCatalog

    job_id = str(doc.data.get("jobId", "job"))
    given = options.job
    cat = options.catalog if isinstance(options.catalog, VertexCatalog) else None
    job = translate_here(doc, job_dir, options.package_path, cat,
                         given.executor_image_uri if given else None,
                         strategy=given.strategy if given else None)
    return LocalCluster(
        job.groups,
        lambda replicas, ports, gpus: environments(replicas, job, job_id, job_dir, ports, HOST,
                                                   gpus),
        lambda replica: job.args[POOL_OF[replica.task]],
        named=lambda replica: replace(replica, pool=POOL_OF[replica.task]),
        warnings=tuple(job.warnings), findings=tuple(job.findings))
