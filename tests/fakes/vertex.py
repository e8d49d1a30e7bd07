"""The fake Vertex AI (aiplatform v1), served by the same ``FakeGoogle`` as everything else: same
port, same tokens. Reach it as ``google.vertex``; point a client at ``google.url`` as its
``api_endpoint`` (paths carry the location, as on ``https://REGION-aiplatform.googleapis.com/``).

Routes (route names for ``google.inject`` / ``google.calls`` in brackets)::

    POST v1/projects/P/locations/L/customJobs              [customJobs.create]
    GET  v1/projects/P/locations/L/customJobs              [customJobs.list]
    GET  v1/projects/P/locations/L/customJobs/ID           [customJobs.get]
    POST v1/projects/P/locations/L/customJobs/ID:cancel    [customJobs.cancel]
    ... and the same for hyperparameterTuningJobs          [hyperparameterTuningJobs.*]

What it does, in the order the service checks:

1. 401 UNAUTHENTICATED without a current bearer token the fake issued (cloud-platform scope).
2. P is a project id or number registered with ``google.add_project(id, number)`` (the
   ``google`` fixture registers ``PROJECT``/``PROJECT_NUMBER``); else 403 naming the permission,
   as for a project the caller cannot see. L must be a location with a locational endpoint in
   the discovery document, else 400.
3. ``google.vertex.disabled = True``: 403 SERVICE_DISABLED for aiplatform.googleapis.com with its
   ErrorInfo (``errors.vertex_disabled``). ``google.vertex.deny(permission, principal=None)``: 403
   naming e.g. ``aiplatform.customJobs.create`` (``errors.vertex_permission_denied``).
4. The query and body against the bundled discovery document, strictly (``discovery.violations``
   with ``strict=True``: unknown fields, output-only fields, missing "Required." fields, int64
   as strings, int32 as numbers, enums), then a few rules of the service (labels' syntax, pool 0
   not empty, a machine type, exactly one of containerSpec/pythonPackageSpec, a replica count,
   accelerator type and count together). All problems come back in one 400 INVALID_ARGUMENT with
   google.rpc.BadRequest field violations in the service's snake_case paths
   (``job_spec.worker_pool_specs[0].machine_spec.accelerator_type``).
5. create: a new numeric id (19 digits); ``name`` is ``projects/NUMBER/locations/L/KIND/ID``
   whatever form P had; ``state`` JOB_STATE_PENDING; create and update times on the service's
   clock; ``diskSpec`` defaults filled in per pool, as the service does. Answered as printed
   (proto3 JSON). A lost answer (``Drop``) leaves the job made; httplib2 resends a POST whose
   connection closed before the status line, so that makes two jobs, as it would for real.
6. list: ``filter`` (``fakes.listfilter``: labels, display_name, state, create_time, with
   AND/OR/NOT), ``pageSize`` (default ``page_size``, at most ``max_page_size``), opaque
   ``pageToken`` tied to the filter, ``readMask``; newest first; empty lists are left out of
   the answer, as proto3 JSON does. A bad filter, size or token: 400 INVALID_ARGUMENT.
7. get: the job as printed; each get moves a scripted job one step (``script``). An id that is
   not a number: 400; an unknown id, or one in another location or project: 404.
8. cancel: ``{}``; the job goes to JOB_STATE_CANCELLING (its script is dropped), is read so
   once more, and from the second get on is JOB_STATE_CANCELLED with error ``{code: 1,
   message: "CANCELED"}``. A job that has ended: 400 FAILED_PRECONDITION.

Set-up and inspection (``google.vertex``):

- ``add_job(project, location, body, state=..., created=...)``: a job as if created earlier
  (kind from the body: ``trialJobSpec`` makes a tuning job); returns the stored job.
- ``jobs`` (id -> stored job), ``job(id)``; ``live_at_create``: for each create that made a
  job, how many jobs were alive (not ended) just before.
- ``script(id, *steps)``: each later get moves the job one step; a step is a state
  (``"JOB_STATE_RUNNING"`` or ``"RUNNING"``), ``(state, [log lines])``, or ``Step(state, logs,
  error, trials)``. Entering RUNNING sets ``startTime``; an end state sets ``endTime``; FAILED
  sets ``error`` (by default a replica's non-zero exit; ``errors.insufficient_resources(region)``
  and ``errors.quota_failure(metric)`` are the others users meet). A tuning job gets trials as
  the service reports them: ACTIVE ones while running (``parallelTrialCount``), and all
  ``maxTrialCount`` SUCCEEDED with a final measurement of the first metric once it succeeded,
  unless the step gives ``trials`` (make them with ``trial(...)``).
- ``add_log(id, message, severity, task="workerpool0-0", trial=None)``: a Cloud Logging entry
  as Vertex writes them: ``resource.type="ml_job"``, ``resource.labels.job_id`` the numeric id,
  ``resource.labels.task_name`` (``workerpool0-0``, ``service``), ``labels."ml.googleapis.com/
  trial_id"`` for a trial; found by ``entries.list`` (``fakes.cloudlogging``).
- ``disabled``, ``deny(permission, principal=None)``; ``page_size``, ``max_page_size``;
  ``listed_name``: a function of a job's name that a listing gives instead.
- Per region: ``refusals[region] = (status, body)`` refuses every create there (nothing is made:
  ``(429, errors.vertex_quota_exceeded(metric, region))`` for quota); a region in ``stockouts``
  makes the job, which reads PENDING once and then FAILED with
  ``errors.insufficient_resources(region)``, never having run (a stockout);
  ``region_scripts[region] = [steps]`` scripts every job made there (``script``);
  ``create_scripts.append([steps])`` scripts the next job any create makes, one list per
  create, in order (before ``region_scripts``): e.g. a Spot job that runs and is then
  preempted, ``["JOB_STATE_RUNNING", Step("JOB_STATE_FAILED", error=errors.preempted(R))]``.

Faults, with ``google.inject(route, ...)`` (``fakes.faults``, bodies from ``fakes.errors``):
``Reply(429, rate_limited(), {"Retry-After": "7"})``, ``Reply(503, unavailable(), {...})``,
``Drop()`` (the answer is lost after the job was made), ``Reply(503, ..., handled=True)`` (an
error after the job was made), ``Stall(s)``, ``Trickle(seconds, pieces)`` (the answer trickles
in), ``Reply(400, field_violations([(path, message)]))``, ``Reply(429,
vertex_quota_exceeded(metric, region))`` (QuotaFailure details), ``Reply(403,
vertex_disabled(number))``, ``Reply(403, vertex_permission_denied(permission, project,
location))``.

Where the service's wording could not be confirmed (not-found, cancel-after-end, bad location,
page-token messages; the default page size), the fake's text is its own: rely on status codes and
details. The fake is stricter than the service in one way on purpose: a non-empty pool must give
``machineSpec.machineType`` and ``replicaCount``.
"""

from __future__ import annotations

import copy
import secrets
from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from fakes.discovery import document, proto3_json
from fakes.errors import CANCELLED_ERROR, replica_failure
from fakes.times import parse_time

if TYPE_CHECKING:
    from collections.abc import Callable

    from fakes.google import FakeGoogle

DOC = "aiplatform.v1"
SCHEMAS = {"customJobs": "GoogleCloudAiplatformV1CustomJob",
           "hyperparameterTuningJobs": "GoogleCloudAiplatformV1HyperparameterTuningJob"}
JOB_STATES: list[str] = document(DOC)["schemas"]["GoogleCloudAiplatformV1CustomJob"][
    "properties"]["state"]["enum"]
ENDED = {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED",
         "JOB_STATE_PARTIALLY_SUCCEEDED"}
LOCATIONS = frozenset(e["location"] for e in document(DOC)["endpoints"]
                      if e["endpointUrl"] == f"https://{e['location']}-aiplatform.googleapis.com/")
DEFAULT_DISK = {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100}


@dataclass(frozen=True)
class Step:
    """One scripted move of a job: its new state, log lines written then (text for
    ``workerpool0-0``, or (task, text)), its ``error`` (a google.rpc.Status), its trials."""

    state: str
    logs: list[str | tuple[str, str]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    trials: list[dict[str, Any]] | None = None
    ran: float | None = None  # an end state: its endTime this many seconds after its startTime


def full_state(state: str) -> str:
    name = state if state.startswith("JOB_STATE_") else f"JOB_STATE_{state}"
    if name not in JOB_STATES:
        raise ValueError(f"not a JobState: {state}")
    return name


def trial(trial_id: str, parameters: dict[str, Any], metrics: dict[str, float] | None = None,
          state: str = "SUCCEEDED", step_count: int = 1) -> dict[str, Any]:
    """A trial as a tuning job reports it (parameter values: numbers, or strings for
    categorical ones)."""
    made: dict[str, Any] = {"id": trial_id, "state": state, "parameters": [
        {"parameterId": name, "value": value} for name, value in parameters.items()]}
    if metrics is not None:
        made["finalMeasurement"] = {"stepCount": str(step_count), "metrics": [
            {"metricId": name, "value": value} for name, value in metrics.items()]}
    return made


def kind_of(body: dict[str, Any]) -> str:
    return "hyperparameterTuningJobs" if "trialJobSpec" in body else "customJobs"


class VertexAI:
    """The jobs (by numeric id, as printed) and the switches of the fake Vertex AI."""

    def __init__(self, fake: FakeGoogle) -> None:
        self.fake = fake
        self.jobs: dict[str, dict[str, Any]] = {}
        self.scripts: dict[str, deque[Any]] = {}
        self.disabled = False
        self.denied: set[tuple[str | None, str]] = set()
        self.page_size = 100
        self.max_page_size = 1000
        # per region: creates refused with (status, body), and jobs that fail for capacity
        self.refusals: dict[str, tuple[int, dict[str, Any]]] = {}
        self.stockouts: set[str] = set()
        self.region_scripts: dict[str, list[Any]] = {}  # the script of each job made there
        self.create_scripts: deque[list[Any]] = deque()  # the script of each next job made
        self.live_at_create: list[int] = []  # per create that made a job: the live jobs then
        # how a listing names each job it returns (None: by its name): a listing gpujob
        # cannot read the name of (a trailing "/", a full URL, "")
        self.listed_name: Callable[[str], str] | None = None

    # -- set-up ----------------------------------------------------------------------------

    def deny(self, permission: str, principal: str | None = None) -> None:
        """Calls needing ``permission`` (by ``principal``, or anyone) are refused 403."""
        with self.fake.lock:
            self.denied.add((principal, permission))

    def add_job(self, project: str, location: str, body: dict[str, Any], *,
                state: str = "JOB_STATE_PENDING", created: str | None = None) -> dict[str, Any]:
        """A job in ``project`` (id or number; registered) and ``location``."""
        with self.fake.lock:
            number = self.number(project)
            if number is None:
                raise KeyError(f"project {project} is not registered (google.add_project)")
            job_id = str(secrets.randbelow(8 * 10**18) + 10**18)
            while job_id in self.jobs:
                job_id = str(secrets.randbelow(8 * 10**18) + 10**18)
            kind = kind_of(body)
            when = created or self.fake.now()
            job = {**copy.deepcopy(body), "createTime": when, "updateTime": when,
                   "name": f"projects/{number}/locations/{location}/{kind}/{job_id}"}
            spec = job.get("trialJobSpec" if kind == "hyperparameterTuningJobs" else "jobSpec")
            for pool in (spec or {}).get("workerPoolSpecs", []):
                if pool:
                    pool.setdefault("diskSpec", dict(DEFAULT_DISK))
            stored = proto3_json(job, {"$ref": SCHEMAS[kind]}, DOC)
            self.jobs[job_id] = stored
            self.enter(stored, state)
            stored["updateTime"] = when
            return stored

    def script(self, job_id: str, *steps: Any) -> None:
        """Each later get of the job moves it one step (see the module's docstring)."""
        with self.fake.lock:
            self.scripts[job_id] = deque(steps)

    def add_log(self, job_id: str, message: str | dict[str, Any], severity: str = "INFO",
                task: str = "workerpool0-0", trial: str | None = None) -> dict[str, Any]:
        """A Cloud Logging entry of the job, written now (a JSON payload when a dict)."""
        number = self.job(job_id)["name"].split("/")[1]
        project = next((p for p, n in self.fake.projects.items() if n == number), number)
        labels = {"ml.googleapis.com/trial_id": trial} if trial else None
        return self.fake.job_logs.add(job_id, message, severity, task, project, labels)

    # -- reading -----------------------------------------------------------------------------

    def job(self, job_id: str) -> dict[str, Any]:
        return self.jobs[job_id]

    def number(self, project: str) -> str | None:
        """A registered project's number, from its id or number."""
        if project in self.fake.projects.values():
            return project
        return self.fake.projects.get(project)

    # -- how jobs move -----------------------------------------------------------------------

    def advance(self, job_id: str) -> None:
        """The next scripted step of the job, if any."""
        steps = self.scripts.get(job_id)
        if not steps:
            return
        step = steps.popleft()
        if isinstance(step, str):
            step = Step(step)
        elif isinstance(step, tuple):
            step = Step(step[0], list(step[1]))
        job = self.jobs[job_id]
        self.enter(job, step.state, step.error, step.trials)
        if step.ran is not None and job.get("startTime"):
            began = parse_time(job["startTime"])
            assert began is not None
            job["endTime"] = (began + timedelta(seconds=step.ran)).strftime(
                "%Y-%m-%dT%H:%M:%S.%fZ")
        for line in step.logs:
            task, text = line if isinstance(line, tuple) else ("workerpool0-0", line)
            self.add_log(job_id, text, task=task)

    def enter(self, job: dict[str, Any], state: str, error: dict[str, Any] | None = None,
              trials: list[dict[str, Any]] | None = None) -> None:
        """Move ``job`` to ``state`` as the service would."""
        state = full_state(state)
        now = self.fake.now()
        job["state"], job["updateTime"] = state, now
        if state == "JOB_STATE_RUNNING":
            job.setdefault("startTime", now)
        if state in ENDED:
            job["endTime"] = now
        number, job_id = job["name"].split("/")[1], job["name"].rsplit("/", 1)[1]
        if state == "JOB_STATE_FAILED":
            job["error"] = error or replica_failure(job_id, number)
        elif state == "JOB_STATE_CANCELLED":
            job["error"] = error or dict(CANCELLED_ERROR)
        elif error:
            job["error"] = error
        if "/hyperparameterTuningJobs/" in job["name"]:
            self._trials(job, state, trials)

    def _trials(self, job: dict[str, Any], state: str,
                given: list[dict[str, Any]] | None) -> None:
        if given is not None:
            job["trials"] = given
            return
        count = {"JOB_STATE_RUNNING": job.get("parallelTrialCount", 1),
                 "JOB_STATE_SUCCEEDED": job.get("maxTrialCount", 1)}.get(state)
        if count is None:
            return
        done = state == "JOB_STATE_SUCCEEDED"
        spec = job["studySpec"]
        metric = spec["metrics"][0]["metricId"]
        now = self.fake.now()
        made = []
        for i in range(count):
            values = {p["parameterId"]: _value(p, i, count) for p in spec["parameters"]}
            one = trial(str(i + 1), values, {metric: round(0.5 + 0.1 * i, 6)} if done else None,
                        "SUCCEEDED" if done else "ACTIVE")
            one["startTime"] = job.get("startTime", now)
            if done:
                one["endTime"] = now
            made.append(one)
        job["trials"] = made


def _value(spec: dict[str, Any], i: int, count: int) -> Any:
    """The i-th of ``count`` values spread over a parameter's range."""
    if "categoricalValueSpec" in spec:
        values = spec["categoricalValueSpec"]["values"]
        return values[i % len(values)]
    if "discreteValueSpec" in spec:
        values = spec["discreteValueSpec"]["values"]
        return values[i % len(values)]
    ranged = spec.get("doubleValueSpec") or spec.get("integerValueSpec") or {}
    low, high = float(ranged.get("minValue", 0)), float(ranged.get("maxValue", 1))
    value = low + (high - low) * (i + 1) / (count + 1)
    return float(round(value)) if "integerValueSpec" in spec else round(value, 6)
