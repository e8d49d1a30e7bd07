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

import math
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpujob.config.document import Document
from gpujob.errors import InvalidConfig, JobFailed, UsageError
from gpujob.findings import Finding, finding_line
from gpujob.local import packages as local_packages
from gpujob.local.cluster import LocalOptions, Replica, free_ports, trim
from gpujob.local.drill import Drill, duration
from gpujob.local.gpus import share_cpus, share_gpus
from gpujob.local.module_check import check_module
from gpujob.local.processes import Spec, describe_exit, supervise

__all__ = ["LocalOptions", "Plan", "plan", "run_local"]


@dataclass
class Plan:
    """Everything about the run, decided before anything starts."""

    module: str
    package_root: Path
    job_dir: str
    job_dir_note: str | None  # why gpujob chose the job dir, when it did (a new one)
    replicas: list[Replica]
    environments: dict[str, dict[str, str]]  # replica name -> the variables it gets
    argv: dict[str, list[str]]  # replica name -> the arguments its module gets
    warnings: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # of the translation (vertex)

    def command(self, replica: str) -> list[str]:
        return [sys.executable, "-m", self.module, *self.argv[replica]]


def _package_root(package_path: str | None, module: str) -> tuple[Path, str | None]:
    """The directory the trainer runs from, and a warning when the module is not in the package."""
    if package_path is None:
        return Path.cwd(), None
    from gpujob.packages.build import check_package_path

    path = check_package_path(package_path)
    warning = None
    if module.split(".")[0] != path.name:
        warning = (f"the module {module} is not in the package {path.name}/ given by "
                   f"--package-path; python -m {module} runs from {path.parent}")
    return path.parent, warning


def _job_dir(training_input: Mapping[str, Any], job_id: str) -> tuple[str, str | None]:
    """The job dir as the trainer gets it, created, and why gpujob chose it when it did.

    A local path is made absolute (the trainer runs from elsewhere). With none, or a URL such
    as gs://… (a trainer that writes to it as a path would make a folder named gs: here), a new
    directory under the system's temporary directory.
    """
    given = training_input.get("jobDir")
    if given is None or "://" in str(given):
        instead = f", in place of {given}: a local run does not write to it" if given else ""
        return (tempfile.mkdtemp(prefix=f"{job_id}-"),
                f"new{instead}; give --job-dir DIR to choose one")
    path = Path(given).expanduser().resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"job dir {given}: cannot create it ({exc.strerror})",
                         "give --job-dir a directory you can write to") from None
    return str(path), None


def plan(doc: Document, options: LocalOptions, environ: Mapping[str, str] | None = None,
         job_dir: str | None = None) -> Plan:
    """Decide everything about the local run of ``doc`` (checked already). Starts nothing;
    creates the job dir (a fresh one when the job has none; ``job_dir``: an earlier attempt's,
    taken again)."""
    environ = os.environ if environ is None else environ
    ti = doc.data["trainingInput"]
    module = ti.get("pythonModule")
    if not module:
        raise UsageError("no trainer module to run", "give --module-name MODULE (run as python "
                         "-m MODULE) or trainingInput.pythonModule; a custom container's own "
                         "command is not run locally")
    root, module_warning = _package_root(options.package_path, module)
    job_dir, note = (job_dir, None) if job_dir else _job_dir(ti, str(doc.data.get("jobId", "job")))
    cluster = options.service.local(doc, job_dir, options)
    replicas, trimmed = trim(cluster.groups, options.max_replicas)
    replicas = [cluster.named(r) for r in replicas]
    gpus, short = share_gpus(replicas, options.gpus, environ)
    warnings = [*cluster.warnings, *(w for w in (module_warning, trimmed, short) if w)]
    envs = cluster.environments(replicas, free_ports(cluster.ports(replicas)), gpus)
    share_cpus(envs, environ)
    argv = {r.name: cluster.argv(r) for r in replicas}
    return Plan(module, root, job_dir, note, replicas, envs, argv, warnings,
                list(cluster.findings))


def run_local(doc: Document, options: LocalOptions) -> int:
    """Run the job here; 0 when its master succeeds, else ``JobFailed`` (exit 4)."""
    if os.name != "posix":
        raise UsageError("local runs need Linux or macOS (process groups and signals)")
    if options.drill is not None and options.drill.recover and options.drill.written is None \
            and options.drill.seconds == 0:
        raise UsageError("--preempt-after 0 preempts every attempt as it starts",
                         "give --preempt-after SECONDS above 0 with --recover")
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
    if module:  # from where the replicas run: the package's parent, else here
        root, elsewhere = _package_root(options.package_path, module)
        if elsewhere is None:  # (a module outside --package-path's package: plan warns)
            check_module(module, root, base)
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
         + (f" ({the_plan.job_dir_note})" if the_plan.job_dir_note else ""))
    if options.drill is None:
        code = supervise(_specs(the_plan, base), grace=options.grace_period)
    else:
        code = _drill(job_id, doc, options, base, the_plan, options.drill)
    primary = the_plan.replicas[0].name
    if code != 0:
        raise JobFailed(f"job {job_id} failed: {primary} {describe_exit(code)}",
                        f"its output is above, each line prefixed '{primary} |'")
    _say(f"Job {job_id} succeeded: {primary} exited with code 0")
    return 0


def _specs(the_plan: Plan, base: dict[str, str]) -> list[Spec]:
    return [Spec(r.name, the_plan.command(r.name), {**base, **the_plan.environments[r.name]},
                 str(the_plan.package_root)) for r in the_plan.replicas]


def _drill(job_id: str, doc: Document, options: LocalOptions, base: dict[str, str],
           the_plan: Plan, drill: Drill) -> int:
    """Run the job, preempting each attempt as ``drill`` says, and start it again with the
    same job dir after a preemption (at most ``drill.recover`` times); one line per attempt.
    The exit status of the last attempt's primary, unless it was preempted (``JobFailed``)."""
    primary = the_plan.replicas[0].name
    attempts = drill.recover + 1
    for attempt in range(1, attempts + 1):
        if attempt > 1:  # new ports: the last attempt's may not be free yet
            the_plan = plan(doc, options, job_dir=the_plan.job_dir)
        preemption = drill.attempt(the_plan.job_dir)
        code = supervise(_specs(the_plan, base), grace=options.grace_period,
                         preempt=preemption)
        ran = duration(time.monotonic() - preemption.started)
        head = f"attempt {attempt} of at most {attempts}"
        if code == 0 or not preemption.landed:  # a primary that ended well despite a SIGTERM too
            ended = "succeeded" if code == 0 else f"failed ({primary} {describe_exit(code)})"
            _say(f"{head}: {ended} after {ran}"
                 + ("; a trainer's own failure is not recovered" if code and attempt < attempts
                    else ""))
            return code
        if attempt < attempts:
            _say(f"{head}: preempted after {ran} (--preempt-after {drill.flag}); starting "
                 f"again with the same job dir ({attempt} of --recover {drill.recover})")
            continue
        _say(f"{head}: preempted after {ran} (--preempt-after {drill.flag})")
    recovered = f"after {drill.recover} recover{'y' if drill.recover == 1 else 'ies'}" \
        if drill.recover else "without --recover"
    raise JobFailed(f"job {job_id} was preempted {recovered}",
                    "--recover N starts it again with the same job dir, for a trainer that "
                    "resumes from its checkpoints there" if not drill.recover else
                    "raise --recover, or --preempt-after, for the job to finish")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
