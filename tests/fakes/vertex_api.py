"""The fake Vertex AI's routes: who may call, what a body must be, and the four methods of
``customJobs`` and ``hyperparameterTuningJobs``. The behaviour is described in
``fakes.vertex``."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from fakes.errors import (
    Refused,
    error_body,
    field_violations,
    insufficient_resources,
    not_found,
    vertex_disabled,
    vertex_permission_denied,
)
from fakes.listfilter import Invalid, compile_filter
from fakes.routing import Answer, Call, Route
from fakes.vertex import DOC, ENDED, JOB_STATES, LOCATIONS, Step

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

_LABEL_KEY = re.compile(r"[\w-]{1,63}", re.UNICODE)
_NOUN = {"customJobs": "CustomJob", "hyperparameterTuningJobs": "HyperparameterTuningJob"}


def snake(path: str) -> str:
    """``jobSpec.workerPoolSpecs[0]`` -> ``job_spec.worker_pool_specs[0]``."""
    return re.sub(r"[A-Z]", lambda m: "_" + m.group().lower(), path)


def _invalid(problems: list[tuple[str, str]]) -> Refused:
    return Refused(400, field_violations([(snake(name), text) for name, text in problems]))


def _guard(fake: FakeGoogle, call: Call) -> None:
    """Project, location, API enabled, permission: refused in the service's order."""
    kind, verb = call.route.split(".")
    permission = f"aiplatform.{kind}.{verb}"
    project, location = call.params["project"], call.params["location"]
    number = fake.vertex.number(project)
    if number is None:
        raise Refused(403, vertex_permission_denied(permission, project, location))
    if fake.vertex.disabled:
        raise Refused(403, vertex_disabled(number))
    denied = fake.vertex.denied
    if (None, permission) in denied or (call.principal, permission) in denied:
        raise Refused(403, vertex_permission_denied(permission, project, location))
    if location not in LOCATIONS:
        where = "name" if "job" in call.params else "parent"
        raise Refused(400, field_violations([(where, f"Location {location} is not supported "
                                                     "for Vertex AI training.")]))
    if verb == "cancel" and call.body is None:
        call.body = {}  # the request message is empty; clients may send no body


def _label_problems(labels: dict[str, str]) -> list[tuple[str, str]]:
    found = []
    if len(labels) > 64:
        found.append(("labels", "At most 64 labels are allowed."))
    for key, value in labels.items():
        if not (_LABEL_KEY.fullmatch(key) and key[0].isalpha() and key == key.lower()):
            found.append(("labels", f"Label key {key!r} is invalid: keys start with a lowercase "
                                    "letter and have at most 63 lowercase letters, digits, "
                                    "underscores or dashes."))
        if not isinstance(value, str) or (value and not (
                _LABEL_KEY.fullmatch(value) and value == value.lower())):
            found.append(("labels", f"Label value {value!r} of {key!r} is invalid: at most 63 "
                                    "lowercase letters, digits, underscores or dashes."))
    return found


def _pool_problems(prefix: str, pools: list[dict[str, Any]]) -> list[tuple[str, str]]:
    found = []
    for i, pool in enumerate(pools):
        where = f"{prefix}.worker_pool_specs[{i}]"
        if not pool:
            if i == 0:
                found.append((where, "The first worker pool spec must not be empty."))
            continue
        machine = pool.get("machineSpec") or {}
        if not machine.get("machineType"):
            found.append((f"{where}.machine_spec.machine_type", "Machine type is required."))
        typed = machine.get("acceleratorType", "ACCELERATOR_TYPE_UNSPECIFIED") \
            != "ACCELERATOR_TYPE_UNSPECIFIED"
        if typed != bool(machine.get("acceleratorCount")):
            found.append((f"{where}.machine_spec.accelerator_type", "Both accelerator_type and "
                           "accelerator_count should be specified or none."))
        if ("containerSpec" in pool) == ("pythonPackageSpec" in pool):
            found.append((f"{where}.task", "Exactly one of container_spec and "
                                           "python_package_spec must be set."))
        if int(pool.get("replicaCount") or 0) < 1:
            found.append((f"{where}.replica_count", "Replica count must be at least 1."))
    return found


def _rules(kind: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """What the service checks beyond the discovery document's types."""
    found = []
    if len(body.get("displayName", "")) > 128:
        found.append(("display_name", "The display name must be at most 128 characters."))
    found += _label_problems(body.get("labels") or {})
    prefix = "trial_job_spec" if kind == "hyperparameterTuningJobs" else "job_spec"
    spec = body.get("trialJobSpec" if kind == "hyperparameterTuningJobs" else "jobSpec") or {}
    found += _pool_problems(prefix, spec.get("workerPoolSpecs") or [])
    if kind == "hyperparameterTuningJobs":
        if body.get("maxTrialCount", 0) < 1:
            found.append(("max_trial_count", "max_trial_count must be positive."))
        if body.get("parallelTrialCount", 0) < 1:
            found.append(("parallel_trial_count", "parallel_trial_count must be positive."))
    return found


def _create(fake: FakeGoogle, call: Call) -> Answer:
    kind = call.route.split(".")[0]
    problems = _rules(kind, call.body)
    if problems:
        with fake.lock:
            fake.rejected.append((call.route, problems))
        raise Refused(400, field_violations(problems))
    location = call.params["location"]
    refusal = fake.vertex.refusals.get(location)
    if refusal is not None:  # the region's quota or capacity is short: nothing is made
        raise Refused(*refusal)
    # how many of the project's jobs were alive when this one was made (``live_at_create``)
    fake.vertex.live_at_create.append(sum(1 for job in fake.vertex.jobs.values()
                                           if job["state"] not in ENDED))
    stored = fake.vertex.add_job(call.params["project"], location, call.body)
    job_id = stored["name"].rsplit("/", 1)[1]
    if location in fake.vertex.stockouts:  # it fails for capacity before it runs
        fake.vertex.script(job_id, "JOB_STATE_PENDING",
                           Step("JOB_STATE_FAILED", error=insufficient_resources(location)))
    elif fake.vertex.create_scripts:
        fake.vertex.script(job_id, *fake.vertex.create_scripts.popleft())
    elif location in fake.vertex.region_scripts:
        fake.vertex.script(job_id, *fake.vertex.region_scripts[location])
    return 200, copy.deepcopy(stored), {}


def _find(fake: FakeGoogle, call: Call) -> dict[str, Any]:
    kind = call.route.split(".")[0]
    job_id = call.params["job"]
    name = (f"projects/{call.params['project']}/locations/{call.params['location']}/{kind}/"
            f"{job_id}")
    if not job_id.isdigit():
        raise Refused(400, field_violations([("name", f"Invalid {_NOUN[kind]} resource name "
                                                      f"{name!r}: the id must be a number.")]))
    job = fake.vertex.jobs.get(job_id)
    number = fake.vertex.number(call.params["project"])
    if job is None or job["name"] != (f"projects/{number}/locations/"
                                      f"{call.params['location']}/{kind}/{job_id}"):
        raise Refused(404, not_found(f"The {_NOUN[kind]} {name} does not exist."))
    return job


def _get(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        job = _find(fake, call)
        fake.vertex.advance(call.params["job"])
        return 200, copy.deepcopy(job), {}


def _cancel(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        job = _find(fake, call)
        if job["state"] in ENDED:
            raise Refused(400, error_body(400, "FAILED_PRECONDITION",
                                          f"Cannot cancel {job['name']}: it is in state "
                                          f"{job['state']}."))
        fake.vertex.enter(job, "JOB_STATE_CANCELLING")
        fake.vertex.script(call.params["job"], "JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    return 200, {}, {}


def _masked(job: dict[str, Any], mask: str) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for path in filter(None, (p.strip() for p in mask.split(","))):
        source, target = job, kept
        names = [re.sub(r"_([a-z])", lambda m: m.group(1).upper(), n) for n in path.split(".")]
        for name in names[:-1]:
            source = source.get(name, {})
            target = target.setdefault(name, {})
        if names[-1] in source:
            target[names[-1]] = copy.deepcopy(source[names[-1]])
    return kept


def _page_token(text: str, offset: int) -> str:
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return base64.urlsafe_b64encode(json.dumps([offset, digest]).encode()).decode()


def _offset(token: str, text: str) -> int:
    try:
        offset, digest = json.loads(base64.urlsafe_b64decode(token.encode()))
    except ValueError:
        digest, offset = None, 0
    if digest != hashlib.sha256(text.encode()).hexdigest()[:12]:
        raise Refused(400, field_violations([("page_token", "Invalid page token: it does not "
                                                            "belong to this request.")]))
    return int(offset)


def _list(fake: FakeGoogle, call: Call) -> Answer:
    kind = call.route.split(".")[0]
    text = call.query.get("filter", [""])[0]
    try:
        keep = compile_filter(text, JOB_STATES)
        size = int(call.query.get("pageSize", ["0"])[0] or 0)
    except (Invalid, ValueError) as bad:
        raise Refused(400, field_violations([("filter" if isinstance(bad, Invalid)
                                              else "page_size", str(bad))])) from None
    if size < 0:
        raise Refused(400, field_violations([("page_size", "must not be negative")]))
    size = min(size or fake.vertex.page_size, fake.vertex.max_page_size)
    token = call.query.get("pageToken", [""])[0]
    start = _offset(token, text) if token else 0
    number = fake.vertex.number(call.params["project"])
    parent = f"projects/{number}/locations/{call.params['location']}/{kind}/"
    with fake.lock:
        jobs = sorted((j for j in fake.vertex.jobs.values()
                       if j["name"].startswith(parent) and keep(j)),
                      key=lambda j: j["createTime"], reverse=True)
        page = [copy.deepcopy(j) for j in jobs[start:start + size]]
        if fake.vertex.listed_name is not None:
            for job in page:
                job["name"] = fake.vertex.listed_name(job["name"])
    mask = call.query.get("readMask", [""])[0]
    if mask:
        page = [_masked(j, mask) for j in page]
    answer: dict[str, Any] = {kind: page} if page else {}
    if start + size < len(jobs):
        answer["nextPageToken"] = _page_token(text, start + size)
    return 200, answer, {}


def _routes() -> list[Route]:
    made = []
    for kind in ("customJobs", "hyperparameterTuningJobs"):
        parent = rf"/v1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/{kind}"
        one = parent + r"/(?P<job>[^/:]+)"
        for verb, pattern, name, handler in [("POST", parent, "create", _create),
                                             ("GET", parent, "list", _list),
                                             ("GET", one, "get", _get),
                                             ("POST", one + ":cancel", "cancel", _cancel)]:
            made.append(Route(verb, pattern, f"{kind}.{name}", handler, DOC,
                              ("projects", "locations", kind, name), strict=True,
                              guard=_guard, invalid=_invalid))
    return made


ROUTES = _routes()
