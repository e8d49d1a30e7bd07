"""A local run as Vertex AI runs the job (``gpujob local --service vertex``, ``submit --local
--service vertex``): what every replica sees, the arguments the translation gives it, and which
translation findings stop the run.

The trainer is tests/trainers/recorder (standard library only): each replica writes what it saw
to JOB_DIR/seen/TASK-INDEX.json (TASK is TF_CONFIG's task type) and prints a line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from jobs import CLUSTER, RECORDER

from gpujob import services
from gpujob.local.run import LocalOptions, plan
from gpujob.settings import CheckOptions

VERTEX = services.get("vertex")


@pytest.fixture
def vertex_run(cli, write, tmp_path: Path):
    """Write a config (``trainingInput`` fields, ``jobId`` test_job) and run it with ``gpujob
    local --service vertex`` (``submit --local`` with ``command="submit"``) on the recorder,
    given the GPUs ``gpus``; returns (result, job dir)."""
    made = 0

    def run(training_input: dict[str, Any], *flags: str, gpus: str = "",
            trainer_args: tuple[str, ...] = (), command: str = "local"):
        nonlocal made
        made += 1
        job_dir = tmp_path / f"job-dir-{made}"
        config = write(json.dumps({"jobId": "test_job", "trainingInput": training_input}),
                       f"job{made}.yaml")
        local = ("--local",) if command == "submit" else ()
        result = cli(command, config, *local, "--service", "vertex", "--package-path", RECORDER,
                     "--job-dir", job_dir, *flags, "--", *trainer_args,
                     env={"GPUJOB_LOCAL_GPUS": gpus})
        return result, job_dir

    return run


def seen(job_dir: Path) -> dict[str, dict[str, Any]]:
    """What each replica recorded, by TASK-INDEX."""
    return {p.stem: json.loads(p.read_text()) for p in (job_dir / "seen").glob("*.json")}


def variable(record: dict[str, Any], name: str) -> dict[str, Any]:
    return json.loads(record["env"][name])


@pytest.mark.parametrize("command", ["local", "submit"])
def test_every_replica_sees_what_a_vertex_replica_sees(vertex_run, command):
    result, job_dir = vertex_run(CLUSTER, gpus="0,1,2,3", trainer_args=("--expect", "5", "a b"),
                                 command=command)
    assert result.code == 0, result.err
    records = seen(job_dir)
    assert sorted(records) == ["chief-0", "evaluator-0", "ps-0", "worker-0", "worker-1"]

    pools = variable(records["chief-0"], "CLUSTER_SPEC")["cluster"]
    assert [len(pools[f"workerpool{i}"]) for i in range(4)] == [1, 2, 1, 1]
    addresses = [a for i in range(4) for a in pools[f"workerpool{i}"]]
    assert all(re.fullmatch(r"localhost:\d+", a) for a in addresses)
    assert len(set(addresses)) == 5
    master_port = pools["workerpool0"][0].split(":")[1]
    # TF_CONFIG: the same replicas; evaluators are not in TensorFlow's cluster
    tf_cluster = {"chief": pools["workerpool0"], "worker": pools["workerpool1"],
                  "ps": pools["workerpool2"]}

    expected = {  # TASK-INDEX: (pool, RANK, CUDA_VISIBLE_DEVICES)
        "chief-0": (0, "0", "0,1"),
        "worker-0": (1, "1", "2"),
        "worker-1": (1, "2", "3"),
        "ps-0": (2, "3", ""),
        "evaluator-0": (3, "4", ""),
    }
    for name, (pool, rank, devices) in expected.items():
        record = records[name]
        task_type, index = name.split("-")
        spec = variable(record, "CLUSTER_SPEC")
        assert spec["cluster"] == pools
        assert spec["task"] == {"type": f"workerpool{pool}", "index": int(index)}
        assert spec["environment"] == "cloud"
        assert variable(record, "TF_CONFIG") == {
            "cluster": tf_cluster, "environment": "cloud",
            "task": {"type": task_type, "index": int(index)}}
        env = record["env"]
        assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("localhost", master_port)
        assert env["WORLD_SIZE"] == "5"  # every replica, as Vertex counts them
        assert env["RANK"] == rank  # pools in order: 0, 1, 1, 2, 3
        assert env["CUDA_VISIBLE_DEVICES"] == devices
        assert env["CLOUD_ML_JOB_ID"] == "test_job"
        assert (env["AIP_MODEL_DIR"], env["AIP_CHECKPOINT_DIR"],
                env["AIP_TENSORBOARD_LOG_DIR"]) == (f"{job_dir}/model/",
                                                    f"{job_dir}/checkpoints/",
                                                    f"{job_dir}/logs/")
        assert record["argv"] == ["--expect", "5", "a b", "--job-dir", str(job_dir)]
        assert record["cwd"] == str(RECORDER.parent)
    assert all((job_dir / sub).is_dir() for sub in ("model", "checkpoints", "logs"))

    # the replicas go by the names Vertex's logs give them
    assert ("Running job test_job here: 5 replicas (workerpool0-0, workerpool1-0, "
            "workerpool1-1, workerpool2-0, workerpool3-0), each python -m recorder.task from "
            f"{RECORDER.parent}") in result.err
    assert "workerpool1-1 | hello from worker-1" in result.out.splitlines()
    assert result.err.endswith("Job test_job succeeded: workerpool0-0 exited with code 0\n")


def test_the_translation_says_what_it_did_and_its_cloud_only_errors_do_not_stop_the_run(
        vertex_run):
    result, job_dir = vertex_run(CLUSTER, gpus="0,1,2,3", trainer_args=("--expect", "5"))
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert (f"command line (--job-dir): trainingInput.jobDir: note: jobDir became "
            f"baseOutputDirectory {job_dir} (Vertex sets AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and "
            f"AIP_TENSORBOARD_LOG_DIR under it) and, as Vertex does not pass it, `--job-dir "
            f"{job_dir}` is appended to the trainer's arguments in every pool "
            "[vertex-translate.job-dir]") in lines
    # Vertex has no prebuilt image for runtimeVersion 2.11 any more: the cloud would refuse the
    # job, and a local run, which runs the module here, says so and goes on
    (refused,) = [line for line in lines if "[vertex-translate.runtime-version]" in line]
    assert (": trainingInput.runtimeVersion: warning: runtimeVersion '2.11' maps to the "
            "prebuilt image tf-gpu.2-11, ") in refused
    assert refused.endswith("which reached its end of availability on 2024-11-15 (Vertex would "
                            "refuse the job; a local run does not need it) "
                            "[vertex-translate.runtime-version]")
    assert len(seen(job_dir)) == 5
    assert "packageUris" not in result.err  # the run's package stands in for the staged one


def test_a_cluster_vertex_cannot_run_is_not_run(vertex_run):
    tpu_workers = {**CLUSTER, "masterConfig": {}, "workerConfig": {}, "workerCount": 1,
                   "workerType": "cloud_tpu", "parameterServerCount": 0, "evaluatorCount": 0}
    result, job_dir = vertex_run(tpu_workers)
    assert result.code == 1
    assert "[vertex-translate.tpu-cluster]" in result.err
    assert result.err.endswith(f"error: {job_dir.parent}/job1.yaml: 1 problem translating the "
                               "job for Vertex AI; nothing was run\n")
    assert not (job_dir / "seen").exists()


def _doc(tmp_path: Path, **training_input: Any):
    from gpujob.config.document import Document

    return Document(str(tmp_path / "job.yaml"), {"jobId": "j", "trainingInput": {
        **CLUSTER, **training_input}})


def test_a_gs_job_dir_is_replaced_by_a_local_one_under_which_the_aip_dirs_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A trainer writing to gs://bucket/out/model/ as a path made a folder named gs: here."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    the_plan = plan(_doc(tmp_path, jobDir="gs://bucket/out"),
                    LocalOptions(CheckOptions(VERTEX), package_path=str(RECORDER), gpus=[]),
                    environ={})
    local = Path(the_plan.job_dir)
    assert local.parent == tmp_path and local.name.startswith("j-")
    assert the_plan.job_dir_note == ("new, in place of gs://bucket/out: a local run does not "
                                     "write to it; give --job-dir DIR to choose one")
    env = the_plan.environments["workerpool0-0"]
    assert (env["AIP_MODEL_DIR"], env["AIP_CHECKPOINT_DIR"], env["AIP_TENSORBOARD_LOG_DIR"]) == (
        f"{local}/model/", f"{local}/checkpoints/", f"{local}/logs/")
    assert (local / "model").is_dir()
    assert the_plan.command("workerpool1-0")[1:] == ["-m", "recorder.task", "--job-dir",
                                                      str(local)]


def test_trimmed_replicas_are_a_smaller_world(tmp_path: Path):
    the_plan = plan(_doc(tmp_path, jobDir=str(tmp_path / "out")),
                    LocalOptions(CheckOptions(VERTEX), package_path=str(RECORDER), gpus=[],
                                 max_replicas=3),
                    environ={})
    assert [r.name for r in the_plan.replicas] == ["workerpool0-0", "workerpool1-0",
                                                   "workerpool2-0"]
    assert ("the job has 5 replicas (1 master, 2 workers, 1 parameter server, 1 evaluator); "
            "running 3 here (1 master, 1 worker, 1 parameter server): raise "
            "--max-local-replicas to run more") in the_plan.warnings
    envs = the_plan.environments
    assert {env["WORLD_SIZE"] for env in envs.values()} == {"3"}
    assert [envs[r.name]["RANK"] for r in the_plan.replicas] == ["0", "1", "2"]
    assert sorted(json.loads(envs["workerpool0-0"]["CLUSTER_SPEC"])["cluster"]) == [
        "workerpool0", "workerpool1", "workerpool2"]


def test_without_a_job_dir_a_new_one_stands_in_for_the_base_output_directory(tmp_path: Path):
    the_plan = plan(_doc(tmp_path), LocalOptions(CheckOptions(VERTEX), package_path=str(RECORDER),
                                                 gpus=[]), environ={})
    assert the_plan.job_dir_note == "new; give --job-dir DIR to choose one"
    (note,) = [f for f in the_plan.findings if f.rule == "vertex-translate.job-dir"]
    assert str(note.location) == "gpujob local (a new job dir)"
    env = the_plan.environments["workerpool0-0"]
    assert env["AIP_MODEL_DIR"] == f"{the_plan.job_dir}/model/"
    assert Path(env["AIP_MODEL_DIR"]).is_dir()
    assert the_plan.command("workerpool0-0")[-2:] == ["--job-dir", the_plan.job_dir]


CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_the_examples_vertex_config_runs_here_as_the_readmes_config_does(cli, tmp_path: Path):
    """configs/pytorch-mlp-ddp-vertex.yaml, the PyTorch example's config for Vertex AI, gives
    each replica what the README's configs/pytorch-mlp-ddp.yaml gives it under Vertex AI: the
    same variables and arguments (the recorder, in the trainer's place, says which). So the
    README's run of the example trainer, on the CPU (test_example_trainer.py::test_the_example_
    trains_an_epoch_on_two_cpu_processes), is this config's too: each replica finds its rank in
    Vertex's variables, and the arguments are those its container would get (one run of it,
    whose processes import torch, serves both)."""
    job_dir = tmp_path / "job"
    seen_by = {}
    for name in ("pytorch-mlp-ddp.yaml", "pytorch-mlp-ddp-vertex.yaml"):
        result = cli("local", CONFIGS / name, "--service", "vertex", "--package-path", RECORDER,
                     "--module-name", "recorder.task", "--job-dir", job_dir, "--job-id",
                     "mlp_vertex", "--", "--epochs", "1", "--expect", "2",
                     env={"GPUJOB_LOCAL_GPUS": ""})
        assert result.code == 0, result.err
        assert result.err.endswith("Job mlp_vertex succeeded: workerpool0-0 exited with code 0\n")
        assert "pythonModule is not sent" not in result.err  # it runs in the container's place
        # the same but for the free ports each run found
        seen_by[name] = {task: {"argv": r["argv"], "cwd": r["cwd"], "env": {
            k: "PORT" if k.endswith("PORT") else re.sub(r"(?<=localhost:)\d+", "PORT", v)
            for k, v in r["env"].items()}} for task, r in seen(job_dir).items()}
        shutil.rmtree(job_dir / "seen")
    readme, vertex = seen_by.values()
    assert sorted(vertex) == ["chief-0", "worker-0"]
    assert [vertex[t]["env"]["RANK"] for t in ("chief-0", "worker-0")] == ["0", "1"]
    assert vertex["worker-0"]["argv"] == ["--epochs", "1", "--expect", "2", "--job-dir",
                                          str(job_dir)]
    assert vertex == readme


def test_a_local_run_loads_no_client_of_the_service(write, tmp_path: Path):
    """A local run talks to no service: no API client, credentials or Vertex job module is
    loaded (the service's backend says only which flags it refuses)."""
    config = write(json.dumps({"jobId": "j", "trainingInput": {**CLUSTER, "workerCount": 0,
                                                               "parameterServerCount": 0,
                                                               "evaluatorCount": 0}}))
    script = ("import sys; from gpujob.cli import main; code = main(sys.argv[1:]); "
              "print(sorted(m for m in sys.modules if m in ('gpujob.services.vertex.jobs', "
              "'gpujob.gcp.session', 'gpujob.services.vertex.jobs.api') or m.startswith(("
              "'googleapiclient', 'google.auth'))), code)")
    done = subprocess.run([sys.executable, "-c", script, "local", config, "--service", "vertex",
                           "--package-path", str(RECORDER), "--job-dir", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GPUJOB_LOCAL_GPUS": ""})
    assert done.stdout.splitlines()[-1] == "[] 0", done.stderr


def test_the_executor_image_is_translated_as_for_the_cloud(vertex_run):
    result, job_dir = vertex_run(CLUSTER, "--executor-image-uri", "python:3.11",
                                 trainer_args=("--expect", "5"))
    assert result.code == 0, result.err
    assert "end of availability" not in result.err
    assert ("trainingInput.runtimeVersion: note: runtimeVersion '2.11' and pythonVersion '3.7' "
            "are not sent: "
            "the package runs on python:3.11 (--executor-image-uri) "
            "[vertex-translate.runtime-version]") in result.err
    # the image's command installs the package and passes the arguments on: the same here
    assert {tuple(r["argv"]) for r in seen(job_dir).values()} == {
        ("--expect", "5", "--job-dir", str(job_dir))}


@pytest.mark.parametrize("command", ["local", "submit"])
def test_the_strategy_is_translated_as_for_the_cloud(vertex_run, command):
    waits = {**CLUSTER, "workerCount": 0, "parameterServerCount": 0, "evaluatorCount": 0,
             "scheduling": {"maxWaitTime": "3600s"}}
    unbounded, _ = vertex_run(waits, command=command)
    assert unbounded.code == 0, unbounded.err  # Vertex would refuse it; a local run goes on
    assert ("Vertex bounds the wait for resources (maxWaitDuration) only with the FLEX_START "
            "scheduling strategy (Vertex would refuse the job; a local run does not need it)"
            ) in unbounded.err
    result, job_dir = vertex_run(waits, "--strategy", "FLEX_START", command=command)
    assert result.code == 0, result.err
    assert "Vertex bounds the wait" not in result.err
    assert ("trainingInput.scheduling.maxWaitTime: note: maxWaitTime became maxWaitDuration "
            "3600s") in result.err
    # flex-start takes no T4s: the cloud would refuse the job, a local run warns and goes on
    assert ("warning: the FLEX_START strategy (Dynamic Workload Scheduler) takes only A100, "
            "A100 80GB, L4, H100, H100 Mega, H200 and B200 GPUs, and worker pool 0 has T4 GPUs "
            "(n1-standard-8) (Vertex would refuse the job; a local run does not need it) "
            "[vertex.flex-start]") in result.err
    assert sorted(seen(job_dir)) == ["chief-0"]


@pytest.mark.parametrize("command", ["local", "submit"])
def test_a_local_run_takes_the_checks_translation(vertex_run, monkeypatch, command):
    """The check translates the job as the run submits it (with a stand-in for the job dir the
    run chooses after it), and the run takes that translation with its job dir in place: one
    translation, and the replicas, the notes and the arguments name the run's job dir."""
    from gpujob.services.vertex.translate import job as translation

    made = []
    real = translation.translate
    monkeypatch.setattr(translation, "translate",
                        lambda *args, **kwargs: made.append(1) or real(*args, **kwargs))
    result, job_dir = vertex_run(CLUSTER, gpus="0,1,2,3", trainer_args=("--expect", "5"),
                                 command=command)
    assert result.code == 0, result.err
    assert len(made) == 1
    assert f"`--job-dir {job_dir}` is appended to the trainer's arguments" in result.err
    assert "gpujob-local-run" not in result.err + result.out
    assert {tuple(r["argv"][-2:]) for r in seen(job_dir).values()} == {("--job-dir",
                                                                        str(job_dir))}
