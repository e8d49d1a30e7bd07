"""The extra packages of a local run: local wheels and sdists given with ``--packages``,
installed for the run only.

The trainer itself is not installed: the replicas run ``python -m MODULE`` from the parent of
``--package-path``, so it is found as the first entry of their ``sys.path``. The extra packages
are what the service would ``pip install`` on each replica; here they go, with the pip of the
interpreter the replicas run, into a directory of their own that is put first on the replicas'
``PYTHONPATH`` and removed after the run:
``pip install --no-deps --target DIR FILE…``. Why pip rather than unzipping the wheels: it refuses
a wheel built for another Python or platform with a clear message, lays out ``.data`` and
``.dist-info`` as an installation does, and builds sdists. Nothing of the environment gpujob runs
in changes.

Offline: ``--no-deps``, so their dependencies are not fetched (they must be installed already, as
the trainer's own imports must); with wheels alone also ``--no-index``, so pip asks no index at
all. An sdist is built first, as pip builds one, in an isolated environment into which pip
installs its build backend: pip's index settings apply there, as for ``--package-path`` builds.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from gpujob.errors import BuildFailed
from gpujob.interrupts import run_captured


def install(files: Sequence[Path], target: Path, env: Mapping[str, str]) -> None:
    """Install ``files`` into ``target`` with pip; ``BuildFailed`` (exit 1) when pip fails,
    after what it reported as errors went to stderr."""
    from gpujob.packages.build import build_errors

    wheels_only = all(f.name.endswith(".whl") for f in files)
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input",
               "--disable-pip-version-check", "--no-warn-script-location", "--target",
               str(target), *(["--no-index"] if wheels_only else []),
               *(str(f.resolve()) for f in files)]
    try:
        result = run_captured(command, env)  # Ctrl-C: pip and its build backend stop too
    except OSError as exc:
        raise BuildFailed(f"could not run pip to install --packages: {exc}") from None
    if result.returncode != 0:
        shown = build_errors(result.stdout)
        if shown:
            print("\n".join(shown), file=sys.stderr, flush=True)
        names = ", ".join(f.name for f in files)
        raise BuildFailed(
            f"--packages: pip could not install {names} for the local run (pip install "
            f"--no-deps --target exited {result.returncode}); what it reported is above",
            "their dependencies must be installed already (--no-deps); an sdist's build "
            "backend comes from pip's index (PIP_INDEX_URL / PIP_FIND_LINKS apply)")


def pythonpath(target: Path, env: Mapping[str, str]) -> str:
    """The replicas' PYTHONPATH: ``target`` first, then what it was."""
    given = env.get("PYTHONPATH")
    return os.pathsep.join([str(target), given]) if given else str(target)


@contextlib.contextmanager
def installed(files: Sequence[Path], base: dict[str, str],
              say: Callable[[str], None]) -> Iterator[dict[str, str]]:
    """``base`` with ``files`` installed for the run (none: ``base`` as it is), in a
    temporary directory first on ``PYTHONPATH`` that is removed afterwards."""
    if not files:
        yield base
        return
    with tempfile.TemporaryDirectory(prefix="gpujob-packages-") as target:
        say(f"Installing {', '.join(p.name for p in files)} for this run with pip, "
            f"into {target} (first on the replicas' PYTHONPATH)…")
        install(files, Path(target), base)
        yield {**base, "PYTHONPATH": pythonpath(Path(target), base)}
