"""A native Vertex config as one job: read as gcloud reads it, the command line applied as
gcloud's flags mean it (``gpujob.config.native_flags``; Vertex's own flags and --labels of a
CustomJobSpec here), checked (``check``), and made the body of its create request (``body``) —
the request ``Vertex.request`` sends as it is, to the region the command line names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.config.document import Document
from gpujob.config.merge import apply
from gpujob.config.native_form import SCHEMAS, SPEC_PATHS, pools
from gpujob.config.overrides import Override
from gpujob.errors import UsageError
from gpujob.findings import Finding, JsonPath, Location
from gpujob.services.vertex import native
from gpujob.services.vertex.request import NO_NATIVE_REGION, Job

if TYPE_CHECKING:
    from gpujob.checks.engine import Checked, CheckOptions
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.services.vertex.translate.extras import VertexExtras


def check(doc: Document, cat: VertexCatalog, options: CheckOptions) -> Checked:
    """Every finding of the native config ``doc`` with the command line of ``options`` applied,
    and its job (None when it has errors)."""
    from gpujob.checks.engine import Checked
    from gpujob.config.native_flags import apply_flags
    from gpujob.services.vertex.translate import extras as vertex_extras

    line = options.command_line
    if options.local:
        raise UsageError("a native Vertex config does not run here: gpujob local runs AI "
                         "Platform configs", "check it with gpujob submit --dry-run")
    if line.package_path:
        raise UsageError("--package-path stages a package into an AI Platform config's "
                         "packageUris; a native Vertex config names its packages itself",
                         "stage the package and name its gs:// URI in "
                         "pythonPackageSpec.packageUris")
    doc, notes = native.read(doc)  # as gcloud reads it, before its flags apply
    from gpujob.config.gcloud_vertex import COUNTS_RULE

    set_here = {o.path for o in line.overrides}  # --set maxTrialCount=N: no default to note
    notes = [n for n in notes if not (n.rule == COUNTS_RULE and n.path in set_here)]
    # validate checks a folder of configs of both forms with one command line: the flags of
    # an AI Platform config's translation are refused for a native one when it is sent
    given = options.job if options.submit else options.job._replace(executor_image_uri=None,
                                                                    strategy=None)
    job = apply_flags(doc, list(line.overrides), line.user_args, given.display_name,
                      executor_image_uri=given.executor_image_uri, strategy=given.strategy,
                      extras=_extras(doc, vertex_extras.of(given.extra)))
    region = job.region
    findings = notes + native.check(job.doc, cat, region=region,
                                    region_origin=job.region_origin,
                                    region_check=options.region_check,
                                    name=job.name) + check_labels(job.labels, job.labels_origin)
    if any(f.is_error for f in findings):
        return Checked(findings)
    kind, body = native.body(job.doc, name=job.name, labels=job.labels, kms_key=job.kms_key)
    checked = Job(kind, body, region, no_region=NO_NATIVE_REGION)
    from gpujob.services.vertex.pricing.cost_report import priced

    cost = priced(checked, findings, options.job.max_hourly_cost, doc.locate(()),
                  options.job.max_cost, facts=cat.scheduling, recover=options.job.recover)
    return Checked(findings, checked if not any(f.is_error for f in findings) else None, cost)


def _extras(doc: Document, extras: VertexExtras | None) -> list[Override]:
    """--reservation, --persistent-resource-id, … as overrides of the spec's own fields, each
    located at its flag."""
    if extras is None:
        return []
    spec: JsonPath = SPEC_PATHS[doc.form or "CustomJobSpec"]
    from gpujob.services.vertex.translate.extras import apply

    made: dict[str, Any] = {"workerPoolSpecs": [
        {"machineSpec": {}} if isinstance(p, dict) and isinstance(p.get("machineSpec"), dict)
        else {} for p in (pools(doc.data)[1] or [])]}
    out = []
    for path, flag in apply(made, extras):
        node: Any = made
        for key in path:
            node = node[key]
        out.append(Override((*spec, *path), node, Location(doc.source, flag=flag)))
    return out


def check_labels(labels: dict[str, str] | None, origin: Location | None) -> list[Finding]:
    """--labels for a CustomJobSpec (which holds none), checked as labels written in a CustomJob
    file are (the same schema, the same messages), located at the flag."""
    from gpujob.checks import schema

    if not labels or origin is None:
        return []
    flagged = apply(Document(origin.source, {}), [Override(("labels",), labels, origin)])
    return [f for f in schema.check(flagged, SCHEMAS["CustomJob"]) if f.path[:1] == ("labels",)]
