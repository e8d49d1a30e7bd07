"""The example trainer's one line about a checkpoint of another model says why, whole: torch's
message ends its first line with a colon ("Error(s) in loading state_dict for MLP:"), the reason
on the line after it. torch's own message, from a real checkpoint of another model, is checked
on the example's run that meets one (test_example_trainer.py::test_a_checkpoint_of_another_
model_is_a_one_line_error); here, the line made of such messages, without starting torch (an
import of it is seconds of CPU): trainer/checkpoints.py loaded with a stand-in for it, which
why_not_loaded does not use."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "examples" / "mlp" / "trainer"
# what torch 2.13's load_state_dict raises (RuntimeError) for MLP(hidden=8)'s into MLP(hidden=16)
TORCHS = ("Error(s) in loading state_dict for MLP:\n\tsize mismatch for fc1.weight: copying a "
          "param with shape torch.Size([8, 784]) from checkpoint, the shape in current model is "
          "torch.Size([16, 784]).\n\tsize mismatch for fc1.bias: copying a param with shape "
          "torch.Size([8]) from checkpoint, the shape in current model is torch.Size([16]).")


@pytest.fixture
def checkpoints(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    spec = importlib.util.spec_from_file_location("mlp_trainer_checkpoints",
                                                  PACKAGE / "checkpoints.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reason_a_checkpoint_did_not_load_is_not_cut_at_its_colon(checkpoints: Any):
    said = checkpoints.why_not_loaded(RuntimeError(TORCHS))
    assert said == ("Error(s) in loading state_dict for MLP: size mismatch for fc1.weight: "
                    "copying a param with shape torch.Size([8, 784]) from checkpoint, the shape "
                    "in current model is torch.Size([16, 784]).")
    assert checkpoints.why_not_loaded(ValueError("")) == "ValueError"
    assert checkpoints.why_not_loaded(ValueError("one line")) == "one line"
