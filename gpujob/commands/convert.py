"""``gpujob convert``: an AI Platform config, with the command line applied as ``submit`` applies
it, translated for Vertex AI and written as a native Vertex config (``vertex_native.output``).

What the translation changed, dropped or could not translate is said on stderr, each at the
value it is about; with an error nothing is written (exit 1).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.checks.engine import combine
from gpujob.checks.schema import position_key
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE, safe
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, capped, finding_line
from gpujob.outfile import write_text
from gpujob.services.vertex.translate.job import Translation
from gpujob.settings import JobOptions

if TYPE_CHECKING:
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.settings import CheckSettings


class ConvertSettings(NamedTuple):
    config: str
    overrides: list[Override]
    user_args: list[str] | None
    options: JobOptions
    check: CheckSettings  # service vertex, its catalog, whether region findings are errors
    output: str | None = None  # -o FILE; None: standard output
    whole_job: bool = False  # a whole CustomJob rather than the CustomJobSpec gcloud reads


def execute(settings: ConvertSettings) -> int:
    """Convert, report, and write the native config (nothing is written with an error)."""
    from gpujob.commands.prepare import merged
    from gpujob.services.vertex import catalog as vertex_data
    from gpujob.services.vertex.native import output

    if settings.output is not None:
        _check_output(settings.output, settings.config)
    cat = settings.check.catalog or vertex_data.load()
    loaded = load_file(settings.config)
    if loaded.document is None:
        _show(loaded.findings)
        raise InvalidConfig(f"{settings.config} cannot be read as a Job config")
    _not_native(loaded.document)
    doc = merged(loaded.document, settings.overrides, settings.user_args)
    translation, findings, cost = _translate(doc, cat, settings)
    findings = combine(loaded.findings, findings)
    written = None
    if translation is not None and not any(f.is_error for f in findings):
        written = output.render(translation, doc, settings.output, whole_job=settings.whole_job,
                                executor=settings.options.executor_image_uri)
        findings = sorted([*findings, *written.findings], key=position_key)
    _show(findings)
    errors = sum(f.is_error for f in findings)
    if errors or written is None:
        raise InvalidConfig(f"{settings.config}: {errors} problem{'s' if errors != 1 else ''}; "
                            "nothing was written")
    for line in written.notes:
        CONSOLE.err(line)
    _write(written.text, settings.output)
    if cost is not None:  # (after the write, which may be refused)
        from gpujob.services.vertex.cost_report import lines

        for line in lines([(None, cost)]):
            CONSOLE.err(line)
    return 0


def _not_native(doc: Document) -> None:
    from gpujob.services.vertex.native import kind

    found = kind(doc.data)
    if found is not None:
        raise InvalidConfig(f"{safe(doc.source)} is a native Vertex config already (a {found}): "
                            "there is nothing to convert",
                            "check it with gpujob validate --service vertex, or send it with "
                            "gpujob submit --service vertex")


def _translate(doc: Document, cat: VertexCatalog, settings: ConvertSettings
               ) -> tuple[Translation | None, list[Finding], Any]:
    """The translation (made once, today, by the check), and the config's findings for Vertex
    AI (its schema, what the translation did, the Vertex rules), then what the translated job
    would still be refused for."""
    from gpujob import services
    from gpujob.checks.engine import CheckOptions, check_job

    checked = check_job(doc, CheckOptions(services.get("vertex"), catalog=cat,
                                          region_check=settings.check.region_check,
                                          job=settings.options))
    translation = checked.job.translation if checked.job is not None else None
    findings = checked.findings
    if translation is not None and not any(f.is_error for f in findings):
        findings += _result_findings(translation, doc, cat, date.today(), settings)
    return translation, sorted(findings, key=position_key), checked.cost


def _result_findings(t: Translation, doc: Document, cat: VertexCatalog, today: date,
                     settings: ConvertSettings) -> list[Finding]:
    """The translated job checked as the native config it becomes: what Vertex would still
    refuse (the config's checks found nothing), each at the config value it came from."""
    from gpujob.services.vertex import native as vertex_native

    native = Document(doc.source, t.body)
    region_path = ("trainingInput", "region")
    found = vertex_native.check(native, cat, today, region=t.region,
                                region_origin=doc.locate(region_path),
                                region_check=settings.check.region_check)
    out = []
    for finding in found:
        if not finding.is_error:
            continue  # the config's checks said what else there is to say
        source = region_path if finding.rule == "vertex.region" else _source(finding.path, t)
        out.append(finding._replace(path=source, location=doc.locate(source)))
    return out


def _source(path: tuple[str | int, ...], t: Translation) -> tuple[str | int, ...]:
    """The config path the body's value at ``path`` (or its nearest parent) was made from."""
    for end in range(len(path), 0, -1):
        if path[:end] in t.origins:
            return t.origins[path[:end]]
    return ()


def _show(findings: list[Finding]) -> None:
    for finding in capped(findings):
        CONSOLE.err(finding_line(finding))


def _check_output(path: str, config: str) -> None:
    if path == "-":
        return
    target = Path(path)
    if config != "-" and target.exists() and Path(config).exists() and \
            target.resolve() == Path(config).resolve():
        raise UsageError(f"-o {safe(path)} is the config being converted",
                         "write the Vertex config to a file of its own")
    if target.is_dir():
        raise UsageError(f"-o {safe(path)} is a directory", "name the file to write")
    if not target.parent.is_dir():
        raise UsageError(f"-o {safe(path)}: no such directory: {safe(str(target.parent))}")


def _write(text: str, path: str | None) -> None:
    """The file (``gpujob.outfile``: a regular one whole or not at all), or standard output."""
    if path is None or path == "-":
        CONSOLE.out(text)
        return
    write_text(text, path)
    CONSOLE.err(f"Wrote {safe(path)}")
