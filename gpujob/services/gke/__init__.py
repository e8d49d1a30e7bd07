"""The ``gke`` service: the job as a JobSet (``jobset.x-k8s.io/v1alpha2``) on the user's own GKE
cluster, optionally queued by Kueue (``--queue``).

An AI Platform config is translated once (``translate``) and checked (``rules``, over the
catalog of Compute Engine machine types and the GPUs GKE labels nodes with); the JobSet is the
request, printed as YAML by the dry-run. Jobs are created, read, listed, deleted and their pods'
logs read with the official ``kubernetes`` client and the user's kubeconfig (``api``, ``jobs``),
imported only when a job command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from gpujob.services.capabilities import Capability, ServiceBase
from gpujob.services.delegate import JobsInModule
from gpujob.services.flags import ServiceFlag
from gpujob.services.gke.unused import KMS, NETWORK, WEB

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
    from gpujob.services.gke.translate import Translation
    from gpujob.settings import GpusSettings, JobOptions


# the flags' checks import what they check with when a value is given: every command's command
# line is built with every service's flags
def _queue(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.names import label

    return label("a Kueue LocalQueue")(value)


def _namespace(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.names import label

    return label("a namespace")(value)


def _priority(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.scheduling import check_subdomain

    return check_subdomain("a PriorityClass")(value)


def _topology(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.scheduling import check_topology

    return check_topology(value)


def _gpudirect_mode(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.pods import check_mode

    return check_mode(value)


def _reservation(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.capacity import check_reservation

    return check_reservation(value)


def _max_restarts(value: str) -> tuple[str, str] | None:
    from gpujob.services.gke.capacity import check_restarts

    return check_restarts(value)


_NO_GCP = "a GKE job runs on the cluster of your kubeconfig, not in a Google Cloud service"


class Gke(JobsInModule, ServiceBase):
    """``base.Service`` for JobSets on GKE."""

    name = "gke"
    title = "GKE (JobSet)"
    jobs_module = "gpujob.services.gke.jobs"
    unsupported_flags: ClassVar[dict[str, str]] = {
        "--display-name": "a JobSet is named by its jobId (--job-id; lower case, '-' for '_'); "
                          "a job of gcloud's --worker-pool-spec: write it whole (gpujob "
                          "convert --whole-job -o job.yaml …), then gpujob submit job.yaml "
                          "--service gke --dry-run prints the JobSet it becomes",
        "--kms-key": KMS,
        "--kms-keyring": KMS,
        "--kms-location": KMS,
        "--kms-project": KMS,
        "--network": NETWORK,
        "--enable-web-access": WEB,
        "--no-enable-web-access": WEB,
        "--api-endpoint": "the API server is your kubeconfig's (--context)",
        "--impersonate-service-account": "the kubeconfig's user authenticates (--context)",
        "--credentials-file": "the kubeconfig's user authenticates (--context)",
        "--project": _NO_GCP + " (--context names the cluster)",
    }
    lacks: ClassVar[dict[Capability, str]] = {
        Capability.COSTS: "gpujob has no prices for a cluster's nodes (they are billed as "
                          "Compute Engine VMs, whatever runs on them)",
        # one cluster, whose queue (Kueue) decides
        Capability.PLACEMENT: "a JobSet goes to one cluster, whose queue (Kueue) decides when "
                              "and where it runs",
        Capability.REFRESH: "its catalog's facts change with gpujob's releases",
        Capability.RECOVER: "a JobSet restarts itself when a pod fails (its failurePolicy: "
                            "--max-restarts)",
    }
    flags = (
        ServiceFlag("--queue", "Kueue LocalQueue the JobSet waits in "
                    "(label kueue.x-k8s.io/queue-name; the JobSet is created suspended).",
                    "GPUJOB_GKE_QUEUE", "QUEUE", scope="job",
                    check=_queue),
        ServiceFlag("--namespace", "Kubernetes namespace of the JobSet [default: default].",
                    "GPUJOB_GKE_NAMESPACE", "NAMESPACE", check=_namespace),
        ServiceFlag("--context", "kubeconfig context of the cluster (default: the current "
                    "one; KUBECONFIG names the files).", "GPUJOB_GKE_CONTEXT", "CONTEXT"),
        ServiceFlag("--priority", "PriorityClass of the JobSet's pods (priorityClassName; "
                    "Kueue orders and preempts by it).", "GPUJOB_GKE_PRIORITY", "CLASS",
                    scope="job", check=_priority),
        ServiceFlag("--topology", "With --queue: Kueue places the master and workers in one "
                    "domain of this topology level, a node label (kubernetes.io/hostname, "
                    "cloud.google.com/gce-topology-block); preferred, or required:LABEL.",
                    "GPUJOB_GKE_TOPOLOGY", "LABEL", scope="job",
                    check=_topology),
        ServiceFlag("--gpudirect", "GPUDirect (TCPX, TCPXO, RDMA) for a job on A3/A4 machines: "
                    "auto (on for 2 or more nodes where the cluster has its networks), on or off "
                    "[default: auto].",
                    "GPUJOB_GKE_GPUDIRECT", "auto|on|off", scope="checks",
                    check=_gpudirect_mode),
        ServiceFlag("--reservation", "Run on the nodes of this Compute Engine reservation "
                    "(NAME or projects/P/zones/Z/reservations/NAME): the pods select "
                    "cloud.google.com/reservation-name; any: what GKE nodes do anyway.",
                    None, "NAME|any",
                    scope="checks", check=_reservation),
        ServiceFlag("--max-restarts", "How often a failed JobSet is restarted (a Spot "
                    "preemption does not count) [default: 0].", "GPUJOB_GKE_MAX_RESTARTS", "N",
                    scope="checks", check=_max_restarts),
    )

    @property
    def catalog(self) -> ModuleType:
        from gpujob.services.gke import catalog

        return catalog

    def read(self, doc: Document, cat: Any, options: CheckOptions) -> Checked | None:
        """A native Vertex config (a CustomJobSpec or CustomJob file), read as for Vertex AI
        and checked and translated as the AI Platform config it describes (``native``)."""
        found = doc.form
        if found is None:
            return None
        from gpujob.services.gke import native

        return native.check(doc, cat, options, found)

    def rules(self, doc: Document, cat: Any, refused: set[JsonPath],
              options: CheckOptions) -> Checked:
        from gpujob.checks.engine import Checked
        from gpujob.services.gke import rules

        return Checked(*rules.check(doc, cat, refused, options))

    def listed_rules(self) -> list[Rule]:
        from gpujob.checks.rules import service_rules
        from gpujob.services.gke import rules  # noqa: F401  (registers them)

        return service_rules(self.name)

    def explain(self, findings: list[Finding], doc: Document, cat: Any) -> list[Finding]:
        from gpujob.services.gke import rules

        return rules.relax(findings, doc)

    def convert(self, doc: Document, checked: Checked, options: CheckOptions,
                output: str | None, whole_job: bool) -> Converted:
        """The JobSet, as ``submit --dry-run`` prints it (``kubectl apply -f`` takes it)."""
        import yaml

        from gpujob.gcp.settings import GcpSettings
        from gpujob.services.base import Converted

        if checked.job is None or any(f.is_error for f in checked.findings):
            return Converted(None)
        body = self.request(checked.job, GcpSettings(), None, options.job).body
        docs = [*checked.job.companions, body]  # a ComputeDomain first (``domains``)
        return Converted(yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True,
                                            width=100),
                         notes=[f"The JobSet {body['metadata']['name']} in namespace "
                                f"{body['metadata']['namespace']}: kubectl apply -f FILE "
                                "creates it (gpujob submit --service gke sends it once)"])

    def request(self, job: Translation, gcp: GcpSettings, project: str | None,
                options: JobOptions) -> Request:
        from gpujob.services.gke import jobs

        return jobs.request(job)

    def client(self, gcp: GcpSettings, session: Session | None = None,
               extra: tuple[tuple[str, str], ...] = ()) -> JobClient:
        from gpujob.services.gke import jobs

        return jobs.client(gcp, extra)

    def preflight(self, job: Any, gcp: GcpSettings, extra: tuple[tuple[str, str], ...],
                  output_format: str,
                  availability: tuple[str | None, str | None] | None = None) -> int:
        """``gpujob preflight``: what the cluster lacks for the checked job's JobSet: JobSet,
        Kueue's queues, nodes of the machine and GPU, drivers, the GCS FUSE driver; with
        --availability Compute Engine's capacity advice for its nodes (your own VMs)."""
        from gpujob.services.gke import preflight

        return preflight.run(job, gcp, dict(extra), output_format, availability)

    def scope(self, project: str) -> str:
        """Where the JobSets are (``project`` is ``CONTEXT/NAMESPACE``): not a project."""
        from gpujob.services.gke import jobs

        return jobs.scope(project)

    def cancelled(self, job_id: str, project: str, location: str | None) -> list[str]:
        """What ``cancel`` says: the JobSet is deleted, and no CANCELLED state follows."""
        from gpujob.services.gke import jobs

        return [f"JobSet {job_id} deleted (its Jobs and pods go with it).",
                f"  {jobs.commands(job_id, project, location).list} shows what is left"]

    def offerings(self, settings: GpusSettings) -> int:
        from gpujob.services.gke import offerings

        return offerings.run(settings)

    def completions(self, cat: Any) -> Offer:
        from gpujob.services.gke import offerings

        return offerings.completions(cat)

    def local(self, doc: Document, job_dir: str, options: LocalOptions) -> LocalCluster:
        from gpujob.services.gke import local_env

        return local_env.cluster(doc, job_dir, options)


SERVICE: Service = Gke()
