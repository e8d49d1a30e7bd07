"""The PyTorch example (examples/mlp) run as the README runs it: two replicas on the CPU (gloo),
DistributedDataParallel over DistributedSampler shards, checkpoints every epoch, a run killed
and started again, and one given more epochs resuming; several processes on a replica (one per
GPU it is given, or --nproc-per-replica) in one world with the other replicas', and a launcher
that stops them all when one fails or when it is told to; and where a replica stands in the
job, from the service's variables.

Every process of a run imports torch (seconds of CPU each), so runs serve several tests: the
README's and docs/local.md's transcripts are run here, each by the test that checks its text
(test_readme.RUN_BY_TESTS), and a run the tests that look at it share is made once per test run
(``once``: whichever xdist worker asks first; the others read what it left). A test that runs
again in a shared run's job dir works on a copy. Small data keeps the other runs to a few
seconds."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from example_runs import README_RUN, RESUMED, WORLD_OF_4
from once import once

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "mlp" / "trainer"
SMALL = ["--train-size", "1024", "--test-size", "256"]


def checkpoints(job_dir: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in (job_dir / "checkpoints").glob("*.pt"))


class Ran(NamedTuple):
    code: int
    out: str
    err: str


def clean_env(tmp: Path) -> dict[str, str]:
    """The environment of a run that a module-scoped fixture starts (set up before each test's
    clean_environment): none of the developer's gcloud or gpujob settings, no GPU."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPUJOB_", "GOOGLE_", "CLOUDSDK_"))}
    env.update(GPUJOB_LOCAL_GPUS="", GPUJOB_CACHE_DIR=str(tmp / "cache"),
               GPUJOB_CATALOG_MAX_AGE_DAYS="100000", CLOUDSDK_CONFIG=str(tmp / "gcloud-config"),
               NO_GCE_CHECK="true")
    return env


def local(*args: object, env: dict[str, str]) -> Ran:
    """``python -m gpujob local ARGS`` (for a fixture shared by several tests: ``cli`` is each
    test's own), in ``env``."""
    done = subprocess.run([sys.executable, "-m", "gpujob", "local", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=600)
    return Ran(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True)
class Trained:
    """The README's run of one epoch (``gpujob local``, 2 replicas, Vertex AI's variables) in a
    workspace of its own, as test_readme runs a transcript: what it printed (stdout and stderr
    together, the workspace shown as test_readme.SHOWN_ROOT) and its exit code."""

    step: Any  # test_readme.Step
    out: str
    code: int
    workdir: Path

    @property
    def job_dir(self) -> Path:
        return self.workdir / "out" / "mlp"


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Trained:
    """The README's transcript, run once for the tests that look at it or start from it (the
    first checks the README's text)."""
    from test_readme import run_in, transcript_run_by_a_test, workspace

    (step,) = transcript_run_by_a_test(*README_RUN).steps

    def run(directory: Path) -> dict[str, Any]:
        out, code = run_in(workspace(directory), step.command)
        return {"out": out, "code": code}

    directory, ran = once(tmp_path_factory, "trained", run)
    return Trained(step, ran["out"], ran["code"], directory / "gpujob")


@pytest.mark.slow
def test_the_example_trains_an_epoch_on_two_cpu_processes(trained: Trained):
    """The README's run (its transcript is checked here, on this one run): two replicas on the
    CPU, one process each, DDP over DistributedSampler shards, a checkpoint of the epoch."""
    from test_readme import SHOWN_ROOT, pattern

    out, step = trained.out, trained.step
    assert pattern(step.expected).fullmatch(out), \
        f"{README_RUN[0]}: $ {step.command}\n--- printed:\n{out}"
    assert trained.code == step.code == 0, out
    assert "warning: the job asks for 2 GPUs and none are available" in out
    assert_no_stack_trace(out)
    # pythonModule runs in the container's place only here (test_local_vertex.py: the example's
    # Vertex AI config runs here as this one does)
    assert "pythonModule is not sent" not in out
    lines = out.splitlines()
    assert "workerpool0-0 | replica 0 of 2: 1 process (no GPU), rank 0 of 2 (gloo)" in lines
    assert "workerpool1-0 | replica 1 of 2: 1 process (no GPU), rank 1 of 2 (gloo)" in lines
    assert ("workerpool0-0 | rank 0 of 2 (replica 0, local rank 0), training on cpu (gloo)"
            in lines)
    assert ("workerpool1-0 | rank 1 of 2 (replica 1, local rank 0), training on cpu (gloo)"
            in lines)
    # DistributedSampler: each replica trains on its half of the images
    assert "workerpool0-0 | rank 0: epoch 1 trained on 4096 of 8192 images" in lines
    assert "workerpool1-0 | rank 1: epoch 1 trained on 4096 of 8192 images" in lines
    assert any(re.fullmatch(r"workerpool0-0 \| epoch 1/1: loss [\d.]+, test accuracy "
                            rf"[\d.]+, \d+ samples/s; saved {SHOWN_ROOT}/out/mlp/checkpoints/"
                            r"epoch-0001\.pt", line)
               for line in lines), out
    job_dir = trained.job_dir
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (2, 2)
    assert [e["epoch"] for e in metrics["epochs"]] == [1]
    assert metrics["epochs"][0]["samples_per_second"] > 0
    assert checkpoints(job_dir) == [1]
    assert not [p for p in job_dir.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_a_checkpoint_of_another_model_is_a_one_line_error(cli, trained: Trained,
                                                          tmp_path: Path):
    assert trained.code == 0, trained.out
    workdir = trained.workdir
    job_dir = tmp_path / "mlp"  # the README run's, copied: other tests read that one
    shutil.copytree(trained.job_dir, job_dir)
    result = cli("local", workdir / "configs" / "pytorch-mlp-ddp.yaml", "--service", "vertex",
                 "--package-path", workdir / "examples" / "mlp" / "trainer", "--module-name",
                 "trainer.task", "--job-dir", job_dir, "--", "--epochs", "2", "--hidden", "16",
                 env={"GPUJOB_LOCAL_GPUS": ""})
    assert result.code == 4, result.out + result.err
    # the master says why, once; the worker, stopped as the master fails, may still be reporting
    # its own stop then (how far it got depends on the machine's load): it never says why again
    lines = result.out.splitlines()
    assert len([line for line in lines if "cannot resume" in line]) == 1, result.out
    (said,) = [line for line in lines
               if line.startswith("workerpool0-0 | ") and "rank " not in line]
    assert said.startswith(f"workerpool0-0 | cannot resume from {job_dir}/checkpoints/"
                           "epoch-0001.pt, which an earlier run left in --job-dir: not a "
                           "checkpoint of this model (")
    assert said.endswith(f"); give another --job-dir, or delete {job_dir}/checkpoints, to start "
                         "afresh")
    # torch's reason, whole: its first line ends with a colon, the reason on the next
    reason = said.split("not a checkpoint of this model (", 1)[1]
    assert reason.startswith("Error(s) in loading state_dict for MLP: size mismatch for "), said
    assert "Traceback" not in result.out + result.err


# one replica of one process: it trains in the replica's own process
ONE = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  runtimeVersion: '2.11'
  pythonModule: trainer.task
"""


@dataclass(frozen=True)
class Killed:
    """A run of --epochs 1000 stopped with Ctrl-C once it has saved an epoch (``killed``), on
    one replica; then the README's job, two replicas, with --epochs N in its job dir, N the
    epochs it saved (``again``): it finds them all in the checkpoint."""

    job_dir: Path
    killed: Ran
    done: int  # the epochs the killed run saved
    written: int  # when it saved the last (st_mtime_ns)
    again: Ran


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Killed:
    """One killed run and one run after it, for the tests that look at them."""
    directory, ran = once(tmp_path_factory, "killed", kill_and_run_again)
    return Killed(directory / "job", Ran(*ran["killed"]), ran["done"], ran["written"],
                  Ran(*ran["again"]))


def kill_and_run_again(tmp: Path) -> dict[str, Any]:
    """``killed``'s two runs, in ``tmp``: what ``Killed`` holds, as JSON."""
    env, job_dir, config = clean_env(tmp), tmp / "job", tmp / "one.yaml"
    config.write_text(ONE, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpujob", "local", str(config), "--service", "ai-platform",
         "--package-path", str(PACKAGE), "--job-dir", str(job_dir), "--", "--epochs", "1000",
         *SMALL], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    watchdog = threading.Timer(300, proc.kill)  # a hung run fails the tests instead of CI
    watchdog.start()
    seen = []
    try:
        for line in proc.stdout:  # until the first checkpoint has been written
            seen.append(line)
            if line.startswith("master-replica-0 | epoch 1/1000:"):
                break
        else:
            raise AssertionError(proc.communicate())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        watchdog.cancel()
    done = max(checkpoints(job_dir), default=0)
    written = (job_dir / "checkpoints" / f"epoch-{done:04d}.pt").stat().st_mtime_ns
    again = local(ROOT / "configs" / "pytorch-mlp-ddp.yaml", "--service", "vertex",
                  "--package-path", PACKAGE, "--module-name", "trainer.task", "--job-dir",
                  job_dir, "--", "--epochs", done, *SMALL, env=env)
    return {"killed": [proc.returncode, "".join(seen) + out, err], "done": done,
            "written": written, "again": list(again)}


@pytest.mark.slow
def test_a_killed_run_keeps_the_checkpoint_of_its_last_epoch(killed: Killed):
    """Ctrl-C: gpujob stops the replica (which finishes its epoch and saves it: see
    test_preemption_drill.py) and exits 130; every epoch the run finished is in its job dir, and
    the checkpoint loads: the run after it finds its epochs there (a torn file would be "cannot
    resume", exit 4). test_a_run_given_more_epochs_resumes_from_its_last_checkpoint trains on
    from a checkpoint, and the drill from one a stopped run saved."""
    assert killed.killed.code == 130, killed.killed.out + killed.killed.err
    assert 1 <= killed.done < 1000
    metrics = json.loads((killed.job_dir / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["epochs"]] == list(range(1, killed.done + 1))
    assert not [p for p in killed.job_dir.rglob("*") if p.name.endswith(".tmp")]
    assert killed.again.code == 0, killed.again.out + killed.again.err
    assert (f"nothing to train: {killed.job_dir} has a checkpoint of {killed.done} epochs"
            in killed.again.out)


@pytest.mark.slow
def test_a_job_dir_with_all_its_epochs_trains_nothing_and_says_why(killed: Killed):
    """A run whose job dir has a checkpoint of all its --epochs ends at once, saying only
    "nothing to do" once per rank."""
    job_dir, done, again = killed.job_dir, killed.done, killed.again
    assert again.code == 0, again.out + again.err
    # rank 0 says why, once; the worker, which may be stopped as the master ends (gpujob gives
    # it 2 s), never says it: its lines, in whatever order they come, are left out
    lines = again.out.splitlines()
    assert len([line for line in lines if "nothing to train" in line]) == 1, again.out
    said = [line for line in lines
            if line.startswith("workerpool0-0 | ") and "rank " not in line]
    assert said == [f"workerpool0-0 | nothing to train: {job_dir} has a checkpoint of {done} "
                    f"epochs, and --epochs is {done}; give --epochs N above {done} to train on, "
                    "or another --job-dir to start afresh"]
    assert (job_dir / "checkpoints" / f"epoch-{done:04d}.pt").stat().st_mtime_ns == \
        killed.written


@pytest.mark.slow
def test_a_run_given_more_epochs_resumes_from_its_last_checkpoint(tmp_path: Path):
    """docs/local.md's 3 epochs, then the same command with --epochs 5 (its transcript is
    checked here, on this one run): the second run resumes from epoch 3's checkpoint and trains
    epochs 4 and 5 alone."""
    from test_readme import SHOWN_ROOT, pattern, run_in, transcript_run_by_a_test, workspace

    transcript = transcript_run_by_a_test(*RESUMED)
    workdir = workspace(tmp_path)
    printed = []
    for step in transcript.steps:
        out, code = run_in(workdir, step.command)
        assert pattern(step.expected).fullmatch(out), \
            f"{RESUMED[0]}:{transcript.line}: $ {step.command}\n--- printed:\n{out}"
        assert code == step.code == 0, out
        printed.append(out.splitlines())
    first, again = printed
    assert epochs_trained(first, 3) == [1, 2, 3]
    job_dir = workdir / "out" / "mlp"
    assert (f"workerpool0-0 | resuming from {SHOWN_ROOT}/out/mlp/checkpoints/epoch-0003.pt (3 "
            "epochs done; another --job-dir starts afresh)") in again
    assert epochs_trained(again, 5) == [4, 5]
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["epochs"]] == [1, 2, 3, 4, 5]
    assert checkpoints(job_dir)[-1] == 5


def epochs_trained(lines: list[str], epochs: int) -> list[int]:
    """The epochs rank 0 (on workerpool0-0) says it trained, in order."""
    return [int(m.group(1)) for line in lines
            if (m := re.match(rf"workerpool0-0 \| epoch (\d+)/{epochs}: ", line))]


MIXED = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig: {acceleratorConfig: {count: 2, type: NVIDIA_TESLA_T4}}
  workerCount: 1
  workerType: n1-standard-8
  workerConfig: {acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}}
  runtimeVersion: '2.11'
  pythonModule: trainer.task
"""


@pytest.mark.slow
def test_a_replica_starts_a_process_per_gpu_and_all_are_one_world(cli, write, nvidia_smi,
                                                                   tmp_path: Path):
    """gpujob local gives the master 2 of the 3 GPUs that nvidia-smi (a stand-in) lists and the
    worker the third; the trainer starts a process for each. Ranks follow replica order whatever
    each replica runs: 2 processes on the master are ranks 0-1, the 1 on the worker is rank 2,
    one world of 3. This torch has no CUDA, so they train on the CPU (a CUDA build puts each on
    its own GPU, with nccl)."""
    nvidia_smi("printf '0\\n1\\n2\\n'")
    job_dir = tmp_path / "job"
    result = cli("local", write(MIXED), "--package-path", PACKAGE, "--job-dir", job_dir, "--",
                 "--epochs", "1", *SMALL)
    assert result.code == 0, result.out + result.err
    assert "warning" not in result.err
    assert_no_stack_trace(result.err)
    lines = result.out.splitlines()
    def why(gpus: str) -> str:
        return (rf"on the CPU, one per GPU in CUDA_VISIBLE_DEVICES={gpus}: (torch \S+ is built "
                r"without CUDA|torch finds no usable GPU)")

    assert any(re.fullmatch(rf"master-replica-0 \| replica 0 of 2: 2 processes \({why('0,1')}\), "
                            r"ranks 0-1 of 3 \(gloo\)", line) for line in lines), result.out
    # the worker's own lines, in the order it wrote them
    worker = [line for line in lines if line.startswith("worker-replica-0 | ")]
    assert re.fullmatch(rf"worker-replica-0 \| replica 1 of 2: 1 process \({why('2')}\), rank 2 "
                        r"of 3 \(gloo\)", worker[0]), result.out
    assert worker[1] == ("worker-replica-0 | rank 2 of 3 (replica 1, local rank 0), training on "
                         "cpu (gloo)")
    for rank, name, local in ((0, "master", 0), (1, "master", 1), (2, "worker", 0)):
        assert (f"{name}-replica-0 | rank {rank} of 3 (replica {rank // 2}, local rank {local}), "
                "training on cpu (gloo)") in lines
        # DistributedSampler pads to a multiple of the world: 342 each of 1024
        assert f"{name}-replica-0 | rank {rank}: epoch 1 trained on 342 of 1024 images" in lines
    assert len([line for line in lines if " | epoch 1/1: " in line]) == 1  # rank 0's
    assert checkpoints(job_dir) == [1]
    metrics = json.loads((job_dir / "metrics.json").read_text())
    assert (metrics["world_size"], metrics["replicas"]) == (3, 2)


@pytest.mark.slow
def test_the_processes_of_all_replicas_are_one_world(tmp_path: Path):
    """docs/local.md's two processes on each replica (its transcript is checked here, on this
    one run): ranks 0-1 on the master and 2-3 on the worker (replica × 2 + local rank), as
    torchrun numbers them, in one world of 4."""
    from test_readme import pattern, run_in, transcript_run_by_a_test, workspace

    transcript = transcript_run_by_a_test(*WORLD_OF_4)
    (step,) = transcript.steps
    workdir = workspace(tmp_path)
    out, code = run_in(workdir, step.command)
    assert pattern(step.expected).fullmatch(out), \
        f"{WORLD_OF_4[0]}:{transcript.line}: $ {step.command}\n--- printed:\n{out}"
    assert code == step.code == 0, out
    assert_no_stack_trace(out)
    lines = out.splitlines()
    for replica, name in enumerate(("workerpool0-0", "workerpool1-0")):
        assert (f"{name} | replica {replica} of 2: 2 processes (--nproc-per-replica, on the "
                f"CPU), ranks {2 * replica}-{2 * replica + 1} of 4 (gloo)") in lines
        for local in range(2):
            rank = 2 * replica + local
            assert (f"{name} | rank {rank} of 4 (replica {replica}, local rank {local}), "
                    "training on cpu (gloo)") in lines
            assert f"{name} | rank {rank}: epoch 1 trained on 2048 of 8192 images" in lines
    assert any(line.startswith("workerpool0-0 | epoch 1/3: loss ") for line in lines)
    metrics = json.loads((workdir / "out" / "mlp4" / "metrics.json").read_text())
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


# each ending in a process of its own, forked from one that has imported the trainer (and torch,
# seconds of CPU) once: what it prints goes to files of its own; its code, stdout and stderr
ENDED = """\
import atexit, json, os, sys, tempfile
from trainer import launch
ended = {}
for name, body in json.loads(sys.argv[1]).items():
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if not pid:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        atexit.register(lambda: print('finalized'))
        exec(f"def work():\\n    {body}\\n")
        launch.end_after(work)
        os._exit(99)  # end_after returned: the child must not go on with the parent's loop
    status = os.waitpid(pid, 0)[1]
    out.seek(0)
    err.seek(0)
    ended[name] = [os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode()]
print(json.dumps(ended))
"""


@pytest.fixture(scope="module")
def ended(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """How each of ENDINGS' processes ended: [code, stdout, stderr] (one script for them all,
    run once)."""
    def run(_: Path) -> dict[str, list[Any]]:
        bodies = {name: body for name, (body, *_) in ENDINGS.items()}
        done = subprocess.run([sys.executable, "-c", ENDED, json.dumps(bodies)],
                              cwd=PACKAGE.parent, text=True, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        found: dict[str, list[Any]] = json.loads(done.stdout)
        return found

    return once(tmp_path_factory, "ended", run)[1]


@pytest.mark.slow
@pytest.mark.parametrize("ending", ENDINGS)
def test_a_training_process_ends_as_python_would_without_finalizing_it(ending: str,
                                                                       ended: dict[str, Any]):
    """A process of the world ends with os._exit once it has trained (launch.end_after: gloo's
    threads, which DDP keeps alive, must not meet Python's finalization), and still ends as
    Python would: its code, its message or traceback, what it printed; no atexit runs."""
    _, code, out, err_end = ENDINGS[ending]
    returncode, stdout, stderr = ended[ending]
    assert (returncode, stdout) == (code, out), stderr
    assert stderr.endswith(err_end), stderr
    if ending == "an exception":
        assert stderr.startswith("Traceback (most recent call last):"), stderr


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
