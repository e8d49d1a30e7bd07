"""Each replica runs ``torchrun -m torchrun_world.worker`` with no flags of its own, as a user's
``torchrun train.py`` would: its nodes, rank, master and processes per node come from PET_*."""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    argv = [sys.executable, "-m", "torch.distributed.run", "-m", "torchrun_world.worker",
            *sys.argv[1:]]
    os.execv(sys.executable, argv)
