"""The example trainer (examples/mlp) under a plain ``torchrun``: two replicas of a GKE job run
locally (``gpujob local --service gke``), each ``torchrun -m trainer.task`` with no flags, which
forms one world from the PET_* variables the JobSet's pods get; the trainer reads its place from
torchrun's RANK, WORLD_SIZE, LOCAL_RANK and GROUP_RANK and trains its shard of that world."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "mlp" / "trainer"
ENTRY = ROOT / "tests" / "trainers"  # plain_torchrun.task: execs torchrun -m trainer.task
TWO = {"scaleTier": "CUSTOM", "masterType": "n1-standard-8",
       "masterConfig": {"acceleratorConfig": {"count": 2, "type": "NVIDIA_TESLA_T4"}},
       "workerCount": 1, "workerType": "n1-standard-8",
       "workerConfig": {"acceleratorConfig": {"count": 2, "type": "NVIDIA_TESLA_T4"}},
       "pythonModule": "plain_torchrun.task"}


@pytest.mark.slow
def test_two_replicas_under_plain_torchrun_train_one_world_split_evenly(cli, write,
                                                                        tmp_path: Path):
    """2 GPUs a replica (none usable here: each torchrun process trains on the CPU): torchrun
    starts 2 processes on each, ranks 0-1 on the master and 2-3 on the worker, one world of 4
    in which each trains on a quarter of the images."""
    config = write(json.dumps({"jobId": "torchrun_mlp", "trainingInput": TWO}))
    job_dir = tmp_path / "job"
    result = cli("local", config, "--service", "gke", "--package-path", str(PACKAGE),
                 "--job-dir", str(job_dir), "--", "--epochs", "1", "--train-size", "1024",
                 "--test-size", "256",
                 env={"GPUJOB_LOCAL_GPUS": "0,1,2,3", "PYTHONPATH": str(ENTRY)})
    assert result.code == 0, result.out + result.err
    assert "started by torchrun: this trainer starts a process per GPU itself" not in result.err
    lines = result.out.splitlines()
    for replica, name in enumerate(("master-replica-0", "worker-replica-0")):
        assert (f"{name} | replica {replica} of 2: 2 processes (started by torchrun, on the "
                f"CPU), ranks {2 * replica}-{2 * replica + 1} of 4 (gloo)") in lines
        for local in range(2):
            rank = 2 * replica + local
            assert (f"{name} | rank {rank} of 4 (replica {replica}, local rank {local}), "
                    "training on cpu (gloo)") in lines
            assert f"{name} | rank {rank}: epoch 1 trained on 256 of 1024 images" in lines
    assert any(line.startswith("master-replica-0 | epoch 1/1: loss ") for line in lines)
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (4, 2)
