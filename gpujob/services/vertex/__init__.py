"""The ``vertex`` service: Vertex AI custom training (the ``aiplatform v1`` API).

An AI Platform config is translated once (``translate``), checked by the rules over the
translation (``rules``), and the translation's body is the request (``request``). A native
Vertex config (a CustomJobSpec, CustomJob or HyperparameterTuningJob file) is read, checked and
sent as written (``native``). Following jobs (the client, states, references, links, next
commands) is ``jobs``; ``gpujob gpus`` is ``offerings``; what a local replica sees,
``local_env``. Each module is imported when first needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from gpujob.services.capabilities import Capability, ServiceBase
from gpujob.services.delegate import JobsInModule
from gpujob.services.vertex.translate import extras as vertex_extras

if TYPE_CHECKING:
    from types import ModuleType

    from gpujob.catalog.offer import Offer
    from gpujob.checks.engine import Checked, CheckOptions
    from gpujob.checks.registry import Rule
    from gpujob.config.document import Document
    from gpujob.findings import Finding, JsonPath
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings
    from gpujob.local.cluster import LocalCluster, LocalOptions
    from gpujob.services.base import Converted, JobClient, Request, Service
    from gpujob.services.placement import Placement
    from gpujob.services.recovery import Recovery
    from gpujob.services.vertex.request import Job
    from gpujob.settings import GpusSettings, JobOptions, ReserveSettings


class Vertex(JobsInModule, ServiceBase):
    """``base.Service`` for Vertex AI custom training."""

    name = "vertex"
    title = "Vertex AI custom training"
    jobs_module = "gpujob.services.vertex.jobs"
    # every flag of submit is translated, or reported where it is dropped (a warning)
    flags = vertex_extras.SERVICE_FLAGS
    # it has every capability: --region A,B and --strategy X,Y are tried in order, after the
    # quota preflight (``failover``)
    lacks: ClassVar[dict[Capability, str]] = {}

    @property
    def catalog(self) -> ModuleType:
        from gpujob.services.vertex import catalog

        return catalog

    @property
    def refresh(self) -> ModuleType:
        """Its zones, images and prices, read from Google's APIs (``refresh.run``)."""
        from gpujob.services.vertex.refresh import run

        return run

    def read(self, doc: Document, cat: Any, options: CheckOptions) -> Checked | None:
        if doc.form is None:
            return None
        from gpujob.services.vertex.native import job

        return job.check(doc, cat, options)

    def explain(self, findings: list[Finding], doc: Document, cat: Any) -> list[Finding]:
        """A refused GPU name's hint names the type it stands for (``gpu_names``)."""
        from gpujob.services.vertex.rules.gpu_names import reword

        return reword(findings, doc.data, cat)

    def rules(self, doc: Document, cat: Any, refused: set[JsonPath],
              options: CheckOptions) -> Checked:
        from gpujob.checks.engine import Checked
        from gpujob.services.vertex.request import check_display_name
        from gpujob.services.vertex.rules import scheduling_rules  # noqa: F401 (registers them)
        from gpujob.services.vertex.rules import translated as rules

        if options.job.display_name is not None:
            check_display_name(options.job.display_name)
        return Checked(*rules.check(doc, cat, refused, options))

    def listed_rules(self) -> list[Rule]:
        from gpujob.checks.rules import service_rules
        from gpujob.services.vertex.rules import scheduling_rules, translated  # noqa: F401 (registers them)

        return service_rules(self.name)

    def describe_costs(self, costs: list[tuple[str | None, Any]]) -> list[str]:
        from gpujob.services.vertex.pricing.cost_report import lines

        return lines(costs)

    def convert(self, doc: Document, checked: Checked, options: CheckOptions,
                output: str | None, whole_job: bool) -> Converted:
        from gpujob.services.vertex.native import convert

        return convert.convert(doc, checked, options, output, whole_job)

    def request(self, job: Job, gcp: GcpSettings, project: str | None,
                options: JobOptions) -> Request:
        from gpujob.services.vertex import request

        return request.request(job, gcp, project)

    def client(self, gcp: GcpSettings, session: Session | None = None,
               extra: tuple[tuple[str, str], ...] = ()) -> JobClient:
        from gpujob.services.vertex import jobs

        return jobs.client(gcp, session)

    def placement(self, client: JobClient) -> Placement:
        from gpujob.services.vertex.quota.failover import VertexPlacement

        return VertexPlacement(client)

    def recovery(self, client: JobClient, catalog: Any) -> Recovery:
        from gpujob.services.vertex.recovery import VertexRecovery

        return VertexRecovery(client, catalog)

    def offerings(self, settings: GpusSettings) -> int:
        from gpujob.services.vertex import offerings
        from gpujob.services.vertex.offerings import report as offerings_report
        from gpujob.services.vertex.offerings.table import PriceAsk

        cat = settings.check.catalog
        every = (settings.region or "").strip().lower() == "all"
        filters = offerings.resolve_filters(cat, settings.gpu, settings.machine_type,
                                            settings.count, None if every else settings.region,
                                            settings.zone)
        advise = None
        if settings.availability and settings.gcp is not None:
            from gpujob.services.vertex.quota.advice import advise_rows

            gcp, zone = settings.gcp, settings.zone
            advise = lambda rows: advise_rows(rows, gcp, zone)  # noqa: E731
        code = offerings_report.run(cat, filters, settings.output_format,
                                    PriceAsk(settings.sort or "price", every, advise))
        from gpujob.catalog import freshness
        from gpujob.console import CONSOLE

        CONSOLE.err(freshness.summary(cat))  # last, after the answer: how old its facts are
        return code

    def reserve(self, settings: ReserveSettings) -> int:
        from gpujob.services.vertex.quota.reserve import execute

        return execute(settings, settings.check.catalog)

    def completions(self, cat: Any) -> Offer:
        from gpujob.services.vertex import offerings

        return offerings.completions(cat)

    def local(self, doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
        from gpujob.services.vertex import local_env

        return local_env.cluster(doc, job_dir, options)


SERVICE: Service = Vertex()
