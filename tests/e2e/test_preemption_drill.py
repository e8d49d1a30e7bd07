"""``gpujob local --preempt-after SECONDS|FILE --recover N``: a preemption drill on this machine.

Every test triggers the preemption on an event, never on the clock: a file the trainer writes
once it is ready for SIGTERM. The example trainer's test lets SIGTERM land wherever it lands
(the epoch it stops after is read from what it says), and asserts what holds for every landing:
the next attempt resumes from the very checkpoint the last one saved, and no epoch is trained
twice or skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from example_runs import DRILL
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

# a trainer that is ready for SIGTERM once it has written 'ready' in the job dir; on SIGTERM it
# saves a checkpoint and exits 143; started again with one, it says so and succeeds
FAKE_TRAINER = """\
import pathlib, signal, sys, time

job_dir = pathlib.Path(sys.argv[sys.argv.index("--job-dir") + 1])
checkpoint = job_dir / "checkpoint"
if checkpoint.exists():
    print("resuming from", checkpoint.read_text(), flush=True)
    sys.exit(0)
if "--fail" in sys.argv:  # before it is ready: never preempted
    sys.exit(1)


def preempted(signum, frame):
    checkpoint.write_text("step 7")
    print("SIGTERM: saved step 7", flush=True)
    sys.exit(143)


signal.signal(signal.SIGTERM, preempted)
(job_dir / "ready").write_text("1")
while True:
    time.sleep(1)
"""

ONE_MASTER = RUNTIME_JOB_WITHOUT_PACKAGES


@pytest.fixture
def fake(tmp_path: Path) -> tuple[Path, Path]:
    """(config, package) of a one-replica job running FAKE_TRAINER."""
    package = tmp_path / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "task.py").write_text(FAKE_TRAINER)
    config = tmp_path / "job.yaml"
    config.write_text(ONE_MASTER)
    return config, package


def local(cli, config: Path, package: Path, job_dir: Path, *flags: str):
    return cli("local", "--service", "ai-platform", config, "--package-path", package,
               "--job-dir", job_dir, "--job-id", "drill", *flags)


def test_a_preempted_attempt_is_started_again_with_the_same_job_dir(cli, fake, tmp_path: Path):
    job_dir = tmp_path / "out"
    result = local(cli, *fake, job_dir, "--preempt-after", "ready", "--recover", "1")
    assert result.code == 0, result.out + result.err
    assert result.out.splitlines() == ["master-replica-0 | SIGTERM: saved step 7",
                                       "master-replica-0 | resuming from step 7"]
    err = result.err.splitlines()
    assert ("preempted (--preempt-after ready; SIGKILL after 30s): stopping master-replica-0"
            in err)
    attempts = [line for line in err if line.startswith("attempt ")]
    assert len(attempts) == 2, result.err
    assert re.fullmatch(r"attempt 1 of at most 2: preempted after \d+s \(--preempt-after "
                        r"ready\); starting again with the same job dir \(1 of --recover 1\)",
                        attempts[0])
    assert re.fullmatch(r"attempt 2 of at most 2: succeeded after \d+s", attempts[1])
    assert err[-1] == "Job drill succeeded: master-replica-0 exited with code 0"


def test_without_recover_a_preempted_job_ends_as_preempted(cli, fake, tmp_path: Path):
    result = local(cli, *fake, tmp_path / "out", "--preempt-after", "ready")
    assert result.code == 4, result.out + result.err
    assert result.out == "master-replica-0 | SIGTERM: saved step 7\n"
    assert re.search(r"^attempt 1 of at most 1: preempted after \d+s \(--preempt-after ready\)$",
                     result.err, re.M)
    assert "error: job drill was preempted without --recover\n" in result.err
    assert "--recover N starts it again with the same job dir" in result.err


def test_a_trainers_own_failure_is_not_recovered(cli, fake, tmp_path: Path):
    result = local(cli, *fake, tmp_path / "out", "--preempt-after", "ready", "--recover", "3",
                   "--", "--fail")
    assert result.code == 4, result.out + result.err
    assert re.search(r"^attempt 1 of at most 4: failed \(master-replica-0 exited with code 1\) "
                     r"after \d+s; a trainer's own failure is not recovered$", result.err, re.M)
    assert "attempt 2" not in result.err
    assert "error: job drill failed: master-replica-0 exited with code 1" in result.err


@pytest.mark.parametrize(("flags", "message"), [
    (["--recover", "1"], "error: --recover starts a local run again after the drill's "
                         "preemption (a trainer's own failure is not recovered)"),
    (["--preempt-after", "/tmp/x"], "error: --preempt-after '/tmp/x': neither a number of "
                                    "seconds nor a path under the job dir"),
    (["--preempt-after", "-5"], "error: --preempt-after -5: not a number of seconds"),
    (["--preempt-after", "0", "--recover", "1"],
     "error: --preempt-after 0 preempts every attempt as it starts"),
])
def test_a_drill_it_cannot_run_is_a_usage_error(cli, fake, tmp_path: Path, flags: list[str],
                                                 message: str):
    result = local(cli, *fake, tmp_path / "out", *flags)
    assert result.code == 2, result.out + result.err
    assert message in result.err
    assert result.out == ""


def test_submit_refuses_the_drill_flags(cli, fake):
    """--preempt-after is the drill's alone; --recover is submit's too (the cloud's
    recovery), so the drill's flag is the one refused."""
    result = cli("submit", "--service", "ai-platform", fake[0], "--preempt-after", "30",
                 "--recover", "1")
    assert result.code == 2, result.err
    assert result.err.splitlines()[0] == ("error: --preempt-after is for local runs (gpujob "
                                          "local, or submit --local)")


@pytest.mark.slow
def test_the_example_trainer_resumes_from_the_epoch_it_saved_on_sigterm(tmp_path: Path):
    """The issue's drill, with the shipped config, as docs/local.md runs it (its transcript is
    checked here, on this one run): each attempt is preempted once it has written a checkpoint
    (1000 epochs: neither attempt can end first), so the run ends preempted (exit 4) after one
    recovery, which resumed from the first attempt's checkpoint."""
    from test_readme import SHOWN_ROOT, pattern, run_in, transcript_run_by_a_test, workspace

    (step,) = transcript_run_by_a_test(*DRILL).steps
    workdir = workspace(tmp_path)
    out, code = run_in(workdir, step.command)  # stdout and stderr, as the page shows them
    assert pattern(step.expected).fullmatch(out), f"{DRILL[0]}: $ {DRILL[1]}\n--- printed:\n{out}"
    assert code == step.code == 4, out
    assert "Traceback" not in out
    job_dir = f"{SHOWN_ROOT}/out/drill"
    # rank 0's lines, in the order it wrote them (the other replica's may come between)
    lines = [line.removeprefix("workerpool0-0 | ") for line in out.splitlines()
             if line.startswith("workerpool0-0 | ")]
    # the second attempt begins by resuming: what came before is the first attempt's
    (start,) = [i for i, line in enumerate(lines) if line.startswith("resuming from")]
    first, second = lines[:start], lines[start:]
    saved = max(int(m.group(1)) for line in first
                if (m := re.match(r"epoch (\d+)/1000: .*; saved \S+/epoch-\d+\.pt$", line)))
    assert saved >= 1
    # each attempt stops itself after the epoch in progress, once its checkpoint is saved (its
    # processes get SIGTERM twice, from the supervisor and from torch's agent: neither hangs)
    assert [line for line in first if line.startswith("SIGTERM: ")] == [
        f"SIGTERM: stopped after epoch {saved} of 1000, its checkpoint saved; a run with the "
        f"same --job-dir resumes from epoch {saved + 1}"]
    resumed = [line for line in second if line.startswith("resuming from")]
    assert resumed == [f"resuming from {job_dir}/checkpoints/epoch-{saved:04d}.pt ({saved} "
                       "epochs done; another --job-dir starts afresh)"]
    trained = [int(m.group(1)) for line in second if (m := re.match(r"epoch (\d+)/1000:", line))]
    assert trained[0] == saved + 1, second
    assert [line for line in second if line.startswith("SIGTERM: ")] == [
        f"SIGTERM: stopped after epoch {trained[-1]} of 1000, its checkpoint saved; a run with "
        f"the same --job-dir resumes from epoch {trained[-1] + 1}"]
    # every epoch once, in order, across the two attempts
    metrics = json.loads((workdir / "out" / "drill" / "metrics.json").read_text())
    epochs = [e["epoch"] for e in metrics["epochs"]]
    assert epochs == list(range(1, epochs[-1] + 1))
    said = out.splitlines()
    assert [line.split(": preempted after")[0] for line in said if line.startswith("attempt ")] \
        == ["attempt 1 of at most 2", "attempt 2 of at most 2"]
    assert f"error: job {_job_id(out)} was preempted after 1 recovery" in said
    # the same AIP_CHECKPOINT_DIR: one job dir, named once
    assert said.count(f"Job dir: {job_dir}") == 1


def _job_id(err: str) -> str:
    found = re.search(r"^Running job (\S+) here", err, re.M)
    assert found, err
    return found.group(1)
