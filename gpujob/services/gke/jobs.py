"""GKE jobs: the create request, a JobSet's state in every service's terms, names, links and
the commands that follow a job. The client itself (``api.Jobs``) is imported when a job command
runs (the ``kubernetes`` library)."""

from __future__ import annotations

import copy
import secrets
import shlex
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError, UsageError
from gpujob.services.base import Commands, Created, JobRef, JobStatus, Links, Request
from gpujob.services.gke import translate
from gpujob.services.gke.names import DNS_1035

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.gke.api import Api

JOBSET_LABEL = "jobset.sigs.k8s.io/"
WHY_KEY = "gpujobWorkload"  # added to a suspended JobSet: its Kueue Workload's conditions


def collection(namespace: str) -> str:
    """The path of a namespace's JobSets on the API server."""
    return (f"/apis/{translate.GROUP}/{translate.VERSION}/namespaces/{namespace}/"
            f"{translate.PLURAL}")


def submission_token(now: datetime | None = None) -> str:
    """A label value of its own for one submission (time to the microsecond, 8 random hex
    digits): a resent create finds its own JobSet by it."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%d-%H%M%S-%f}-{secrets.token_hex(4)}"


def request(job: translate.Translation) -> Request:
    """POST the JobSet, with the submission's label, to its namespace's collection; the JobSet's
    name is the job's ID (and the create's idempotency key)."""
    body = copy.deepcopy(job.body)
    body["metadata"].setdefault("labels", {})[translate.SUBMISSION_LABEL] = submission_token()
    return Request("POST", collection(job.namespace), body, "JobSet", job_id=job.name,
                   origins=job.origins, media="yaml", project_scoped=False)


def _condition(raw: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for c in (raw.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == kind and c.get("status") == "True":
            return c
    return None


def status(raw: dict[str, Any]) -> JobStatus:
    """A JobSet's state: Completed or Failed by its conditions (JobSet has no Running
    condition), Suspended (queued by Kueue, or suspended), Running when a Job is active, else
    Pending; a Workload's word on why it is not admitted comes in ``summary``."""
    meta = raw.get("metadata") or {}
    st = raw.get("status") or {}
    name, created = str(meta.get("name", "?")), meta.get("creationTimestamp")
    done = _condition(raw, "Completed")
    failed = _condition(raw, "Failed")
    if done is not None or st.get("terminalState") == "Completed":
        return JobStatus(name, "COMPLETED", True, True, created=created)
    if failed is not None or st.get("terminalState") == "Failed":
        message = str((failed or {}).get("message") or "")
        return JobStatus(name, "FAILED", True, False, message, created=created,
                         hint="kubectl describe jobset and its pods tell more")
    if meta.get("deletionTimestamp"):  # gpujob cancel: it is going, with its pods
        return JobStatus(name, "CANCELLED", True, False, "the JobSet is being deleted",
                         created=created)
    queued = tuple(str(line) for line in raw.get(WHY_KEY) or ())
    if (raw.get("spec") or {}).get("suspend") or _condition(raw, "Suspended"):
        return JobStatus(name, "SUSPENDED", False, False, created=created, summary=queued)
    active = sum(int(r.get("active", 0) or 0) + int(r.get("ready", 0) or 0)
                 for r in st.get("replicatedJobsStatus") or [] if isinstance(r, dict))
    return JobStatus(name, "RUNNING" if active else "PENDING", False, False, created=created)


def parse_ref(text: str) -> JobRef:
    """A JobSet by its name (``namespace/name`` also names its namespace)."""
    namespace, _, name = text.rpartition("/")
    if not DNS_1035.fullmatch(name) or len(name) > 63:
        raise UsageError(f"'{text}' is not a JobSet name",
                         "JobSet names are lower-case letters, digits and '-'; gpujob list "
                         "--service gke shows the namespace's JobSets")
    return JobRef(name, location=namespace or None)


def _where(project: str, location: str | None) -> tuple[str, str | None]:
    """The context and namespace (None: default) a client's ``project`` (``CONTEXT/NS``,
    ``Jobs.project``) names: split at the last '/', as a namespace has none and a context
    (EKS's, OpenShift's) may."""
    context, _, namespace = project.rpartition("/")
    if not context:
        context, namespace = project, ""
    namespace = location or namespace
    return shlex.quote(context), None if namespace in ("", "default") else namespace


def links(job_id: str, project: str, location: str | None = None) -> Links:
    """kubectl commands stand in for console pages: the cluster is the user's."""
    context, namespace = _where(project, location)
    ns = f" -n {namespace}" if namespace else ""
    return Links(f"kubectl --context {context} get jobset {job_id}{ns}",
                 f"kubectl --context {context} logs -l {JOBSET_LABEL}jobset-name={job_id}"
                 f"{ns} --prefix")


def commands(job_id: str, project: str, location: str | None = None) -> Commands:
    context, namespace = _where(project, location)

    def command(verb: str, more: str = "") -> str:
        ns = f" --namespace {namespace}" if namespace else ""
        return f"gpujob {verb} {job_id} --service gke --context {context}{ns}{more}"

    return Commands(describe=command("describe"), wait=command("wait"), logs=command("logs"),
                    follow_logs=command("logs", " --follow"), cancel=command("cancel"))


def client(gcp: GcpSettings, extra: tuple[tuple[str, str], ...]) -> Jobs:
    from gpujob.services.gke.api import Api, connect

    values = dict(extra)
    return Jobs(Api(connect(values.get("--context")), gcp), values.get("--namespace"))


def _entries(pod: dict[str, Any], text: str, since: str | None) -> Iterator[dict[str, Any]]:
    """A pod's log lines (``TIMESTAMP MESSAGE``, kubelet's --timestamps form) as log entries
    named by the replica (``worker-3``)."""
    from gpujob.gcp.proto3 import parse_time

    labels = pod.get("labels") or {}
    replica = (f"{labels.get(JOBSET_LABEL + 'replicatedjob-name', '?')}-"
               f"{labels.get(JOBSET_LABEL + 'job-index', '?')}")
    start = parse_time(since)
    for n, line in enumerate(text.splitlines()):
        stamp, _, message = line.partition(" ")
        when = parse_time(stamp)
        if start is not None and when is not None and when < start:
            continue
        yield {"insertId": f"{pod['name']}/{n}", "timestamp": stamp, "severity": "DEFAULT",
               "labels": {"task_name": replica}, "textPayload": message}


class Jobs:
    """``base.JobClient`` for the JobSets of one namespace of one cluster."""

    session = None

    def __init__(self, api: Api, namespace: str | None) -> None:
        self.api = api
        self.namespace = namespace or "default"
        self.clock = api.clock
        context = api.conn.context
        self.project = f"{context}/{self.namespace}"  # _where splits it

    def _ns(self, ref: JobRef) -> str:
        return ref.location or self.namespace

    def create(self, request: Request) -> Created:
        """POST the JobSet. After an answer that never came (a broken connection, 429, 5xx) it
        is sent again: a JobSet of its name that carries this submission's label is the one the
        lost answer was about (adopted, ``recovered``); one without it is someone else's."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        from gpujob.services.gke.api import status_of

        body, name = request.body, str(request.body["metadata"]["name"])
        ns = str(body["metadata"].get("namespace") or self.namespace)
        token = body["metadata"]["labels"][translate.SUBMISSION_LABEL]
        sent = False  # an earlier try may have made it: a 5xx, or no answer at all

        def attempt() -> Any:
            nonlocal sent
            try:
                return self.api.custom.create_namespaced_custom_object(
                    translate.GROUP, translate.VERSION, ns, translate.PLURAL, body,
                    _request_timeout=self.api.timeout)
            except ApiException as exc:
                if exc.status == 409 and status_of(exc).get("reason", "") in ("AlreadyExists", ""):
                    return None  # a JobSet of its name: ours (a lost answer) or someone else's
                sent = sent or exc.status >= 500
                raise
            except (HTTPError, OSError):
                sent = True
                raise

        made = self.api.call(f"creating JobSet {name} in namespace {ns}", attempt)
        return Created(made, recovered=False) if made is not None else \
            self._adopt(name, ns, token, sent)

    def _adopt(self, name: str, ns: str, token: str, sent: bool) -> Created:
        found = self.api.call(f"reading JobSet {name}", lambda: self.api.custom.
                              get_namespaced_custom_object(translate.GROUP, translate.VERSION,
                                                           ns, translate.PLURAL, name))
        labels = (found.get("metadata") or {}).get("labels") or {}
        if labels.get(translate.SUBMISSION_LABEL) == token:
            return Created(found, recovered=sent)
        raise RemoteError(f"a JobSet named {name} already exists in namespace {ns} (made by "
                          "another submission); nothing was created",
                          "give another --job-id, or look at it: "
                          f"{commands(name, self.project, ns).describe}")

    def get(self, ref: JobRef) -> dict[str, Any]:
        ns = self._ns(ref)
        raw: dict[str, Any] = self.api.call(
            f"reading JobSet {ref.id}", lambda: self.api.custom.get_namespaced_custom_object(
                translate.GROUP, translate.VERSION, ns, translate.PLURAL, ref.id,
                _request_timeout=self.api.timeout))
        if status(raw).state == "SUSPENDED":
            why = workload_conditions(self.api, ns, str(raw["metadata"].get("uid", "")))
            if why:
                raw[WHY_KEY] = why
        return raw

    def list(self, filter_: str | None, limit: int | None) -> Iterator[dict[str, Any]]:
        """The namespace's JobSets; ``filter_`` is a label selector (``team=a``)."""
        answer = self.api.call(f"listing JobSets in namespace {self.namespace}",
                               lambda: self.api.custom.list_namespaced_custom_object(
                                   translate.GROUP, translate.VERSION, self.namespace,
                                   translate.PLURAL, label_selector=filter_ or "",
                                   limit=limit or 0, _request_timeout=self.api.timeout))
        yield from answer.get("items") or []

    def cancel(self, ref: JobRef) -> str | None:
        """Delete the JobSet (its Jobs and pods go with it); the state, when it had ended."""
        found = status(self.get(ref))
        if found.done:
            return found.state
        ns = self._ns(ref)
        self.api.call(f"deleting JobSet {ref.id}", lambda: self.api.custom.
                      delete_namespaced_custom_object(translate.GROUP, translate.VERSION, ns,
                                                      translate.PLURAL, ref.id,
                                                      propagation_policy="Foreground"))
        return None

    def log_entries(self, ref: JobRef, since: str | None) -> Iterable[dict[str, Any]]:
        """Each pod's log (its ``trainer`` container), each line with its replica, oldest
        first. Pods not started yet have none; pods deleted with their JobSet none left."""
        from kubernetes.client.exceptions import ApiException

        from gpujob.gcp.proto3 import parse_time

        ns = self._ns(ref)
        pods = self.api.call(f"listing the pods of JobSet {ref.id}",
                             lambda: self.api.core.list_namespaced_pod(
                                 ns, label_selector=f"{JOBSET_LABEL}jobset-name={ref.id}",
                                 _request_timeout=self.api.timeout))
        entries: list[dict[str, Any]] = []
        for pod in pods.items:
            if pod.metadata is None or pod.metadata.name is None:
                continue  # (every pod the API lists has a name)
            meta = {"name": pod.metadata.name, "labels": pod.metadata.labels or {}}

            def read(name: str = pod.metadata.name) -> str | None:
                try:
                    return self.api.core.read_namespaced_pod_log(
                        name, ns, container=translate.CONTAINER, timestamps=True,
                        _request_timeout=self.api.timeout)
                except ApiException as exc:
                    if exc.status in (400, 404):  # not started yet, or gone
                        return None
                    raise

            text = self.api.call(f"reading the logs of JobSet {ref.id}", read)
            if text is not None:
                entries += _entries(meta, text, since)
        return sorted(entries, key=lambda e: (str(parse_time(e["timestamp"])), e["insertId"]))

    def resolve(self, ref: JobRef) -> JobRef:
        return JobRef(ref.id, location=self._ns(ref))

    def check_access(self, request: Request) -> None:
        ns = str(request.body["metadata"].get("namespace") or self.namespace)
        self.api.call(f"listing JobSets in namespace {ns}",
                      lambda: self.api.custom.list_namespaced_custom_object(
                          translate.GROUP, translate.VERSION, ns, translate.PLURAL, limit=1,
                          _request_timeout=self.api.timeout))


def workload_conditions(api: Api, ns: str, uid: str) -> list[str]:
    """What Kueue's Workload for the JobSet says of why it is not admitted (its conditions
    that are False, and admission checks not Ready)."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    for version in ("v1beta2", "v1beta1"):
        try:
            answer = api.custom.list_namespaced_custom_object(
                "kueue.x-k8s.io", version, ns, "workloads",
                label_selector=f"kueue.x-k8s.io/job-uid={uid}", _request_timeout=api.timeout)
        except ApiException as exc:
            if exc.status == 404:
                continue
            return []
        except (HTTPError, OSError):  # advice only: the JobSet's own state is still said
            return []
        lines = []
        for item in answer.get("items") or []:
            st = item.get("status") or {}
            for c in st.get("conditions") or []:
                if c.get("type") in ("QuotaReserved", "Admitted", "Evicted") and \
                        (c.get("status") == "False") == (c.get("type") != "Evicted"):
                    lines.append(f"Kueue: {c.get('type')} {c.get('status')} "
                                 f"({c.get('reason', '')}): {c.get('message', '')}")
            for check in st.get("admissionChecks") or []:
                if check.get("state") != "Ready":
                    lines.append(f"Kueue: admission check {check.get('name')} is "
                                 f"{check.get('state')}: {check.get('message', '')}")
        return lines
    return []
