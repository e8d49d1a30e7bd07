"""A translation written as a native Vertex config file, for ``gpujob convert``.

A CustomJob is written as its ``CustomJobSpec``, the file ``gcloud ai custom-jobs create
--config`` reads (gcloud refuses any other key in it); the job's name, labels and encryption key
are not part of it, so the header gives them as the flags both tools take. ``--whole-job``
writes the whole ``CustomJob`` instead (gpujob and the REST API read it; gcloud does not). A
tuning job is written whole: ``gcloud ai hp-tuning-jobs create --config`` reads a
``HyperparameterTuningJob``. Each translated value carries a comment naming what it came from.
"""

from __future__ import annotations

import json
import shlex
from typing import Any, NamedTuple

from gpujob.config import native_form as shapes
from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, format_path, value_at, warning
from gpujob.services.vertex.native.writer import dump
from gpujob.services.vertex.translate.job import Translation

RULE = "vertex-convert"
SHOWN = 60  # characters of an original value a comment shows


class Written(NamedTuple):
    text: str
    findings: list[Finding]  # what the file cannot hold (warnings at the config's values)
    notes: list[str]  # lines for stderr


def render(t: Translation, doc: Document, path: str | None, *, whole_job: bool,
           executor: str | None = None) -> Written:
    """The text of the native config for ``t`` (``path``: where it will be written;
    ``executor``: the --executor-image-uri the translation used)."""
    spec_only = t.kind == "CustomJob" and not whole_job
    prefix: JsonPath = ("jobSpec",) if spec_only else ()
    data = t.body["jobSpec"] if spec_only else t.body
    comments = {target[len(prefix):]: _origin(doc, source, value_at(t.body, target))
                for target, source in t.origins.items() if target[:len(prefix)] == prefix}
    if executor:
        for pool_path in _pool_paths(data):
            for spec, key in (("containerSpec", "imageUri"),
                              ("pythonPackageSpec", "executorImageUri")):
                here = (*pool_path, spec, key)
                if value_at(data, here) == executor:
                    comments.setdefault(here, "from --executor-image-uri")
    file = path if path and path != "-" else "FILE"
    findings: list[Finding] = []
    if spec_only:
        findings = [_not_in_spec(doc, t, key) for key in ("labels", "encryptionSpec")
                    if key in t.body]
    header = [*_title(t, doc, spec_only, whole_job), *_commands(t, file, spec_only)]
    notes = _empty_pools(data)
    if notes:
        header.append("gcloud's own check of a --config file refuses the empty worker pool "
                      "(the API takes it): create this job with gpujob.")
    return Written(dump(data, comments, header), findings, notes)


def _title(t: Translation, doc: Document, spec_only: bool, whole_job: bool) -> list[str]:
    kind = "CustomJobSpec" if spec_only else t.kind
    from gpujob.config.gcloud_vertex import SOURCE  # a job from gcloud's flags alone

    source = "the command line" if doc.source == SOURCE else doc.source
    lines = [f"Vertex AI {kind} converted by gpujob from {source}."]
    if spec_only:
        lines.append("The job's name, labels and encryption key are not part of a "
                     "CustomJobSpec: they are flags.")
    elif whole_job and t.kind == "CustomJob":  # (a tuning job is always written whole)
        lines.append("A whole CustomJob: gcloud's --config reads only its jobSpec.")
    return lines


def _commands(t: Translation, file: str, spec_only: bool) -> list[str]:
    """The commands that create this job from the file, with gpujob and with gcloud."""
    region = t.region or "REGION"
    gpujob = ["gpujob", "submit", file, "--service", "vertex", "--region", region]
    group = "custom-jobs" if t.kind == "CustomJob" else "hp-tuning-jobs"
    gcloud = ["gcloud", "ai", group, "create", f"--config={file}", f"--region={region}",
              f"--display-name={t.body['displayName']}"]
    if spec_only:
        gpujob += ["--display-name", t.body["displayName"]]
        labels = ",".join(f"{k}={v}" for k, v in t.body.get("labels", {}).items())
        kms = t.body.get("encryptionSpec", {}).get("kmsKeyName")
        if labels:
            gpujob += ["--labels", labels]
            gcloud.append(f"--labels={labels}")
        if kms:
            gpujob += ["--kms-key", kms]
            gcloud.append(f"--kms-key={kms}")
    if not spec_only and t.kind == "CustomJob":
        return ["Create it with:", f"  {shlex.join(gpujob)}"]
    return ["Create it with either of:", f"  {shlex.join(gpujob)}", f"  {shlex.join(gcloud)}"]


def _not_in_spec(doc: Document, t: Translation, key: str) -> Finding:
    source = t.origins.get((key,)) or t.origins.get((key, "kmsKeyName")) or (key,)
    what = "labels are" if key == "labels" else "the encryption key is"
    flag = "--labels" if key == "labels" else "--kms-key"
    return warning(f"{RULE}.not-in-spec", f"{what} not written into the file: a "
                   f"CustomJobSpec (the file gcloud's --config reads) has no {key}",
                   source, doc.locate(source),
                   f"create the job with {flag} as the file's header says, or convert with "
                   f"--whole-job to keep {'them' if key == 'labels' else 'it'} in the file")


def _pool_paths(data: dict[str, Any]) -> list[JsonPath]:
    here, listed = shapes.pools(data)
    return [(*here, i) for i in range(len(listed or ()))]


def _empty_pools(data: dict[str, Any]) -> list[str]:
    empty = [str(path[-1]) for path in _pool_paths(data) if not value_at(data, path)]
    if not empty:
        return []
    return [f"note: worker pool {', '.join(empty)} is an empty placeholder ({{}}): Vertex takes "
            "it, but gcloud's own check of a --config file refuses it; create this job with "
            "gpujob (gpujob submit FILE --service vertex)"]



def _origin(doc: Document, source: JsonPath, written: Any) -> str:
    """``from trainingInput.masterType (line 11): complex_model_m_gpu``; the original value is
    left out where it is what the file says."""
    where = doc.values.get(source) or doc.locate(source)
    place = where.flag if where.flag else f"line {where.line}" if where.line else None
    text = f"from {format_path(source)}" + (f" ({place})" if place else "")
    value = value_at(doc.data, source)
    if value is None or value == written or (
            isinstance(value, (int, str)) and str(value) == str(written)):
        return text
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(shown) > SHOWN:
        shown = shown[:SHOWN - 1] + "…"
    return f"{text}: {shown}"
