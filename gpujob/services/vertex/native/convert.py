"""``gpujob convert`` for Vertex AI: the checked config's translation written as a native Vertex
config (``native.output``), with what the translated job would still be refused for."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from gpujob.checks.schema import position_key
from gpujob.config.document import Document
from gpujob.findings import Finding
from gpujob.services.vertex.paths import origin_of

if TYPE_CHECKING:
    from gpujob.checks.engine import Checked, CheckOptions
    from gpujob.services.base import Converted
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.services.vertex.translate.job import Translation


def convert(doc: Document, checked: Checked, options: CheckOptions, output: str | None,
            whole_job: bool) -> Converted:
    """The native config the checked ``doc`` becomes (None when it cannot), and the findings
    of that config Vertex would still refuse, each at the config value it came from."""
    from gpujob.services.base import Converted
    from gpujob.services.vertex.native import output as native_output

    if any(f.is_error for f in checked.findings) or checked.job is None:
        return Converted(None)
    if doc.form is not None:  # a native job, from gcloud ai custom-jobs create's flags
        return _native(doc, checked.job, output, whole_job)
    translation = checked.job.translation
    if translation is None:
        return Converted(None)
    cat = options.catalog_in_use()
    found = _result_findings(translation, doc, cat, date.today(), options.region_check)
    if any(f.is_error for f in found):
        return Converted(None, found)
    written = native_output.render(translation, doc, output, whole_job=whole_job,
                                   executor=options.job.executor_image_uri)
    return Converted(written.text, sorted([*found, *written.findings], key=position_key),
                     list(written.notes))


def _result_findings(t: Translation, doc: Document, cat: VertexCatalog, today: date,
                     region_check: bool) -> list[Finding]:
    """The translated job checked as the native config it becomes: what Vertex would still
    refuse (the config's checks found nothing), each at the config value it came from."""
    from gpujob.services.vertex import native as vertex_native

    native = Document(doc.source, t.body)
    region_path = ("trainingInput", "region")
    found = vertex_native.check(native, cat, today, region=t.region,
                                region_origin=doc.locate(region_path),
                                region_check=region_check)
    out = []
    for finding in found:
        if not finding.is_error:
            continue  # the config's checks said what else there is to say
        source = region_path if finding.rule == "vertex.region" else _source(finding.path, t)
        out.append(finding._replace(path=source, location=doc.locate(source)))
    return out


def _source(path: tuple[str | int, ...], t: Translation) -> tuple[Any, ...]:
    """The config path the body's value at ``path`` (or its nearest parent) was made from."""
    return origin_of(path, t.origins) or ()


def _native(doc: Document, job: Any, output: str | None, whole_job: bool) -> Converted:
    """A native job (``native.job.check``: the command line applied, checked) written as the
    file gcloud's --config reads, with its int64 values as numbers again (the body sends
    them as strings: ``native_form.encoded``)."""
    from gpujob.config.native_form import decoded
    from gpujob.services.base import Converted
    from gpujob.services.vertex.native import output as native_output

    body = decoded(job.kind, job.body)
    written = native_output.render(job._replace(body=body), doc, output, whole_job=whole_job)
    return Converted(written.text, written.findings, list(written.notes))

