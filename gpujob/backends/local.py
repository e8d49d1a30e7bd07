"""Run a checked Job on this machine: one process per replica, each seeing what the service sets.

As ``gcloud ai-platform local train --distributed`` does (its reference page,
https://cloud.google.com/sdk/gcloud/reference/ai-platform/local/train, and the Cloud SDK's
``command_lib/ml_engine/local_train.py``), every replica runs
``python -m MODULE ARGS --job-dir DIR`` from the parent of ``--package-path``, on free localhost
ports, with ``TF_CONFIG`` and ``CLUSTER_SPEC``; PyTorch trainers also get ``MASTER_ADDR``,
``MASTER_PORT``, ``WORLD_SIZE`` and ``RANK``. Unlike gcloud, the cluster is the config's (scale
tier, counts), the primary is named as the service names it, and the machine's GPUs are shared out
among the replicas with ``CUDA_VISIBLE_DEVICES``.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpujob import catalog
from gpujob.backends import local_packages
from gpujob.backends.local_gpus import share_cpus, share_gpus
from gpujob.backends.module_check import check_module
from gpujob.backends.processes import Spec, describe_exit, supervise
from gpujob.catalog import AnyCatalog, Catalog
from gpujob.config.document import Document
from gpujob.errors import InvalidConfig, JobFailed, UsageError
from gpujob.findings import Finding, finding_line
from gpujob.job import TI
from gpujob.job import Replica as ConfigReplica
from gpujob.job import view as job_view

DEFAULT_MAX_REPLICAS = 8
MAX_REPLICAS = 512  # more processes than one machine runs sensibly (file descriptors, threads)
DEFAULT_GRACE_PERIOD = 10.0
HOST = "localhost"

_NAMES = {"master": ("master", "masters"), "worker": ("worker", "workers"),
          "ps": ("parameter server", "parameter servers"), "evaluator": ("evaluator", "evaluators")}

# the config's replica kinds (as the job view names them) -> the service's task names
_TASKS = {"master": "master", "worker": "worker", "parameterServer": "ps",
          "evaluator": "evaluator"}


@dataclass(frozen=True)
class Replica:
    """One task of the cluster: ``task`` is the service's name (master, worker, ps, evaluator)."""

    task: str
    index: int
    gpus: int = 0  # what its machine type or acceleratorConfig asks for
    pool: int | None = None  # Vertex AI's worker pool (0-3), which names it there

    @property
    def name(self) -> str:
        """The name the service's logs give it: ``worker-replica-0`` (Vertex AI:
        ``workerpool1-0``)."""
        if self.pool is not None:
            return f"workerpool{self.pool}-{self.index}"
        return f"{self.task}-replica-{self.index}"


@dataclass(frozen=True)
class Group:
    """``count`` like replicas of one task (the master, the workers, …), each asking for
    ``gpus``: a million workers are one Group until trimmed."""

    task: str
    count: int
    gpus: int = 0


@dataclass
class LocalOptions:
    """How to run locally; ``gpus`` None means discover them (``discover_gpus``); ``catalog``
    None means the built-in catalog (machine types' built-in GPUs, scale tiers)."""

    package_path: str | None = None
    catalog: AnyCatalog | None = None  # the service's (ai-platform: scale tiers, machines)
    max_replicas: int = DEFAULT_MAX_REPLICAS
    grace_period: float = DEFAULT_GRACE_PERIOD
    gpus: list[str] | None = None
    packages: list[Path] = field(default_factory=list)  # local files of --packages, to install
    service: str = "ai-platform"  # whose replicas to emulate: ai-platform, or vertex
    executor_image_uri: str | None = None  # vertex: what the cloud would run the package on
    strategy: str | None = None  # vertex: scheduling.strategy (FLEX_START takes maxWaitTime)


@dataclass
class Plan:
    """Everything about the run, decided before anything starts."""

    module: str
    package_root: Path
    args: list[str]
    job_dir: str
    fresh_job_dir: bool
    replicas: list[Replica]
    environments: dict[str, dict[str, str]]  # replica name -> the variables it gets
    warnings: list[str] = field(default_factory=list)
    # replica name -> its whole argument list, when the service decides it (vertex)
    trainer_args: dict[str, list[str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)  # of the translation (vertex)

    def command(self, replica: str | None = None) -> list[str]:
        if replica in self.trainer_args:
            return [sys.executable, "-m", self.module, *self.trainer_args[replica]]
        return [sys.executable, "-m", self.module, *self.args, "--job-dir", self.job_dir]


# -- the cluster ------------------------------------------------------------------------------

def _gpus(cat: Catalog, replica: ConfigReplica) -> int:
    """The GPUs a replica asks for: its acceleratorConfig's, else those built into its machine
    type (legacy GPU types, a2-*), as the catalog says."""
    if replica.accel_type is not None:
        gpu = cat.gpu_types.get(replica.accel_type)
        return (replica.accel_count or 0) if gpu and gpu.kind == "gpu" else 0
    machine = cat.machine_types.get(replica.machine or "")
    if machine and machine.built_in:
        gpu = cat.gpu_types.get(machine.built_in[0])
        return machine.built_in[1] if gpu and gpu.kind == "gpu" else 0
    return 0


def replicas_of(training_input: Mapping[str, Any],
                cat: Catalog) -> tuple[list[Group], list[str]]:
    """The replicas the service would start, in order (master, workers, parameter servers,
    evaluators) as groups, with the GPUs each asks for; and warnings about what is not
    emulated. The config is read through the job view, as the compatibility rules read it."""
    tier_name = training_input.get("scaleTier", "BASIC")
    tier = cat.scale_tiers.get(tier_name)
    warnings = []
    if tier and tier.custom:
        replicas = []
        for kind in job_view({TI: dict(training_input)}).replicas:
            task = _TASKS[kind.kind]
            count = 1 if task == "master" else kind.count
            machine = cat.machine_types.get(kind.machine or "")
            if count and machine and machine.category == "tpu":
                warnings.append(f"the Cloud TPU {_NAMES[task][0]} is not emulated locally")
                continue
            replicas.append(Group(task, count, _gpus(cat, kind)))
        return replicas, warnings
    if tier and tier.tpu:
        warnings.append(f"the Cloud TPU of scale tier {tier_name} is not emulated locally")
    return [Group("master", 1, tier.gpu[1] if tier and tier.gpu else 0),
            Group("worker", tier.workers if tier else 0),
            Group("ps", tier.parameter_servers if tier else 0)], warnings


def _shape(counts: Mapping[str, int]) -> str:
    """``1 master, 4 workers, 3 parameter servers``."""
    return ", ".join(f"{n} {_NAMES[t][n != 1]}" for t in _NAMES if (n := counts.get(t, 0)))


def trim(groups: Sequence[Group], bound: int) -> tuple[list[Replica], str | None]:
    """The replicas to run, at most ``bound``: the master stays; the largest group of the others
    loses one at a time (on a tie evaluators first, then parameter servers, then workers).
    Counted, not listed: only the replicas kept are ever made."""
    counts = Counter[str]()
    for group in groups:
        counts[group.task] += group.count
    total = sum(counts.values())
    if min(total, bound) > MAX_REPLICAS:
        raise UsageError(f"the job would run {min(total, bound)} replicas here; at most "
                         f"{MAX_REPLICAS} run on one machine",
                         f"give --max-local-replicas {MAX_REPLICAS} or less (the largest "
                         "groups are trimmed)")
    # a group above ``bound`` is cut down to it before any other loses one: start from there
    kept = Counter({t: n if t == "master" else min(n, bound) for t, n in counts.items()})
    while sum(kept.values()) > bound:
        task = max(("evaluator", "ps", "worker"), key=lambda t: kept[t])
        if not kept[task]:
            break
        kept[task] -= 1
    replicas, made = [], Counter[str]()
    for group in groups:
        for _ in range(min(group.count, kept[group.task] - made[group.task])):
            replicas.append(Replica(group.task, made[group.task], group.gpus))
            made[group.task] += 1
    if len(replicas) == total:
        return replicas, None
    return replicas, (f"the job has {total} replicas ({_shape(counts)}); running "
                      f"{len(replicas)} here ({_shape(kept)}): raise --max-local-replicas to "
                      "run more")


def primary_name(training_input: Mapping[str, Any]) -> str:
    """``chief`` for runtime versions from 2.1 on or with useChiefInTfConfig, else ``master``."""
    if training_input.get("useChiefInTfConfig") is True:
        return "chief"
    try:
        major, minor = (int(p) for p in str(training_input["runtimeVersion"]).split("."))
    except (KeyError, ValueError):
        return "master"
    return "chief" if (major, minor) >= (2, 1) else "master"


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports that were free on the loopback interface just now."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


def environments(replicas: Sequence[Replica], training_input: Mapping[str, Any],
                 ports: Sequence[int], gpus: Mapping[str, list[str]]) -> dict[str, dict[str, str]]:
    """The variables each replica gets, by replica name.

    Ports go to the primary, then the parameter servers, then the workers (gcloud's order);
    evaluators have none and are not in ``cluster``. ``RANK`` is for the master (0) and the
    workers (1…N), the members of ``WORLD_SIZE``; parameter servers and evaluators get none.
    """
    in_cluster = ([r for r in replicas if r.task == "master"]
                  + [r for r in replicas if r.task == "ps"]
                  + [r for r in replicas if r.task == "worker"])
    address = {r.name: f"{HOST}:{port}" for r, port in zip(in_cluster, ports, strict=True)}
    primary = primary_name(training_input)

    def cluster(master_as: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in in_cluster:
            out.setdefault(master_as if r.task == "master" else r.task, []).append(address[r.name])
        return out

    workers = sum(r.task == "worker" for r in replicas)
    result = {}
    for r in replicas:
        def config(master_as: str, r: Replica = r) -> str:
            task = {"type": master_as if r.task == "master" else r.task, "index": r.index}
            return json.dumps({"cluster": cluster(master_as), "task": task,
                               "job": training_input,
                               "environment": "cloud"})

        env = {"TF_CONFIG": config(primary), "CLUSTER_SPEC": config("master"),
               "MASTER_ADDR": HOST, "MASTER_PORT": str(ports[0]),
               "WORLD_SIZE": str(1 + workers),
               "CUDA_VISIBLE_DEVICES": ",".join(gpus.get(r.name, []))}
        if r.task in ("master", "worker"):
            env["RANK"] = str(0 if r.task == "master" else r.index + 1)
        result[r.name] = env
    return result


# -- the plan and the run ---------------------------------------------------------------------

def _package_root(package_path: str | None, module: str) -> tuple[Path, str | None]:
    """The directory the trainer runs from, and a warning when the module is not in the package."""
    if package_path is None:
        return Path.cwd(), None
    from gpujob.packaging import check_package_path

    path = check_package_path(package_path)
    warning = None
    if module.split(".")[0] != path.name:
        warning = (f"the module {module} is not in the package {path.name}/ given by "
                   f"--package-path; python -m {module} runs from {path.parent}")
    return path.parent, warning


def _job_dir(training_input: Mapping[str, Any], job_id: str) -> tuple[str, bool]:
    """The job dir as the trainer gets it, created when local, and whether it is a fresh one.

    A local path is made absolute (the trainer runs from elsewhere); a URL such as gs://… is
    passed as it is; with none, a new directory under the system's temporary directory.
    """
    given = training_input.get("jobDir")
    if given is None:
        return tempfile.mkdtemp(prefix=f"{job_id}-"), True
    if "://" in given:
        return str(given), False
    path = Path(given).expanduser().resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"job dir {given}: cannot create it ({exc.strerror})",
                         "give --job-dir a directory you can write to") from None
    return str(path), False


def plan(doc: Document, options: LocalOptions,
         environ: Mapping[str, str] | None = None) -> Plan:
    """Decide everything about the local run of ``doc`` (checked already). Starts nothing;
    creates the job dir (a fresh one when the job has none)."""
    environ = os.environ if environ is None else environ
    ti = doc.data["trainingInput"]
    module = ti.get("pythonModule")
    if not module:
        raise UsageError("no trainer module to run", "give --module-name MODULE (run as python "
                         "-m MODULE) or trainingInput.pythonModule; a custom container's own "
                         "command is not run locally")
    root, module_warning = _package_root(options.package_path, module)
    if options.service == "vertex":
        return _plan_vertex(doc, options, environ, module, root, module_warning)
    # the replicas are planned from the config's own format, an AI Platform Job, over AI
    # Platform's catalog (its machine types' built-in GPUs, its scale tiers)
    cat = options.catalog if options.catalog is not None else catalog.load("ai-platform")
    groups, warnings = replicas_of(ti, cat)
    replicas, trimmed = trim(groups, options.max_replicas)
    gpus, short = share_gpus(replicas, options.gpus, environ)
    warnings += [w for w in (module_warning, trimmed, short) if w]
    job_dir, fresh = _job_dir(ti, str(doc.data.get("jobId", "job")))
    args = [str(a) for a in ti.get("args", [])]
    job = {**ti, "args": args, "jobDir": job_dir}
    ports = free_ports(sum(r.task != "evaluator" for r in replicas))
    envs = environments(replicas, job, ports, gpus)
    share_cpus(envs, environ)
    return Plan(module, root, args, job_dir, fresh, replicas, envs, warnings)


def _plan_vertex(doc: Document, options: LocalOptions, environ: Mapping[str, str], module: str,
                 root: Path, module_warning: str | None) -> Plan:
    """``plan`` for Vertex AI: the cluster and the arguments are the translation's; every
    replica sees what a Vertex replica sees (``vertex_env``)."""
    from gpujob.backends import vertex_env
    from gpujob.catalog.vertex_data import VertexCatalog

    ti = doc.data["trainingInput"]
    job_id = str(doc.data.get("jobId", "job"))
    job_dir, fresh = _job_dir(ti, job_id)
    cat = options.catalog if isinstance(options.catalog, VertexCatalog) else None
    job = vertex_env.translate_here(doc, job_dir, options.package_path, cat,
                                   options.executor_image_uri, strategy=options.strategy)
    replicas, trimmed = trim([Group(*g) for g in job.groups], options.max_replicas)
    replicas = [replace(r, pool=vertex_env.POOL_OF[r.task]) for r in replicas]
    gpus, short = share_gpus(replicas, options.gpus, environ)
    warnings = job.warnings + [w for w in (module_warning, trimmed, short) if w]
    envs = vertex_env.environments(replicas, job, job_id, job_dir, free_ports(len(replicas)),
                                   HOST, gpus)
    share_cpus(envs, environ)
    return Plan(module, root, [str(a) for a in ti.get("args", [])], job_dir, fresh, replicas,
                envs, warnings, {r.name: job.args[vertex_env.POOL_OF[r.task]] for r in replicas},
                job.findings)


def run_local(doc: Document, options: LocalOptions) -> int:
    """Run the job here; 0 when its master succeeds, else ``JobFailed`` (exit 4)."""
    if os.name != "posix":
        raise UsageError("local runs need Linux or macOS (process groups and signals)")
    if not 0 <= options.grace_period < math.inf:  # nan included
        raise UsageError(f"--grace-period {options.grace_period}: not a number of seconds",
                         "give --grace-period SECONDS, e.g. 10")
    # no stale RANK from the caller for the replicas that get none
    base = {k: v for k, v in os.environ.items() if k != "RANK"}
    base["PYTHONUNBUFFERED"] = "1"  # lines arrive as they are printed, as in the service's logs
    with local_packages.installed(options.packages, base, _say) as env:
        return _run(doc, options, env)


def _run(doc: Document, options: LocalOptions, base: dict[str, str]) -> int:
    """Check that the module is found, plan, run the replicas, and report how the master
    ended; ``base``: the environment they share."""
    job_id = str(doc.data.get("jobId", "job"))
    module = doc.data["trainingInput"].get("pythonModule")
    if options.package_path is None and module:
        check_module(module, Path.cwd(), base)
    try:
        the_plan = plan(doc, options)
    except InvalidConfig as exc:
        for finding in getattr(exc, "findings", []):
            _say(finding_line(finding))
        raise
    for finding in the_plan.findings:
        _say(finding_line(finding))
    for warning in the_plan.warnings:
        _say(f"warning: {warning}")
    names = [r.name for r in the_plan.replicas]
    _say(f"Running job {job_id} here: {len(names)} replica{'s' if len(names) > 1 else ''} "
         f"({', '.join(names)}), each python -m {the_plan.module} from "
         f"{the_plan.package_root}")
    _say(f"Job dir: {the_plan.job_dir}"
         + (" (new; give --job-dir DIR to choose one)" if the_plan.fresh_job_dir else ""))
    specs = [Spec(r.name, the_plan.command(r.name), {**base, **the_plan.environments[r.name]},
                  str(the_plan.package_root)) for r in the_plan.replicas]
    code = supervise(specs, grace=options.grace_period)
    primary = the_plan.replicas[0].name
    if code != 0:
        raise JobFailed(f"job {job_id} failed: {primary} {describe_exit(code)}",
                        f"its output is above, each line prefixed '{primary} |'")
    _say(f"Job {job_id} succeeded: {primary} exited with code 0")
    return 0


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
