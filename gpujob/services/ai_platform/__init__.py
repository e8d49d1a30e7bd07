"""The ``ai-platform`` service: AI Platform Training (the ``ml v1`` API, ``api``).

The request is the checked config as it is (an AI Platform ``Job``), POSTed to the project's
``jobs``; a job is named by its ID, which the config (or gpujob) chooses. Its rules are
``rules``; its jobs, ``jobs``; ``gpujob gpus``, ``offerings``; what a local replica sees,
``local_env``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from gpujob.errors import UsageError
from gpujob.services.capabilities import Capability, ServiceBase

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
    from gpujob.services.ai_platform.jobs import Jobs
    from gpujob.services.base import Commands, JobRef, JobStatus, Links, Request, Service
    from gpujob.settings import GpusSettings, JobOptions

_JOB_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,127}")
_JOB_NAME = re.compile(r"projects/(?P<project>[^/]+)/jobs/(?P<job>[^/]+)")
_VERTEX_ONLY = "submit to Vertex AI (--service vertex, the default)"
# errors about what only the cloud needs: a local run goes on with a warning, as on Vertex
LOCAL_NEEDS_NOT = frozenset({"container.image-or-runtime"})


class AiPlatform(ServiceBase):
    """``base.Service`` for AI Platform Training."""

    name = "ai-platform"
    title = "AI Platform Training"
    # submit's flags are this service's fields, but for Vertex AI's
    unsupported_flags: ClassVar[dict[str, str]] = {
        "--executor-image-uri": "a Python package job runs on its runtimeVersion; "
                                f"{_VERTEX_ONLY}",
        "--strategy": f"AI Platform has no scheduling strategy; {_VERTEX_ONLY}",
        "--display-name": "an AI Platform job is named by its jobId alone (letters, digits and "
                          f"underscores): use --job-id, or {_VERTEX_ONLY}",
    }
    lacks: ClassVar[dict[Capability, str]] = {
        Capability.NATIVE_FORM: f"a native Vertex AI config is Vertex AI's; {_VERTEX_ONLY}",
        Capability.CONVERT: "an AI Platform config is in AI Platform's form already (check it "
                            "with gpujob validate --service ai-platform)",
        Capability.COSTS: f"gpujob has no prices for AI Platform; {_VERTEX_ONLY}",
        Capability.PLACEMENT: "one region per job: no choices, no quota preflight",
        Capability.PREFLIGHT: f"gpujob reads no quota of AI Platform's; {_VERTEX_ONLY}",
        Capability.REFRESH: "its catalog is fixed: the service takes no new jobs since "
                            "2025-01-31",
        Capability.RECOVER: "the service was shut down: it takes no new jobs since 2025-01-31",
    }

    @property
    def catalog(self) -> ModuleType:
        from gpujob.services.ai_platform import catalog

        return catalog

    def read(self, doc: Document, cat: Any, options: CheckOptions) -> Checked | None:
        """A native Vertex config is refused (one error); anything else is an AI Platform
        config."""
        found = doc.form
        if found is None:
            return None
        from gpujob.checks.engine import Checked
        from gpujob.findings import error

        return Checked([error("native.service", f"this is a native Vertex AI config (a "
                              f"{found}), which --service {self.name} cannot use", (),
                              doc.locate(()), "check and submit it with --service vertex "
                              "(the default)")])

    def rules(self, doc: Document, cat: Any, refused: set[JsonPath],
              options: CheckOptions) -> Checked:
        from gpujob.checks.engine import Checked
        from gpujob.config.job import view
        from gpujob.services.ai_platform import rules

        findings = rules.check(view(doc.data), cat, doc.locate, refused,
                               submit=options.submit and not options.local,
                               relax_region=options.local or not options.region_check)
        if options.local:  # the runtime is this machine's Python, as gcloud's local train has
            findings = [f._replace(severity="warning", message=f"{f.message} (AI Platform "
                                   "would refuse the job; a local run does not need it)")
                        if f.is_error and f.rule in LOCAL_NEEDS_NOT else f for f in findings]
        return Checked(findings, doc.data)

    def listed_rules(self) -> list[Rule]:
        from gpujob.checks.rules import service_rules
        from gpujob.services.ai_platform import rules  # noqa: F401  (registers them)

        return service_rules(self.name)

    def explain(self, findings: list[Finding], doc: Document, cat: Any) -> list[Finding]:
        """A name only Vertex AI takes (g2-standard-24, NVIDIA_L4) is said to be one."""
        from gpujob.services.ai_platform import vertex_only

        return vertex_only.explain(findings, doc.data, list(cat.machine_types), cat.gpu_types)

    def request(self, job: dict[str, Any], gcp: GcpSettings, project: str | None,
                options: JobOptions) -> Request:
        """The config as it is: an AI Platform ``Job``."""
        from gpujob.services.ai_platform.api import jobs_url
        from gpujob.services.base import Request

        return Request("POST", jobs_url(gcp, project or "PROJECT"), job, "Job",
                       job_id=job["jobId"])

    def client(self, gcp: GcpSettings, session: Session | None = None,
               extra: tuple[tuple[str, str], ...] = ()) -> Jobs:
        from gpujob.gcp.session import Session
        from gpujob.services.ai_platform.api import MlClient
        from gpujob.services.ai_platform.jobs import Jobs

        return Jobs(MlClient(session if session is not None else Session(gcp)))

    def status(self, raw: dict[str, Any]) -> JobStatus:
        from gpujob.services.ai_platform.api import TERMINAL_STATES

        state = str(raw.get("state", "STATE_UNSPECIFIED"))
        from gpujob.services.base import JobStatus

        return JobStatus(id=str(raw.get("jobId", "?")), state=state,
                         done=state in TERMINAL_STATES, succeeded=state == "SUCCEEDED",
                         message=raw.get("errorMessage") or "", created=raw.get("createTime"))

    def parse_ref(self, text: str) -> JobRef:
        """A job given as ``ID`` or as ``projects/P/jobs/ID`` (its project then wins)."""
        project = None
        found = _JOB_NAME.fullmatch(text)
        if found:
            text, project = found["job"], found["project"]
        if not _JOB_ID.fullmatch(text):
            raise UsageError(f"'{text}' is not a job ID",
                             "job IDs start with a letter and hold letters, digits and '_' (up "
                             "to 128); gpujob list --service ai-platform shows the project's jobs")
        from gpujob.services.base import JobRef

        return JobRef(text, project)

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        """As gcloud links them."""
        from gpujob.services.base import Links

        return Links(f"https://console.cloud.google.com/mlengine/jobs/{job_id}?project={project}",
                     "https://console.cloud.google.com/logs?resource=ml_job%2Fjob_id%2F"
                     f"{job_id}&project={project}")

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands:
        def command(verb: str, extra: str = "") -> str:
            # --service: pasted without it, the command would look in the default (vertex)
            return f"gpujob {verb} {job_id} --service ai-platform --project {project}{extra}"

        from gpujob.services.base import Commands

        return Commands(describe=command("describe"), wait=command("wait"),
                        logs=command("logs"), follow_logs=command("logs", " --follow"),
                        cancel=command("cancel"))

    def offerings(self, settings: GpusSettings) -> int:
        from gpujob.services.ai_platform import offerings
        from gpujob.services.offerings import without_advice, without_prices

        without_advice(self.title, settings.availability)
        cat = settings.check.catalog
        region = without_prices(self.title, settings.region, settings.sort)
        filters = offerings.resolve_filters(cat, settings.gpu, settings.machine_type,
                                            settings.count, region, settings.zone)
        return offerings.run(cat, filters, settings.output_format)

    def completions(self, cat: Any) -> Offer:
        from gpujob.services.ai_platform import offerings

        return offerings.completions(cat)

    def local(self, doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
        from gpujob.services.ai_platform import local_env

        return local_env.cluster(doc, job_dir, options)


SERVICE: Service = AiPlatform()
