"""``torchrun -m trainer.task ARGS`` with no flags of its own, as a user's command would run it:
torchrun takes its nodes, node rank, master and processes per node from PET_*."""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    os.execv(sys.executable, [sys.executable, "-m", "torch.distributed.run", "-m",
                              "trainer.task", *sys.argv[1:]])
