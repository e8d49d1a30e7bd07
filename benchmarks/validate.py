"""How fast is ``gpujob validate``? Prints ratios against a baseline measured in the same run.

1. Start-up: the CPU time (user + system) of ``gpujob validate CONFIG`` against that of
   ``python -c "import yaml, click"`` (the two libraries validate cannot do without), run in
   pairs, the median of each pair's ratio; and how many modules each imports. Target: at most
   1.5 (issue 34; on the way to 1.3). CPU time, not wall time: on a shared machine the wait for a
   core is not the command's.
2. Throughput: files per second for 1,000 configs checked in one call (start-up included).
   Target: at least 1,000 files/s.

Both check for gpujob's default service (Vertex AI), or for ``--service NAME``. A config may be
invalid for the service (for Vertex AI, the examples' runtimeVersion has no image left): exit 1
is a config checked, like exit 0; anything else stops the benchmark.

Runs alternate between the command and its baseline so that machine noise hits both alike.
gpujob's modules are byte-compiled first, as ``pip install`` does (and as the baseline's
libraries are): from a source checkout under PYTHONDONTWRITEBYTECODE=1 every run would otherwise
recompile them.
Usage: python benchmarks/validate.py [--runs N] [--service NAME]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compile_gpujob, gpujob_command

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "t4-compute-engine.yaml"
START_TARGET = 1.5
BASELINE = "import yaml, click"
RATE_TARGET = 1000


def wall(cmd: list[str], expect: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    elapsed = time.perf_counter() - start
    if code not in expect:
        sys.exit(f"{' '.join(cmd)} exited {code}, expected {' or '.join(map(str, expect))}")
    return elapsed


CHECKED = (0, 1)  # validate's codes for configs checked: valid, or not


def validate(service: list[str], *paths: str) -> list[str]:
    return [*gpujob_command(), "validate", *service, *paths]


def cpu(cmd: list[str], expect: tuple[int, ...] = (0,)) -> float:
    """The CPU seconds (user + system) ``cmd`` took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall(cmd, expect)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def modules(cmd: list[str]) -> int:
    """How many modules ``cmd`` (run by this Python) imports: ``-X importtime``'s lines."""
    script = cmd if cmd[0] == sys.executable else [sys.executable, *cmd]
    found = subprocess.run([script[0], "-X", "importtime", *script[1:]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return sum(line.startswith("import time:") for line in found.stderr.splitlines()) - 1


def startup(runs: int, service: list[str]) -> None:
    baseline = [sys.executable, "-c", BASELINE]
    command = validate(service, str(CONFIG))
    for _ in range(min(3, runs)):  # warm the page cache and .pyc files
        cpu(baseline)
        cpu(command, CHECKED)
    base, ours = [], []
    for _ in range(runs):
        base.append(cpu(baseline))
        ours.append(cpu(command, CHECKED))
    ratio = statistics.median(o / b for o, b in zip(ours, base, strict=True))
    module = [sys.executable, "-m", "gpujob", *command[len(gpujob_command()):]]
    print(f"start-up: gpujob validate {statistics.median(ours) * 1000:.1f} ms of CPU, "
          f"python -c {BASELINE!r} {statistics.median(base) * 1000:.1f} ms (medians of "
          f"{runs}): ratio {ratio:.2f} (target <= {START_TARGET}) "
          f"{'OK' if ratio <= START_TARGET else 'MISSED'}; modules imported: "
          f"{modules(module) - 1} against {modules(baseline)}")


def throughput(files: int, runs: int, service: list[str]) -> None:
    sources = sorted((ROOT / "configs").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(files):
            shutil.copy(sources[i % len(sources)], Path(tmp) / f"config{i:05d}.yaml")
        command = validate(service, tmp)
        wall(command, CHECKED)
        times = [wall(command, CHECKED) for _ in range(runs)]
    t = statistics.median(times)
    rate = files / t
    print(f"throughput: {files} files in {t:.2f} s (median of {runs}): {rate:,.0f} files/s, "
          f"{rate / RATE_TARGET:.2f} x the target of {RATE_TARGET:,}/s "
          f"{'OK' if rate >= RATE_TARGET else 'MISSED'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--service", help="the service to check for (default: gpujob's)")
    parser.add_argument("--files", type=int, default=1000, help="for the throughput (1000)")
    args = parser.parse_args()
    from gpujob.services import DEFAULT_SERVICE

    compile_gpujob()
    service = ["--service", args.service] if args.service else []
    print(f"service: {args.service or DEFAULT_SERVICE}")
    startup(args.runs, service)
    throughput(args.files, max(1, args.runs // 4), service)


if __name__ == "__main__":
    main()
