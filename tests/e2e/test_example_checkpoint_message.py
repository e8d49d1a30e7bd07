"""The example trainer's one line about a checkpoint of another model says why, whole: torch's
message ends its first line with a colon ("Error(s) in loading state_dict for MLP:")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "examples" / "mlp" / "trainer"

SCRIPT = """
import torch
from trainer import checkpoints
from trainer.model import MLP
small, big = MLP(hidden=8), MLP(hidden=16)
try:
    big.load_state_dict(small.state_dict())
except Exception as exc:
    print(checkpoints.why_not_loaded(exc))
print(checkpoints.why_not_loaded(ValueError("")))
print(checkpoints.why_not_loaded(ValueError("one line")))
"""


def test_the_reason_a_checkpoint_did_not_load_is_not_cut_at_its_colon():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=PACKAGE.parent, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said, empty, plain = done.stdout.splitlines()
    assert said.startswith("Error(s) in loading state_dict for MLP: size mismatch for ")
    assert not said.endswith(":")
    assert (empty, plain) == ("ValueError", "one line")
