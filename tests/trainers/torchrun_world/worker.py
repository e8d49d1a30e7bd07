"""One process of the world: joins it (gloo), sums its ranks with the others, and writes
JOB_DIR/world/RANK.json (rank, world size, local rank, node rank, the sum)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import torch
import torch.distributed as dist


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    args, _ = parser.parse_known_args()
    dist.init_process_group("gloo")
    total = torch.tensor([dist.get_rank()])
    dist.all_reduce(total)
    out = Path(args.job_dir) / "world"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{dist.get_rank()}.json").write_text(json.dumps({
        "rank": dist.get_rank(), "world_size": dist.get_world_size(),
        "local_rank": int(os.environ["LOCAL_RANK"]), "node_rank": int(os.environ["GROUP_RANK"]),
        "sum": int(total.item())}))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
