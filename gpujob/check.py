"""The checking engine that ``validate``, ``submit`` and ``--dry-run`` share: schema, then rules.

For Vertex AI, an AI Platform config is translated first (``gpujob.translate.vertex``): the
rules read the translation, and its findings (what it changed, dropped or cannot translate)
are reported with theirs. A native Vertex config (a CustomJobSpec, CustomJob or
HyperparameterTuningJob file) is checked by ``gpujob.vertex_native``, for Vertex AI only.
"""

from typing import TYPE_CHECKING, NamedTuple

from gpujob import schema
from gpujob.catalog import DEFAULT_SERVICE, AnyCatalog, load
from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.findings import Finding, error
from gpujob.job import view

if TYPE_CHECKING:
    from gpujob.catalog import VertexCatalog
    from gpujob.rules.vertex import Translated
    from gpujob.translate.vertex import Translation, VertexOptions


class CheckOptions(NamedTuple):
    """What to check beyond the file itself.

    ``submit``: the job is about to be sent, so what the service needs at creation (a region, the
    trainer's packages) must be there. ``local``: it runs on this machine instead (region checks
    become warnings). ``catalog``: the catalog to check against (None: the built-in one of
    ``service``); its service chooses the rules. ``region_check``: False turns region and zone
    findings into warnings. ``service``: the service the job is for (``--service``).
    ``vertex``: what the command line gives Vertex AI's translation of a config
    (``--executor-image-uri``, ``--strategy``; ``convert``'s flags); None: nothing.
    """

    submit: bool = False
    local: bool = False
    catalog: AnyCatalog | None = None
    region_check: bool = True
    service: str = DEFAULT_SERVICE
    vertex: "VertexOptions | None" = None

    def catalog_in_use(self) -> AnyCatalog:
        return self.catalog if self.catalog is not None else load(self.service)


class FileResult:
    """Everything found in one file."""

    def __init__(self, path: str, findings: list[Finding]) -> None:
        self.path = path
        self.findings = findings

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


def check_document(doc: Document, options: CheckOptions,
                   translation: "Translation | None" = None) -> list[Finding]:
    """Schema findings, then the compatibility rules', in file order. Where a key is clearly
    misspelt, the checks run again with its value in the key it means (``gpujob.typos``). A
    native Vertex config is checked as one (``check_native``). ``translation``: the caller's
    translation of ``doc`` for Vertex AI (with ``options.vertex``), so that it is not made
    twice."""
    if "trainingInput" not in doc.data:  # an AI Platform config pays for no more than this
        from gpujob.vertex_native.shapes import kind

        if kind(doc.data) is not None:
            if options.vertex is not None and options.vertex.extras is not None:
                from gpujob.vertex_native.flags import with_extras

                doc = with_extras(doc, options.vertex.extras)  # as submit applies them
            return check_native(doc, options)
    cat = options.catalog_in_use()
    first = schema.check_job(doc, choices=cat.choices)
    if not first.stand_ins:
        findings = first.findings + _rule_findings(doc, first.findings, cat, options,
                                                   translation)
    else:
        from gpujob import typos  # only a file with a typo pays for it (validate's start-up)

        meant = typos.Meant(doc, first.stand_ins)  # (another document: translated anew)
        again = schema.check(meant.doc, choices=cat.choices)
        findings = meant.report(first.findings, again,
                                _rule_findings(meant.doc, again, cat, options))
    if cat.service != "vertex":
        from gpujob import vertex_only

        findings = vertex_only.explain(findings, doc.data, list(cat.machine_types),
                                       cat.gpu_types)
    return sorted(findings, key=schema.position_key)


def _rule_findings(doc: Document, schema_findings: list[Finding], cat: AnyCatalog,
                   options: CheckOptions, translation: "Translation | None" = None
                   ) -> list[Finding]:
    """The rules' findings; they stay quiet about the values the schema refused."""
    from gpujob import rules

    refused = {f.path for f in schema_findings if f.is_error}
    translated = translate(doc, cat, options, translation) if cat.service == "vertex" else None
    found = rules.check(view(doc.data), cat, doc.locate, refused,
                        submit=options.submit and not options.local,
                        relax_region=options.local or not options.region_check,
                        translated=translated)
    if options.local and translated is not None:
        from gpujob.rules.scheduling import for_local_run

        return for_local_run(found)
    return found


def check_native(doc: Document, options: CheckOptions, **where: object) -> list[Finding]:
    """A native Vertex config's findings (``where``: its region and display name, from the
    command line, as ``vertex_native.check`` takes them); for another service, one error."""
    from gpujob import vertex_native

    found = vertex_native.kind(doc.data)
    if options.service != "vertex":
        return [error("native.service", f"this is a native Vertex AI config (a {found}), which "
                      f"--service {options.service} cannot use", (), doc.locate(()),
                      "check and submit it with --service vertex (the default)")]
    return vertex_native.check(doc, options.catalog_in_use(),  # type: ignore[arg-type]
                               region_check=options.region_check and not options.local,
                               **where)  # type: ignore[arg-type]


def translate(doc: Document, cat: "VertexCatalog", options: CheckOptions,
              translation: "Translation | None" = None) -> "Translated":
    """The config as Vertex AI's request, for its rules (``translation``: made already)."""
    from datetime import date

    from gpujob.rules.vertex import Translated, for_local_run
    from gpujob.translate.vertex import translate as to_vertex

    t = translation if translation is not None else to_vertex(doc, cat, date.today(),
                                                              options.vertex)
    return Translated(for_local_run(t.findings) if options.local else t.findings, t.body,
                      t.origins)


def check_file(path: str, options: CheckOptions) -> FileResult:
    loaded = load_file(path)
    result = FileResult(path, list(loaded.findings))
    if loaded.document is not None:
        result.findings = combine(loaded.findings, check_document(loaded.document, options))
    return result


def combine(load_findings: list[Finding], check_findings: list[Finding]) -> list[Finding]:
    """Both lists in file order; where the loader already reported a value (a duplicate key, an
    infinite number), the checks' findings about the same value are left out."""
    reported = {f.path for f in load_findings}
    kept = [f for f in check_findings if f.path not in reported]
    return sorted(load_findings + kept, key=schema.position_key)
