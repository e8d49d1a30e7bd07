"""Compatibility rules over the catalog: what the service would refuse, or what would fail after
minutes in a queue, each reported at the value that causes it with a way to fix it.

Each rule is a small function in a registry (``registry.RULES``) with its id, services,
severity and doc; ``gpujob rules`` lists them. Rules read the job through its typed view and
the facts through the catalog, and stay quiet about a value the schema already refused, so one
mistake gives one message.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from gpujob.catalog import AnyCatalog, Catalog
from gpujob.findings import Finding, JsonPath, Location
from gpujob.job import JobView
from gpujob.rules import (
    accelerators,
    cluster,
    program,
    study,
    submission,
    tpu,
    vertex,
    vertex_scheduling,
    where,
)
from gpujob.rules.context import Checking, Context
from gpujob.rules.registry import RULES, STEPS, Rule, Step, arrange
from gpujob.rules.vertex import Translated, VertexContext

__all__ = ["RULES", "Context", "Rule", "Translated", "check"]

# The order the rules run in, and are listed in: findings at one place in a file come in the
# order they are found.
arrange(cluster, accelerators, tpu, program, study, where, submission, vertex,
        vertex_scheduling)


def check(job: JobView, catalog: AnyCatalog, locate: Callable[..., Location],
          refused: set[JsonPath], *, submit: bool = False, relax_region: bool = False,
          translated: Translated | None = None) -> list[Finding]:
    """All rule findings for one job, in the order the rules found them.

    ``locate(path, key=False)``: where the user wrote a value (``Document.locate``);
    ``refused``: the paths the schema refused; ``submit``: the job is about to be sent, so the
    rules of what the service needs then run too; ``relax_region``: region rules give
    warnings (--no-region-check, local runs). The catalog's service chooses the rules;
    Vertex AI's read the config's ``translated`` form too."""
    if not job.training_input:
        return []
    ctx: Checking
    if isinstance(catalog, Catalog):
        ctx = Context(job, catalog, locate, refused, relax_region=relax_region)
    else:
        assert translated is not None, "Vertex AI's rules read the translation"
        ctx = VertexContext(job, catalog, locate, refused, relax_region=relax_region,
                            translated=translated)
    run(ctx, catalog.service, submit=submit)
    return ctx.findings


@cache
def _plan(service: str, submit: bool) -> tuple[tuple[Step, ...], ...]:
    """The steps that apply, in order, in groups: a job step alone, or a pass's steps."""
    groups: list[list[Step]] = []
    for step in STEPS:
        pass_ = step[2]
        if not step[0].applies(service, submit):
            continue
        if pass_ is not None and groups and groups[-1][0][2] == pass_:
            groups[-1].append(step)
        else:
            groups.append([step])
    return tuple(tuple(group) for group in groups)


def run(ctx: Checking, service: str, *, submit: bool) -> None:
    """Every check that applies, in order; a pass's checks replica by replica, over the replica
    kinds the config mentions (a rule about one it leaves out checks the job)."""
    mentioned = [r for r in ctx.replicas if r.machine or r.count or r.config]
    for group in _plan(service, submit):
        if group[0][2] is None:
            ctx.rule, check, _ = group[0]
            check(ctx)
            continue
        for replica in mentioned:
            for rule, check, _ in group:
                ctx.rule = rule
                check(ctx, replica)
