"""Vertex AI's rules for an AI Platform config: where the job runs (a Vertex training region;
its GPUs in that region, by the Compute Engine zone list that stands in for Vertex's own), the
machines the translation gives each worker pool (machine type × accelerator × count, over the
Vertex catalog), and what the translation itself reports: each value it translated, dropped
or cannot translate (legacy machine types, K80, TPU Pods, ``resumePreviousJobId``,
``maxWaitTime`` without the flex-start strategy, a master plus Cloud TPU workers, runtime
versions without an image …), adopted as it is, so nothing is reported twice.

The translation is made before the rules run (``check``) and given to them as data
(``Translated``): the rules read the request body and where each of its values came from.

Here: the tuning study's rules, and ``check``, which runs them all; where and on what the job
runs is ``machine_rules``', what the translation reports ``translation_rules``', what the
rules read ``context``'s. A native Vertex config is checked by ``gpujob.services.vertex.native``
(its region findings by ``machine_rules``' functions); its rules are listed here
(``NATIVE_RULES``) for ``gpujob rules``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from gpujob.checks import study
from gpujob.checks.context import Checking
from gpujob.checks.registry import arrange, listed, rule
from gpujob.checks.rules import run
from gpujob.config.job import TI
from gpujob.findings import Finding, JsonPath, Severity
from gpujob.services.vertex.rules import machine_rules, translation_rules
from gpujob.services.vertex.rules.context import VERTEX, Translated, VertexContext

if TYPE_CHECKING:  # the catalog comes with the context: validate for AI Platform never reads it
    from gpujob.checks.engine import CheckOptions
    from gpujob.config.document import Document
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.services.vertex.request import Job


# -- a tuning study: what Vertex AI's API refuses (``gpujob.checks.study``: AI Platform's too) -----

@rule("vertex.study-name", "Each tuned parameter has its own parameterName (Vertex AI's "
      "parameterId is unique).", services=VERTEX)
def study_name(ctx: Checking) -> None:
    study.unique_name(ctx)


@rule("vertex.study-grid", "GRID_SEARCH searches INTEGER, CATEGORICAL and DISCRETE parameters "
      "only.", services=VERTEX)
def study_grid(ctx: Checking) -> None:
    study.grid_search(ctx)


@rule("vertex.study-id", "A tuned parameter's name and the metric's tag hold no whitespace "
      "(Vertex AI's parameterId and metricId must not contain any).", services=VERTEX)
def study_id(ctx: Checking) -> None:
    """Vertex's ``parameterId`` and ``metricId`` "must not contain whitespaces" (its discovery
    document); AI Platform sets no such rule (``first-layer-size`` and ``Taxi Model Accuracy``
    are its own samples' names)."""
    hp = ctx.ti.get("hyperparameters")
    if not isinstance(hp, dict):
        return
    tag = hp.get("hyperparameterMetricTag")
    if isinstance(tag, str) and _spaced(tag):
        ctx.emit((*study.HP, "hyperparameterMetricTag"), f"metric {tag!r} becomes Vertex AI's "
                 "metricId, which must not contain whitespace", "report the metric under a "
                 "name without spaces (cloudml-hypertune's hyperparameter_metric_tag) and set "
                 "hyperparameterMetricTag to it")
    for i, param in study.params(ctx):
        name = param.get("parameterName")
        if isinstance(name, str) and _spaced(name):
            ctx.emit((*study.HP, "params", i, "parameterName"), f"parameterName {name!r} "
                     "becomes Vertex AI's parameterId, which must not contain whitespace",
                     "name the parameter as the trainer's flag, without spaces")


def _spaced(text: str) -> bool:
    return any(c.isspace() for c in text)


# -- a native Vertex config's own rules (``native`` checks them; listed here) ---------------------

# (rule id, severity as listed: the most severe it gives, what it checks); a native config is
# also checked by vertex.machine, vertex.region and vertex.region-gpu
NATIVE_RULES: tuple[tuple[str, Severity, str], ...] = (
    ("vertex.pool", "error", "A native config's first worker pool is described, and every "
     "pool it uses names its machine type."),
    ("vertex.code", "error", "A native config's worker pool runs exactly one of containerSpec "
     "and pythonPackageSpec."),
    ("vertex.executor-image", "error", "A pythonPackageSpec's prebuilt image, named where "
     "Vertex publishes it, and a containerSpec's, are still available (past end of support or "
     "unknown to gpujob: a warning)."),
    ("vertex.accelerator", "warning", "A native config's accelerator past its end of support on "
     "Vertex AI draws a warning."),
    ("vertex.tpu", "error", "A TPU machine type runs as a native config's only worker pool, "
     "with one replica."),
    ("vertex.study", "error", "A tuning study takes one automated stopping rule at most, "
     "GRID_SEARCH over integer, categorical and discrete parameters, unique parameter ids."),
    ("vertex.snake-case", "note", "A custom job's snake_case keys are read as their camelCase "
     "fields, as gcloud passes them on and Vertex's JSON reader takes them (a note)."),
    ("vertex.label", "warning", "A native config does not set gpujob-submission, the label "
     "each submission sets."),
    ("vertex.display-name", "error", "A CustomJobSpec's display name (--display-name, or the "
     "file's name) is at most 128 characters."),
    ("vertex-convert.not-in-spec", "warning", "convert: a CustomJobSpec file holds no labels "
     "or encryption key; its header gives them as flags (--whole-job keeps them in)."),
)

for _id, _severity, _doc in NATIVE_RULES:
    listed(_id, _doc, services=VERTEX, severity=_severity)


# in the order they run: the study's, where and on what (machine_rules), what the translation
# reports and what a job about to be sent needs (translation_rules)
arrange(sys.modules[__name__], machine_rules, translation_rules)


def check(doc: Document, cat: VertexCatalog, refused: set[JsonPath],
          options: CheckOptions) -> tuple[list[Finding], Job | None, Any]:
    """The findings of an AI Platform config for Vertex AI, and the job the request is built
    from (None: the translation refused it): the config is translated once
    (``translate.job``), and the rules read the translation."""
    from datetime import date

    from gpujob.config.job import view
    from gpujob.services.vertex.request import Job
    from gpujob.services.vertex.translate.job import translate

    if options.local:  # as the run submits it, which then takes this translation
        from gpujob.services.vertex.local_env import translate_checked

        t = translate_checked(doc, cat, options.job, options.command_line.package_path)
    else:
        t = translate(doc, cat, date.today(), options.job)
    job = None if t.errors else Job(t.kind, t.body, t.region, t.origins, doc.locate,
                                     translation=t)
    if not doc.data.get(TI):
        return [], job, None
    translated = Translated(t.findings, t.body, t.origins)
    ctx = VertexContext(view(doc.data), cat, doc.locate, refused,
                        relax_region=options.local or not options.region_check,
                        translated=translated)
    findings = run(ctx, "vertex", submit=options.submit and not options.local)
    if options.local:  # the run translates the job itself, with its own job dir, and reports it
        from gpujob.services.vertex.local_env import for_local, translated_by_the_run
        from gpujob.services.vertex.rules.scheduling import RULES

        # a local run is not scheduled by Vertex AI: the scheduling rules' errors are warnings
        findings = for_local([f for f in findings if not translated_by_the_run(f)],
                             frozenset(rule_id for rule_id, _, _ in RULES))
        return findings, job, None
    from gpujob.services.vertex.pricing.cost_report import priced

    cost = priced(job, findings, options.job.max_hourly_cost, doc.locate(()),
                  options.job.max_cost, facts=cat.scheduling, recover=options.job.recover)
    return findings, job, cost
