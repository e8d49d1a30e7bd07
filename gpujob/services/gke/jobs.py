"""GKE jobs: the create request, a JobSet's state in every service's terms, names, links and
the commands that follow a job. The client itself (``api.Jobs``) is imported when a job command
runs (the ``kubernetes`` library)."""

from __future__ import annotations

import copy
import secrets
import shlex
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError, UsageError
from gpujob.services.base import Commands, Created, JobRef, JobStatus, Links, Request
from gpujob.services.gke import pods, translate
from gpujob.services.gke.names import DNS_1035
from gpujob.services.gke.translate import JOBSET_LABEL

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.gke.api import Api

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


@dataclass(frozen=True)
class JobSetRequest(Request):
    """The JobSet's create; with ``--gpudirect auto`` on, what the create sends instead where
    the cluster lacks GPUDirect's networks (``off``, ``networks.choose``)."""

    auto: pods.Auto | None = None
    uris: Mapping[str, str] = field(default_factory=dict)  # the packages ``staged`` put in

    def staged(self, uris: Mapping[str, str]) -> JobSetRequest:
        done = super().staged(uris)
        return replace(done, uris={**self.uris, **uris}) if uris else done

    def off(self) -> dict[str, Any]:
        """The JobSet ``--gpudirect off`` gives (translated now), with this submission's label
        and staged packages, as ``body`` has them."""
        assert self.auto is not None, "only --gpudirect auto has another JobSet"
        body = copy.deepcopy(self.auto.off())
        body["metadata"].setdefault("labels", {})[translate.SUBMISSION_LABEL] = \
            self.body["metadata"]["labels"][translate.SUBMISSION_LABEL]
        return Request(self.method, self.url, body).staged(self.uris).body


def request(job: translate.Translation) -> Request:
    """POST the JobSet, with the submission's label, to its namespace's collection; the JobSet's
    name is the job's ID (and the create's idempotency key)."""
    body = copy.deepcopy(job.body)
    body["metadata"].setdefault("labels", {})[translate.SUBMISSION_LABEL] = submission_token()
    return JobSetRequest("POST", collection(job.namespace), body, "JobSet", job_id=job.name,
                         origins=job.origins, media="yaml", project_scoped=False,
                         companions=job.companions, auto=job.auto)


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


def scope(project: str) -> str:
    """``context [C], namespace [N]`` for a client's ``project`` (``CONTEXT/NAMESPACE``)."""
    context, _, namespace = project.rpartition("/")
    return f"context [{context or project}], namespace [{namespace or 'default'}]"


def links(job_id: str, project: str, location: str | None = None) -> Links:
    """kubectl commands stand in for console pages: the cluster is the user's."""
    context, namespace = _where(project, location)
    ns = f" -n {namespace}" if namespace else ""
    return Links(f"kubectl --context {context} get jobset {job_id}{ns}",
                 f"kubectl --context {context} logs -l {JOBSET_LABEL}jobset-name={job_id}"
                 f"{ns} --prefix", label="status")


@dataclass(frozen=True)
class GkeCommands(Commands):
    list: str = ""  # the namespace's JobSets


def commands(job_id: str, project: str, location: str | None = None) -> GkeCommands:
    context, namespace = _where(project, location)

    def command(verb: str, more: str = "") -> str:
        ns = f" --namespace {namespace}" if namespace else ""
        return f"gpujob {verb} {job_id} --service gke --context {context}{ns}{more}"

    return GkeCommands(describe=command("describe"), wait=command("wait"),
                       logs=command("logs"), follow_logs=command("logs", " --follow"),
                       cancel=command("cancel"),
                       list=command("list").replace(f"list {job_id} ", "list "))


def client(gcp: GcpSettings, extra: tuple[tuple[str, str], ...]) -> Jobs:
    from gpujob.services.gke.api import Api, connect

    values = dict(extra)
    return Jobs(Api(connect(values.get("--context"), gcp.request_timeout), gcp),
                values.get("--namespace"))


class Jobs:
    """``base.JobClient`` for the JobSets of one namespace of one cluster. Every answer is read
    whole within ``--request-timeout`` and checked before use (``answers``)."""

    session = None

    def __init__(self, api: Api, namespace: str | None) -> None:
        self.api = api
        self.namespace = namespace or "default"
        self.clock = api.clock
        context = api.conn.context
        self.project = f"{context}/{self.namespace}"  # _where splits it

    def ns(self, ref: JobRef) -> str:
        return ref.location or self.namespace

    def _missing(self, name: str, ns: str) -> str:
        return (f"no JobSet {name} in namespace {ns}: it may have been deleted (gpujob cancel "
                f"deletes it); {commands(name, self.project, ns).list} shows the namespace's "
                "JobSets")

    def _jobset(self, what: str, call: Any, missing: str | None = None) -> dict[str, Any]:
        from gpujob.services.gke import answers

        return answers.jobset(answers.json_object(self.api.read(what, call, missing), what),
                              what)

    def create(self, request: Request) -> Created:
        """POST the JobSet (``_create``), with what is made with it (a ComputeDomain: the
        cluster is asked first whether it would make it, and nothing is sent if not; if it
        still fails after the JobSet, the JobSet is deleted again, as its pods would wait for
        it for ever)."""
        from gpujob.services.gke import domains

        ns = str(request.body["metadata"].get("namespace") or self.namespace)
        if request.companions:
            domains.check(self.api, request.companions, ns)
        created = self._create(request)
        if request.companions:
            try:
                domains.create(self.api, request.companions, created.raw, ns)
            except RemoteError as exc:
                kinds = ", ".join(sorted({str(o["kind"]) for o in request.companions}))
                raise self._undo(str(created.raw["metadata"]["name"]), ns, kinds, exc) \
                    from None
        return created

    def _undo(self, name: str, ns: str, kinds: str, failed: RemoteError) -> RemoteError:
        """Delete the JobSet just made whose ``kinds`` were not made; what to say."""
        from kubernetes.client.exceptions import ApiException

        said = f"JobSet {name} was created, but its {kinds} was not: {failed.message}"

        def delete() -> None:
            try:
                self.api.custom.delete_namespaced_custom_object(
                    translate.GROUP, translate.VERSION, ns, translate.PLURAL, name,
                    propagation_policy="Background", _preload_content=False,
                    _request_timeout=self.api.timeout)
            except ApiException as exc:
                if exc.status != 404:  # gone already
                    raise

        try:
            self.api.call(f"deleting JobSet {name}", delete)
        except RemoteError as exc:
            return RemoteError(f"{said}; deleting the JobSet failed too ({exc.message}): its "
                               f"pods wait for the {kinds}",
                               f"{commands(name, self.project, ns).cancel} deletes it"
                               + (f"; {failed.hint}" if failed.hint else ""))
        return RemoteError(f"{said}; the JobSet was deleted again (its pods would have waited "
                           f"for the {kinds} for ever): nothing is left", failed.hint)

    def _create(self, request: Request) -> Created:
        """POST the JobSet. After an answer that never came (a broken connection, 429, 5xx) it
        is sent again: a JobSet of its name that carries this submission's label is the one the
        lost answer was about (adopted, ``recovered``); one without it is someone else's. An
        answer that cannot be read is not a reason to send it again: the JobSet is read back by
        its name and label."""
        from kubernetes.client.exceptions import ApiException

        from gpujob.services.gke import answers
        from gpujob.services.gke.api import status_of

        body, name = request.body, str(request.body["metadata"]["name"])
        if isinstance(request, JobSetRequest) and request.auto is not None:
            from gpujob.services.gke import networks  # with GPUDirect where the cluster has them

            body = networks.choose(self.api, body, request.auto, request.off)
        ns = str(body["metadata"].get("namespace") or self.namespace)
        token = body["metadata"]["labels"][translate.SUBMISSION_LABEL]
        what = f"creating JobSet {name} in namespace {ns}"

        def attempt() -> tuple[str, bytes] | None:
            try:
                response = self.api.custom.create_namespaced_custom_object(
                    translate.GROUP, translate.VERSION, ns, translate.PLURAL, body,
                    _preload_content=False, _request_timeout=self.api.timeout)
                return str(response.headers.get("Content-Type") or ""), response.data or b""
            except ApiException as exc:
                if exc.status == 409 and status_of(exc).get("reason", "") in ("AlreadyExists", ""):
                    return None  # a JobSet of its name: ours (a lost answer) or someone else's
                raise

        made = self.api.call(what, attempt)
        if made is None:
            return self._adopt(name, ns, token)
        try:
            raw = answers.jobset(answers.json_object(answers.decode(made[1], made[0]), what),
                                 what)
            if (raw.get("metadata") or {}).get("name") != name:
                raise answers.bad(what, f"does not name JobSet {name}")
        except answers.BadAnswer as exc:
            return self._read_back(name, ns, token, exc.message)
        return Created(raw, recovered=False)

    def _read_back(self, name: str, ns: str, token: str, why: str) -> Created:
        """The JobSet a create made whose answer could not be read, by its name and label."""
        look = commands(name, self.project, ns).describe
        try:
            found = self._jobset(f"reading JobSet {name}", self._get_call(name, ns))
        except RemoteError as exc:
            found, why = {}, f"{why}; reading it back: {exc.message}"
        labels = (found.get("metadata") or {}).get("labels") or {}
        if labels.get(translate.SUBMISSION_LABEL) != token:
            raise RemoteError(f"the JobSet may have been created: {name} (namespace {ns}); "
                              f"{why}", f"look before submitting again: {look}")
        self.api.echo(f"note: {why}; JobSet {name} was created (read back from the cluster)")
        return Created(found, recovered=False)

    def _get_call(self, name: str, ns: str) -> Any:
        return lambda: self.api.custom.get_namespaced_custom_object(
            translate.GROUP, translate.VERSION, ns, translate.PLURAL, name,
            _preload_content=False, _request_timeout=self.api.timeout)

    def _adopt(self, name: str, ns: str, token: str) -> Created:
        """After a 409: the JobSet of that name is this submission's (its label is this
        submission's own, so an earlier try made it, whose answer was lost or came too late)
        or someone else's."""
        found = self._jobset(f"reading JobSet {name}", self._get_call(name, ns))
        labels = (found.get("metadata") or {}).get("labels") or {}
        if labels.get(translate.SUBMISSION_LABEL) == token:
            return Created(found, recovered=True)
        raise RemoteError(f"a JobSet named {name} already exists in namespace {ns} (made by "
                          "another submission); nothing was created",
                          "give another --job-id, or look at it: "
                          f"{commands(name, self.project, ns).describe}")

    def get(self, ref: JobRef) -> dict[str, Any]:
        ns = self.ns(ref)
        raw = self._jobset(f"reading JobSet {ref.id} in namespace {ns}",
                           self._get_call(ref.id, ns), self._missing(ref.id, ns))
        if status(raw).state == "SUSPENDED":
            from gpujob.services.gke.workloads import conditions

            why = conditions(self.api, ns, str(raw["metadata"].get("uid", "")))
            if why:
                raw[WHY_KEY] = why
        return raw

    def list(self, filter_: str | None, limit: int | None) -> Iterator[dict[str, Any]]:
        """The namespace's JobSets; ``filter_`` is a label selector (``team=a``)."""
        from gpujob.services.gke import answers

        what = f"listing JobSets in namespace {self.namespace}"
        text = self.api.read(what, lambda: self.api.custom.list_namespaced_custom_object(
            translate.GROUP, translate.VERSION, self.namespace, translate.PLURAL,
            label_selector=filter_ or "", limit=limit or 0, _preload_content=False,
            _request_timeout=self.api.timeout))
        yield from answers.jobsets(answers.json_object(text, what), what)

    def cancel(self, ref: JobRef) -> str | None:
        """Delete the JobSet (its Jobs and pods go with it); the state, when it had ended."""
        found = status(self.get(ref))
        if found.done:
            return found.state
        ns = self.ns(ref)
        self.api.read(f"deleting JobSet {ref.id}", lambda: self.api.custom.
                      delete_namespaced_custom_object(translate.GROUP, translate.VERSION, ns,
                                                      translate.PLURAL, ref.id,
                                                      propagation_policy="Foreground",
                                                      _preload_content=False,
                                                      _request_timeout=self.api.timeout),
                      self._missing(ref.id, ns))
        return None

    def log_entries(self, ref: JobRef, since: str | None) -> Iterable[dict[str, Any]]:
        """Each pod's log (its ``trainer`` container), each line with its replica, oldest
        first (``logs``)."""
        from gpujob.services.gke import logs

        return logs.read(self.api, self.ns(ref), ref, since)

    def resolve(self, ref: JobRef) -> JobRef:
        return JobRef(ref.id, location=self.ns(ref))

    def check_access(self, request: Request) -> None:
        ns = str(request.body["metadata"].get("namespace") or self.namespace)
        self.api.read(f"listing JobSets in namespace {ns}",
                      lambda: self.api.custom.list_namespaced_custom_object(
                          translate.GROUP, translate.VERSION, ns, translate.PLURAL, limit=1,
                          _preload_content=False, _request_timeout=self.api.timeout))
