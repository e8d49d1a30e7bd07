"""The example trainer (examples/mlp) under a plain ``torchrun``: two replicas of a GKE job run
locally (``gpujob local --service gke``), each ``torchrun -m trainer.task`` with no flags, which
forms one world from the PET_* variables the JobSet's pods get; the trainer reads its place from
torchrun's RANK, WORLD_SIZE, LOCAL_RANK and GROUP_RANK and trains its shard of that world."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    reads PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR/PORT and PET_NPROC_PER_NODE, as the JobSet's
    pods get them, and starts 2 processes on each, ranks 0-1 on the master and 2-3 on the worker
    (its RANK, GROUP_RANK and LOCAL_RANK, as each says), one world of 4 in which each trains on a
    quarter of the images: rank 0's epoch line and metrics come from all-reduces over the 4
    (two worlds of 2 would say "of 2"; a world short of a process would not train)."""
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


@pytest.mark.slow
def test_under_torchrun_nproc_per_replica_is_torchruns_to_set(tmp_path: Path):
    """torchrun's --nproc-per-node decides the processes: the trainer's own flag is refused in
    one line (torchrun then reports the failed process its own way)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG",
                        "CLUSTER_SPEC", "MLP_TRAINER_PROCESS", "TORCHELASTIC_RUN_ID")}
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node",
                           "1", "-m", "trainer.task", "--job-dir", str(tmp_path / "job"),
                           "--nproc-per-replica", "2"], cwd=PACKAGE.parent, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "--nproc-per-replica: under torchrun, torchrun's --nproc-per-node (or " \
           "PET_NPROC_PER_NODE) sets the processes of a replica" in done.stderr
