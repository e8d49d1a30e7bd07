"""Checkpoints in the job dir, written so that a kill at any moment leaves the last one whole.

A maintenance event restarts a GPU machine, and a job that was killed is run again with the same
--job-dir: the trainer starts from the newest checkpoint instead of from scratch.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import torch

_NAME = re.compile(r"epoch-(\d+)\.pt\Z")
_GCS_FUSE = Path("/gcs")  # where Vertex AI mounts Cloud Storage buckets (Cloud Storage FUSE)


def local_path(job_dir: str) -> Path:
    """The job dir as a path: a gs://BUCKET/PATH job dir is read through /gcs/BUCKET/PATH."""
    if not job_dir.startswith("gs://"):
        return Path(job_dir)
    if not _GCS_FUSE.is_dir():
        raise SystemExit(f"--job-dir {job_dir}: this trainer reads Cloud Storage through "
                         f"{_GCS_FUSE}/BUCKET (Cloud Storage FUSE), which is not mounted here")
    return _GCS_FUSE / job_dir.removeprefix("gs://")


def _atomic(path: Path, write: Any) -> None:
    """``write(tmp)`` then rename over ``path``: readers see the old file or the new, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def checkpoint_path(directory: Path, epoch: int) -> Path:
    """The checkpoint written after ``epoch`` epochs."""
    return directory / f"epoch-{epoch:04d}.pt"


def save(directory: Path, epoch: int, state: dict[str, Any], keep: int = 3) -> Path:
    """Write the checkpoint of ``epoch`` (epochs done) and keep only the newest ``keep``."""
    target = checkpoint_path(directory, epoch)
    _atomic(target, lambda tmp: torch.save(state, tmp))
    for _, old in sorted(_checkpoints(directory))[:-keep]:
        old.unlink(missing_ok=True)
    return target


def latest_epoch(directory: Path) -> int:
    """The epochs done by the newest checkpoint; 0 when there is none."""
    return max((epoch for epoch, _ in _checkpoints(directory)), default=0)


def load(path: Path) -> dict[str, Any]:
    return torch.load(path, map_location="cpu", weights_only=True)


def write_json(path: Path, data: Any) -> None:
    _atomic(path, lambda tmp: tmp.write_text(json.dumps(data, indent=2) + "\n"))


def _checkpoints(directory: Path) -> list[tuple[int, Path]]:
    if not directory.is_dir():
        return []
    return [(int(m.group(1)), p) for p in directory.iterdir() if (m := _NAME.match(p.name))]


def why_not_loaded(exc: BaseException) -> str:
    """The first line of why a checkpoint did not load, whole: torch's "Error(s) in loading
    state_dict for MLP:" ends with a colon, the reason on the line after it."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"
    return lines[0]
