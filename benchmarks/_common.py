"""What the benchmark scripts share (not a benchmark: tests/e2e/test_benchmarks.py runs every
other ``*.py`` here)."""

from __future__ import annotations

import compileall
import resource
import subprocess
import sys
from pathlib import Path


def gpujob_command() -> list[str]:
    """The installed console script next to this Python, else ``python -m gpujob``."""
    script = Path(sys.executable).with_name("gpujob")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gpujob"]


def compile_gpujob() -> None:
    """gpujob's modules byte-compiled, so that no measured run pays for writing its .pyc files."""
    import gpujob

    compileall.compile_dir(Path(gpujob.__file__).parent, quiet=1)


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """The CPU seconds (user + system) of ``cmd``, which must exit 0, and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stderr
