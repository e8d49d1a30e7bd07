"""Native Vertex AI configs: a file that is a ``CustomJobSpec`` (what ``gcloud ai custom-jobs
create --config`` reads), a whole ``CustomJob``, or a ``HyperparameterTuningJob``, recognised
by its top-level keys (``kind``), checked with positions against the JSON Schema of its kind
(``schemas/vertex-*.schema.json``, generated from the bundled aiplatform v1 discovery document
by ``scripts/vertex_schema.py``) and against the Vertex catalog (``check``), and sent as written
(``body``): a CustomJobSpec wrapped into a CustomJob, encodings as the discovery document
declares them (the backend adds gpujob's submission label).

Reading the schemas is reading JSON files: nothing here imports a Google client library.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from gpujob.config import native_form as shapes
from gpujob.config.document import Document
from gpujob.config.native_form import SCHEMAS, display_name
from gpujob.findings import Finding, Location, error, warning
from gpujob.services.vertex.paths import MAX_DISPLAY_NAME, SUBMISSION_LABEL
from gpujob.suggest import camel

if TYPE_CHECKING:
    from gpujob.services.vertex.catalog import VertexCatalog

__all__ = ["body", "check", "read"]

REGION_FLAG = Location("command line", flag="--region")
Kind = Literal["CustomJob", "HyperparameterTuningJob"]


def read(doc: Document) -> tuple[Document, list[Finding]]:
    """``doc`` (a native config) as gcloud reads it (``gpujob.config.native_reading``: nulls
    dropped, one value of a list read as a one-item list, a custom job's snake_case keys as
    their names), and the notes on what was read otherwise than written."""
    from gpujob.config import native_reading as reading

    found = doc.form
    if found is None:
        raise ValueError("not a native Vertex config")
    doc, notes = reading.read(doc, found, SCHEMAS[found])
    if found == "HyperparameterTuningJob":  # gcloud's default trial counts: 1 and 1
        from gpujob.config.gcloud_vertex import trial_counts

        doc, more = trial_counts(doc)
        notes += more
    return doc, notes


def _named(doc: Document, found: str, name: str | None) -> Document:
    """A whole job without its ``displayName`` named as gcloud names it: by --display-name
    (``gcloud ai hp-tuning-jobs create`` requires the flag and sets the job's name from it),
    else, as a CustomJobSpec, by the file's name."""
    if found == "CustomJobSpec" or ("displayName" in doc.data and not name):
        return doc
    return Document(doc.source, {**doc.data, "displayName": display_name(doc, name)},
                    doc.values, doc.keys, doc.texts)


def check(doc: Document, cat: VertexCatalog, today: date | None = None, *,
          region: str | None = None, region_origin: Location | None = None,
          region_check: bool = True, name: str | None = None) -> list[Finding]:
    """Every problem of a native config: its schema (did-you-mean on misspelt keys, output-only
    fields named as such), then the catalog's rules (machine × accelerator × count,
    accelerators past their end of support, executor images, TPUs, the region when one is
    given: ``region_origin`` says where, by default --region), in file order. ``name``: the
    --display-name a CustomJobSpec is submitted under. Where a key is clearly misspelt, the
    checks run again with its value in the key it means (``gpujob.checks.typos``), as for a Job."""
    from gpujob.checks import schema
    from gpujob.services.vertex.native import rules

    found = doc.form
    if found is None:
        raise ValueError("not a native Vertex config")
    day = today or date.today()
    doc, notes = read(doc)
    doc = _named(doc, found, name)

    def catalog(checked: Document, schema_findings: list[Finding]) -> list[Finding]:
        """The catalog's findings and the names', quiet about the values the schema refused."""
        refused = {f.path for f in schema_findings if f.is_error}
        return rules.check(checked, found, cat, day, refused, region=region,
                           region_origin=region_origin or REGION_FLAG,
                           relax_region=not region_check) + _names(checked, found, name)

    first = schema.check_job(doc, schema_name=SCHEMAS[found])
    if not first.stand_ins:
        findings = first.findings + catalog(doc, first.findings)
    else:
        from gpujob.checks import typos

        meant = typos.Meant(doc, first.stand_ins)
        again = schema.check(meant.doc, SCHEMAS[found])
        findings = meant.report(first.findings, again, catalog(meant.doc, again))
    from gpujob.services.vertex.rules.gpu_names import reword

    findings = reword(findings, doc.data, cat)
    if found == "CustomJobSpec":
        findings = [_job_field(f) for f in findings]
    return sorted(notes + findings + _beyond_doubles(doc, found), key=schema.position_key)


def _beyond_doubles(doc: Document, found: str) -> list[Finding]:
    """A double written in a string that no double holds (``'1e999'``): the schema's pattern
    takes it, gcloud would send Infinity."""
    from gpujob import numbers
    from gpujob.config.gcloud_form import beyond_a_double

    return [beyond_a_double(text, path, doc.locate(path))
            for path, text in shapes.strings_in_doubles(doc.data, found)
            if numbers.is_decimal_text(text) and numbers.decimal(text) is None]


# a CustomJob's own fields, which a CustomJobSpec file cannot hold, and the flag that sets each
_JOB_FLAGS = {"displayName": "--display-name", "labels": "--labels",
              "encryptionSpec": "--kms-key"}


def _job_field(finding: Finding) -> Finding:
    """An unknown top-level key of a CustomJobSpec that is its CustomJob's field (the file
    gcloud's --config reads is the job's spec; the job's name comes from --display-name)."""
    if finding.rule != "schema.unknown-key" or len(finding.path) != 1:
        return finding
    field = camel(str(finding.path[0]))
    if field not in _JOB_FLAGS:
        return finding
    return finding._replace(hint=f"{field} belongs to the CustomJob, not to the CustomJobSpec "
                            f"this file is: set it with {_JOB_FLAGS[field]} and remove it here")


def _names(doc: Document, found: str, name: str | None) -> list[Finding]:
    out = []
    labels = doc.data.get("labels")
    if isinstance(labels, dict) and SUBMISSION_LABEL in labels:
        path = ("labels", SUBMISSION_LABEL)
        out.append(warning("vertex.label", f"{SUBMISSION_LABEL} is gpujob's own label: each "
                           "submission sets it to a new value, replacing this one", path,
                           doc.locate(path, key=True), "remove it from the file"))
    if found == "CustomJobSpec":
        shown = display_name(doc, name)
        if len(shown) > MAX_DISPLAY_NAME:
            out.append(error("vertex.display-name", f"the job's display name, {shown[:40]}… "
                             f"({'--display-name' if name else 'the file name'}), is "
                             f"{len(shown)} characters long; Vertex takes at most "
                             f"{MAX_DISPLAY_NAME}", (), doc.locate(()),
                             "pass a shorter --display-name"))
    return out


def body(doc: Document, *, name: str | None = None, labels: dict[str, str] | None = None,
         kms_key: str | None = None) -> tuple[Kind, dict[str, Any]]:
    """The create request's body for a checked native config, as written: a CustomJobSpec
    becomes the ``jobSpec`` of a CustomJob named ``display_name(doc, name)``; ``name``,
    ``labels`` and ``kms_key`` (--display-name, --labels, --kms-key) replace the file's. int64
    values are sent as strings, as the discovery document declares them; the rest as written.
    The backend adds the submission label and lays the keys out as gcloud does."""
    found = doc.form
    if found is None:
        raise ValueError("not a native Vertex config")
    doc = _named(read(doc)[0], found, name)
    import copy

    data = shapes.encoded(found, copy.deepcopy(doc.data))
    out: dict[str, Any] = {}
    if found == "CustomJobSpec":
        out = {"displayName": display_name(doc, name), "jobSpec": data}
    else:
        out = dict(data)
    if labels is not None:
        out["labels"] = dict(labels)
    if kms_key:
        out["encryptionSpec"] = {"kmsKeyName": kms_key}
    return ("HyperparameterTuningJob" if found == "HyperparameterTuningJob" else "CustomJob",
            out)
