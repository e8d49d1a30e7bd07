"""The classifier: a two-layer perceptron over the 784 pixels, as in the tutorial."""

from __future__ import annotations

import torch
from torch import nn

from trainer.data import SIZE


class MLP(nn.Module):
    def __init__(self, hidden: int = 128, classes: int = 10) -> None:
        super().__init__()
        self.fc1 = nn.Linear(SIZE * SIZE, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.view(-1, SIZE * SIZE)
        return self.fc2(torch.relu(self.fc1(x)))
