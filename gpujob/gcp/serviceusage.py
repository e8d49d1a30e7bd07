"""Service Usage (``serviceusage v1beta1``): a project's quota limits for a service, per region.

``services.consumerQuotaMetrics.list`` with ``view=FULL`` gives every metric of the service,
each with its limit in every region (one ``QuotaBucket`` per region, after the default bucket
without dimensions), in one request (pages, when the service splits it), as
https://cloud.google.com/service-usage/docs/reference/rest/v1beta1/services.consumerQuotaMetrics/list
describes: the preflight reads the limits of all the metrics a job draws on at once. It gives
limits only, never usage: what is in use is counted elsewhere (the quota preflight counts the
project's jobs).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gpujob.errors import RemoteError
from gpujob.gcp.answers import short
from gpujob.gcp.session import Session
from gpujob.gcp.settings import api_endpoint

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

SERVICE = "serviceusage.googleapis.com"
MAX_PAGES = 50  # of a listing of a service's metrics: far more than any service has
ROLE = "roles/serviceusage.serviceUsageViewer"  # holds serviceusage.quotas.get


class Limits(NamedTuple):
    """One metric's limits: per region (None: no limit, ``-1``), and the default of a region
    without a bucket of its own (None: none given)."""

    metric: str
    regions: dict[str, int | None]
    default: int | None
    has_default: bool

    def limit(self, region: str) -> int | None:
        """The region's limit (its bucket, else the default one); None when unlimited.
        ``LookupError`` when the answer gives neither."""
        if region in self.regions:
            return self.regions[region]
        if self.has_default:
            return self.default
        raise LookupError(f"Service Usage gives no limit of {self.metric} in {region}")


_INT64 = re.compile(r"-?[0-9]{1,19}")


def _unreadable(metric: str, what: str) -> RemoteError:
    """An answer with a limit gpujob cannot read: the quota preflight says, in its one warning,
    that the quota could not be read, and the submit goes on (docs/preflight.md)."""
    return RemoteError(f"Service Usage's answer has {what} of {metric}, which gpujob cannot "
                       "read")


def _number(text: Any, metric: str) -> int | None:
    """An int64 limit as the API writes it (its decimal text, or a JSON number); -1
    (unlimited) is None. ``RemoteError`` when it is not an int64 ("1.5", "1e3", null)."""
    value = None
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    elif isinstance(text, str) and _INT64.fullmatch(text):
        value = int(text)
    if value is None or not -(2 ** 63) <= value < 2 ** 63:
        raise _unreadable(metric, f"the limit {short(text)}")
    return None if value < 0 else value


def read_limits(metric: str, answer: dict[str, Any]) -> Limits:
    """The ``ConsumerQuotaMetric`` ``answer`` read: the limit whose unit is per region, its
    buckets by region (``dimensions.region``), the bucket without dimensions as the default.
    ``RemoteError`` when a bucket of it cannot be read."""
    regions: dict[str, int | None] = {}
    default: int | None = None
    has_default = False
    limits = answer.get("consumerQuotaLimits") or []
    if not isinstance(limits, list) or not all(isinstance(x, dict) for x in limits):
        raise _unreadable(metric, "consumerQuotaLimits that are not a list of limits")
    for limit in limits:
        if "{region}" not in str(limit.get("unit", "")):
            continue
        buckets = limit.get("quotaBuckets") or []
        if not isinstance(buckets, list) or not all(isinstance(b, dict) for b in buckets):
            raise _unreadable(metric, "quotaBuckets that are not a list of buckets")
        for bucket in buckets:
            if "effectiveLimit" not in bucket:
                continue
            dimensions = bucket.get("dimensions") or {}
            if not isinstance(dimensions, dict):
                raise _unreadable(metric, f"the dimensions {short(dimensions)}")
            where = dimensions.get("region")
            if where:
                regions[str(where)] = _number(bucket["effectiveLimit"], metric)
            elif not dimensions:
                default, has_default = _number(bucket["effectiveLimit"], metric), True
    return Limits(metric, regions, default, has_default)


class ServiceUsageClient:
    """Quota limits of one project, through one session."""

    def __init__(self, session: Session) -> None:
        from gpujob.gcp.discovery import base, service

        self.session = session
        root = api_endpoint(session.settings, "serviceusage")  # GPUJOB_SERVICEUSAGE_ENDPOINT
        self._metrics = service("serviceusage", "v1beta1", session.http,
                                base("serviceusage", "v1beta1", root)
                                ).services().consumerQuotaMetrics()

    def all_limits(self, service: str) -> dict[str, Limits]:
        """The project's limits of every quota metric of ``service``, by metric name, in one
        listing; ``RemoteError`` when they cannot be read (no permission, no answer). Asked
        once, not retried: the preflight is advice, and a submit does not wait on it."""
        project = self.session.project
        action = self.session.action(
            f"reading the quotas of {service} of project {project}", "serviceusage.quotas.get",
            role=ROLE, service=SERVICE, retry_safe=False)  # one try: the check is advice
        found: dict[str, Limits] = {}
        for page in self.session.listing(action, self._metrics.list, "metrics", MAX_PAGES,
                                         parent=f"projects/{project}/services/{service}",
                                         view="FULL"):
            for answer in page.get("metrics") or []:
                if isinstance(answer, dict) and answer.get("metric"):
                    found[str(answer["metric"])] = read_limits(str(answer["metric"]), answer)
        return found
