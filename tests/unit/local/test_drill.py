"""The preemption drill's trigger (``--preempt-after SECONDS|FILE``) and its attempt lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpujob.errors import UsageError
from gpujob.local.drill import SPOT_GRACE, duration, parse


def test_a_number_is_seconds_and_anything_else_a_pattern_under_the_job_dir():
    seconds = parse("90", None, 2)
    assert (seconds.seconds, seconds.written, seconds.grace, seconds.recover) == (
        90.0, None, SPOT_GRACE, 2)
    pattern = parse("checkpoints/*.pt", 5.0, 0)
    assert (pattern.seconds, pattern.written, pattern.grace) == (None, "checkpoints/*.pt", 5.0)


@pytest.mark.parametrize("text", ["nan", "inf", "-1", "/abs/path", "../up", " "])
def test_what_is_neither_is_a_usage_error(text: str):
    with pytest.raises(UsageError):
        parse(text, None, 0)


def test_a_file_written_before_the_attempt_does_not_preempt_it(tmp_path: Path):
    old = tmp_path / "checkpoints" / "epoch-0001.pt"
    old.parent.mkdir()
    old.write_text("an earlier attempt's")
    os.utime(old, ns=(0, 0))
    preemption = parse("checkpoints/epoch-*.pt", None, 1).attempt(str(tmp_path))
    assert not preemption.due()
    (tmp_path / "checkpoints" / ".epoch-0002.pt.1.tmp").write_text("hidden: not matched")
    assert not preemption.due()
    (tmp_path / "checkpoints" / "epoch-0002.pt").write_text("this attempt's")
    assert preemption.due() and preemption.fired
    assert not preemption.landed  # until the runner stops the replicas for it


def test_a_job_dir_with_glob_characters_is_taken_literally(tmp_path: Path):
    job_dir = tmp_path / "run[1]"
    job_dir.mkdir()
    preemption = parse("ready", None, 0).attempt(str(job_dir))
    (job_dir / "ready").write_text("1")
    assert preemption.due()


@pytest.mark.parametrize(("seconds", "shown"), [(0.4, "0s"), (59.9, "59s"), (65, "1m05s"),
                                                (3725, "1h02m")])
def test_how_long_an_attempt_ran(seconds: float, shown: str):
    assert duration(seconds) == shown


def test_seconds_count_from_the_attempts_start(tmp_path: Path):
    assert parse("0", None, 0).attempt(str(tmp_path)).due()
    assert not parse("3600", None, 0).attempt(str(tmp_path)).due()
