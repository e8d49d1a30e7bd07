"""Vertex AI custom training (``aiplatform v1``): create, get, list and cancel custom jobs and
hyperparameter tuning jobs; where their logs are; what the service's errors mean.

The client is built from the discovery document bundled with google-api-python-client, parsed
once per process (``gpujob.gcp.discovery``): no discovery request is made. Vertex AI is
regional: each region has its address, ``https://REGION-aiplatform.googleapis.com/`` (as
Google's samples and its Vertex SDK build it), and ``--api-endpoint`` replaces it for every region.

Duplicates. Vertex AI assigns a job's ID itself and its creates take no request ID, so a create
that reaches the service twice makes two paid jobs. gpujob therefore never sends a create
twice blindly: every body carries the submission's own label (``gpujob-submission``, put there
when the request is built), the create goes out once on a transport httplib2 cannot resend on
(``gpujob.gcp.once``), and after a failure that leaves it unknown whether the job was made (a
timeout, a reset, a lost answer, a 5xx, an unreadable 2xx) gpujob lists the jobs with that label:
it adopts the job it finds, and only when there is none tries again (``vertex_create``, which
also says what this cannot rule out: a service acting on a request after the look-up).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

from gpujob.errors import RemoteError, UsageError
from gpujob.gcp import answers
from gpujob.gcp import settings as gcp
from gpujob.gcp.errors import Action, ServiceError, parse_http_error, raise_explained
from gpujob.gcp.session import Session
from gpujob.gcp.settings import GcpSettings, region_problem
from gpujob.services.vertex.paths import ENDPOINT, SUBMISSION_LABEL
from gpujob.terminal import printable

SERVICE = "aiplatform.googleapis.com"
ROLE = "roles/aiplatform.user"  # grants every aiplatform.customJobs.* and tuning-job permission
WORDS = {"customJobs": "custom job", "hyperparameterTuningJobs": "tuning job"}
_NAME = re.compile(r"projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/"
                   r"(?P<collection>customJobs|hyperparameterTuningJobs)/(?P<id>[^/]+)")
_COLLECTION_URL = re.compile(r"v1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/"
                             r"(?P<collection>customJobs|hyperparameterTuningJobs)")
_QUOTA_METRIC = re.compile(r"exceed quota limits:\s*(\S+)")
_QUOTA = re.compile(r"exceed quota limits", re.IGNORECASE)
_CAPACITY = re.compile(r"resources are insufficient", re.IGNORECASE)


class JobName(NamedTuple):
    """A job's resource name, ``projects/P/locations/L/COLLECTION/ID`` (P: id or number)."""

    project: str
    location: str
    collection: str
    id: str

    @classmethod
    def parse(cls, text: str) -> JobName | None:
        found = _NAME.fullmatch(text)
        return cls(*found.group("project", "location", "collection", "id")) if found else None

    def __str__(self) -> str:
        return f"projects/{self.project}/locations/{self.location}/{self.collection}/{self.id}"


@cache
def regions() -> frozenset[str]:
    """The regions with a locational endpoint in the bundled discovery document."""
    from gpujob.gcp.proto3 import document

    return frozenset(e.get("location", "") for e in document("aiplatform", "v1")
                     .get("endpoints", []) if e.get("endpointUrl") ==
                     ENDPOINT.format(region=e.get("location")))


def api_endpoint(settings: GcpSettings, region: str) -> str:
    """The API's base URL for ``region``: ``--api-endpoint`` or GPUJOB_AIPLATFORM_ENDPOINT when
    given, else the region's."""
    return gcp.api_endpoint(settings, "aiplatform", region)


def log_filter(job_id: str, since: str | None = None) -> str:
    """Cloud Logging's filter for a job's logs, as ``gcloud ai custom-jobs stream-logs`` builds
    it (googlecloudsdk/command_lib/ai/log_util.py): the ``ml_job`` resource labelled with the
    job's numeric ID."""
    text = f'resource.type="ml_job" AND resource.labels.job_id="{job_id}"'
    return text + (f' AND timestamp>="{since}"' if since else "")


def quoted(text: str) -> str:
    """``text`` as a string of the list filter's grammar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def submission_filter(token: str) -> str:
    return f"labels.{SUBMISSION_LABEL}={quoted(token)}"


def capacity_or_quota(message: str, region: str | None,
                      quota: dict[str, Any] | None = None) -> str | None:
    """What to do about a job Vertex AI refused or ended for want of quota (``quota``: the
    failure's QuotaFailure details, ``{}`` for a quota failure without them; else read from
    ``message``) or of capacity in ``region``. None: ``message`` says neither."""
    where = region or "the region"
    if quota is not None or _QUOTA.search(message):
        quota = quota or {}
        found = _QUOTA_METRIC.search(message)
        metric = quota.get("metric") or (found.group(1) if found else None)
        where = quota.get("region") or where
        limit = f" (limit {quota['limit']})" if quota.get("limit") else ""
        return (f"the project's quota {metric + ' ' if metric else ''}in {where} is used "
                f"up{limit}: ask for more at https://console.cloud.google.com/iam-admin/quotas"
                f"{' (filter on that metric)' if metric else ''}, or use another region, "
                "machine or GPU")
    if _CAPACITY.search(message):
        return (f"Vertex AI had too few of these machines or GPUs free in {where} (capacity, "
                "not quota): submit again later, or in another region or with another GPU "
                "(gpujob gpus --service vertex shows where each is)")
    return None


def resource_quota(error: ServiceError) -> bool:
    """A 429 for a used-up resource quota (GPUs, CPUs in a region), not for a rate: trying
    again in seconds will not help. Both the create's retries and ``advice`` ask this."""
    return error.status == 429 and bool(error.quotas
                                        or "exceed quota limits" in error.message.lower())


def advice(region: str | None) -> Any:
    """Vertex AI's reading of an error in ``region`` (``Action.advice``): quota, capacity, a
    region without training. None: the general reading applies."""

    def read(error: ServiceError) -> str | None:
        if resource_quota(error):
            return capacity_or_quota(error.message, region,
                                     error.quotas[0] if error.quotas else {})
        shortage = capacity_or_quota(error.message, region)
        if shortage is not None:
            return shortage
        if error.status == 400 and any("location" in why.lower() and "not supported" in
                                       why.lower() for _, why in error.violations):
            return (f"Vertex AI does not offer training in {region or 'that region'}: choose "
                    "another region (gpujob gpus --service vertex lists them)")
        return None

    return read


def check_region(settings: GcpSettings, region: str) -> None:
    """``RemoteError`` (exit 3) when Vertex AI has no address for ``region``: nothing could be
    sent there. With ``--api-endpoint`` (or GPUJOB_AIPLATFORM_ENDPOINT) standing in for the
    address, the region is still a path in every request: one spelt like a region that trains
    is refused as a typo, another (one newer than gpujob's list) is sent."""
    if region in regions():
        return
    from gpujob.catalog import load
    from gpujob.suggest import did_you_mean

    # a guess among the regions that train, not among the addresses: us-centrall is not
    # us-central2 (an address where Vertex AI runs no training)
    near = did_you_mean(region, load("vertex").training_regions)
    if settings.api_endpoint or "aiplatform" in settings.endpoints:
        if near is None:
            return
        raise RemoteError(f"Vertex AI has no region '{region}'",
                          f"did you mean {near}? check the region (trainingInput.region, or "
                          "--region); gpujob gpus --service vertex lists the regions that train")
    hint = f"did you mean {near}? " if near else ""
    raise RemoteError(f"Vertex AI has no endpoint in region '{region}' "
                      f"({ENDPOINT.format(region=region)} is not one of its addresses)",
                      f"{hint}check the region (trainingInput.region, or --region); gpujob gpus "
                      "--service vertex lists the regions that train")


class Place(NamedTuple):
    """One collection of jobs: a project's custom jobs or tuning jobs in one region."""

    project: str
    location: str
    collection: str

    @property
    def parent(self) -> str:
        return f"projects/{self.project}/locations/{self.location}"


class VertexClient:
    """Vertex AI jobs of one project, in any region, through one session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.project = session.project
        self._collections: dict[tuple[str, bool, str], Any] = {}

    # -- plumbing ------------------------------------------------------------------------------

    def collection(self, place: Place, single_send: bool = False) -> Any:
        """googleapiclient's resource for ``place``; ``single_send``: over the transport that
        sends each request once (for creates)."""
        check_region(self.session.settings, place.location)
        key = (place.location, single_send, place.collection)
        if key not in self._collections:  # googleapiclient builds a resource's methods anew
            from gpujob.gcp.discovery import service  # each time it is asked (~3 ms)
            from gpujob.gcp.http import authorized_http

            http = self.session.http if not single_send else authorized_http(
                self.session.auth, self.session.settings, self.session.echo, single_send=True)
            locations = service("aiplatform", "v1", http, api_endpoint(
                self.session.settings, place.location)).projects().locations()
            self._collections[key] = getattr(locations, place.collection)()
        return self._collections[key]

    def action(self, what: str, place: Place, verb: str, *, retry_safe: bool = True,
               not_found_hint: str = "") -> Action:
        hint = not_found_hint or (f"check --project (now {place.project}) and --region (now "
                                  f"{place.location})")
        return self.session.action(
            what, f"aiplatform.{place.collection}.{verb}", role=ROLE, service=SERVICE,
            retry_safe=retry_safe, advice=advice(place.location), not_found_hint=hint)

    def place(self, location: str, collection: str = "customJobs",
              project: str | None = None) -> Place:
        """Where jobs of ``collection`` are; a region that is no region's name (from
        GPUJOB_REGION, which is checked where it is used) is a usage error."""
        problem = region_problem(location)
        if problem:
            raise UsageError(f"'{printable(location)}' is not a region: {problem}",
                             "pass --region REGION (or fix GPUJOB_REGION)")
        return Place(project or self.project, location, collection)

    # -- reads ---------------------------------------------------------------------------------

    def check_access(self, place: Place) -> None:
        """One cheap read (a one-item list) that proves the credentials, the project, the API
        and the region before anything is built, uploaded or created."""
        action = self.action(f"checking access to Vertex AI in project {place.project}, region "
                             f"{place.location}", place, "list")
        self.session.execute(action, lambda: self.collection(place).list(
            parent=place.parent, pageSize=1, readMask="name"))

    def get(self, name: JobName) -> dict[str, Any]:
        place = Place(name.project, name.location, name.collection)
        action = self.action(f"reading {WORDS[name.collection]} {name.id}", place, "get",
                             not_found_hint=self.not_found(place, name.id))
        return self.session.execute(
            action, lambda: self.collection(place).get(name=str(name)))

    def find(self, name: JobName) -> dict[str, Any] | None:
        """The job, or None when the service has none of that name (404)."""
        from googleapiclient.errors import HttpError

        place = Place(name.project, name.location, name.collection)
        action = self.action(f"reading {WORDS[name.collection]} {name.id}", place, "get")
        try:
            return self.session.execute_raw(
                action, lambda: self.collection(place).get(name=str(name)))
        except Exception as exc:
            if isinstance(exc, HttpError) and exc.resp.status == 404:
                return None
            raise_explained(exc, action)

    def not_found(self, place: Place, job_id: str) -> str:
        return (f"no {WORDS[place.collection]} {job_id} in project {place.project}, region "
                f"{place.location}; gpujob list --service vertex --region {place.location} "
                f"--project {place.project} shows its jobs")

    def list(self, place: Place, filter_: str | None = None,
             limit: int | None = None) -> Iterator[dict[str, Any]]:
        """The jobs of ``place``, newest first, page by page, at most ``limit`` of them."""
        action = self.action(f"listing the {WORDS[place.collection]}s of project "
                             f"{place.project} in {place.location}", place, "list")
        count = 0

        def fetch(token: str | None) -> dict[str, Any]:
            size = min(100, limit - count) if limit is not None else 100
            return self.session.execute(action, lambda: self.collection(place).list(
                parent=place.parent, filter=filter_, pageSize=size, pageToken=token))

        for page in self.session.pages(action, fetch, place.collection,
                                       answers.MAX_JOB_PAGES):
            for job in page.get(place.collection, []):
                yield job
                count += 1
                if limit is not None and count >= limit:
                    return

    def cancel(self, name: JobName) -> str | None:
        """Ask for the job's cancellation. None, or its state when it had already ended or was
        being cancelled (a FAILED_PRECONDITION answer)."""
        from googleapiclient.errors import HttpError

        place = Place(name.project, name.location, name.collection)
        action = self.action(f"cancelling {WORDS[name.collection]} {name.id}", place, "cancel",
                             not_found_hint=self.not_found(place, name.id))
        try:
            self.session.execute_raw(action, lambda: self.collection(place).cancel(
                name=str(name), body={}))
            return None
        except Exception as exc:
            if (isinstance(exc, HttpError) and exc.resp.status == 400
                    and parse_http_error(exc).code_name == "FAILED_PRECONDITION"):
                state = str(self.get(name).get("state", ""))
                if state in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED"):
                    return state
            raise_explained(exc, action)

    # -- for creates (``gpujob.services.vertex.jobs.create``)
    # ----------------------------------------------

    def place_of(self, url: str) -> Place:
        """The collection a create ``url`` posts to."""
        found = _COLLECTION_URL.search(url.partition("?")[0])
        if found is None:
            raise UsageError(f"{url} is not where Vertex AI creates jobs")
        return Place(*found.group("project", "location", "collection"))
