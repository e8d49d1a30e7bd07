"""The name a job takes from its config file, when none is given (its jobId, display name):
imported by the config formats and the merge alike, so it imports nothing of theirs."""

from __future__ import annotations

import os

# file names any job's config may have: a job named after one is named like every other
GENERIC_NAMES = frozenset({"config", "configs", "cfg", "job", "jobs", "training", "train",
                           "trainer", "spec", "default", "main", "vertex", "hptuning",
                           "hptuning_config", "custom_job", "customjob", "jobset", "gke"})


def _generic(name: str) -> bool:
    return not name or name.split(".")[0].lower().replace("-", "_") in GENERIC_NAMES


def source_name(source: str) -> str:
    """The name a job takes from its config file: the file's name without its suffix, or, for
    a name any config may have (``config.yaml``, ``job.vertex.yaml``), its directory's
    (``taxi/config.yaml``: ``taxi``). "" for standard input."""
    if source in ("<stdin>", "-", ""):
        return ""
    path = os.path.normpath(source)  # (os.path, not pathlib: validate's start-up)
    stem = _stem(os.path.basename(path))
    if not _generic(stem):
        return stem
    real = os.path.isabs(source) or os.path.exists(source)
    folder = os.path.basename(os.path.dirname(os.path.realpath(source) if real else path))
    return folder if not _generic(folder) else stem


def _stem(name: str) -> str:
    """``PurePath.stem``: ``name`` without its last suffix (``.yaml``)."""
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name
