"""Vertex AI's side of ``--recover`` (``recovery.Recovery``): how a job that ended FAILED
ended, read from its ``error.message`` with the causes and messages of the catalog's
``recovery`` section (the infrastructure's: a preemption, a stockout, the project's quota, an
internal error; else the replica's exit code), and the request of the next attempt: the same
body (the same ``baseOutputDirectory``, so the same ``AIP_CHECKPOINT_DIR``) with a submission
label of its own and the labels that link the attempts."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpujob.services.recovery import (
    ATTEMPT_LABEL,
    LINEAGE_LABEL,
    REGIONS_LABEL,
    Ended,
    Fitted,
    Lineage,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gpujob.services.base import JobClient, Request
    from gpujob.services.vertex.catalog import VertexCatalog
    from gpujob.services.vertex.jobs.api import VertexClient

# what a create takes of a job as the API reads it (the rest is the service's output)
_INPUT = {"customJobs": ("displayName", "jobSpec", "labels", "encryptionSpec"),
          "hyperparameterTuningJobs": ("displayName", "studySpec", "maxTrialCount",
                                       "parallelTrialCount", "maxFailedTrialCount",
                                       "trialJobSpec", "labels", "encryptionSpec")}
# a label value: lowercase letters, digits, "-" and "_", at most 63 (the CustomJob reference,
# https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.customJobs,
# says 64 code points; 63 is what every Google Cloud label takes:
# https://cloud.google.com/resource-manager/docs/labels-overview)
_LABEL_VALUE = re.compile(r"[a-z0-9_-]{1,63}")
_REGION = re.compile(r"[a-z][a-z0-9-]*[0-9]")
_JOB_ID = re.compile(r"[0-9]{1,30}")
# the shortest attempt --max-cost leaves room for: less is not worth its VMs' start-up and its
# checkpoint's load, so recovery stops instead
LEAST_ATTEMPT_S = 600


def _noun(collection: str) -> str:
    """``customJobs`` -> ``CustomJob`` (``paths.COLLECTIONS`` read backwards)."""
    from gpujob.services.vertex.paths import COLLECTIONS

    return next(noun for noun, plural in COLLECTIONS.items() if plural == collection)


def attempt_token(lineage: str, number: int) -> str:
    """Attempt ``number``'s submission label: the lineage and the number (a digest of the
    lineage where that is too long for a label value), the same in every process that
    follows the lineage. ``_`` is in no submission token, so it is no other's label."""
    import hashlib

    suffix = f"_attempt-{number}"
    head = lineage if _LABEL_VALUE.fullmatch(lineage + suffix) else \
        hashlib.sha256(lineage.encode()).hexdigest()[:63 - len(suffix)]
    return head + suffix


def _strategy(raw: dict[str, Any]) -> str:
    spec = raw.get("trialJobSpec" if "trialJobSpec" in raw else "jobSpec")
    scheduling = spec.get("scheduling") if isinstance(spec, dict) else None
    strategy = scheduling.get("strategy") if isinstance(scheduling, dict) else None
    return strategy if isinstance(strategy, str) else ""


def ended(raw: dict[str, Any], data: Mapping[str, Any]) -> Ended:
    """How ``raw`` ended: the exit code its message gives when a replica exited (the trainer's
    end: its traceback, quoted in the message, may hold any words), else the infrastructure's
    cause (``data``: the catalog's ``recovery`` section, its words)."""
    from datetime import datetime, timezone

    from gpujob.services.vertex.jobs.api import JobName
    from gpujob.services.vertex.pricing.cost_spent import run_seconds

    name = JobName.parse(str(raw.get("name", "")))
    where = f"{name.location if name else '?'}/{_strategy(raw) or 'STANDARD'}"
    seconds = run_seconds(raw.get("startTime"), raw.get("endTime"), datetime.now(timezone.utc))
    ran = seconds is not None
    if raw.get("state") != "JOB_STATE_FAILED":
        return Ended(failed=False, ran=ran, where=where, seconds=seconds)
    error = found if isinstance(found := raw.get("error"), dict) else {}
    message = " ".join(str(error.get("message") or "").split())
    code = re.search(data["exit_code"]["pattern"], message)
    if code:  # a replica exited: the trainer's own end, whatever its traceback says after it
        return Ended(failed=True, exit_code=int(code.group(1)), ran=ran, where=where,
                     seconds=seconds)
    for cause in data["causes"]:
        if cause["infrastructure"] and any(re.search(p, message, re.IGNORECASE)
                                           for p in cause["patterns"]):
            words = cause["before"]
            if ran:
                spot = _strategy(raw) == "SPOT" and cause.get("ran_spot")
                words = spot or cause["ran"]
            return Ended(failed=True, cause=words, ran=ran, where=where, seconds=seconds)
    return Ended(failed=True, ran=ran, where=where, seconds=seconds)


def lineage_of(raw: dict[str, Any]) -> Lineage | None:
    """The lineage labels of a job (or a request's body); None without them."""
    labels = found if isinstance(found := raw.get("labels"), dict) else {}
    first = labels.get(LINEAGE_LABEL)
    number = str(labels.get(ATTEMPT_LABEL) or "")
    if not isinstance(first, str) or not first:
        return None
    return Lineage(first, int(number) if number.isdigit() else 1, tuple(regions_of(labels)))


def regions_of(labels: dict[str, Any]) -> list[str]:
    """The regions ``REGIONS_LABEL`` names (``us-central1_europe-west4``); [] without it."""
    text = labels.get(REGIONS_LABEL)
    if not isinstance(text, str):
        return []
    return [r for r in dict.fromkeys(text.split("_")) if _REGION.fullmatch(r)]


def regions_label(regions: Sequence[str]) -> str | None:
    """The value of ``REGIONS_LABEL`` for ``regions``, None when it does not fit a label
    value (then ``describe`` lists the attempts of the job's own region, and says so)."""
    text = "_".join(dict.fromkeys(regions))
    return text if _LABEL_VALUE.fullmatch(text) else None


class VertexRecovery:
    """``recovery.Recovery`` for Vertex AI, through a submit's or a command's client."""

    def __init__(self, client: JobClient, catalog: VertexCatalog) -> None:
        self.client = client
        self.catalog = catalog  # the catalog in use: its recovery and scheduling sections

    @property
    def vertex(self) -> VertexClient:
        return self.client.vertex  # type: ignore[attr-defined]  # (VertexJobs)

    def ended(self, raw: dict[str, Any]) -> Ended:
        data = self.catalog.recovery
        if data is None:
            from gpujob.errors import UsageError

            raise UsageError("the catalog in use has no recovery section: the causes a job "
                             "is recovered for", "use the built-in catalog (leave out "
                             "--catalog), or one exported from it")
        return ended(raw, data)

    def attempt(self, request: Request, lineage: str | None, number: int,
                regions: Sequence[str] = ()) -> Request:
        from gpujob.services.vertex.paths import SUBMISSION_LABEL
        from gpujob.services.vertex.request import submission_token

        labels = dict(request.body.get("labels", {}))
        own = labels.get(SUBMISSION_LABEL)
        first = lineage or labels.get(LINEAGE_LABEL) or own
        if number > 1 and first:  # each attempt is found by its own label, in any process
            labels[SUBMISSION_LABEL] = attempt_token(first, number)
        elif number > 1 or not own:
            labels[SUBMISSION_LABEL] = submission_token()
        labels.update({LINEAGE_LABEL: first or labels[SUBMISSION_LABEL],
                       ATTEMPT_LABEL: str(number)})
        if regions or REGIONS_LABEL not in labels:
            where = regions_label(regions or [self.vertex.place_of(request.url).location])
            labels.pop(REGIONS_LABEL, None)
            if where is not None:
                labels[REGIONS_LABEL] = where
        return replace(request, body={**request.body, "labels": labels})

    def again(self, raw: dict[str, Any]) -> Request:
        from gpujob.services.base import Request
        from gpujob.services.vertex.jobs.api import JobName
        from gpujob.services.vertex.paths import SUBMISSION_LABEL, jobs_url, layout

        name = JobName.parse(str(raw.get("name", "")))
        if name is None:
            from gpujob.errors import RemoteError

            raise RemoteError(f"the job's name {raw.get('name')!r} is not a job's resource name, "
                              "so it cannot be created again")
        body = {key: raw[key] for key in _INPUT[name.collection] if key in raw}
        labels = dict(given) if isinstance(given := body.get("labels"), dict) else {}
        # a job gpujob did not submit: its ID names the lineage (a CustomJob cannot be
        # labelled after its creation: the API has no patch for it), so that describe of a
        # later attempt reads it by its ID
        body["labels"] = {**labels, LINEAGE_LABEL: labels.get(LINEAGE_LABEL)
                          or labels.get(SUBMISSION_LABEL) or name.id,
                          ATTEMPT_LABEL: labels.get(ATTEMPT_LABEL) or "1"}
        noun = _noun(name.collection)
        url = jobs_url(self.client.gcp, name.project,  # type: ignore[attr-defined]
                       name.location, noun)
        return Request("POST", url, layout(body), noun)

    def lineage(self, raw: dict[str, Any]) -> Lineage | None:
        return lineage_of(raw)

    def attempts(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        """The jobs of ``raw``'s lineage (the first one too, which may carry only its
        submission label; a job of no lineage starts one with its submission label), oldest
        first; [] for a job gpujob did not submit. One list per region its regions label
        names (``raw``'s own region without one), filtered by the lineage's label; a lineage
        named by a job's ID (``again``) reads that job by its ID, in those regions in turn."""
        from gpujob.services.vertex.jobs.api import JobName, Place, quoted
        from gpujob.services.vertex.paths import SUBMISSION_LABEL

        found = self.lineage(raw)
        labels = given if isinstance(given := raw.get("labels"), dict) else {}
        first = found.id if found is not None else labels.get(SUBMISSION_LABEL)
        name = JobName.parse(str(raw.get("name", "")))
        if not isinstance(first, str) or not first or name is None:
            return []
        text = (f"labels.{LINEAGE_LABEL}={quoted(first)} OR "
                f"labels.{SUBMISSION_LABEL}={quoted(first)}")
        regions = list(dict.fromkeys([name.location, *regions_of(labels)]))
        jobs = {str(job.get("name")): job for region in regions for job in self.vertex.list(
            Place(name.project, region, name.collection), text)}
        if _JOB_ID.fullmatch(first) and not any(n.endswith(f"/{first}") for n in jobs):
            for region in regions:  # the job whose ID names the lineage: not labelled
                original = self.vertex.find(JobName(name.project, region, name.collection,
                                                    first))
                if original is not None:
                    jobs[str(original.get("name"))] = original
                    break
        return sorted(jobs.values(), key=lambda job: str(job.get("createTime", "")))

    def made(self, request: Request) -> dict[str, Any] | None:
        from gpujob.services.vertex.jobs.api import submission_filter
        from gpujob.services.vertex.jobs.create import labelled
        from gpujob.services.vertex.paths import SUBMISSION_LABEL

        token = request.body["labels"][SUBMISSION_LABEL]
        place = self.vertex.place_of(request.url)
        found = labelled(self.vertex.list(place, submission_filter(token)), token)
        return min(found, key=lambda job: str(job.get("createTime", ""))) if found else None

    def within(self, request: Request, most: float) -> Fitted:
        import copy

        from gpujob.numbers import dollars, span_in_words
        from gpujob.services.vertex.pricing import cost_cap
        from gpujob.services.vertex.pricing.cost import estimate, unpriced, with_timeout

        region = self.vertex.place_of(request.url).location
        est = with_timeout(estimate(request.body, region), request.body,
                           self.catalog.scheduling)
        if est.worst is not None and est.worst <= most:
            return Fitted(request)
        if est.total is None:
            why = "; ".join(est.unknown or unpriced(est)) or "no price for its strategy"
            return Fitted(None, why=f"what it can cost cannot be told ({why})")
        seconds = cost_cap.fitting(est, most)
        body = copy.deepcopy(request.body)
        if seconds < LEAST_ATTEMPT_S or not cost_cap.set_timeout(body, seconds):
            return Fitted(None, why=f"less than {span_in_words(LEAST_ATTEMPT_S)} of it fits at "
                          f"{dollars(est.total)} an hour")
        return Fitted(replace(request, body=body), timeout_s=float(seconds))
