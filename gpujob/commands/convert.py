"""``gpujob convert``: an AI Platform config, with the command line applied as ``submit`` applies
it, checked for the service ``--to`` names and written in that service's own form
(``Service.convert``: a native Vertex config, a GKE JobSet).

What the translation changed, dropped or could not translate is said on stderr, each at the
value it is about; with an error nothing is written (exit 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gpujob.checks.engine import Checked, check_job, combine
from gpujob.checks.schema import position_key
from gpujob.config.document import Document
from gpujob.config.load import Loaded, load_file
from gpujob.console import CONSOLE, safe
from gpujob.errors import InvalidConfig, UsageError
from gpujob.findings import Finding, capped, finding_line
from gpujob.outfile import write_text

if TYPE_CHECKING:
    from gpujob.checks.engine import CheckOptions
    from gpujob.services.base import Converted, Service
    from gpujob.submit.settings import SubmitSettings


def execute(settings: SubmitSettings, gcloud_config: bool = False) -> int:
    """Convert, report, and write the config (nothing is written with an error).
    ``gcloud_config``: the file came as gcloud's --config, which names a native Vertex config
    (custom-jobs/hp-tuning-jobs create's) as well as an AI Platform one: a native one is the
    job of that command line, written with the command line applied, as submit sends it."""
    from gpujob.commands import convert_packages
    from gpujob.services.capabilities import Capability
    from gpujob.submit.prepare import merged

    settings = settings.with_catalog()  # the service (--to) and its catalog, first
    options = settings.check
    service = options.service
    service.require(Capability.CONVERT, f"gpujob convert --to {service.name}")
    config = settings.name
    if settings.output is not None:
        _check_output(settings.output, config)
    loaded = settings.loaded if settings.loaded is not None else load_file(config)
    if loaded.document is None:
        _show(loaded.findings)
        raise InvalidConfig(f"{config} cannot be read as a Job config")
    if settings.config is not None and not gcloud_config:
        _not_native(loaded.document)
    elif loaded.document.form is not None:  # gcloud ai custom-jobs create's: as submit's
        return _write_native(service, loaded, settings)
    doc = merged(loaded.document, settings.overrides, settings.user_args)
    packages = convert_packages.wanted(doc, settings)
    if packages is not None:  # converted first with stand-ins: nothing is built for an error
        _converted(service, loaded, convert_packages.stand_ins(doc, packages[0]), options,
                   settings, show=False, words=packages[0].words())
        doc = convert_packages.stage(doc, *packages)
    converted, checked = _converted(service, loaded, doc, options, settings)
    return _finish(service, converted, checked, settings)


def _write_native(service: Service, loaded: Loaded, settings: SubmitSettings) -> int:
    """The job of gcloud ai custom-jobs create's command line: the service applies the rest of
    the command line to it and checks it (as ``submit`` does), and writes it in its form."""
    assert loaded.document is not None
    converted, checked = _converted(service, loaded, loaded.document,
                                    settings.check_options(submit=False), settings)
    return _finish(service, converted, checked, settings)


def _finish(service: Service, converted: Converted, checked: Checked,
            settings: SubmitSettings) -> int:
    for line in converted.notes:
        CONSOLE.err(line)
    _write(converted.text or "", settings.output)
    if checked.cost is not None:  # (after the write, which may be refused)
        for line in service.describe_costs([(None, checked.cost)]):
            CONSOLE.err(line)
    return 0


def _converted(service: Service, loaded: Loaded, doc: Document, options: CheckOptions,
               settings: SubmitSettings, show: bool = True,
               words: dict[str, str] | None = None) -> tuple[Converted, Checked]:
    """``doc`` checked and converted; its findings shown (``show``; those of errors always),
    ``InvalidConfig`` with an error. ``words``: what the packages' stand-ins are."""
    from gpujob.submit.packages import plain

    checked = check_job(doc, options)
    converted = service.convert(doc, checked, options, settings.output, settings.whole_job)
    findings = sorted([*combine(loaded.findings, checked.findings), *converted.findings],
                      key=position_key)
    findings = plain(findings, words or {})
    errors = sum(f.is_error for f in findings)
    if show or errors or converted.text is None:
        _show(findings)
    if errors or converted.text is None:
        raise InvalidConfig(f"{settings.name}: {errors} "
                            f"problem{'s' if errors != 1 else ''}; nothing was written")
    return converted, checked


def _not_native(doc: Document) -> None:
    found = doc.form
    if found is not None:
        raise InvalidConfig(f"{safe(doc.source)} is a native Vertex config already (a {found}): "
                            "convert takes an AI Platform config",
                            "check it with gpujob validate --service vertex, or send it with "
                            "gpujob submit (--service vertex or gke)")


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
