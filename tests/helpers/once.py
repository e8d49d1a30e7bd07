"""Expensive work done once per test run, by whichever pytest-xdist worker asks for it first.

A module- or session-scoped fixture runs once per worker: with two workers, a fixture that
trains the example on torch (half a minute of CPU) trained twice. pytest-xdist's ``--dist
loadgroup`` was to keep such tests on one worker, but with pytest 9.2 it no longer groups
anything, silently (pytest-dev/pytest-xdist#1386: it renames node ids, which pytest 9.2 no
longer lets it do). So the work is shared the way pytest-xdist's documentation suggests
("Making session-scoped fixtures execute only once"): the first worker does it under a lock in
the directory all workers' temporary directories are made in; the others wait on the lock and
read what it left. A test that changes what was made works on its own copy.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def once(tmp_path_factory: pytest.TempPathFactory, name: str,
         make: Callable[[Path], Any]) -> tuple[Path, Any]:
    """``(directory, result)``: ``make(directory)`` run in this test run's ``directory`` for
    ``name`` by the first worker to ask; its result must be JSON. A ``make`` that raised leaves
    nothing, and the next to ask runs it again (and fails as the test would)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's own directory, which holds each worker's
    directory, done = root / f"once-{name}", root / f"once-{name}.json"
    with open(root / f"once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not done.exists():
            shutil.rmtree(directory, ignore_errors=True)  # what a make that raised left
            directory.mkdir()
            done.write_text(json.dumps(make(directory)), encoding="utf-8")
        return directory, json.loads(done.read_text(encoding="utf-8"))
