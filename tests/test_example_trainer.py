"""The PyTorch example (examples/mlp) run as the README runs it: two replicas on the CPU (gloo),
DistributedDataParallel over DistributedSampler shards, checkpoints every epoch, and a resume
after the run was killed. Small data keeps each run to a few seconds."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "pytorch-mlp-ddp.yaml"
PACKAGE = ROOT / "examples" / "mlp" / "trainer"
SMALL = ["--train-size", "1024", "--test-size", "256"]


def checkpoints(job_dir: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in (job_dir / "checkpoints").glob("*.pt"))


def test_the_example_trains_an_epoch_on_two_cpu_processes(cli, tmp_path: Path):
    job_dir = tmp_path / "job"
    result = cli("local", CONFIG, "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 "--epochs", "1", *SMALL, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.out + result.err
    assert "the job asks for 2 GPUs and none are available" in result.err
    lines = result.out.splitlines()
    assert "master-replica-0 | rank 0 of 2, training on cpu (gloo)" in lines
    assert "worker-replica-0 | rank 1 of 2, training on cpu (gloo)" in lines
    # DistributedSampler: each replica trains on its half of the images
    assert "master-replica-0 | rank 0: epoch 1 trained on 512 of 1024 images" in lines
    assert "worker-replica-0 | rank 1: epoch 1 trained on 512 of 1024 images" in lines
    assert any(re.fullmatch(r"master-replica-0 \| epoch 1/1: loss [\d.]+, test accuracy "
                            rf"[\d.]+; saved {job_dir}/checkpoints/epoch-0001\.pt", line)
               for line in lines), result.out
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert metrics["world_size"] == 2
    assert [e["epoch"] for e in metrics["epochs"]] == [1]
    assert checkpoints(job_dir) == [1]
    assert not [p for p in job_dir.rglob("*") if p.name.endswith(".tmp")]


def test_a_killed_run_resumes_from_its_last_checkpoint(cli, tmp_path: Path):
    job_dir = tmp_path / "job"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpujob", "local", str(CONFIG), "--package-path", str(PACKAGE),
         "--job-dir", str(job_dir), "--", "--epochs", "1000", *SMALL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "GPUJOB_LOCAL_GPUS": ""})
    assert proc.stdout is not None
    watchdog = threading.Timer(300, proc.kill)  # a hung run fails the test instead of CI
    watchdog.start()
    try:
        for line in proc.stdout:  # until the first checkpoint has been written
            if line.startswith("master-replica-0 | epoch 1/1000:"):
                break
        else:
            raise AssertionError(proc.communicate())
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        watchdog.cancel()
    assert proc.returncode == 130, err
    done = checkpoints(job_dir)[-1]
    assert done < 1000

    result = cli("local", CONFIG, "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 "--epochs", str(done + 1), *SMALL, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    assert (f"master-replica-0 | resuming from {job_dir}/checkpoints/epoch-{done:04d}.pt "
            f"({done} epochs done)") in lines
    trained = [line for line in lines if re.match(r"master-replica-0 \| epoch \d+/", line)]
    assert len(trained) == 1 and trained[0].startswith(
        f"master-replica-0 | epoch {done + 1}/{done + 1}:")
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["epochs"]] == list(range(1, done + 2))
    assert checkpoints(job_dir)[-1] == done + 1


def test_the_example_is_a_package_that_builds(tmp_path: Path):
    """It can be shipped to the cloud: a package built from --package-path's parent."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(tmp_path), str(PACKAGE.parent)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("mlp_trainer-0.1.0-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("__init__", "task", "model", "data", "checkpoints"):
        assert f"trainer/{module}.py" in names
