"""The PyTorch example (examples/mlp) run as the README runs it: two replicas on the CPU (gloo),
DistributedDataParallel over DistributedSampler shards, checkpoints every epoch, and a resume
after the run was killed; several processes on a replica (one per GPU it is given, or
--nproc-per-replica) in one world with the other replicas', and a launcher that stops them all
when one fails or when it is told to; and where a replica stands in the job, from the service's
variables. Small data keeps each run to a few seconds."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
# configs/pytorch-mlp-ddp.yaml's cluster as an AI Platform package job (the shipped file runs a
# container on Vertex AI, whose local runs test_local_vertex.py and the README's transcripts run)
TWO_T4 = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig: {acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}}
  workerCount: 1
  workerType: n1-standard-8
  workerConfig: {acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}}
  runtimeVersion: '2.11'
  pythonModule: trainer.task
"""


def config(tmp_path: Path) -> Path:
    path = tmp_path / "pytorch-mlp-ddp.yaml"
    path.write_text(TWO_T4, encoding="utf-8")
    return path
PACKAGE = ROOT / "examples" / "mlp" / "trainer"
SMALL = ["--train-size", "1024", "--test-size", "256"]


def checkpoints(job_dir: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in (job_dir / "checkpoints").glob("*.pt"))


@dataclass(frozen=True)
class Trained:
    """The README's run of one epoch (``gpujob local``, 2 replicas), and its job dir."""

    config: Path
    job_dir: Path
    result: Ran


class Ran(NamedTuple):
    code: int
    out: str
    err: str


def local(*args: object, env: dict[str, str]) -> Ran:
    """``python -m gpujob ARGS`` (for a fixture shared by several tests: ``cli`` is each
    test's own), in ``env``."""
    done = subprocess.run([sys.executable, "-m", "gpujob", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=600)
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Trained:
    """One run of the README's job for the tests that look at it or start from it: each of
    those that runs again only reads its job dir (a finished run trains nothing; another
    model's run stops at the checkpoint), so one training serves them all. They share an
    xdist group, so that one worker runs them and trains once."""
    tmp = tmp_path_factory.mktemp("trained")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPUJOB_", "GOOGLE_", "CLOUDSDK_"))}
    env.update(GPUJOB_SERVICE="ai-platform", GPUJOB_LOCAL_GPUS="",
               GPUJOB_CACHE_DIR=str(tmp / "cache"), GPUJOB_CATALOG_MAX_AGE_DAYS="100000",
               CLOUDSDK_CONFIG=str(tmp / "gcloud-config"), NO_GCE_CHECK="true")
    job_dir = tmp / "job"
    result = local("local", config(tmp), "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                   "--epochs", "1", *SMALL, env=env)
    return Trained(config(tmp), job_dir, result)


TRAINED = pytest.mark.xdist_group("example-trained")


@pytest.mark.slow
@TRAINED
def test_the_example_trains_an_epoch_on_two_cpu_processes(trained: Trained):
    job_dir, result = trained.job_dir, trained.result
    assert result.code == 0, result.out + result.err
    assert "the job asks for 2 GPUs and none are available" in result.err
    assert_no_stack_trace(result.err)
    lines = result.out.splitlines()
    assert "master-replica-0 | replica 0 of 2: 1 process (no GPU), rank 0 of 2 (gloo)" in lines
    assert "worker-replica-0 | replica 1 of 2: 1 process (no GPU), rank 1 of 2 (gloo)" in lines
    assert ("master-replica-0 | rank 0 of 2 (replica 0, local rank 0), training on cpu (gloo)"
            in lines)
    assert ("worker-replica-0 | rank 1 of 2 (replica 1, local rank 0), training on cpu (gloo)"
            in lines)
    # DistributedSampler: each replica trains on its half of the images
    assert "master-replica-0 | rank 0: epoch 1 trained on 512 of 1024 images" in lines
    assert "worker-replica-0 | rank 1: epoch 1 trained on 512 of 1024 images" in lines
    assert any(re.fullmatch(r"master-replica-0 \| epoch 1/1: loss [\d.]+, test accuracy "
                            rf"[\d.]+, \d+ samples/s; saved {job_dir}/checkpoints/"
                            r"epoch-0001\.pt", line)
               for line in lines), result.out
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (2, 2)
    assert [e["epoch"] for e in metrics["epochs"]] == [1]
    assert metrics["epochs"][0]["samples_per_second"] > 0
    assert checkpoints(job_dir) == [1]
    assert not [p for p in job_dir.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_last_checkpoint(cli, tmp_path: Path):
    job_dir = tmp_path / "job"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpujob", "local", str(config(tmp_path)), "--package-path",
         str(PACKAGE), "--job-dir", str(job_dir), "--", "--epochs", "1000", *SMALL],
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

    result = cli("local", config(tmp_path), "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 "--epochs", str(done + 1), *SMALL, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    assert (f"master-replica-0 | resuming from {job_dir}/checkpoints/epoch-{done:04d}.pt "
            f"({done} epochs done; another --job-dir starts afresh)") in lines
    trained = [line for line in lines if re.match(r"master-replica-0 \| epoch \d+/", line)]
    assert len(trained) == 1 and trained[0].startswith(
        f"master-replica-0 | epoch {done + 1}/{done + 1}:")
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["epochs"]] == list(range(1, done + 2))
    assert checkpoints(job_dir)[-1] == done + 1


@pytest.mark.slow
@TRAINED
def test_the_same_command_again_says_why_it_trains_nothing(cli, trained: Trained):
    """The README's command run twice with one --job-dir: the second found the finished
    checkpoint and ended at once, saying only "nothing to do" once per rank."""
    job_dir = trained.job_dir
    assert trained.result.code == 0, trained.result.err
    command = ("local", trained.config, "--package-path", PACKAGE, "--job-dir", job_dir, "--",
               "--epochs", "1", *SMALL)
    written = (job_dir / "checkpoints" / "epoch-0001.pt").stat().st_mtime_ns
    again = cli(*command, env={"GPUJOB_LOCAL_GPUS": ""})
    assert again.code == 0, again.out + again.err
    # rank 0 says why, once; the worker, which may be stopped as the master ends (gpujob gives
    # it 2 s), never says it: its lines, in whatever order they come, are left out
    lines = again.out.splitlines()
    assert len([line for line in lines if "nothing to train" in line]) == 1, again.out
    said = [line for line in lines
            if line.startswith("master-replica-0 | ") and "rank " not in line]
    assert said == [f"master-replica-0 | nothing to train: {job_dir} has a checkpoint of 1 "
                    "epochs, and --epochs is 1; give --epochs N above 1 to train on, or another "
                    "--job-dir to start afresh"]
    assert (job_dir / "checkpoints" / "epoch-0001.pt").stat().st_mtime_ns == written


@pytest.mark.slow
@TRAINED
def test_a_checkpoint_of_another_model_is_a_one_line_error(cli, trained: Trained):
    job_dir = trained.job_dir
    assert trained.result.code == 0, trained.result.err
    result = cli("local", trained.config, "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 *SMALL, "--epochs", "2", "--hidden", "16", env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 4, result.out + result.err
    # the master says why, once; the worker, stopped as the master fails, may still be reporting
    # its own stop then (how far it got depends on the machine's load): it never says why again
    lines = result.out.splitlines()
    assert len([line for line in lines if "cannot resume" in line]) == 1, result.out
    (said,) = [line for line in lines
               if line.startswith("master-replica-0 | ") and "rank " not in line]
    assert said.startswith(f"master-replica-0 | cannot resume from {job_dir}/checkpoints/"
                           "epoch-0001.pt, which an earlier run left in --job-dir: not a "
                           "checkpoint of this model (")
    assert said.endswith(f"); give another --job-dir, or delete {job_dir}/checkpoints, to start "
                         "afresh")
    assert "Traceback" not in result.out + result.err


FOUR_T4 = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-highcpu-16
  masterConfig:
    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}
  runtimeVersion: '2.11'
  pythonModule: trainer.task
"""


@pytest.mark.slow
def test_a_replica_asking_for_4_gpus_starts_4_trainer_processes(cli, write, nvidia_smi,
                                                                  tmp_path: Path):
    """gpujob local gives the master the 4 GPUs that nvidia-smi (a stand-in) lists; the trainer
    starts a process for each, ranks 0-3 of 4. This torch has no CUDA, so they train on the CPU
    (a CUDA build puts each on its own GPU, with nccl)."""
    nvidia_smi("printf '0\\n1\\n2\\n3\\n'")
    job_dir = tmp_path / "job"
    result = cli("local", write(FOUR_T4), "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 "--epochs", "1", *SMALL)
    assert result.code == 0, result.out + result.err
    assert "warning" not in result.err
    lines = result.out.splitlines()
    assert any(re.fullmatch(
        r"master-replica-0 \| replica 0 of 1: 4 processes \(on the CPU, one per GPU in "
        r"CUDA_VISIBLE_DEVICES=0,1,2,3: (torch \S+ is built without CUDA|torch finds no usable "
        r"GPU)\), ranks 0-3 of 4 \(gloo\)", line) for line in lines), result.out
    for rank in range(4):
        assert (f"master-replica-0 | rank {rank} of 4 (replica 0, local rank {rank}), training "
                "on cpu (gloo)") in lines
        assert f"master-replica-0 | rank {rank}: epoch 1 trained on 256 of 1024 images" in lines
    assert len([line for line in lines if " | epoch 1/1: " in line]) == 1  # rank 0's
    assert checkpoints(job_dir) == [1]
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (4, 1)


@pytest.mark.slow
def test_the_processes_of_all_replicas_are_one_world(cli, tmp_path: Path):
    """Two processes on each of the README job's replicas: ranks 0-1 on the master and 2-3 on
    the worker (replica × 2 + local rank), as torchrun numbers them, in one world of 4."""
    job_dir = tmp_path / "job"
    result = cli("local", config(tmp_path), "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 "--epochs", "1", "--nproc-per-replica", "2", *SMALL, env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 0, result.out + result.err
    assert_no_stack_trace(result.err)
    lines = result.out.splitlines()
    for replica, name in enumerate(("master-replica-0", "worker-replica-0")):
        assert (f"{name} | replica {replica} of 2: 2 processes (--nproc-per-replica, on the "
                f"CPU), ranks {2 * replica}-{2 * replica + 1} of 4 (gloo)") in lines
        for local in range(2):
            rank = 2 * replica + local
            assert (f"{name} | rank {rank} of 4 (replica {replica}, local rank {local}), "
                    "training on cpu (gloo)") in lines
            assert f"{name} | rank {rank}: epoch 1 trained on 256 of 1024 images" in lines
    assert any(line.startswith("master-replica-0 | epoch 1/1: loss ") for line in lines)
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (4, 2)


def run_alone(job_dir: Path, *args: str, replica: dict[str, str] | None = None,
              **popen: Any) -> subprocess.Popen[str]:
    """``python -m trainer.task`` run alone (no cluster variables but ``replica``'s), in a
    session of its own."""
    cleared = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG", "CLUSTER_SPEC",
               "CUDA_VISIBLE_DEVICES", "MLP_TRAINER_PROCESS", "TORCHELASTIC_RUN_ID")
    env = {**{k: v for k, v in os.environ.items() if k not in cleared}, **(replica or {})}
    return subprocess.Popen([sys.executable, "-m", "trainer.task", "--job-dir", str(job_dir),
                             *SMALL, *args], cwd=PACKAGE.parent, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, **popen)


@pytest.mark.slow
def test_replicas_that_run_different_numbers_of_processes_are_one_world(tmp_path: Path):
    """Ranks follow replica order whatever each replica runs (as replicas with different GPU
    counts would): 2 processes on replica 0 are ranks 0-1, the 1 on replica 1 is rank 2."""
    job_dir = tmp_path / "job"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    procs = [run_alone(job_dir, "--epochs", "1", "--nproc-per-replica", str(2 - rank),
                       replica={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port,
                                "WORLD_SIZE": "2", "RANK": str(rank)}) for rank in (0, 1)]
    watchdog = threading.Timer(300, lambda: [os.kill(pid, signal.SIGKILL)
                                             for pid in running(job_dir)])
    watchdog.start()
    try:
        (out0, err0), (out1, err1) = (proc.communicate() for proc in procs)
    finally:
        watchdog.cancel()
    assert [proc.returncode for proc in procs] == [0, 0], err0 + err1
    assert_no_stack_trace(err0 + err1)
    lines = out0.splitlines()
    assert ("replica 0 of 2: 2 processes (--nproc-per-replica, on the CPU), ranks 0-1 of 3 "
            "(gloo)") in lines
    assert "rank 1 of 3 (replica 0, local rank 1), training on cpu (gloo)" in lines
    assert out1.splitlines()[:2] == [
        "replica 1 of 2: 1 process (--nproc-per-replica, on the CPU), rank 2 of 3 (gloo)",
        "rank 2 of 3 (replica 1, local rank 0), training on cpu (gloo)"]
    assert "rank 2: epoch 1 trained on 342 of 1024 images" in out1.splitlines()
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (3, 2)


def assert_no_stack_trace(err: str) -> None:
    """A run that succeeded says nothing of torch's agents meeting and parting (Python's
    tracebacks, c10d's C++ stack traces "Exception raised from ... frame #0")."""
    for mark in ("Traceback", "Exception raised from", "frame #", "DistNetworkError",
                 "exit barrier"):
        assert mark not in err, err


def running(job_dir: Path) -> list[int]:
    """The processes (not zombies) training into ``job_dir``: the replica and the processes it
    started (torch's agent starts each in a session of its own), found by their command line."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state = stat.read_text().rpartition(")")[2].split()[0]
            argv = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if state != "Z" and os.fsencode(job_dir) in argv:
            found.append(int(stat.parent.name))
    return found


ENDINGS = {  # what a training process does, and how it must end: as Python would end it
    "pass": ("print('trained')", 0, "trained\n", ""),
    "SystemExit('why')": ("raise SystemExit('cannot resume')", 1, "", "cannot resume\n"),
    "SystemExit(3)": ("raise SystemExit(3)", 3, "", ""),
    "an exception": ("raise FileExistsError('checkpoints')", 1, "", "FileExistsError: "
                     "checkpoints\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("ending", ENDINGS)
def test_a_training_process_ends_as_python_would_without_finalizing_it(ending: str):
    """A process of the world ends with os._exit once it has trained (launch.end_after: gloo's
    threads, which DDP keeps alive, must not meet Python's finalization), and still ends as
    Python would: its code, its message or traceback, what it printed; no atexit runs."""
    body, code, out, err_end = ENDINGS[ending]
    script = ("import atexit\nfrom trainer import launch\n"
              "atexit.register(lambda: print('finalized'))\n"
              f"def work():\n    {body}\nlaunch.end_after(work)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=PACKAGE.parent, text=True,
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stdout) == (code, out), done.stderr
    assert done.stderr.endswith(err_end), done.stderr
    if ending == "an exception":
        assert done.stderr.startswith("Traceback (most recent call last):"), done.stderr


@pytest.mark.slow
def test_a_failing_process_stops_the_others_and_fails_the_replica(tmp_path: Path):
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    (job_dir / "checkpoints").write_text("a file where rank 0 writes its checkpoints")
    proc = run_alone(job_dir, "--epochs", "1", "--nproc-per-replica", "2")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, out + err
    assert "FileExistsError" in err
    assert err.endswith("process 0 (rank 0) exited with code 1: stopping the others\n"), err
    assert running(job_dir) == []


@pytest.mark.slow
def test_sigterm_to_the_replica_stops_its_processes(tmp_path: Path):
    """A service may signal the replica's first process alone: it passes the signal on."""
    job_dir = tmp_path / "job"
    proc = run_alone(job_dir, "--epochs", "1000", "--nproc-per-replica", "2")
    assert proc.stdout is not None
    watchdog = threading.Timer(300, lambda: [os.kill(pid, signal.SIGKILL)
                                             for pid in running(job_dir)])
    watchdog.start()
    try:
        for line in proc.stdout:  # until the processes train
            if line.startswith("epoch 1/1000:"):
                break
        else:
            raise AssertionError(proc.communicate())
        assert len(running(job_dir)) == 3  # the replica and its 2 processes
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        watchdog.cancel()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert running(job_dir) == []


# -- where a replica stands in the job ---------------------------------------------------------

def _load_cluster() -> Any:
    """trainer/cluster.py (standard library only), without putting ``trainer`` on sys.path."""
    spec = importlib.util.spec_from_file_location("mlp_trainer_cluster", PACKAGE / "cluster.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cluster = _load_cluster()
AI_PLATFORM = {"chief": ["cmle-training-master-1a2b3c-0:2222"],
               "worker": ["cmle-training-worker-1a2b3c-0:2222",
                          "cmle-training-worker-1a2b3c-1:2222"],
               "ps": ["cmle-training-ps-1a2b3c-0:2222"]}
VERTEX = {"workerpool0": ["cmle-training-workerpool0-ab12cd34ef-0:2222"],
          "workerpool1": ["cmle-training-workerpool1-ab12cd34ef-0:2222",
                          "cmle-training-workerpool1-ab12cd34ef-1:2222"],
          "workerpool2": ["cmle-training-workerpool2-ab12cd34ef-0:2222"]}


def spec(cluster_: dict[str, list[str]], task: str, index: int) -> str:
    return json.dumps({"cluster": cluster_, "task": {"type": task, "index": index},
                       "environment": "cloud"})


@pytest.mark.parametrize("environ, expected", [
    # PyTorch's variables (gpujob local, the services' PyTorch containers) come first
    ({"MASTER_ADDR": "localhost", "MASTER_PORT": "41234", "WORLD_SIZE": "3", "RANK": "2",
      "TF_CONFIG": spec(AI_PLATFORM, "worker", 0)}, (2, 3, "localhost", 41234)),
    # AI Platform: the primary is chief (runtime 2.1+) or master, then the workers
    ({"TF_CONFIG": spec(AI_PLATFORM, "worker", 1)}, (2, 3, "cmle-training-master-1a2b3c-0", 2222)),
    ({"TF_CONFIG": spec({"master": ["m:2222"], "worker": ["w:2222"]}, "master", 0)},
     (0, 2, "m", 2222)),
    # Vertex AI: workerpool0, then workerpool1; CLUSTER_SPEC before TF_CONFIG
    ({"CLUSTER_SPEC": spec(VERTEX, "workerpool1", 1),
      "TF_CONFIG": spec({"chief": ["x:1"]}, "chief", 0)},
     (2, 3, "cmle-training-workerpool0-ab12cd34ef-0", 2222)),
    ({"CLUSTER_SPEC": spec({"chief": ["c:2222"]}, "chief", 0)}, (0, 1, "c", 2222)),
    ({}, (0, 1, None, None)),
])
def test_a_replica_finds_its_rank_among_the_replicas(environ, expected):
    found = cluster.replica(environ)
    assert (found.rank, found.count, found.address, found.port) == expected


@pytest.mark.parametrize("environ, message", [
    ({"TF_CONFIG": spec(AI_PLATFORM, "ps", 0)},
     "this replica is ps 0 (TF_CONFIG): only the primary and the workers train"),
    ({"CLUSTER_SPEC": spec(VERTEX, "workerpool2", 0)},
     "this replica is workerpool2 0 (CLUSTER_SPEC): only the primary and the workers train"),
    ({"TF_CONFIG": spec(AI_PLATFORM, "evaluator", 0)},
     "this replica is evaluator 0 (TF_CONFIG): only the primary and the workers train"),
    ({"WORLD_SIZE": "2", "MASTER_ADDR": "localhost", "MASTER_PORT": "1"},
     "WORLD_SIZE is set but RANK is not: this replica does not train"),
])
def test_parameter_servers_and_evaluators_do_not_train(environ, message):
    with pytest.raises(cluster.NotInWorld) as caught:
        cluster.replica(environ)
    assert str(caught.value) == message


@pytest.mark.parametrize("environ, message", [
    ({"TF_CONFIG": "{cluster"}, "TF_CONFIG: not the service's cluster description (Expecting "
                                "property name enclosed in double quotes: line 1 column 2 "
                                "(char 1))"),
    ({"CLUSTER_SPEC": json.dumps({"cluster": {}})},
     "CLUSTER_SPEC: not the service's cluster description (no 'task')"),
    ({"CLUSTER_SPEC": spec({"worker": ["w:1"]}, "worker", 0)},
     "CLUSTER_SPEC: its cluster has no chief, master, workerpool0"),
    ({"TF_CONFIG": spec(AI_PLATFORM, "worker", 2)},
     "TF_CONFIG: task worker 2 is not in its cluster"),
    ({"RANK": "0", "WORLD_SIZE": "2"},
     "RANK is set but MASTER_ADDR, MASTER_PORT are not: cannot find the other replicas"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "m", "MASTER_PORT": "1"},
     "RANK=2 is not a rank of WORLD_SIZE=2 replicas"),
    ({"RANK": "one", "WORLD_SIZE": "2", "MASTER_ADDR": "m", "MASTER_PORT": "1"},
     "RANK='one' is not a whole number"),
])
def test_a_cluster_it_cannot_read_is_a_one_line_error(environ, message):
    with pytest.raises(SystemExit) as caught:
        cluster.replica(environ)
    assert str(caught.value) == message


@pytest.mark.slow
def test_the_example_is_a_package_that_builds(tmp_path: Path):
    """It can be shipped to the cloud: a package built from --package-path's parent."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(tmp_path), str(PACKAGE.parent)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("mlp_trainer-0.1.0-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("__init__", "task", "launch", "devices", "cluster", "loop", "model", "data",
                   "checkpoints"):
        assert f"trainer/{module}.py" in names
