"""``gpujob gpus --service gke``: the GPUs GKE names (with their node label) and the Compute
Engine machine types that take them, in which counts; and what shell completion offers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gpujob.catalog.offer import Accelerator, Offer
from gpujob.console import CONSOLE
from gpujob.errors import UsageError

if TYPE_CHECKING:
    from gpujob.services.gke.catalog import GkeCatalog
    from gpujob.settings import GpusSettings


def rows(cat: GkeCatalog, gpu: str | None, machine: str | None,
         count: int | None) -> list[dict[str, object]]:
    """One row per machine type × GPU that passes the filters."""
    wanted = None
    if gpu is not None:
        found = cat.find_gpu(gpu)
        if found is None:
            raise UsageError(f"--gpu {gpu}: not a GPU GKE names",
                             f"GPUs: {', '.join(g.name for g in cat.gpus.values())}")
        wanted = found.api_name
    out: list[dict[str, object]] = []
    for m in cat.machine_types.values():
        if machine is not None and m.name != machine:
            continue
        for kind, counts in m.gpus.items():
            if (wanted and kind != wanted) or (count is not None and count not in counts):
                continue
            g = cat.gpus[kind]
            out.append({"gpu": g.name, "accelerator": kind, "label": g.label,
                        "machineType": m.name, "counts": list(counts), "builtIn": m.built_in})
    return out


def run(settings: GpusSettings) -> int:
    """Print the offerings (a table, or JSON); exit 1 when none passes the filters."""
    from gpujob.services.offerings import without_advice

    without_advice("GKE", settings.availability,
                   "gpujob preflight CONFIG --service gke --availability asks it for the "
                   "cluster's own VMs (its project and location, the job's machines and "
                   "count); --service vertex shows it beside Vertex AI's prices")
    if settings.sort is not None:
        from gpujob.services.offerings import without_prices

        without_prices("GKE", None, settings.sort)
    if settings.region is not None or settings.zone is not None:
        raise UsageError("--region and --zone do not apply to --service gke",
                         "a GKE job runs where its cluster's node pools are")
    cat: GkeCatalog = settings.check.catalog
    found = rows(cat, settings.gpu, settings.machine_type, settings.count)
    if settings.output_format == "json":
        CONSOLE.line(json.dumps({"service": "gke", "offerings": found}, indent=2))
    elif found:
        head = ("GPU", "NODE LABEL (cloud.google.com/gke-accelerator)", "MACHINE TYPE", "COUNTS")
        table = [head] + [(str(r["gpu"]), str(r["label"]), str(r["machineType"]),
                           ",".join(map(str, r["counts"])))  # type: ignore[call-overload]
                          for r in found]
        widths = [max(len(row[i]) for row in table) for i in range(3)]
        for row in table:
            CONSOLE.line("  ".join(c.ljust(w) for c, w in zip(row[:3], widths, strict=True))
                         + "  " + row[3])
    if not found:
        CONSOLE.err("no machine type and GPU match the filters")
        return 1
    return 0


def completions(cat: GkeCatalog) -> Offer:
    accelerators = tuple(
        Accelerator(g.api_name, g.name, "gpu", tuple(sorted({c for m in cat.machine_types.values()
                                                             for c in m.gpus.get(g.api_name, ())})))
        for g in cat.gpus.values())

    def counts(machine: str, api_name: str) -> tuple[int, ...]:
        m = cat.machine_types.get(machine)
        return m.gpus.get(api_name, ()) if m else ()

    return Offer(accelerators,
                 {m.name: ", ".join(f"{cat.short(g)}" for g in m.gpus) or "no GPUs"
                  for m in cat.machine_types.values()}, {}, {}, counts)
