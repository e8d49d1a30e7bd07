"""The checking engine that ``validate``, ``submit``, ``convert`` and ``--dry-run`` share: the
JSON Schema first, then the rules of the service the job is for.

The engine receives the service (``gpujob.services.base.Service``) and imports none: a config
in a form of the service's own (a native Vertex CustomJobSpec) it leaves to ``Service.read``;
an AI Platform config it checks against the Job schema (with the catalog's lists), runs again
with a clearly misspelt key read as the key it means (``typos``), and hands to
``Service.rules``, whose ``Checked.job`` is what the service's request is built from.
"""

from typing import TYPE_CHECKING, Any

from gpujob.checks import schema
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.findings import Finding
from gpujob.settings import CheckOptions as CheckOptions  # the engine's options, re-exported
from gpujob.settings import CommandLine as CommandLine

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple


class Checked(NamedTuple):
    """What the check of one config found, and the job the service's request is built from:
    ``job`` is the service's own form of the checked config (Vertex AI: its translation's
    body; AI Platform: the config's data), opaque to all but the service; None: the config
    cannot be sent (it has errors)."""

    findings: list[Finding]
    job: Any = None
    cost: Any = None  # what the job costs an hour, when the service knows (its Estimate)


class FileResult:
    """Everything found in one file."""

    def __init__(self, path: str, findings: list[Finding]) -> None:
        self.path = path
        self.findings = findings
        self.cost: Any = None  # the job's $/hour, when its service knows it (``Checked.cost``)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def notes(self) -> list[Finding]:
        """What a translation did with the config's values (``--service vertex``)."""
        return [f for f in self.findings if f.severity == "note"]

    @property
    def valid(self) -> bool:
        return not self.errors


def check_job(doc: Document, options: CheckOptions) -> Checked:
    """Schema findings, then the service's rules', in file order, and the service's checked
    job. Where a key is clearly misspelt, the checks run again with its value in the key it
    means (``gpujob.checks.typos``); the job is then None (a misspelt key is an error)."""
    service, cat = options.service, options.catalog_in_use()
    if "trainingInput" not in doc.data:  # an AI Platform config pays for no more than this
        native = service.read(doc, cat, options)
        if native is not None:
            return native
    first = schema.check_job(doc, choices=cat.choices)
    if not first.stand_ins:
        refused = {f.path for f in first.findings if f.is_error}
        checked = service.rules(doc, cat, refused, options)
        findings, job, cost = first.findings + checked.findings, checked.job, checked.cost
    else:
        from gpujob.checks import typos  # only a file with a typo pays for it (validate's start-up)

        meant = typos.Meant(doc, first.stand_ins)
        again = schema.check(meant.doc, choices=cat.choices)
        refused = {f.path for f in again if f.is_error}
        findings = meant.report(first.findings, again,
                                service.rules(meant.doc, cat, refused, options).findings)
        job = cost = None
    findings = service.explain(findings, doc, cat)
    return Checked(sorted(findings, key=schema.position_key), job, cost)


def check_file(path: str, options: CheckOptions) -> FileResult:
    loaded = load_file(path)
    result = FileResult(path, list(loaded.findings))
    if loaded.document is not None:
        checked = check_job(loaded.document, options)
        result.findings = combine(loaded.findings, checked.findings)
        result.cost = checked.cost if result.valid else None
    return result


def combine(load_findings: list[Finding], check_findings: list[Finding]) -> list[Finding]:
    """Both lists in file order; where the loader already reported a value (a duplicate key, an
    infinite number), the checks' findings about the same value are left out."""
    reported = {f.path for f in load_findings}
    kept = [f for f in check_findings if f.path not in reported]
    return sorted(load_findings + kept, key=schema.position_key)
