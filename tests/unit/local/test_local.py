"""``gpujob local`` and ``submit --local``: what every replica sees, its output, and stopping.

The trainer is tests/trainers/recorder (standard library only): each replica writes what it saw to
JOB_DIR/seen/TASK-INDEX.json, prints a line, and then exits, sleeps or ignores SIGTERM as told.
"""

from __future__ import annotations

import json
import math
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from jobs import CLUSTER, RECORDER

ALONE: dict[str, Any] = {"scaleTier": "BASIC", "region": "us-central1",
                         "runtimeVersion": "2.11", "pythonModule": "recorder.task"}


@pytest.fixture
def job(write, tmp_path: Path):
    """Write a config from trainingInput fields; returns (config path, a new job dir path)."""
    made = 0

    def make(training_input: dict[str, Any], **top: Any) -> tuple[str, Path]:
        nonlocal made
        made += 1
        path = write(json.dumps({**top, "trainingInput": training_input}), f"job{made}.yaml")
        return path, tmp_path / f"job-dir-{made}"

    return make


@pytest.fixture
def local(cli, job):
    """Run ``gpujob local`` in-process on the recorder; returns (result, job dir)."""

    def run(training_input: dict[str, Any], *flags: str, gpus: str = "",
            trainer_args: tuple[str, ...] = (), env: dict[str, str] | None = None):
        config, job_dir = job(training_input, jobId="test_job")
        result = cli("local", config, "--package-path", RECORDER, "--job-dir", job_dir, *flags,
                     "--", *trainer_args, env={"GPUJOB_LOCAL_GPUS": gpus, **(env or {})})
        return result, job_dir

    return run


def seen(job_dir: Path) -> dict[str, dict[str, Any]]:
    """What each replica recorded, by TASK-INDEX (the TF_CONFIG task)."""
    return {p.stem: json.loads(p.read_text()) for p in (job_dir / "seen").glob("*.json")}


def tf_config(record: dict[str, Any], name: str = "TF_CONFIG") -> dict[str, Any]:
    return json.loads(record["env"][name])


def alive(pid: int) -> bool:
    """Running (not merely a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def still_alive(records: dict[str, dict[str, Any]], within: float = 10.0) -> list[int]:
    """The replicas and the processes they started (``--spawn``: in their process group, in a
    session of their own, a daemon) that are still running once ``within`` seconds have passed
    (a killed process may take a moment to go). Those are then killed: a failing test leaves
    nothing behind."""
    pids = [p for r in records.values() for p in (r["pid"], *r["grandchildren"])]
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [p for p in pids if alive(p)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    return survivors


# -- what each replica sees -------------------------------------------------------------------

def test_every_replica_sees_the_cluster_the_service_would_set(local):
    result, job_dir = local(CLUSTER, gpus="0,1,2,3",
                            trainer_args=("--expect", "5", "--lr", "0.1", "a b"))
    assert result.code == 0, result.err
    records = seen(job_dir)
    assert sorted(records) == ["chief-0", "evaluator-0", "ps-0", "worker-0", "worker-1"]

    cluster = tf_config(records["chief-0"])["cluster"]
    assert sorted(cluster) == ["chief", "ps", "worker"]  # evaluators are never in the cluster
    assert [len(cluster[k]) for k in ("chief", "worker", "ps")] == [1, 2, 1]
    addresses = cluster["chief"] + cluster["worker"] + cluster["ps"]
    assert all(re.fullmatch(r"localhost:\d+", a) for a in addresses)
    assert len(set(addresses)) == 4
    master_port = cluster["chief"][0].split(":")[1]

    expected = {  # TASK-INDEX: (TF_CONFIG task type, RANK, CUDA_VISIBLE_DEVICES)
        "chief-0": ("chief", "0", "0,1"),
        "worker-0": ("worker", "1", "2"),
        "worker-1": ("worker", "2", "3"),
        "ps-0": ("ps", None, ""),
        "evaluator-0": ("evaluator", None, ""),
    }
    for name, (task_type, rank, devices) in expected.items():
        record = records[name]
        config = tf_config(record)
        index = int(name.split("-")[1])
        assert config["cluster"] == cluster
        assert config["task"] == {"type": task_type, "index": index}
        assert config["environment"] == "cloud"
        assert config["job"] == {**CLUSTER, "args": ["--expect", "5", "--lr", "0.1", "a b"],
                                 "jobDir": str(job_dir)}
        spec = tf_config(record, "CLUSTER_SPEC")
        assert spec["cluster"] == {("master" if k == "chief" else k): v
                                   for k, v in cluster.items()}
        assert spec["task"] == {"type": "master" if task_type == "chief" else task_type,
                                "index": index}
        env = record["env"]
        assert env["MASTER_ADDR"] == "localhost"
        assert env["MASTER_PORT"] == master_port
        assert env["WORLD_SIZE"] == "3"  # the master and the workers
        assert env.get("RANK") == rank
        assert env["CUDA_VISIBLE_DEVICES"] == devices
        assert record["argv"] == ["--expect", "5", "--lr", "0.1", "a b",
                                  "--job-dir", str(job_dir)]
        assert record["cwd"] == str(RECORDER.parent)
        assert record["pid"] == record["pgid"] == record["sid"]  # a session of its own
    assert "warning" not in result.err


@pytest.mark.parametrize("fields, flags, primary", [
    ({"runtimeVersion": "2.11"}, [], "chief"),
    ({"runtimeVersion": "2.1"}, [], "chief"),
    ({"runtimeVersion": "1.15"}, [], "master"),
    ({"runtimeVersion": "1.15", "useChiefInTfConfig": True}, [], "chief"),
    ({"runtimeVersion": "1.15"}, ["--use-chief-in-tf-config"], "chief"),
    ({"runtimeVersion": "2.11", "useChiefInTfConfig": False}, [], "chief"),
])
def test_the_primary_is_chief_or_master_as_the_service_names_it(local, fields, flags, primary):
    result, job_dir = local({**ALONE, **fields}, *flags)
    assert result.code == 0, result.err
    (record,) = seen(job_dir).values()
    assert tf_config(record)["cluster"] == {primary: [tf_config(record)["cluster"][primary][0]]}
    assert tf_config(record)["task"] == {"type": primary, "index": 0}
    assert tf_config(record, "CLUSTER_SPEC")["task"] == {"type": "master", "index": 0}
    assert record["env"]["RANK"] == "0" and record["env"]["WORLD_SIZE"] == "1"


def test_the_files_args_go_to_the_trainer_without_a_separator(cli, job):
    config, job_dir = job({**ALONE, "args": ["--from-file", "1"]})
    result = cli("local", config, "--package-path", RECORDER, "--job-dir", job_dir,
                 env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.err
    (record,) = seen(job_dir).values()
    assert record["argv"] == ["--from-file", "1", "--job-dir", str(job_dir)]


def test_flags_override_the_file_as_for_submit(local):
    result, job_dir = local(ALONE, "--scale-tier", "custom", "--master-machine-type",
                            "n1-standard-4", "--worker-count", "2", "--worker-machine-type",
                            "n1-standard-4", "--set", "trainingInput.labels=x")
    assert result.code == 1  # --set reached the check: labels are not a TrainingInput field
    assert "nothing was run" in result.err
    result, job_dir = local(ALONE, "--scale-tier", "custom", "--master-machine-type",
                            "n1-standard-4", "--worker-count", "2", "--worker-machine-type",
                            "n1-standard-4", trainer_args=("--expect", "3"))
    assert result.code == 0, result.err
    assert sorted(seen(job_dir)) == ["chief-0", "worker-0", "worker-1"]


def test_scale_tiers_have_their_clusters(local):
    result, job_dir = local({**ALONE, "scaleTier": "STANDARD_1"}, trainer_args=("--expect", "8"))
    assert result.code == 0, result.err
    assert sorted(seen(job_dir)) == ["chief-0", *[f"ps-{i}" for i in range(3)],
                                     *[f"worker-{i}" for i in range(4)]]


def test_max_local_replicas_trims_the_largest_groups_with_a_warning(local):
    result, job_dir = local({**ALONE, "scaleTier": "STANDARD_1"}, "--max-local-replicas", "4",
                            trainer_args=("--expect", "4"))
    assert result.code == 0, result.err
    assert ("warning: the job has 8 replicas (1 master, 4 workers, 3 parameter servers); "
            "running 4 here (1 master, 2 workers, 1 parameter server): raise "
            "--max-local-replicas to run more") in result.err
    records = seen(job_dir)
    assert sorted(records) == ["chief-0", "ps-0", "worker-0", "worker-1"]
    cluster = tf_config(records["chief-0"])["cluster"]
    assert [len(cluster[k]) for k in ("chief", "worker", "ps")] == [1, 2, 1]
    assert {r["env"]["WORLD_SIZE"] for r in records.values()} == {"3"}


def _gpujob_in_1_gib(*args: str) -> subprocess.CompletedProcess[str]:
    """``gpujob ARGS`` in a process that may use 1 GiB of address space, its replicas too: a
    list of a million replicas would end it (MemoryError) rather than the machine."""
    limited = ("import resource, runpy, sys; "
               "resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30)); "
               "sys.argv = ['gpujob', *sys.argv[1:]]; "
               "runpy.run_module('gpujob', run_name='__main__')")
    return subprocess.run([sys.executable, "-c", limited, *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "GPUJOB_LOCAL_GPUS": ""})


MANY = {**ALONE, "scaleTier": "CUSTOM", "masterType": "n1-standard-4",
        "workerType": "n1-standard-4", "workerCount": "100000000000"}


def test_a_huge_worker_count_is_trimmed_before_any_replica_is_made(job):
    config, job_dir = job(MANY)
    result = _gpujob_in_1_gib("local", config, "--package-path", str(RECORDER), "--job-dir",
                              str(job_dir), "--max-local-replicas", "3", "--", "--expect", "3")
    assert result.returncode == 0, result.stderr
    assert ("warning: the job has 100000000001 replicas (1 master, 100000000000 workers); "
            "running 3 here (1 master, 2 workers): raise --max-local-replicas to run more"
            ) in result.stderr
    assert sorted(seen(job_dir)) == ["chief-0", "worker-0", "worker-1"]


def test_more_replicas_than_a_machine_runs_are_refused_at_once(job):
    config, job_dir = job(MANY)
    result = _gpujob_in_1_gib("local", config, "--package-path", str(RECORDER), "--job-dir",
                              str(job_dir), "--max-local-replicas", "1000000")
    assert result.returncode == 2, result.stderr
    assert result.stderr.endswith(
        "error: the job would run 1000000 replicas here; at most 512 run on one machine\n"
        "  hint: give --max-local-replicas 512 or less (the largest groups are trimmed)\n")
    assert not (job_dir / "seen").exists()


def test_a_cloud_tpu_worker_is_not_run(local):
    tpu = {**ALONE, "scaleTier": "CUSTOM", "masterType": "n1-standard-8", "workerCount": 1,
           "workerType": "cloud_tpu"}
    result, job_dir = local(tpu)
    assert result.code == 0, result.err
    assert "warning: the Cloud TPU worker is not emulated locally" in result.err
    assert sorted(seen(job_dir)) == ["chief-0"]


# -- GPUs -------------------------------------------------------------------------------------

def test_fewer_gpus_than_asked_warns_and_runs_with_what_there_is(local):
    result, job_dir = local(CLUSTER, gpus="7,5", trainer_args=("--expect", "5"))
    assert result.code == 0, result.err
    assert ("warning: the job asks for 4 GPUs and 2 are available (GPUJOB_LOCAL_GPUS): "
            "worker-replica-0 gets 0 of 1, worker-replica-1 gets 0 of 1; a replica with none "
            "runs on the CPU (CUDA_VISIBLE_DEVICES is empty)") in result.err
    devices = {k: r["env"]["CUDA_VISIBLE_DEVICES"] for k, r in seen(job_dir).items()}
    assert devices == {"chief-0": "7,5", "worker-0": "", "worker-1": "", "ps-0": "",
                       "evaluator-0": ""}


def test_without_gpus_every_replica_runs_on_the_cpu(local):
    result, job_dir = local(CLUSTER, gpus="", trainer_args=("--expect", "5"))
    assert result.code == 0, result.err
    assert ("warning: the job asks for 4 GPUs and none are available (GPUJOB_LOCAL_GPUS): "
            "the replicas run on the CPU") in result.err
    assert {r["env"]["CUDA_VISIBLE_DEVICES"] for r in seen(job_dir).values()} == {""}


def test_machine_types_with_built_in_gpus_and_basic_gpu_bring_their_gpus(local):
    legacy = {**ALONE, "scaleTier": "CUSTOM", "masterType": "complex_model_m_gpu",
              "workerCount": 1, "workerType": "standard_p100", "parameterServerCount": 1,
              "parameterServerType": "large_model"}
    result, job_dir = local(legacy, gpus="0,1,2,3,4,5,6,7", trainer_args=("--expect", "3"))
    assert result.code == 0, result.err
    devices = {k: r["env"]["CUDA_VISIBLE_DEVICES"] for k, r in seen(job_dir).items()}
    assert devices == {"chief-0": "0,1,2,3", "worker-0": "4", "ps-0": ""}
    result, job_dir = local({**ALONE, "scaleTier": "BASIC_GPU"}, gpus="3,4")
    assert result.code == 0, result.err
    assert seen(job_dir)["chief-0"]["env"]["CUDA_VISIBLE_DEVICES"] == "3"
    a2 = {**ALONE, "scaleTier": "CUSTOM", "masterType": "a2-highgpu-2g"}  # 2 × A100 built in
    result, job_dir = local(a2, gpus="0,1,2")
    assert result.code == 0, result.err
    assert seen(job_dir)["chief-0"]["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_built_in_gpus_come_from_the_catalog_in_use(local, user_catalog):
    newer = user_catalog(lambda data: data["legacy_machine_types"]["types"]["standard_gpu"][
        "built_in"].update(count=2), "newer-catalog.json")
    legacy = {**ALONE, "scaleTier": "CUSTOM", "masterType": "standard_gpu"}
    result, job_dir = local(legacy, "--catalog", str(newer), gpus="0,1,2")
    assert result.code == 0, result.err
    assert seen(job_dir)["chief-0"]["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_cuda_visible_devices_limits_the_gpus_when_gpujob_local_gpus_is_unset(cli, job,
                                                                              monkeypatch):
    monkeypatch.delenv("GPUJOB_LOCAL_GPUS", raising=False)
    config, job_dir = job({**CLUSTER, "masterConfig": {"acceleratorConfig": {
        "count": 1, "type": "NVIDIA_TESLA_T4"}}, "workerCount": 1})
    result = cli("local", config, "--package-path", RECORDER, "--job-dir", job_dir, "--",
                 "--expect", "4", env={"CUDA_VISIBLE_DEVICES": "2,3"})
    assert result.code == 0, result.err
    devices = {k: r["env"]["CUDA_VISIBLE_DEVICES"] for k, r in seen(job_dir).items()}
    assert devices == {"chief-0": "2", "worker-0": "3", "ps-0": "", "evaluator-0": ""}


@pytest.mark.parametrize("script, devices, warning", [
    ("printf '0\\n1\\n'", {"chief-0": "0,1", "worker-0": ""},
     "the job asks for 3 GPUs and 2 are available (nvidia-smi): worker-replica-0 gets 0 of 1"),
    ("echo 'NVIDIA-SMI has failed' >&2; exit 9", {"chief-0": "", "worker-0": ""},
     "the job asks for 3 GPUs and none are available (nvidia-smi failed)"),
    (None, {"chief-0": "", "worker-0": ""},
     "the job asks for 3 GPUs and none are available (no nvidia-smi)"),
])
def test_gpus_are_found_with_nvidia_smi(cli, job, nvidia_smi, script, devices, warning):
    """Without GPUJOB_LOCAL_GPUS or CUDA_VISIBLE_DEVICES, gpujob asks nvidia-smi (here a script
    standing in for it on PATH)."""
    nvidia_smi(script)
    config, job_dir = job({**CLUSTER, "workerCount": 1, "parameterServerCount": 0,
                           "evaluatorCount": 0})
    result = cli("local", config, "--package-path", RECORDER, "--job-dir", job_dir, "--",
                 "--expect", "2")
    assert result.code == 0, result.err
    assert f"warning: {warning}" in result.err
    assert {k: r["env"]["CUDA_VISIBLE_DEVICES"] for k, r in seen(job_dir).items()} == devices


GPU_JOB = {**ALONE, "scaleTier": "CUSTOM", "masterType": "n1-standard-8",
           "masterConfig": {"acceleratorConfig": {"count": 1, "type": "NVIDIA_TESLA_T4"}},
           "workerCount": 2, "workerType": "n1-standard-8",
           "workerConfig": {"acceleratorConfig": {"count": 1, "type": "NVIDIA_TESLA_T4"}}}


@pytest.mark.parametrize("variables, smi, message, hint", [
    ({"GPUJOB_LOCAL_GPUS": "0,0,0"}, None,
     "GPUJOB_LOCAL_GPUS names GPU 0 more than once (0,0,0)", "GPUJOB_LOCAL_GPUS=0"),
    ({"CUDA_VISIBLE_DEVICES": "1,2,01"}, None,
     "CUDA_VISIBLE_DEVICES names GPU 01 more than once (1,2,01)", "GPUJOB_LOCAL_GPUS=1,2"),
    ({}, "printf '0\\n1\\n0\\n'", "nvidia-smi lists GPU 0 more than once (0,1,0)",
     "GPUJOB_LOCAL_GPUS=0,1"),
])
def test_a_gpu_named_twice_is_refused(cli, job, tmp_path, monkeypatch, variables, smi, message,
                                      hint):
    """Each GPU goes to one replica: a list that names one twice would give it to two."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if smi:
        (bin_dir / "nvidia-smi").write_text(f"#!/bin/sh\n{smi}\n")
        (bin_dir / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    config, job_dir = job(GPU_JOB)
    result = cli("local", config, "--package-path", RECORDER, "--job-dir", job_dir,
                 env=variables)
    assert result.code == 2
    assert result.err.endswith(f"error: {message}: each GPU goes to one replica only\n"
                               f"  hint: list each GPU once: {hint}\n")
    assert not (job_dir / "seen").exists()


def test_a_gpu_named_twice_does_not_matter_to_a_job_without_gpus(local):
    result, job_dir = local(ALONE, gpus="1,1")
    assert result.code == 0, result.err
    assert seen(job_dir)["chief-0"]["env"]["CUDA_VISIBLE_DEVICES"] == ""


def test_the_plan_takes_gpus_and_an_environment_as_parameters(tmp_path):
    """Programs (and tests) can plan a run without this machine's GPUs or environment."""
    from gpujob import services
    from gpujob.config.document import Document
    from gpujob.local.run import LocalOptions, plan
    from gpujob.settings import CheckOptions

    doc = Document("job.yaml", {"jobId": "j", "trainingInput": {
        **CLUSTER, "jobDir": str(tmp_path / "out")}})
    the_plan = plan(doc, LocalOptions(CheckOptions(services.get("ai-platform")),
                                      package_path=str(RECORDER), gpus=["a", "b", "c", "d"]),
                    environ={"GPUJOB_LOCAL_GPUS": "", "OMP_NUM_THREADS": "2"})
    assert [r.name for r in the_plan.replicas] == [
        "master-replica-0", "worker-replica-0", "worker-replica-1", "ps-replica-0",
        "evaluator-replica-0"]
    assert {name: env["CUDA_VISIBLE_DEVICES"] for name, env in the_plan.environments.items()} == {
        "master-replica-0": "a,b", "worker-replica-0": "c", "worker-replica-1": "d",
        "ps-replica-0": "", "evaluator-replica-0": ""}
    assert not any("OMP_NUM_THREADS" in env for env in the_plan.environments.values())
    assert [the_plan.command(r.name)[1:] for r in the_plan.replicas] == 5 * [
        ["-m", "recorder.task", "--job-dir", str(tmp_path / "out")]]
    assert the_plan.warnings == []


def test_replicas_share_the_cpus_unless_omp_num_threads_is_set(local):
    result, job_dir = local({**ALONE, "scaleTier": "STANDARD_1"}, trainer_args=("--expect", "8"))
    assert result.code == 0, result.err
    threads = {r["env"].get("OMP_NUM_THREADS") for r in seen(job_dir).values()}
    assert threads == {str(max(1, len(os.sched_getaffinity(0)) // 8))}
    result, job_dir = local(ALONE, env={"OMP_NUM_THREADS": "3"})
    assert result.code == 0, result.err
    assert {r["env"].get("OMP_NUM_THREADS") for r in seen(job_dir).values()} == {"3"}


# -- output -----------------------------------------------------------------------------------

def test_output_is_one_stream_of_whole_prefixed_lines(local):
    result, _ = local(CLUSTER, trainer_args=("--expect", "5", "--lines", "300",
                                             "--no-newline"))
    assert result.code == 0, result.err
    names = {"master-replica-0": "chief-0", "worker-replica-0": "worker-0",
             "worker-replica-1": "worker-1", "ps-replica-0": "ps-0",
             "evaluator-replica-0": "evaluator-0"}
    by_replica: dict[str, list[str]] = {name: [] for name in names}
    for line in result.out.splitlines():
        replica, sep, text = line.partition(" | ")
        assert sep and replica in names, line
        by_replica[replica].append(text)
    for replica, task in names.items():
        assert by_replica[replica] == (
            [f"hello from {task}"]
            + [f"{task} line {i} " + task[0] * 300 for i in range(300)]
            + [f"{task} no newline"])  # whole, in order, and ended with a newline
    assert result.out.endswith("\n")


def test_gpujob_says_what_it_runs_and_where(local):
    result, job_dir = local(ALONE)
    assert result.code == 0
    assert (f"Running job test_job here: 1 replica (master-replica-0), each python -m "
            f"recorder.task from {RECORDER.parent}") in result.err
    assert f"Job dir: {job_dir}\n" in result.err
    assert "Job test_job succeeded: master-replica-0 exited with code 0" in result.err


# -- job dir and package ----------------------------------------------------------------------

def test_without_a_job_dir_a_fresh_one_is_made_and_shown(cli, job, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the documented default for dir=
    config, _ = job(ALONE, jobId="fresh_job")
    result = cli("local", config, "--package-path", RECORDER, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.err
    shown = re.search(r"Job dir: (\S+) \(new; give --job-dir DIR to choose one\)", result.err)
    assert shown, result.err
    job_dir = Path(shown.group(1))
    assert job_dir.parent == tmp_path and job_dir.name.startswith("fresh_job-")
    (record,) = seen(job_dir).values()
    assert record["argv"][-2:] == ["--job-dir", str(job_dir)]


@pytest.mark.parametrize("service", ["ai-platform", "vertex"])
@pytest.mark.parametrize("how", ["config", "flag"])
def test_a_gs_job_dir_becomes_a_new_local_one_and_is_said(cli, job, tmp_path, monkeypatch,
                                                          service, how):
    """A trainer writes to its --job-dir as a path: gs://my-bucket/jobs/x made a folder named
    gs: where it ran. A local run gets a new directory instead, and one line says so."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    gs = "gs://my-bucket/jobs/x"
    config, _ = job({**ALONE, **({"jobDir": gs} if how == "config" else {})}, jobId="gs_job")
    flags = ["--job-dir", gs] if how == "flag" else []
    result = cli("local", config, "--package-path", RECORDER, "--service", service, *flags,
                 env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.err
    shown = re.search(r"^Job dir: (\S+) \(new, in place of gs://my-bucket/jobs/x: a local run "
                      r"does not write to it; give --job-dir DIR to choose one\)$", result.err,
                      re.MULTILINE)
    assert shown, result.err
    job_dir = Path(shown.group(1))
    assert job_dir.parent == tmp_path and job_dir.name.startswith("gs_job-")
    (record,) = seen(job_dir).values()
    assert record["argv"][-2:] == ["--job-dir", str(job_dir)]
    assert not (RECORDER.parent / "gs:").exists() and not (tmp_path / "gs:").exists()


def test_a_relative_job_dir_is_the_callers(cli, job, tmp_path, monkeypatch):
    config, _ = job(ALONE)
    monkeypatch.chdir(tmp_path)
    result = cli("local", config, "--package-path", RECORDER, "--job-dir", "out/run1",
                 env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.err
    (record,) = seen(tmp_path / "out" / "run1").values()
    assert record["argv"][-1] == str(tmp_path / "out" / "run1")


def test_job_dir_from_the_environment_as_for_submit(cli, job, tmp_path):
    config, _ = job(ALONE)
    result = cli("local", config, "--package-path", RECORDER,
                 env={"GPUJOB_LOCAL_GPUS": "", "GPUJOB_JOB_DIR": str(tmp_path / "from-env")})
    assert result.code == 0, result.err
    assert seen(tmp_path / "from-env")


def test_without_package_path_the_module_runs_from_the_current_directory(cli, job,
                                                                         monkeypatch):
    config, job_dir = job(ALONE)
    monkeypatch.chdir(RECORDER.parent)
    result = cli("local", config, "--job-dir", job_dir, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.err
    (record,) = seen(job_dir).values()
    assert record["cwd"] == str(RECORDER.parent)


def test_without_package_path_a_module_not_found_is_refused_before_any_replica_starts(
        cli, job, tmp_path, monkeypatch):
    config, job_dir = job(ALONE)
    monkeypatch.chdir(tmp_path)
    result = cli("local", config, "--job-dir", job_dir, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 2
    assert result.err == (
        f"error: no module named recorder here, so python -m recorder.task would fail in every "
        f"replica (they run from {tmp_path})\n"
        f"  hint: give --package-path PATH/TO/recorder (the directory with the package's "
        f"__init__.py), or run gpujob from the directory that holds recorder/\n")
    assert not (job_dir / "seen").exists()
    monkeypatch.chdir(RECORDER.parent)
    result = cli("local", config, "--job-dir", job_dir, "--module-name", "recorder.tsk")
    assert result.code == 2
    assert ("error: no module named recorder.tsk here, so python -m recorder.tsk would fail in "
            "every replica") in result.err
    assert ("  hint: did you mean recorder.task? check the module's name (--module-name or "
            "trainingInput.pythonModule)\n") in result.err


def test_with_package_path_a_misspelt_module_is_refused_before_any_replica_starts(
        cli, job, tmp_path, monkeypatch):
    config, job_dir = job(ALONE)
    monkeypatch.chdir(tmp_path)
    result = cli("local", config, "--job-dir", job_dir, "--package-path", RECORDER,
                 "--module-name", "recorder.tsk", env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 2
    assert result.err.splitlines()[-2:] == [
        "error: no module named recorder.tsk here, so python -m recorder.tsk would fail in "
        f"every replica (they run from {RECORDER.parent})",
        "  hint: did you mean recorder.task? check the module's name (--module-name or "
        "trainingInput.pythonModule)"]
    assert not (job_dir / "seen").exists()


def test_without_package_path_the_runs_pythonpath_finds_the_module(cli, job, tmp_path,
                                                                    monkeypatch):
    config, job_dir = job(ALONE)
    monkeypatch.chdir(tmp_path)
    result = cli("local", config, "--job-dir", job_dir,
                 env={"GPUJOB_LOCAL_GPUS": "", "PYTHONPATH": str(RECORDER.parent)})
    assert result.code == 0, result.err
    (record,) = seen(job_dir).values()
    assert record["cwd"] == str(tmp_path)


@pytest.mark.parametrize("package, message", [
    ("missing", "--package-path {p}: no such directory"),
    ("", "--package-path: [{p}] is not a valid Python package because it does not contain an "
         "`__init__.py` file"),
])
def test_package_path_must_be_a_package(cli, job, tmp_path, package, message):
    config, _ = job(ALONE)
    path = tmp_path / package if package else RECORDER.parent
    result = cli("local", config, "--package-path", path)
    assert result.code == 2
    assert f"error: {message.format(p=path)}" in result.err
    assert "hint: " in result.err


def test_a_module_outside_the_package_is_a_warning(local):
    result, _ = local({**ALONE, "pythonModule": "other.task"})
    assert ("warning: the module other.task is not in the package recorder/ given by "
            "--package-path") in result.err
    assert result.code == 4  # python -m other.task: No module named 'other'
    assert "No module named other" in result.out or "No module named 'other'" in result.out


@pytest.mark.parametrize("grace", [math.nan, math.inf, -1.0])
def test_a_grace_period_that_is_not_a_number_of_seconds_is_refused(tmp_path, grace):
    """Not even Ctrl-C twice would end a wait of nan seconds."""
    from gpujob import services
    from gpujob.config.document import Document
    from gpujob.errors import UsageError
    from gpujob.local.run import LocalOptions, run_local
    from gpujob.settings import CheckOptions

    doc = Document("job.yaml", {"jobId": "j", "trainingInput": {
        **ALONE, "jobDir": str(tmp_path / "out")}})
    with pytest.raises(UsageError) as refused:
        run_local(doc, LocalOptions(CheckOptions(services.get("ai-platform")),
                                    package_path=str(RECORDER), grace_period=grace))
    assert refused.value.message == f"--grace-period {grace}: not a number of seconds"
    assert not (tmp_path / "out" / "seen").exists()


def test_a_job_without_a_module_is_a_usage_error(local):
    result, _ = local({k: v for k, v in ALONE.items() if k != "pythonModule"})
    assert result.code == 2
    assert "error: no trainer module to run" in result.err
    assert "hint: give --module-name MODULE" in result.err


def test_the_config_is_checked_first(local):
    result, job_dir = local({**ALONE, "masterTyp": "n1-standard-4"})
    assert result.code == 1
    assert "unknown key 'masterTyp'" in result.err
    assert "nothing was run" in result.err
    assert not (job_dir / "seen").exists()


def test_a_float_count_is_refused_not_read_as_0(local):
    """``workerCount: 2.0`` passed the schema and ran the master alone: the rules read it as 0."""
    result, job_dir = local({**CLUSTER, "workerCount": 2.0})
    assert result.code == 1
    assert ("trainingInput.workerCount: expected a whole number of at least 0, found the number "
            "2.0 [schema.type]") in result.err
    assert "nothing was run" in result.err
    assert not (job_dir / "seen").exists()


def test_no_region_is_needed_locally(local):
    result, _ = local({k: v for k, v in ALONE.items() if k != "region"})
    assert result.code == 0, result.err


def test_submit_local_is_gpujob_local(cli, job):
    config, job_dir = job(CLUSTER)
    result = cli("submit", config, "--local", "--package-path", RECORDER, "--job-dir", job_dir,
                 "--max-local-replicas", "2", "--", "--expect", "2",
                 env={"GPUJOB_LOCAL_GPUS": "0,1,2"})
    assert result.code == 0, result.err
    assert "running 2 here (1 master, 1 worker)" in result.err
    records = seen(job_dir)
    assert {k: r["env"]["CUDA_VISIBLE_DEVICES"] for k, r in records.items()} == {
        "chief-0": "0,1", "worker-0": "2"}


@pytest.mark.parametrize("flags, message", [
    (["--local", "--dry-run"], "--dry-run and --local do not go together"),
    (["--local", "--staging-bucket", "gs://my-bucket"],
     "--staging-bucket is for jobs in the cloud, not for local runs"),
    (["--local", "--max-local-replicas", "0"], "Invalid value for '--max-local-replicas'"),
    (["--local", "--wait", "--format", "json"],
     "--wait and --format are for jobs in the cloud, not for local runs"),
    (["--local", "--stream-logs"], "--stream-logs is for jobs in the cloud, not for local runs"),
])
def test_local_flag_mistakes_are_usage_errors(cli, job, flags, message):
    config, _ = job(ALONE)
    result = cli("submit", config, *flags)
    assert result.code == 2
    assert message in result.err


def test_local_help_lists_the_job_flags_and_the_local_ones(cli):
    result = cli("local", "--help")
    assert result.code == 0
    for flag in ("--worker-count", "--master-accelerator", "--job-dir", "--set",
                 "--package-path", "--max-local-replicas", "--grace-period",
                 "GPUJOB_LOCAL_GPUS"):
        assert flag in result.out
    for flag in ("--dry-run", "--project", "--local"):  # submit's own
        assert not re.search(rf"^  {flag}\b", result.out, re.MULTILINE), flag
    assert "local" in cli("--help").out


# -- the master decides; nothing is left behind -----------------------------------------------

def test_a_failing_master_fails_the_run_and_stops_the_others(local):
    result, job_dir = local(CLUSTER, trainer_args=("--expect", "5", "--master-exit", "3",
                                                   "--others", "sleep", "--spawn"))
    assert result.code == 4
    assert "error: job test_job failed: master-replica-0 exited with code 3" in result.err
    assert "hint: its output is above, each line prefixed 'master-replica-0 |'" in result.err
    assert ("master-replica-0 exited with code 3: stopping worker-replica-0, worker-replica-1, "
            "ps-replica-0, evaluator-replica-0") in result.err
    records = seen(job_dir)
    assert len(records) == 5
    assert still_alive(records) == []


def test_the_others_are_stopped_when_the_master_succeeds(local):
    result, job_dir = local(CLUSTER, trainer_args=("--expect", "5", "--others", "sleep",
                                                   "--spawn"))
    assert result.code == 0, result.err
    assert still_alive(seen(job_dir)) == []


def test_a_replica_that_ignores_sigterm_is_killed_after_the_grace_period(local):
    result, job_dir = local(CLUSTER, "--grace-period", "0.5",
                            trainer_args=("--expect", "5", "--others", "ignore-term"))
    assert result.code == 0, result.err
    assert "worker-replica-0 did not stop within 0.5s of SIGTERM: killing it" in result.err
    assert still_alive(seen(job_dir)) == []


def test_a_replica_failing_before_the_master_is_reported(local):
    result, _ = local(CLUSTER, trainer_args=("--expect", "5", "--after-exits",
                                             "--others-exit", "2"))
    assert result.code == 0, result.err
    assert ("warning: worker-replica-0 exited with code 2; the run goes on until "
            "master-replica-0 ends (Ctrl-C stops it)") in result.err


def _start(job_dir: Path, config: str, *trainer_args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gpujob", "local", config, "--package-path", str(RECORDER),
         "--job-dir", str(job_dir), "--", *trainer_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "GPUJOB_LOCAL_GPUS": ""})


def _line_starting(proc: subprocess.Popen[str], prefix: str, timeout: float) -> str:
    """The first line of ``proc``'s stderr starting with ``prefix``; the test fails (and the
    process is killed) when none comes within ``timeout`` seconds."""
    assert proc.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read(stream: Any) -> None:
        for text in stream:
            lines.put(text)
        lines.put(None)

    threading.Thread(target=read, args=(proc.stderr,), daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        if line.startswith(prefix):
            return line
        seen.append(line)
    proc.kill()
    pytest.fail(f"no line starting {prefix!r} within {timeout:g}s; stderr: {''.join(seen)!r}")


def _wait_for_replicas(proc: subprocess.Popen[str], job_dir: Path,
                       count: int) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + 60
    while len(records := seen(job_dir) if (job_dir / "seen").exists() else {}) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the replicas did not start"
        time.sleep(0.05)
    return records


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: s.name)
def test_an_interrupt_stops_everything(job, signum):
    config, job_dir = job(CLUSTER)
    proc = _start(job_dir, config, "--master", "sleep", "--others", "sleep", "--spawn")
    records = _wait_for_replicas(proc, job_dir, 5)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted: stopping master-replica-0, worker-replica-0" in err
    assert err.rstrip().endswith("interrupted")
    assert still_alive(records) == []


def test_ctrl_c_again_kills_at_once(job):
    config, job_dir = job(CLUSTER)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpujob", "local", config, "--package-path", str(RECORDER),
         "--job-dir", str(job_dir), "--grace-period", "600", "--", "--master", "sleep",
         "--others", "ignore-term"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "GPUJOB_LOCAL_GPUS": ""})
    records = _wait_for_replicas(proc, job_dir, 5)
    proc.send_signal(signal.SIGINT)
    # gpujob is waiting for the replicas that ignore SIGTERM (read with a deadline: a run that
    # never says so fails here, with what it printed, rather than hanging the suite)
    line = _line_starting(proc, "interrupted: stopping", timeout=60)
    assert line.rstrip().endswith("(Ctrl-C again to kill now)")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)  # well before the grace period's end
    assert proc.returncode == 130
    assert still_alive(records) == []


def test_a_killed_gpujob_takes_its_replicas_along(job):
    """SIGKILL (the OOM killer, say) cannot be handled: on Linux the replicas die with gpujob,
    and so does everything they started, in whatever session (each replica's supervisor sees
    gpujob go)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("whole process trees are stopped on Linux (PR_SET_CHILD_SUBREAPER)")
    config, job_dir = job(CLUSTER)
    proc = _start(job_dir, config, "--master", "sleep", "--others", "sleep", "--spawn")
    records = _wait_for_replicas(proc, job_dir, 5)
    proc.kill()
    proc.communicate(timeout=60)
    assert still_alive(records) == []


def test_a_reader_that_goes_away_stops_the_run(job):
    """``gpujob local … | head``: gpujob stops quietly (exit 1) and stops every replica."""
    config, job_dir = job(CLUSTER)
    proc = _start(job_dir, config, "--master", "sleep", "--others", "sleep", "--spawn",
                  "--lines", "20000")  # more than the pipes hold: all block until read
    records = _wait_for_replicas(proc, job_dir, 5)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert still_alive(records) == []


def test_local_runs_need_no_google_libraries(job):
    config, job_dir = job(ALONE)
    probe = ("import sys; from gpujob.cli import main; "
             f"code = main(['local', {config!r}, '--package-path', {str(RECORDER)!r}, "
             f"'--job-dir', {str(job_dir)!r}]); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2', 'requests')); "
             "print(code, heavy, file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env={**os.environ, "GPUJOB_LOCAL_GPUS": ""}, timeout=120)
    assert result.stderr.strip().endswith("0 []"), result.stderr


@pytest.mark.parametrize("service", ["ai-platform", "vertex"])
def test_a_local_run_needs_no_runtime_version_on_either_service(cli, job, tmp_path, service):
    """gcloud ai-platform local train needs none: the runtime is this machine's Python. The
    cloud's refusal is said as a warning, and the job runs."""
    fields = {k: v for k, v in ALONE.items() if k != "runtimeVersion"}
    config, job_dir = job(fields)
    result = cli("local", config, "--package-path", RECORDER, "--service", service,
                 "--job-dir", job_dir, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.err
    (warning,) = [line for line in result.err.splitlines() if ": warning: " in line]
    assert "a local run does not need it" in warning
    assert seen(job_dir)
