"""Compatibility rules over the catalog: what the service would refuse, or what would fail after
minutes in a queue, each reported at the value that causes it with a way to fix it.

Each rule is a small function in a registry (``registry.RULES``) with its id, services,
severity and doc; ``gpujob rules`` lists them. Rules read the job through its typed view and
the facts through the catalog, and stay quiet about a value the schema already refused, so one
mistake gives one message.
"""

from __future__ import annotations

from functools import cache

from gpujob.checks.context import Checking
from gpujob.checks.registry import RULES, STEPS, Rule, Step
from gpujob.findings import Finding

__all__ = ["RULES", "Rule", "run", "service_rules"]


def service_rules(service: str) -> list[Rule]:
    """The rules of ``service``, in the order they run (its rule modules are imported: the
    service's ``rules`` package)."""
    return [r for r in RULES.values() if service in r.services]


@cache
def _plan(service: str, submit: bool, registered: int) -> tuple[tuple[Step, ...], ...]:
    """The steps that apply, in order, in groups: a job step alone, or a pass's steps
    (``registered``: how many steps there are, for a later service's import adds more)."""
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


def run(ctx: Checking, service: str, *, submit: bool) -> list[Finding]:
    """Every check of ``service`` (its rule modules imported) that applies, in order, and the
    findings of them all (``submit``: the job is about to be sent, so the rules of what the
    service needs then run too); a pass's checks replica by replica, over the replica
    kinds the config mentions (a rule about one it leaves out checks the job)."""
    mentioned = [r for r in ctx.replicas if r.machine or r.count or r.config]
    for group in _plan(service, submit, len(STEPS)):
        if group[0][2] is None:
            ctx.rule, check, _ = group[0]
            check(ctx)
            continue
        for replica in mentioned:
            for rule, check, _ in group:
                ctx.rule = rule
                check(ctx, replica)
    return ctx.findings
