"""Compatibility rules over the catalog: what the service would refuse, or what would fail after
minutes in a queue, each reported at the value that causes it with a way to fix it.

Each rule is a small function in a registry (``registry.RULES``) with its id, services,
severity and doc; ``gpujob rules`` lists them. Rules read the job through its typed view and
the facts through the catalog, and stay quiet about a value the schema already refused, so one
mistake gives one message.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from gpujob.catalog import Catalog
from gpujob.findings import Finding, JsonPath, Location
from gpujob.job import JobView
from gpujob.rules.context import Context
from gpujob.rules.registry import RULES, Rule, run

__all__ = ["RULES", "Context", "Rule", "check"]

# The modules that register rules, in the order their rules run (the order of findings at one
# place in a file is the order they are found in).
RULE_MODULES = ("cluster", "accelerators", "tpu", "program", "where", "submission")
for _module in RULE_MODULES:
    importlib.import_module(f"{__name__}.{_module}")


def check(job: JobView, catalog: Catalog, locate: Callable[..., Location],
          refused: set[JsonPath], *, submit: bool = False,
          relax_region: bool = False) -> list[Finding]:
    """All rule findings for one job, in the order the rules found them.

    ``locate(path, key=False)``: where the user wrote a value (``Document.locate``);
    ``refused``: the paths the schema refused; ``submit``: the job is about to be sent, so the
    rules of what the service needs then run too; ``relax_region``: region rules give
    warnings (--no-region-check, local runs). The catalog's service chooses the rules."""
    if not job.training_input:
        return []
    ctx = Context(job, catalog, locate, refused, relax_region=relax_region)
    run(ctx, catalog.service, submit=submit)
    return ctx.findings
