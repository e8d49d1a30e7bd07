"""The scheduling rules (``scheduling``) for an AI Platform config checked for Vertex AI: run
over the request its translation makes, each finding put where the config wrote the value
(the translation's origins), or at the flag that set it (``--strategy``, ``--reservation``,
``--persistent-resource-id`` …)."""

from __future__ import annotations

import sys

from gpujob.checks.registry import arrange, rule
from gpujob.config.job import TI
from gpujob.findings import Finding, JsonPath, Location
from gpujob.services.vertex.paths import origin_of
from gpujob.services.vertex.rules import scheduling
from gpujob.services.vertex.rules.context import VERTEX, VertexContext
from gpujob.services.vertex.translate import extras as vertex_extras

# a request path's last keys -> the flag that writes it (translate.vertex_extras)
FLAGS: dict[JsonPath, str] = {("scheduling", "strategy"): "--strategy",
                              vertex_extras.RESERVATION: "--reservation",
                              **{path: flag for flag, path in vertex_extras.FIELDS.items()}}


def place(ctx: VertexContext, path: JsonPath) -> tuple[JsonPath, Location] | None:
    """Where the config (or the command line) gave the request's value at ``path``; None where
    the schema refused it."""
    origins = ctx.translated.origins
    for keys, flag in FLAGS.items():
        if path[-len(keys):] == keys and path not in origins:
            return (), Location(ctx.where(()).source, flag=flag)
    origin = origin_of(path, origins)
    if origin is not None:
        return None if ctx.broken(origin) else (origin, ctx.where(origin))
    return (TI,), ctx.where((TI,))


def _findings(ctx: VertexContext, rule_id: str) -> list[Finding]:
    found = getattr(ctx, "_scheduling", None)
    if found is None:
        body = ctx.translated.body
        name = "trialJobSpec" if "trialJobSpec" in body else "jobSpec"
        found = scheduling.check(body.get(name) or {}, (name,), ctx.catalog,
                                 lambda path: place(ctx, path), ctx.region())
        ctx._scheduling = found  # type: ignore[attr-defined]
    return [f for f in found if f.rule == rule_id]


def _register(rule_id: str, severity: str, doc: str) -> None:
    def check(ctx: VertexContext) -> None:
        ctx.findings += _findings(ctx, rule_id)

    check.__name__ = f"check_{rule_id.rsplit('.', 1)[-1].replace('-', '_')}"
    rule(rule_id, doc, services=VERTEX, severity=severity)(check)  # type: ignore[arg-type]


for _id, _severity, _doc in scheduling.RULES:
    _register(_id, _severity, _doc)


arrange(sys.modules[__name__])  # after the other Vertex rules
