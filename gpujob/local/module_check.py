"""Before a local run: would ``python -m MODULE`` find the trainer where the replicas run?

The replicas run from the parent of ``--package-path`` (else the current directory), and a
module that is not there (nor on the run's ``PYTHONPATH``, nor installed) would fail in every
replica with ``ModuleNotFoundError``; a misspelt one gets a did-you-mean from its package. The
check asks the interpreter the replicas use, with their environment and directory, as
``python -m`` would look: the top-level package through the whole import system (installed and
editable packages included), the rest through the package's ``__path__``. Nothing of the
trainer is imported, so none of its code runs.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from gpujob.errors import UsageError

_PROBE = """
import importlib.machinery, importlib.util, sys
parts = sys.argv[1].split(".")
name = parts[0]
spec = importlib.util.find_spec(name)
for part in parts[1:]:
    if spec is None:
        break
    name += "." + part
    where = spec.submodule_search_locations
    spec = None if where is None else importlib.machinery.PathFinder.find_spec(name, list(where))
if spec is None:
    sys.stdout.write(name)
    sys.exit(3)
"""
_NOT_FOUND = 3


def missing_module(module: str, cwd: Path, env: Mapping[str, str]) -> str | None:
    """The first dotted prefix of ``module`` that cannot be found from ``cwd`` with ``env``; None
    when it is found, or when the check itself cannot tell (then the run goes ahead)."""
    try:
        probe = subprocess.run([sys.executable, "-c", _PROBE, module], cwd=cwd, env=dict(env),
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return probe.stdout or None if probe.returncode == _NOT_FOUND else None


def check_module(module: str, cwd: Path, env: Mapping[str, str]) -> None:
    """Refuse the run, before any replica starts, when ``python -m module`` would not find it."""
    missing = missing_module(module, cwd, env)
    if missing is None:
        return
    top = module.split(".")[0]
    near = _near(missing, cwd)
    hint = (f"give --package-path PATH/TO/{top} (the directory with the package's "
            f"__init__.py), or run gpujob from the directory that holds {top}/"
            if missing == top else
            (f"did you mean {near}? " if near else "") +
            "check the module's name (--module-name or trainingInput.pythonModule)")
    raise UsageError(f"no module named {missing} here, so python -m {module} would fail in "
                     f"every replica (they run from {cwd})", hint)


def _near(missing: str, cwd: Path) -> str | None:
    """A module beside the missing one, in its package's directory under ``cwd``, spelt like it
    (``trainer.tsk``: ``trainer.task``)."""
    from gpujob.suggest import did_you_mean

    *package, name = missing.split(".")
    where = cwd.joinpath(*package)
    if not package or not where.is_dir():
        return None
    try:
        names = [p.stem if p.suffix == ".py" else p.name for p in where.iterdir()
                 if p.suffix == ".py" or (p / "__init__.py").is_file()]
    except OSError:
        return None
    found = did_you_mean(name, [n for n in names if n != "__init__"])
    return ".".join([*package, found]) if found else None
