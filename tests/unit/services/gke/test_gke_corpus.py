"""The real configs of the shared corpus (``../shared/corpus/real-configs``, beside the checkout;
each case's ``source.txt`` lists its command lines, as ``scripts/corpus.py`` runs them) dry-run
for GKE: the sample's own ``gpujob submit`` line with ``--service gke`` and without the flags a
GKE job has no use for (``--project``, ``--display-name``, ``--staging-bucket``, ``--packages``,
``--async``). Every config GKE accepts keeps every variable its worker pools set and its Spot
strategy. The corpus's files belong to their authors: they are read where they are."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import crd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[4]
CORPUS = crd.SHARED / "corpus" / "real-configs"
DROPPED = {"--project": 1, "--display-name": 1, "--staging-bucket": 1, "--packages": 1,
           "--async": 0}
RJOBS = ("master", "worker", "ps", "evaluator")  # by worker pool


def gke_argv(line: str, config: Path) -> list[str] | None:
    """The case's submit line for GKE (None: the line is no submit)."""
    argv = shlex.split(line.replace("{config}", str(config)))[1:]
    if not argv or argv[0] != "submit":
        return None
    out, i = [], 0
    end = argv.index("--") if "--" in argv else len(argv)
    while i < len(argv):
        flag = argv[i].split("=")[0]
        if i < end and flag in DROPPED:
            i += 1 + (DROPPED[flag] if "=" not in argv[i] else 0)
        elif i < end and flag == "--service":
            out += ["--service", "gke"]
            i += 1 if "=" in argv[i] else 2
        else:
            out.append(argv[i])
            i += 1
    return out


def cases() -> list[tuple[Path, list[str]]]:
    if not CORPUS.is_dir():
        return []
    sys.path.insert(0, str(ROOT / "scripts"))
    from corpus import commands

    found = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "source.txt").is_file()):
        config = next(p for p in sorted(case.iterdir()) if p.name.startswith("config."))
        lines = [a for line in commands(case / "source.txt") if (a := gke_argv(line, config))]
        if lines:
            found.append((config, lines[0]))
    return found


def pools(data: Any) -> list[Any]:
    spec = data.get("jobSpec", data) if isinstance(data, dict) else {}
    given = spec.get("workerPoolSpecs") if isinstance(spec, dict) else None
    return [given] if isinstance(given, dict) else given if isinstance(given, list) else []


def spot(data: Any, argv: list[str]) -> bool:
    spec = data.get("jobSpec", data) if isinstance(data, dict) else {}
    strategy = ((spec.get("scheduling") or {}) if isinstance(spec, dict) else {}).get("strategy")
    flags = [a.split("=", 1)[-1] for a in argv if a.startswith("--strategy")]
    return str(strategy).upper() == "SPOT" or any(f.upper() == "SPOT" for f in flags) or \
        any(argv[i + 1].upper() == "SPOT" for i, a in enumerate(argv[:-1]) if a == "--strategy")


@pytest.mark.slow
def test_every_real_config_gke_accepts_keeps_its_variables_and_spot(cli):
    found = cases()
    if not found:
        pytest.skip(f"the corpus is not at {CORPUS}")
    accepted, with_env, spots = 0, 0, 0
    for config, argv in found:
        result = cli(*argv, "--dry-run") if "--dry-run" not in argv else cli(*argv)
        if result.code != 0:
            continue
        accepted += 1
        body = yaml.safe_load(result.out)
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
        rjobs = {r["name"]: r["template"]["spec"]["template"]["spec"]
                 for r in body["spec"]["replicatedJobs"]}
        for i, pool in enumerate(pools(data)[:4]):
            code = (pool.get("containerSpec") or pool.get("pythonPackageSpec") or {}) \
                if isinstance(pool, dict) else {}
            wanted = {e["name"]: str(e.get("value", "")) for e in code.get("env") or []}
            if not wanted or RJOBS[i] not in rjobs:
                continue
            with_env += 1
            env = {e["name"]: e.get("value") for e in rjobs[RJOBS[i]]["containers"][0]["env"]}
            assert {k: env.get(k) for k in wanted} == wanted, config
        if spot(data, argv):
            spots += 1
            for pod in rjobs.values():
                assert pod["nodeSelector"]["cloud.google.com/gke-spot"] == "true", config
            assert body["spec"]["failurePolicy"]["rules"][0]["action"] == \
                "RestartJobSetAndIgnoreMaxRestarts", config
    assert accepted >= 25
    assert with_env >= 5 and spots >= 2  # the corpus's env and Spot samples were seen
