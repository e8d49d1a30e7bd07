"""Run gpujob over a corpus of real configs, each with its sample's own command lines.

A corpus is a folder of cases, one folder each, holding ``config.yaml`` or ``config.json`` (the
config as its author wrote it) and ``source.txt``, whose ``gpujob runs`` section lists the
commands the sample's gcloud line becomes, with ``{config}`` for the config's path and
``{tmp}`` for a scratch folder. This script runs them all and prints one line per command: the
case, the exit code, and the first diagnostic, so a change's effect on real configs is one diff
away::

    python scripts/corpus.py ../shared/corpus/real-configs > before.txt
    python scripts/corpus.py ../shared/corpus/real-configs --only 074 -v

The corpus's files belong to their authors: the script reads them where they are and copies
none into the repository.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

GPUJOB = [sys.executable, "-m", "gpujob"]
FINDING = re.compile(r"^(.+?:\d+:\d+|command line \([^)]*\)): ")


def commands(source: Path) -> list[str]:
    """The command lines under ``gpujob runs`` in a case's ``source.txt``."""
    found: list[str] = []
    inside = False
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith("gpujob runs"):
            inside = True
        elif inside and line.strip().startswith("gpujob "):
            found.append(line.strip())
        elif inside and line.strip() and not line.startswith(" "):
            break
    return found


def run(case: Path, line: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    config = next(p for p in sorted(case.iterdir()) if p.name.startswith("config."))
    text = line.replace("{config}", str(config)).replace("{tmp}", str(tmp))
    argv = shlex.split(text)[1:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUJOB_", "GOOGLE_"))}
    env.update(NO_COLOR="1", HOME=str(tmp))
    return subprocess.run(
        [*GPUJOB, *argv], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def summary(result: subprocess.CompletedProcess[str]) -> str:
    """The first finding (``file:line:col: path: message``), else the first error line."""
    lines = [x for x in (result.stdout + result.stderr).splitlines() if x.strip()]
    findings = [x for x in lines if FINDING.match(x) and ": note:" not in x
                and ": warning:" not in x]
    errors = [x for x in lines if x.startswith(("error", "gpujob: error"))]
    return (findings or errors or [""])[0][:240] if result.returncode else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--only", action="append", default=[], help="case name prefix")
    parser.add_argument("-v", "--verbose", action="store_true", help="print whole outputs")
    args = parser.parse_args()
    codes: Counter[int] = Counter()
    for case in sorted(p for p in args.corpus.iterdir() if (p / "source.txt").is_file()):
        if args.only and not any(case.name.startswith(o) for o in args.only):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            for line in commands(case / "source.txt"):
                result = run(case, line, Path(tmp))
                codes[result.returncode] += 1
                verb = " ".join(shlex.split(line)[1:2])
                print(f"{case.name} {verb:8} exit={result.returncode} {summary(result)}")
                if args.verbose:
                    print(f"  $ {line}\n{result.stdout}{result.stderr}")
    tally = ", ".join(f"{code}: {n}" for code, n in sorted(codes.items()))
    print(f"exit codes: {tally}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
