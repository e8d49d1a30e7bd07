"""A trainer that shows what each replica of its job sees (README, "Run it here first").

Every replica writes one line about itself to JOB_DIR/seen/; the primary (rank 0) waits for all
of them and prints them in rank order, so the output reads the same every time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    job_dir = Path(parser.parse_known_args()[0].job_dir)  # the others are not this one's
    spec, tf_config = (json.loads(os.environ[name]) for name in ("CLUSTER_SPEC", "TF_CONFIG"))
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    seen = job_dir / "seen"
    seen.mkdir(parents=True, exist_ok=True)
    tmp = seen / f".{rank}"
    tmp.write_text(f"{spec['task']['type']}-{spec['task']['index']}: TF_CONFIG task "
                   f"{tf_config['task']['type']} {tf_config['task']['index']}, RANK {rank} "
                   f"of WORLD_SIZE {world}\n")
    tmp.replace(seen / f"{rank:04d}")
    if rank != 0:
        return 0
    deadline = time.monotonic() + 60
    while len(list(seen.glob("[0-9]*"))) < world and time.monotonic() < deadline:
        time.sleep(0.05)
    pools = ", ".join(f"{pool} × {len(hosts)}" for pool, hosts in spec["cluster"].items())
    print(f"CLUSTER_SPEC cluster: {pools}; TF_CONFIG cluster: "
          + ", ".join(f"{kind} × {len(hosts)}" for kind, hosts in tf_config["cluster"].items()))
    for path in sorted(seen.glob("[0-9]*")):
        print(path.read_text(), end="")
    print(f"MASTER_ADDR={os.environ['MASTER_ADDR']}, CLOUD_ML_JOB_ID="
          f"{os.environ['CLOUD_ML_JOB_ID']}")
    for name in ("AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR"):
        print(f"{name}={os.environ[name]}")
    print(f"arguments: {' '.join(sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
