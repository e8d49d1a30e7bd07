"""Generated 28×28 digit images: nothing to download, the same on every replica.

Each image is one of ten 5×7 glyphs, drawn three times larger at a random place, with random
brightness and noise; the label is the digit. Every process generates the whole set from the same
seed on the CPU (so the images are the same whatever the device) and trains on its own share of
it (``DistributedSampler``); on a GPU the set is then copied there once (``trainer.loop``).
"""

from __future__ import annotations

import torch

SIZE = 28
_SCALE = 3
_GLYPHS = [
    ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],  # 0
    ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],  # 1
    ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],  # 2
    ["11110", "00001", "00001", "01110", "00001", "00001", "11110"],  # 3
    ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],  # 4
    ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],  # 5
    ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],  # 6
    ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],  # 7
    ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],  # 8
    ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],  # 9
]


def _glyphs() -> torch.Tensor:
    """The ten digits as [10, 21, 15] images of 0 and 1."""
    small = torch.tensor([[[int(c) for c in row] for row in g] for g in _GLYPHS],
                         dtype=torch.float32)
    return small.repeat_interleave(_SCALE, dim=1).repeat_interleave(_SCALE, dim=2)


def digits(count: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``count`` images [count, 1, 28, 28] in [0, 1] and their labels [count]."""
    generator = torch.Generator().manual_seed(seed)
    glyphs = _glyphs()
    height, width = glyphs.shape[1:]
    labels = torch.randint(10, (count,), generator=generator)
    rows = torch.randint(SIZE - height + 1, (count,), generator=generator)
    cols = torch.randint(SIZE - width + 1, (count,), generator=generator)
    brightness = 0.5 + 0.5 * torch.rand(count, generator=generator)
    images = torch.zeros(count, SIZE, SIZE)
    every = torch.arange(count)[:, None, None]
    at_rows = (rows[:, None] + torch.arange(height))[:, :, None]
    at_cols = (cols[:, None] + torch.arange(width))[:, None, :]
    images[every, at_rows, at_cols] = glyphs[labels] * brightness[:, None, None]
    images += 0.3 * torch.randn(count, SIZE, SIZE, generator=generator)
    return images.clamp_(0, 1).unsqueeze(1), labels
