"""Shell completion from the catalog in use: GPU types, machine types, regions, zones, and the
``count=N,type=T`` values of the accelerator flags.

Each public function is a click ``shell_complete`` callback. They read the catalog of the
--service and --catalog already on the command line (or in GPUJOB_SERVICE, GPUJOB_CATALOG), else
the built-in one, and never fail: a catalog that cannot be read offers nothing (the command says
why when it runs). A TAB imports click, json and gpujob's catalog modules, never a Google library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

    from gpujob.catalog.offer import Offer

def offer(service: str, path: str | None) -> Offer | None:
    """What the catalog of ``service`` (``path``: a file instead of the built-in one) offers;
    None when it cannot be read."""
    from gpujob import catalog, services

    try:  # not CheckOptions.loaded: a TAB says nothing, not even that the catalog is old
        return services.get(service).completions(catalog.load(service, path))
    except Exception:  # a TAB never shows a traceback: the command reports a bad catalog
        return None


def _offer(ctx: click.Context) -> Offer | None:
    from gpujob.services import DEFAULT_SERVICE

    return offer(ctx.params.get("service") or DEFAULT_SERVICE, ctx.params.get("catalog"))


# -- the callbacks -------------------------------------------------------------------------


def _completions(pairs: Iterable[tuple[str, str]]) -> list[CompletionItem]:
    """(value, help) pairs as click's completion items."""
    from click.shell_completion import CompletionItem  # a TAB's: the commands' start-up skips it

    return [CompletionItem(value, help=text) for value, text in pairs]


def _items(named: dict[str, str], incomplete: str) -> list[CompletionItem]:
    return _completions((name, text) for name, text in named.items()
                        if name.startswith(incomplete))


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
            out.append((match, acc.api_name))
    return _completions(out)


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
        matches = _completions((value, text) for value, text in values if value.startswith(
            incomplete) and (incomplete or value.startswith("count=")))
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
