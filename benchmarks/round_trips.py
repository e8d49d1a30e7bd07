"""How many round trips and imports does gpujob make? Prints counts, and ratios against a baseline
measured in the same run (no timed assertion).

1. Requests per submit: ``gpujob submit`` of a custom-container job (nothing to upload) against
   the fake Google of the tests (tests/fakes/google.py, on 127.0.0.1; every endpoint gpujob
   knows points at it, so nothing reaches a public host), for Vertex AI, a native Vertex AI
   config, and AI Platform: the requests the fake received, the token included. Target: a token
   and a create; with Vertex AI's quota preflight, at most 5 (one quota read, the region's jobs
   listed, custom and tuning).
2. Discovery parses per run: how many times that submit parsed a bundled discovery document
   (``json.loads`` of one, by gpujob or by googleapiclient for it), and the milliseconds they
   took. Target: once per API.
3. Start-up: the median wall time of ``gpujob --help`` and of a TAB on a command name
   (``_GPUJOB_COMPLETE=bash_complete``, ``gpujob ``), each divided by that of
   ``gpujob --version``, run alternately so that machine noise hits all alike, and how many
   modules each imports beyond ``--version``'s (``-X importtime``). Target: near 1, and no
   command module.

Each submit runs in a new Python, as a user's does (the parses are cached per process).
Usage: python benchmarks/round_trips.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import compile_gpujob, gpujob_command

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
PROJECT, NUMBER = "proj-a", "123456789012"
SUBMITS = {  # name -> (config kind, submit's arguments after the config, most requests)
    "vertex": ("container", ["--service", "vertex", "--job-id", "j1", "--no-preflight"], 2),
    "vertex, quota preflight": ("container", ["--service", "vertex", "--job-id", "j1"], 5),
    "vertex, native config": ("native", ["--service", "vertex", "--region", "us-central1",
                                         "--display-name", "j1", "--no-preflight"], 2),
    "ai-platform": ("container", ["--service", "ai-platform", "--job-id", "j1"], 2),
}
QUOTAS = {"aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus": 1000,
          "aiplatform.googleapis.com/custom_model_training_cpus": -1}  # -1: unlimited


# -- 1 and 2: one submit against the fake, in this (child) process ------------------------------


def one_submit(name: str) -> dict[str, Any]:
    """Run the submit ``name`` against the fake; the routes it called, the discovery documents
    parsed and the time spent parsing them."""
    sys.path[:0] = [str(TESTS), str(TESTS / "helpers")]  # fakes/, and the helpers' jobs
    from fakes.google import FakeGoogle
    from fakes.keys import service_account_key
    from jobs import CONTAINER_JOB, NATIVE_JOB

    parsed: list[str] = []
    spent = [0.0]
    loads = json.loads

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        value = loads(text, *args, **kwargs)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if (caller.startswith(("gpujob", "googleapiclient")) and isinstance(value, dict)
                and "discoveryVersion" in value):
            parsed.append(str(value.get("name")))
            spent[0] += time.perf_counter() - start
        return value

    from gpujob.gcp.settings import ENDPOINTS

    kind, args, _ = SUBMITS[name]
    with FakeGoogle() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_project(PROJECT, NUMBER)
        for metric, limit in QUOTAS.items():
            fake.quota.set(metric, {}, default=limit)
        key = service_account_key(f"trainer@{PROJECT}.iam.gserviceaccount.com", PROJECT,
                                  fake.token_uri)
        fake.trust(key)
        os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = key.write(Path(tmp) / "sa.json")
        for api in ("API", *ENDPOINTS):  # every API gpujob knows, and the service's own
            os.environ[f"GPUJOB_{api.upper()}_ENDPOINT"] = fake.url
        config = Path(tmp) / "config.yaml"
        config.write_text(CONTAINER_JOB if kind == "container" else NATIVE_JOB, encoding="utf-8")
        json.loads = counting  # type: ignore[assignment]  # the standard library's, counted
        from gpujob.cli import main

        with open(os.devnull, "w") as sink:
            saved = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = sink
            try:
                code = main(["submit", str(config), *args])
            finally:
                sys.stdout, sys.stderr = saved
                json.loads = loads
        return {"code": code, "routes": [r.route for r in fake.requests],
                "parsed": parsed, "ms": spent[0] * 1000}


def submits() -> None:
    for name in SUBMITS:
        out = subprocess.run([sys.executable, __file__, "--one-submit", name],
                             capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            sys.exit(f"submit ({name}) failed:\n{out.stderr}")
        found = json.loads(out.stdout)
        if found["code"] != 0:
            sys.exit(f"submit ({name}) exited {found['code']}")
        routes, parsed = found["routes"], found["parsed"]
        apis = sorted(set(parsed))
        most = SUBMITS[name][2]
        print(f"submit ({name}): {len(routes)} requests ({', '.join(routes)}); target {most} "
              f"{'OK' if len(routes) <= most else 'MISSED'}")
        print(f"  discovery parses: {len(parsed)} for {len(apis)} API{'s' * (len(apis) != 1)} "
              f"({', '.join(f'{api} x{parsed.count(api)}' for api in apis)}), "
              f"{found['ms']:.0f} ms; target once per API "
              f"{'OK' if len(parsed) == len(apis) else 'MISSED'}")


# -- 3: start-up ----------------------------------------------------------------------------------


def wall(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, **(env or {})}).returncode
    elapsed = time.perf_counter() - start
    if code != 0:
        sys.exit(f"{' '.join(cmd)} exited {code}")
    return elapsed


def modules(cmd: list[str], env: dict[str, str] | None = None) -> int:
    """How many modules ``cmd`` (gpujob's, run by this Python) imports: ``-X importtime``'s
    lines."""
    script = cmd if cmd[0] == sys.executable else [sys.executable, *cmd]
    found = subprocess.run([script[0], "-X", "importtime", *script[1:]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, **(env or {})})
    return sum(line.startswith("import time:") for line in found.stderr.splitlines()) - 1


def startup(runs: int) -> None:
    gpujob = gpujob_command()
    tab = {"_GPUJOB_COMPLETE": "bash_complete", "COMP_WORDS": "gpujob ", "COMP_CWORD": "1"}
    cases = {"--version": ([*gpujob, "--version"], None),
             "--help": ([*gpujob, "--help"], None),
             "TAB on a command name": (gpujob, tab)}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(min(3, runs)):  # warm the page cache and .pyc files
        for cmd, env in cases.values():
            wall(cmd, env)
    for _ in range(runs):
        for name, (cmd, env) in cases.items():
            times[name].append(wall(cmd, env))
    base = statistics.median(times["--version"])
    count = modules(*cases["--version"])
    print(f"start-up: gpujob --version {base * 1000:.1f} ms (median of {runs}), {count} "
          "modules imported: the baseline")
    for name in ("--help", "TAB on a command name"):
        median = statistics.median(times[name])
        more = modules(*cases[name]) - count
        print(f"  {name}: {median * 1000:.1f} ms, ratio {median / base:.2f} to --version; "
              f"{more} modules more")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--one-submit", help=argparse.SUPPRESS)
    parser.add_argument("--submits-only", action="store_true",
                        help="count the submits' requests and parses, not the start-up")
    args = parser.parse_args()
    if args.one_submit:
        print(json.dumps(one_submit(args.one_submit)))
        return
    compile_gpujob()
    submits()
    if not args.submits_only:
        startup(args.runs)


if __name__ == "__main__":
    main()
