"""A trainer that shows what each replica of its job sees (docs/local.md), with
either service: ``gpujob local cluster.yaml --module-name show_cluster --service vertex`` (or
``--service ai-platform``).

Every replica writes one line about itself to JOB_DIR/seen/; the primary waits for all of them
and prints them in pool order, so the output reads the same every time. What a service does not
set shows as "(not set)": AI Platform gives its parameter servers and evaluators no RANK, and
sets no CLOUD_ML_JOB_ID or AIP_* directories.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# the pools in the order Vertex AI ranks them, under either service's names
ORDER = ("master", "workerpool0", "worker", "workerpool1", "ps", "workerpool2", "evaluator",
         "workerpool3")
UNSET = "(not set)"


def replicas(spec: dict) -> int:
    """Every replica of the job: those of the cluster, and the evaluators, which AI Platform
    leaves out of it (its trainingInput, CLUSTER_SPEC's job, counts them)."""
    in_cluster = sum(len(hosts) for hosts in spec["cluster"].values())
    job = spec.get("job")
    if "workerpool3" in spec["cluster"] or not isinstance(job, dict):
        return in_cluster
    return in_cluster + int(job.get("evaluatorCount", 0))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    job_dir = Path(parser.parse_known_args()[0].job_dir)  # the others are not this one's
    spec, tf_config = (json.loads(os.environ[name]) for name in ("CLUSTER_SPEC", "TF_CONFIG"))
    task = spec["task"]
    seen = job_dir / "seen"
    seen.mkdir(parents=True, exist_ok=True)
    name = f"{ORDER.index(task['type'])}-{task['index']:04d}"
    tmp = seen / f".{name}"
    tmp.write_text(f"{task['type']}-{task['index']}: TF_CONFIG task "
                   f"{tf_config['task']['type']} {tf_config['task']['index']}, RANK "
                   f"{os.environ.get('RANK', UNSET)} of WORLD_SIZE "
                   f"{os.environ.get('WORLD_SIZE', UNSET)}\n")
    tmp.replace(seen / name)
    if task["type"] not in ("master", "workerpool0"):
        return 0
    everyone = replicas(spec)
    deadline = time.monotonic() + 60
    while len(list(seen.glob("[0-9]*"))) < everyone and time.monotonic() < deadline:
        time.sleep(0.05)
    pools = ", ".join(f"{pool} × {len(hosts)}" for pool, hosts in spec["cluster"].items())
    print(f"CLUSTER_SPEC cluster: {pools}; TF_CONFIG cluster: "
          + ", ".join(f"{kind} × {len(hosts)}" for kind, hosts in tf_config["cluster"].items()))
    for path in sorted(seen.glob("[0-9]*")):
        print(path.read_text(), end="")
    print(f"MASTER_ADDR={os.environ.get('MASTER_ADDR', UNSET)}, CLOUD_ML_JOB_ID="
          f"{os.environ.get('CLOUD_ML_JOB_ID', UNSET)}")
    for variable in ("AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR"):
        print(f"{variable}={os.environ.get(variable, UNSET)}")
    print(f"arguments: {' '.join(sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
