"""Vertex AI's rules for an AI Platform config: where the job runs (a Vertex training region;
its GPUs in that region, by the Compute Engine zone list that stands in for Vertex's own), the
machines the translation gives each worker pool (machine type × accelerator × count, over the
Vertex catalog), and what the translation itself reports: each value it translated, dropped
or cannot translate (legacy machine types, K80, TPU Pods, ``resumePreviousJobId``,
``maxWaitTime`` without the flex-start strategy, a master plus Cloud TPU workers, runtime
versions without an image …), adopted as it is, so nothing is reported twice.

The translation is made before the rules run (``check``) and given to them as data
(``Translated``): the rules read the request body and where each of its values came from.

A native Vertex config is checked by ``gpujob.services.vertex.native``: its region findings are
made by the functions here (``region_problem``, ``gpus_unlisted``), and its other rules are
listed here (``NATIVE_RULES``) for ``gpujob rules``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.checks import study, submission
from gpujob.checks.context import Checking
from gpujob.checks.registry import arrange, listed, rule
from gpujob.checks.rules import run
from gpujob.config.job import TI, JobView
from gpujob.findings import Finding, JsonPath, Location, Severity
from gpujob.services.vertex.translate.notes import RULE as TRANSLATE
from gpujob.services.vertex.translate.notes import RULES as TRANSLATION_RULES
from gpujob.suggest import describe_list, did_you_mean

if TYPE_CHECKING:  # the catalog comes with the context: validate for AI Platform never reads it
    from gpujob.checks.engine import CheckOptions
    from gpujob.config.document import Document
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.services.vertex.request import Job

VERTEX = ("vertex",)
POOL_LABELS = ("the master", "the workers", "the parameter servers", "the evaluators")


class Translated(NamedTuple):
    """The AI Platform config translated for Vertex AI: its findings (notes, warnings, errors
    at the config's values), the request body, and for each value of the body the config's
    path it was made from."""

    findings: list[Finding]
    body: Mapping[str, Any]
    origins: Mapping[JsonPath, JsonPath]


class Pool(NamedTuple):
    """A worker pool of the body, with the config's paths its machine came from."""

    index: int  # type: ignore[assignment]  # 0 master, 1 workers, 2 parameter servers, 3 evaluators
    machine_type: str
    accelerator_type: str | None
    accelerator_count: int | None
    machine_path: JsonPath  # masterType, workerType, … or scaleTier
    type_path: JsonPath  # acceleratorConfig.type, or where the machine came from
    count_path: JsonPath


def pools_of(translated: Translated) -> list[Pool]:
    body, origins = translated.body, translated.origins
    name = "trialJobSpec" if "trialJobSpec" in body else "jobSpec"
    spec = body.get(name)
    specs = spec.get("workerPoolSpecs", []) if isinstance(spec, Mapping) else []
    out = []
    for index, pool in enumerate(specs):
        machine = pool.get("machineSpec") if isinstance(pool, Mapping) else None
        if not isinstance(machine, Mapping) or not machine.get("machineType"):
            continue
        here = (name, "workerPoolSpecs", index, "machineSpec")
        machine_path = origins.get((*here, "machineType"), (TI,))
        type_path = origins.get((*here, "acceleratorType"), machine_path)
        out.append(Pool(index, machine["machineType"], machine.get("acceleratorType"),
                        machine.get("acceleratorCount"), machine_path, type_path,
                        origins.get((*here, "acceleratorCount"), type_path)))
    return out


class VertexContext(Checking):
    """One AI Platform config being checked for Vertex AI, over the Vertex catalog."""

    def __init__(self, job: JobView, catalog: VertexCatalog, locate: Callable[..., Location],
                 refused: set[JsonPath], *, relax_region: bool, translated: Translated) -> None:
        super().__init__(job, locate, refused, relax_region=relax_region)
        self.catalog = catalog
        self.translated = translated
        self.pools = pools_of(translated)
        self._by_rule: dict[str, list[Finding]] = {}
        for finding in translated.findings:
            self._by_rule.setdefault(finding.rule, []).append(finding)

    def adopt(self, rule_id: str) -> None:
        """The translation's findings of rule ``rule_id``, as it made them (notes, warnings
        and errors), but for those about a value the schema refused, and for a field said to
        be missing that the schema reported misspelt (``masterTyp``: its did-you-mean is the
        one message)."""
        self.findings += [f for f in self._by_rule.get(rule_id, ())
                          if not self.broken(f.path) and not self._misspelt_missing(f)]

    def _misspelt_missing(self, finding: Finding) -> bool:
        rule, path = finding.rule.rsplit(".", 1)[-1], finding.path
        if rule == "pool" and path == (TI, "scaleTier"):
            return self.misspelt("masterType")
        field = path[1] if len(path) == 2 and isinstance(path[1], str) else ""
        if rule == "pool" and field.endswith("Count"):
            return self.misspelt(field.replace("Count", "Type"))
        if rule == "package" and field:
            return self.misspelt("pythonModule") or self.misspelt("packageUris")
        if rule == "dropped" and field.endswith("Type") and self._custom_cluster():
            # "workerType is not sent: workerCount is not set": workerConf may be the count
            return self.misspelt(field.replace("Type", "Count"))
        return False

    def _custom_cluster(self) -> bool:
        """The config describes its cluster (scaleTier CUSTOM, or none given), where a *Type
        without its *Count is dropped for want of the count, not for the tier's machines."""
        tier = self.catalog.scale_tiers.get(self.job.scale_tier or "CUSTOM")
        return tier is not None and tier.custom


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


# the translation's errors about the service's images, which a local run does not use
# -- where: training regions, and GPUs by zone (a proxy) ---------------------------------------

def region_problem(region: str, cat: VertexCatalog) -> tuple[str, str] | None:
    """vertex.region's message and hint where Vertex AI does not run custom training in
    ``region`` (an AI Platform config's, or the --region of a native config); None where it
    does."""
    if cat.is_training_region(region):
        return None
    message = f"{region!r} is not a region {cat.service_name} runs in"
    zone_of = region.rsplit("-", 1)[0]
    guess = did_you_mean(region, list(cat.training_regions))
    if cat.is_training_region(zone_of) and len(region) - len(zone_of) == 2:
        hint = f"{region} looks like a zone; the job takes its region, {zone_of}"
    elif region in cat.endpoint_only_regions:
        message += " (it has an API endpoint, but it is not among the training regions)"
        hint = f"training regions: {describe_list(list(cat.training_regions), 40)}"
    elif guess:
        hint = f"did you mean {guess!r}?"
    else:
        hint = f"training regions: {describe_list(list(cat.training_regions), 40)}"
    return message, hint


@rule("vertex.region", "The region is one where Vertex AI runs custom training jobs.",
      services=VERTEX, region=True)
def region_unknown(ctx: VertexContext) -> None:
    region = ctx.region()
    problem = region_problem(region, ctx.catalog) if region is not None else None
    if problem is not None:
        ctx.emit((TI, "region"), *problem)


def _proxy_date(cat: VertexCatalog) -> str:
    return str(cat.sources.get("zones", {}).get("as_of", "an unknown date"))


@rule("vertex.region-gpu", "The region offers each GPU of the job, by Compute Engine's zone "
      "list (a proxy for Vertex AI's, dated): a warning, left out with --no-region-check and "
      "in local runs.", services=VERTEX, severity="warning", region=True)
def region_gpu(ctx: VertexContext) -> None:
    region, cat = ctx.region(), ctx.catalog
    if ctx.relax_region or region is None or not cat.is_training_region(region):
        return
    for pool in ctx.pools:
        unlisted = gpus_unlisted(region, pool.machine_type, pool.accelerator_type,
                                 pool.accelerator_count, POOL_LABELS[pool.index], cat)
        if unlisted is not None:
            ctx.once(f"{pool.machine_type}:{pool.accelerator_type}", pool.type_path, *unlisted)


def gpus_unlisted(region: str, machine: str, accelerator: str | None, count: int | None,
                  asked_by: str, cat: VertexCatalog) -> tuple[str, str] | None:
    """vertex.region-gpu's message and hint where Compute Engine's zone list does not list the
    GPUs of ``machine`` (with ``count`` × ``accelerator``) in ``region``, a training region;
    None where it does, where the proxy has no data on them (a4x, g4), and where there is no
    GPU or one the machine cannot take (vertex.machine says so). ``asked_by``: the pool, in
    words."""
    accel = cat.accelerators.get(accelerator or "")
    if accel is None or accel.kind != "gpu" or cat.problem(machine, accel.api_name, count):
        return None
    regions = cat.regions_for(machine, accel.api_name)
    if regions is None or region in regions:
        return None
    where = (f"{accel.name} GPUs" if not cat.machine_types[machine].built_in
             else f"{machine} machines ({accel.name} GPUs)")
    elsewhere = [r for r in regions if cat.is_training_region(r)]
    return (f"{where}, asked for by {asked_by}, are not listed in any zone of {region} in "
            f"Compute Engine's zone list (a proxy for Vertex AI's, read {_proxy_date(cat)})",
            f"training regions where they are listed: {describe_list(elsewhere, 8)}; "
            "Vertex AI's own list can differ (--no-region-check leaves this out)")


# -- machines: machine type x accelerator x count ------------------------------------------------

@rule("vertex.machine", "Each worker pool's machine type takes its accelerator type and count "
      "(machine types with GPUs built in take exactly theirs).", services=VERTEX)
def machine(ctx: VertexContext) -> None:
    cat = ctx.catalog
    for pool in ctx.pools:
        if pool.accelerator_type in cat.legacy_accelerators:
            continue  # K80, TPU Pods: the translation says what to use instead
        problem = cat.problem(pool.machine_type, pool.accelerator_type,
                              pool.accelerator_count)
        if problem is None:
            continue
        m = cat.machine_types.get(pool.machine_type)
        if m is None:
            guess = did_you_mean(pool.machine_type, list(cat.machine_types))
            ctx.emit(pool.machine_path, problem, f"did you mean {guess!r}?" if guess else
                     "`gpujob gpus --service vertex` lists the machine types with GPUs")
        elif pool.accelerator_type is None:
            ctx.emit(pool.machine_path, *_unstated(m.name, m.accelerators, pool.machine_path))
        elif cat.counts(m.name, pool.accelerator_type) or m.tpu is not None:
            ctx.emit(pool.count_path, problem,
                     _count_hint(cat, m.name, pool.accelerator_type, pool.accelerator_count))
        else:
            ctx.emit(pool.type_path, problem, _type_hint(cat, m.name, pool.accelerator_type))


def _family(machine: str) -> str:
    return machine.split("-", 1)[0]


def _count_hint(cat: VertexCatalog, machine: str, accelerator: str, count: Any) -> str:
    """The machine types that take ``count`` × ``accelerator`` (its own family's first): the
    fix when the machine takes that GPU in other counts (g2-standard-8 with 2 × L4)."""
    takers = [name for name in cat.machines_for(accelerator) if count in cat.counts(name,
                                                                                    accelerator)]
    own = [name for name in takers if _family(name) == _family(machine)]
    if not takers:
        return _gpus_hint(cat, accelerator)
    allowed = " or ".join(map(str, cat.counts(machine, accelerator)))
    return (f"for {count} × {accelerator} use {describe_list(own or takers, 4)}, or keep "
            f"{machine} with {allowed} × {accelerator}; {_gpus_hint(cat, accelerator)}")


def _type_hint(cat: VertexCatalog, machine: str, accelerator: str) -> str:
    """A machine with its GPUs built in (a2-highgpu-1g with T4): it comes with its own."""
    m = cat.machine_types[machine]
    if not m.built_in or not m.accelerators:
        return _gpus_hint(cat, accelerator)
    kind, counts = next(iter(m.accelerators.items()))
    return (f"{machine} comes with {counts[-1]} × {kind}: set acceleratorType {kind} and "
            f"acceleratorCount {counts[-1]}, or, for {accelerator}, a machine type that takes "
            f"it; {_gpus_hint(cat, accelerator)}")


def _unstated(machine: str, accelerators: Mapping[str, tuple[int, ...]],
              path: JsonPath) -> tuple[str, str]:
    """The message and hint for a machine with GPUs built in whose config states none."""
    kind, counts = next(iter(accelerators.items()))
    built = f"{counts[-1]} × {kind}"
    last = str(path[-1])
    config = f"{last.removesuffix('Type')}Config" if last.endswith("Type") else "its config"
    return (f"{machine} has {built} built in, and Vertex AI wants them stated",
            f"add {config}.acceleratorConfig {{count: {counts[-1]}, type: {kind}}}")


def _gpus_hint(cat: VertexCatalog, accelerator: str) -> str:
    accel = cat.accelerators.get(accelerator)
    name = accel.name.lower() if accel else accelerator
    return (f"`gpujob gpus --service vertex --gpu {name}` lists the machine types that take it "
            "and their counts")


# -- what the translation reports: one rule per name of translate/notes.py's RULES --------------

# what only a job about to be sent needs: validate takes a config whose package comes later
# (submit's --package-path builds and stages it), as the ai-platform service does
SUBMIT_ONLY = frozenset({"package"})


def _adopter(rule_id: str) -> Callable[[VertexContext], None]:
    def adopt(ctx: VertexContext) -> None:
        ctx.adopt(rule_id)

    adopt.__name__ = f"adopt_{rule_id.rsplit('.', 1)[-1].replace('-', '_')}"
    return adopt


for _name, (_severity, _doc) in TRANSLATION_RULES.items():
    rule(f"{TRANSLATE}.{_name}", _doc, services=VERTEX, severity=_severity,
         submit=_name in SUBMIT_ONLY)(_adopter(f"{TRANSLATE}.{_name}"))


# -- what the service needs when the job is sent --------------------------------------------------

@rule("vertex.submit-region", "A job is sent with a region (its endpoint's and its location).",
      services=VERTEX, submit=True)
def submit_region(ctx: VertexContext) -> None:
    submission.submit_region(ctx)


@rule("vertex.submit-job-dir", "jobDir is a Cloud Storage path (gs://BUCKET/PATH).",
      services=VERTEX, submit=True)
def submit_job_dir(ctx: VertexContext) -> None:
    submission.submit_job_dir(ctx)


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


arrange(sys.modules[__name__])


def check(doc: Document, cat: VertexCatalog, refused: set[JsonPath],
          options: CheckOptions) -> tuple[list[Finding], Job | None, Any]:
    """The findings of an AI Platform config for Vertex AI, and the job the request is built
    from (None: the translation refused it): the config is translated once
    (``translate.job``), and the rules read the translation."""
    from datetime import date

    from gpujob.config.job import view
    from gpujob.services.vertex.request import Job
    from gpujob.services.vertex.translate.job import translate

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
        from gpujob.services.vertex.scheduling import RULES

        # a local run is not scheduled by Vertex AI: the scheduling rules' errors are warnings
        findings = for_local([f for f in findings if not translated_by_the_run(f)],
                             frozenset(rule_id for rule_id, _, _ in RULES))
        return findings, job, None
    from gpujob.services.vertex.cost_report import priced

    cost = priced(job, findings, options.job.max_hourly_cost, doc.locate(()),
                  options.job.max_cost)
    return findings, job, cost
