"""``gpujob local --service gke``: each replica sees what its pod of the JobSet would
(CLUSTER_SPEC, TF_CONFIG with the master as chief, MASTER_ADDR, WORLD_SIZE, RANK in
ReplicatedJob order), with this machine's addresses for the pods' DNS names."""

from __future__ import annotations

import json
from pathlib import Path

from jobs import CLUSTER, RECORDER


def test_every_replica_sees_what_its_pod_would(cli, write, tmp_path: Path):
    config = write(json.dumps({"jobId": "test_job", "trainingInput": CLUSTER}))
    job_dir = tmp_path / "job-dir"
    result = cli("local", config, "--service", "gke", "--package-path", RECORDER,
                 "--job-dir", str(job_dir), "--", "--expect", "5",
                 env={"GPUJOB_LOCAL_GPUS": "0,1,2,3"})
    assert result.code == 0, result.err
    records = {p.stem: json.loads(p.read_text()) for p in (job_dir / "seen").glob("*.json")}
    assert sorted(records) == ["chief-0", "evaluator-0", "ps-0", "worker-0", "worker-1"]
    env = {name: r["env"] for name, r in records.items()}
    # the PyTorch world is the master and the workers, as JobSet's global index ranks them
    assert [env[n]["RANK"] for n in ("chief-0", "worker-0", "worker-1")] == ["0", "1", "2"]
    assert env["ps-0"].get("RANK") is None and env["evaluator-0"].get("RANK") is None
    assert {e["WORLD_SIZE"] for e in env.values()} == {"3"}
    # what torchrun and JAX read, as the JobSet sets them, with this machine's address
    master_port = env["chief-0"]["MASTER_PORT"]
    for n, rank in (("chief-0", "0"), ("worker-0", "1"), ("worker-1", "2")):
        assert {k: env[n][k] for k in ("PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR",
                                       "PET_MASTER_PORT", "JAX_NUM_PROCESSES",
                                       "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS")} == {
            "PET_NNODES": "3", "PET_NODE_RANK": rank, "PET_MASTER_ADDR": "localhost",
            "PET_MASTER_PORT": master_port, "JAX_NUM_PROCESSES": "3", "JAX_PROCESS_ID": rank,
            "JAX_COORDINATOR_ADDRESS": f"localhost:{master_port}"}
    assert [env[n]["PET_NPROC_PER_NODE"] for n in ("chief-0", "worker-0", "worker-1")] == \
        ["2", "1", "1"]  # each one's GPUs
    assert env["ps-0"].get("PET_NNODES") is None
    spec = json.loads(env["worker-1"]["CLUSTER_SPEC"])
    assert spec["task"] == {"type": "workerpool1", "index": 1}
    assert sorted(spec["cluster"]) == ["workerpool0", "workerpool1", "workerpool2",
                                       "workerpool3"]
    assert env["chief-0"]["CLOUD_ML_JOB_ID"] == "test-job"
    assert env["chief-0"]["AIP_MODEL_DIR"] == f"{job_dir}/model/"
    assert all((job_dir / d).is_dir() for d in ("model", "checkpoints", "logs"))  # as Vertex's
    assert records["chief-0"]["argv"][-2:] == ["--job-dir", str(job_dir)]


# A plain torchrun on each replica forming one world from the PET_* variables (ranks, node ranks,
# local ranks, one all-reduce over both replicas) is tested with the example trainer, on one run:
# test_two_replicas_under_plain_torchrun_train_one_world_split_evenly in
# tests/e2e/test_example_torchrun.py (each process imports torch: one run serves both).
