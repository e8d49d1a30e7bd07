"""What does a Vertex AI submit cost beside gcloud's? Prints ratios against gcloud measured in the
same run (no timed assertion).

Against the fake Google of the tests (tests/fakes/google.py, on 127.0.0.1; every endpoint of
both tools is pointed at it, nothing reaches a public host), each round runs, one after the
other so that machine noise hits all alike:

- the baseline: ``gcloud ai custom-jobs create --config SPEC`` of the same CustomJob (its
  access token cached after the warm-up, as a user's is);
- ``gpujob submit CONFIG --service vertex --no-preflight``;
- ``gpujob submit CONFIG --service vertex`` with the quota preflight (a limit that holds the
  job: the preflight reads the quota and lists the jobs that hold it).

Each is a new process, as a user's is; its CPU time (user + system, ``getrusage`` of the
children) is what is compared: the median over the rounds of each round's ratio. Targets (issue
34): at most 0.3 x gcloud without the preflight, 0.35 x with it, in at most 5 requests with it
(the token, one quota read, the jobs listed, the create).

Without gcloud on PATH it says so and measures gpujob alone (no ratio).
Usage: python benchmarks/submit.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _common import compile_gpujob, gpujob_command, run

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
PROJECT, NUMBER, REGION = "proj-a", "123456789012", "us-central1"
T4 = "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus"
CPUS = "aiplatform.googleapis.com/custom_model_training_cpus"
CONFIG = f"""\
trainingInput:
  scaleTier: CUSTOM
  region: {REGION}
  masterType: n1-highcpu-16
  masterConfig:
    imageUri: gcr.io/p/trainer:1
    acceleratorConfig: {{count: 4, type: NVIDIA_TESLA_T4}}
  args: [--from-file]
"""
SPEC = """\
workerPoolSpecs:
  - machineSpec: {machineType: n1-highcpu-16, acceleratorType: NVIDIA_TESLA_T4,
                  acceleratorCount: 4}
    replicaCount: 1
    containerSpec: {imageUri: gcr.io/p/trainer:1, args: [--from-file]}
"""
TARGETS = {"without the preflight": 0.3, "with the preflight": 0.35}
MOST_REQUESTS = 5
CLOSED = "127.0.0.1:9"  # the discard port: nothing listens (a refused connection, at once)


def fake_endpoints(url: str) -> dict[str, str]:
    """Every API gpujob may call, at ``url``: GPUJOB_<API>_ENDPOINT for each one it knows."""
    from gpujob.gcp.settings import ENDPOINTS

    return {"GPUJOB_API_ENDPOINT": url,
            **{f"GPUJOB_{api.upper()}_ENDPOINT": url for api in ENDPOINTS}}


def gcloud_env(url: str, token_uri: str, key: str, config_dir: Path) -> dict[str, str]:
    """gcloud's properties for the fake: its Vertex AI endpoint, its token host, the key."""
    return {"CLOUDSDK_CONFIG": str(config_dir), "CLOUDSDK_CORE_PROJECT": PROJECT,
            "CLOUDSDK_API_ENDPOINT_OVERRIDES_AIPLATFORM": url,
            "CLOUDSDK_AUTH_TOKEN_HOST": token_uri,
            "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE": key,
            "CLOUDSDK_CORE_DISABLE_USAGE_REPORTING": "1",
            "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "1",
            "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
            "CLOUDSDK_SURVEY_DISABLE_PROMPTS": "1",
            # its "on Compute Engine?" probe: a closed port here, not metadata.google.internal
            **{name: CLOSED for name in ("GCE_METADATA_ROOT", "GCE_METADATA_HOST",
                                         "GCE_METADATA_IP")}}


def cpu(cmd: list[str], env: dict[str, str]) -> float:
    """The CPU seconds (user + system) of ``cmd``, which must exit 0."""
    return run(cmd, env)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    gcloud = shutil.which("gcloud")
    from fakes.google import FakeGoogle
    from fakes.keys import service_account_key

    compile_gpujob()
    with FakeGoogle() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_project(PROJECT, NUMBER)
        fake.quota.set(T4, {REGION: 1000})
        fake.quota.set(CPUS, {}, default=-1)
        key = service_account_key(f"trainer@{PROJECT}.iam.gserviceaccount.com", PROJECT,
                                  fake.token_uri)
        fake.trust(key)
        key_file = key.write(Path(tmp) / "sa.json")
        config, spec = Path(tmp) / "config.yaml", Path(tmp) / "spec.yaml"
        config.write_text(CONFIG, encoding="utf-8")
        spec.write_text(SPEC, encoding="utf-8")
        base_env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("GPUJOB_", "CLOUDSDK_", "GOOGLE_"))}
        ours_env = {**base_env, **fake_endpoints(fake.url),
                    "GOOGLE_APPLICATION_CREDENTIALS": key_file}
        theirs_env = {**base_env, **gcloud_env(fake.url, fake.token_uri, key_file,
                                               Path(tmp) / "gcloud")}
        cases = {
            "gcloud": ([gcloud or "gcloud", "ai", "custom-jobs", "create", f"--region={REGION}",
                        "--display-name=j1", f"--config={spec}", "--quiet"], theirs_env),
            "without the preflight": ([*gpujob_command(), "submit", str(config), "--service",
                                       "vertex", "--no-preflight"], ours_env),
            "with the preflight": ([*gpujob_command(), "submit", str(config), "--service",
                                    "vertex"], ours_env),
        }
        if gcloud is None:
            del cases["gcloud"]
        if args.runs > 1:  # warm the page cache, .pyc files, gcloud's token
            for cmd, env in cases.values():
                cpu(cmd, env)
        fake.requests.clear()
        cpu(*cases["with the preflight"])
        routes = [r.route for r in fake.requests]
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (cmd, env) in cases.items():
                times[name].append(cpu(cmd, env))
    base = times.get("gcloud")
    if base is None:
        print("gcloud is not on PATH: no baseline, no ratio")
    else:
        print(f"gcloud ai custom-jobs create: {statistics.median(base) * 1000:.0f} ms of CPU "
              f"(median of {args.runs}): the baseline")
    for name, target in TARGETS.items():
        if base is None:
            print(f"gpujob submit {name}: {statistics.median(times[name]) * 1000:.0f} ms of CPU")
            continue
        ratio = statistics.median(o / b for o, b in zip(times[name], base, strict=True))
        print(f"gpujob submit {name}: {statistics.median(times[name]) * 1000:.0f} ms of CPU, "
              f"ratio {ratio:.2f} to gcloud (target <= {target}) "
              f"{'OK' if ratio <= target else 'MISSED'}")
    print(f"requests of a submit with the preflight: {len(routes)} ({', '.join(routes)}); "
          f"target <= {MOST_REQUESTS} {'OK' if len(routes) <= MOST_REQUESTS else 'MISSED'}")


if __name__ == "__main__":
    main()
