"""Which Vertex AI quota metric a pool's accelerators draw on, from the ``quota`` section of the
Vertex catalog (data, with its sources): GPUs and TPUs by accelerator type (``gpus``), a TPU
machine type's chips (``ct5lp-hightpu-4t``: 4) by its TPU kind (``tpus``); on demand, or the
preemptible metric for Spot and flex-start. An accelerator with no metric known is not passed
over in silence: ``Draw.why`` says why it is not checked (``unchecked``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

_CHIPS = re.compile(r"-(\d+)t$")


class Draw(NamedTuple):
    """What one replica of a pool draws on: ``count`` of ``what`` against ``metric`` (None: no
    metric known, and ``why``)."""

    key: str  # the accelerator type (NVIDIA_B200, TPU_V3) or the TPU kind (v5e)
    count: int  # type: ignore[assignment]  # the field hides tuple.count
    what: str  # "NVIDIA_B200 GPUs", "TPU v5e chips"
    metric: str | None
    why: str = ""


def draw(data: Mapping[str, Any], accelerator: str, count: int, tpu: str | None,
         machine_type: str, preemptible: bool) -> Draw | None:
    """The accelerators of one replica (``count`` of ``accelerator``, or the chips of a TPU
    machine type of kind ``tpu``) and their metric; None: it has none."""
    if accelerator and count > 0:
        kind = "TPUs" if accelerator.startswith("TPU_") else "GPUs"
        return _draw(data, "gpus", accelerator, count, f"{accelerator} {kind}", preemptible)
    chips = _CHIPS.search(machine_type) if tpu else None
    if tpu and chips:
        return _draw(data, "tpus", tpu, int(chips.group(1)), f"TPU {tpu} chips", preemptible)
    return None


def _draw(data: Mapping[str, Any], section: str, key: str, count: int, what: str,
          preemptible: bool) -> Draw:
    entry = (data.get(section) or {}).get(key)
    if entry is None:
        why = (data.get("unchecked") or {}).get(key) or "gpujob knows no quota metric for it"
        return Draw(key, count, what, None, why)
    metric = entry.get("preemptible") if preemptible else entry.get("on_demand")
    if metric is None:
        return Draw(key, count, what, None,
                    "gpujob knows no preemptible metric for them, which Spot and flex-start "
                    f"jobs draw on (only the on-demand {entry.get('on_demand')})")
    return Draw(key, count, what, metric)


def unchecked_line(d: Draw) -> str:
    """``NVIDIA_GB200 GPUs: gpujob does not check their quota: no … is published``"""
    return f"{d.what}: gpujob does not check their quota: {d.why}"
