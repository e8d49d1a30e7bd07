"""docs/examples/show_cluster.py, run as docs/local.md and cluster.yaml say, under both services:
it crashed under AI Platform, which gives parameter servers and evaluators no RANK and sets no
CLOUD_ML_JOB_ID or AIP_* directories."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"

EXPECTED = {
    "vertex": [
        "CLUSTER_SPEC cluster: workerpool0 × 1, workerpool1 × 2, workerpool2 × 1, workerpool3 × 1;"
        " TF_CONFIG cluster: chief × 1, worker × 2, ps × 1",
        "workerpool0-0: TF_CONFIG task chief 0, RANK 0 of WORLD_SIZE 5",
        "workerpool1-0: TF_CONFIG task worker 0, RANK 1 of WORLD_SIZE 5",
        "workerpool1-1: TF_CONFIG task worker 1, RANK 2 of WORLD_SIZE 5",
        "workerpool2-0: TF_CONFIG task ps 0, RANK 3 of WORLD_SIZE 5",
        "workerpool3-0: TF_CONFIG task evaluator 0, RANK 4 of WORLD_SIZE 5",
        "MASTER_ADDR=localhost, CLOUD_ML_JOB_ID=cluster_demo",
        "AIP_MODEL_DIR={job_dir}/model/",
        "AIP_CHECKPOINT_DIR={job_dir}/checkpoints/",
        "AIP_TENSORBOARD_LOG_DIR={job_dir}/logs/",
        "arguments: --steps 10 --job-dir {job_dir}"],
    "ai-platform": [
        "CLUSTER_SPEC cluster: master × 1, ps × 1, worker × 2; TF_CONFIG cluster: chief × 1, "
        "ps × 1, worker × 2",
        "master-0: TF_CONFIG task chief 0, RANK 0 of WORLD_SIZE 3",
        "worker-0: TF_CONFIG task worker 0, RANK 1 of WORLD_SIZE 3",
        "worker-1: TF_CONFIG task worker 1, RANK 2 of WORLD_SIZE 3",
        "ps-0: TF_CONFIG task ps 0, RANK (not set) of WORLD_SIZE 3",
        "evaluator-0: TF_CONFIG task evaluator 0, RANK (not set) of WORLD_SIZE 3",
        "MASTER_ADDR=localhost, CLOUD_ML_JOB_ID=(not set)",
        "AIP_MODEL_DIR=(not set)",
        "AIP_CHECKPOINT_DIR=(not set)",
        "AIP_TENSORBOARD_LOG_DIR=(not set)",
        "arguments: --steps 10 --job-dir {job_dir}"],
}


@pytest.mark.parametrize("service, primary", [("vertex", "workerpool0-0"),
                                              ("ai-platform", "master-replica-0")])
def test_show_cluster_shows_every_replica_under_either_service(cli, tmp_path, monkeypatch,
                                                               service, primary):
    monkeypatch.chdir(EXAMPLES)
    job_dir = tmp_path / "cluster"
    result = cli("local", "cluster.yaml", "--service", service, "--module-name", "show_cluster",
                 "--job-dir", str(job_dir), "--job-id", "cluster_demo",
                 env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.out + result.err
    assert result.out.splitlines() == [f"{primary} | {line.format(job_dir=job_dir)}"
                                       for line in EXPECTED[service]]
