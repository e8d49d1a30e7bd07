"""The name a job takes from its config file, when none is given (its jobId, display name):
imported by the config formats and the merge alike, so it imports nothing of theirs."""

from __future__ import annotations

from pathlib import Path

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
    path = Path(source)
    if not _generic(path.stem):
        return path.stem
    folder = path.resolve().parent.name if path.is_absolute() or path.exists() else \
        path.parent.name
    return folder if not _generic(folder) else path.stem
