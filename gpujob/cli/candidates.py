"""Shell completion from the catalog in use: GPU types, machine types, regions, zones, and the
``count=N,type=T`` values of the accelerator flags.

Each public function is a click ``shell_complete`` callback. They read the catalog of the
--service and --catalog already on the command line (or in GPUJOB_SERVICE, GPUJOB_CATALOG), else
the built-in one, and never fail: a catalog that cannot be read offers nothing (the command says
why when it runs). A TAB imports click, json and gpujob's catalog modules, never a Google library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import click
from click.shell_completion import CompletionItem

# -- what the catalog offers: the few questions completion asks, over either catalog's shape ---


class Accelerator(NamedTuple):
    api_name: str  # NVIDIA_TESLA_T4
    name: str  # T4
    kind: str  # gpu | tpu
    counts: tuple[int, ...]  # the counts it is attached in, on any machine type

    @property
    def gcloud_name(self) -> str:
        return self.api_name.lower().replace("_", "-")


class Offer(NamedTuple):
    accelerators: tuple[Accelerator, ...]
    machine_types: dict[str, str]  # name -> a short description
    regions: dict[str, str]  # name -> the GPUs it offers
    zones: dict[str, str]  # name -> the GPUs it offers
    counts: Callable[[str, str], tuple[int, ...]]  # (machine type, accelerator) -> counts
    # machine types a job config or job flag may name but the catalog does not list: Vertex
    # takes AI Platform's (translated), `gpujob gpus --service vertex --machine-type` refuses them
    translated: frozenset[str] = frozenset()


def _size(vcpus: int | None, memory_gb: float | None, category: str) -> str:
    if vcpus is None or memory_gb is None:
        return category.replace("_", " ")
    return f"{vcpus} vCPUs, {memory_gb:g} GB"


def _ai_platform(cat: Any) -> Offer:
    """What the AI Platform catalog (``gpujob.catalog.Catalog``) offers."""
    accelerators = tuple(Accelerator(g.api_name, g.name, g.kind, g.counts)
                         for g in cat.gpu_types.values() if g.counts)

    def gpus(types: Any) -> str:
        return ", ".join(sorted(cat.short(t) for t in types)) or "no GPUs"

    def counts(machine: str, api_name: str) -> tuple[int, ...]:
        m, acc = cat.machine_types.get(machine), cat.gpu_types.get(api_name)
        if m is not None and m.category == "tpu" and acc is not None and acc.kind == "tpu":
            return tuple(acc.counts)  # cloud_tpu takes a TPU, in the counts the TPU allows
        return tuple(cat.counts(machine, api_name))

    return Offer(
        accelerators,
        {m.name: _size(m.vcpus, m.memory_gb, m.category) for m in cat.machine_types.values()},
        {r: gpus(cat.region_gpus(r)) for r in cat.regions},
        {z: gpus(types) for zones in cat.regions.values() for z, types in zones.items()},
        counts)


def _vertex(cat: Any) -> Offer:
    """What the Vertex AI catalog (``gpujob.services.vertex.catalog.VertexCatalog``) offers: its
    machine types and the AI Platform ones a config may still name (they are translated)."""
    accelerators = tuple(
        Accelerator(a.api_name, a.name, a.kind, tuple(sorted(
            {n for m in cat.machine_types.values() for n in m.accelerators.get(a.api_name, ())})))
        for a in cat.accelerators.values())
    machines = {m.name: m.family for m in cat.machine_types.values()}
    machines.update({name: f"AI Platform, as {legacy.machine_type}"
                     for name, legacy in cat.legacy_machine_types.items()})
    zones = sorted({z for zs in cat.machine_zones.values() for z in zs}
                   | {z for _, zs in cat.gpu_zones.values() for z in zs})
    return Offer(tuple(a for a in accelerators if a.counts), machines,
                 dict.fromkeys(cat.training_regions, "training region"),
                 dict.fromkeys(zones, "zone"), cat.counts, frozenset(cat.legacy_machine_types))


def offer(service: str, path: str | None) -> Offer | None:
    """What the catalog of ``service`` (``path``: a file instead of the built-in one) offers;
    None when it cannot be read."""
    from gpujob.cli.common import load_catalog

    try:
        return from_catalog(load_catalog(service, path))
    except Exception:  # a TAB never shows a traceback: the command reports a bad catalog
        return None


def from_catalog(cat: Any) -> Offer:
    """What a loaded catalog offers: the AI Platform one has gpu_types, the Vertex one
    accelerators."""
    return _ai_platform(cat) if hasattr(cat, "gpu_types") else _vertex(cat)


def _offer(ctx: click.Context) -> Offer | None:
    from gpujob.services import DEFAULT_SERVICE

    return offer(ctx.params.get("service") or DEFAULT_SERVICE, ctx.params.get("catalog"))


# -- the callbacks -------------------------------------------------------------------------


def _items(named: dict[str, str], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(name, help=text) for name, text in named.items()
            if name.startswith(incomplete)]


def gpu(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """GPU types, spelled as the user started: t4, T4, nvidia-tesla-t4 or NVIDIA_TESLA_T4.

    A display name with spaces (``A100 80GB``) is offered as ``a100-80gb``: the shell inserts a
    candidate unquoted, and ``--gpu a100 80gb`` would be two words (--gpu takes either)."""
    found = _offer(ctx)
    if found is None:
        return []
    out = []
    for acc in found.accelerators:
        if acc.kind != "gpu":
            continue
        word = "-".join(acc.name.split())
        spellings = (word.lower(), word, acc.gcloud_name, acc.api_name)
        match = next((s for s in spellings if s.startswith(incomplete)), None)
        if match is not None:
            out.append(CompletionItem(match, help=acc.api_name))
    return out


def machine_type(ctx: click.Context, param: click.Parameter,
                 incomplete: str) -> list[CompletionItem]:
    """The catalog's machine types (`gpujob gpus --machine-type`)."""
    found = _offer(ctx)
    if found is None:
        return []
    return _items({name: text for name, text in found.machine_types.items()
                   if name not in found.translated}, incomplete)


def job_machine_type(ctx: click.Context, param: click.Parameter,
                     incomplete: str) -> list[CompletionItem]:
    """A replica's machine type: the catalog's, and on Vertex also AI Platform's, which a job
    config may name (gpujob translates them)."""
    found = _offer(ctx)
    return _items(found.machine_types, incomplete) if found else []


def region(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    found = _offer(ctx)
    return _items(found.regions, incomplete) if found else []


def zone(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Zones; those of --region when it is given."""
    found = _offer(ctx)
    if found is None:
        return []
    within = ctx.params.get("region")
    return _items({z: text for z, text in found.zones.items()
                   if not within or z.rsplit("-", 1)[0] == within}, incomplete)


def accelerator(ctx: click.Context, param: click.Parameter,
                incomplete: str) -> list[CompletionItem]:
    """``count=N,type=T`` values (or ``type=T,count=N``, as the user started) for the GPUs and
    counts that the replica's machine type takes, when its --*-machine-type is given."""
    found = _offer(ctx)
    if found is None:
        return []
    machine = ctx.params.get((param.name or "").replace("_accelerator", "_machine_type"))
    values: list[tuple[str, str]] = []
    for spelled in ("gcloud_name", "api_name"):  # nvidia-tesla-t4 unless NVIDIA_… was started
        for acc in found.accelerators:
            counts = found.counts(machine, acc.api_name) if machine else acc.counts
            for n in counts:
                name = getattr(acc, spelled)
                values += [(f"count={n},type={name}", f"{n} × {acc.name}"),
                           (f"type={name},count={n}", f"{n} × {acc.name}")]
        matches = [CompletionItem(value, help=text) for value, text in values
                   if value.startswith(incomplete) and (incomplete or value.startswith("count="))]
        if matches:
            return matches
        values = []
    return []


# The job flags that name a region, a machine type or an accelerator, by flag.
JOB_FLAGS: dict[str, Callable[..., list[CompletionItem]]] = {
    "--region": region,
    **{f"--{role}-machine-type": job_machine_type
       for role in ("master", "worker", "parameter-server", "evaluator")},
    **{f"--{role}-accelerator": accelerator
       for role in ("master", "worker", "parameter-server", "evaluator")},
}
