"""The fake Service Usage (serviceusage v1beta1), served by ``FakeGoogle`` as ``google.quota``:
a project's quota limits per metric and region, as ``services.consumerQuotaMetrics`` answers
them (https://cloud.google.com/service-usage/docs/reference/rest/v1beta1/services.consumerQuotaMetrics).

Routes (names for ``google.inject`` / ``google.calls``)::

    GET v1beta1/projects/P/services/S/consumerQuotaMetrics/METRIC   [consumerQuotaMetrics.get]
    GET v1beta1/projects/P/services/S/consumerQuotaMetrics          [consumerQuotaMetrics.list]

METRIC is the metric name with its ``/`` written ``%2F``, as the API's resource names write it;
a literal ``/`` in it does not match the route (404), as it would not match the API's pattern.
The query is checked against the bundled discovery document (``view`` BASIC or FULL only).

Set-up: ``google.quota.set(metric, {region: limit, ...}, default=0)`` (a limit of ``-1``:
unlimited); ``google.quota.denied = True``: 403 PERMISSION_DENIED naming
``serviceusage.quotas.get``. A metric never set: 404. ``view=BASIC`` (the default) leaves out the
regional buckets without an override, as the reference says; the fake gives every regional
bucket a consumer override, so both views show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from fakes.errors import Refused, not_found, permission_denied
from fakes.routing import Answer, Call, Route

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

DOC = "serviceusage.v1beta1"


@dataclass
class Metric:
    regions: dict[str, int]
    default: int = 0


@dataclass
class Quotas:
    fake: Any
    metrics: dict[str, Metric] = field(default_factory=dict)
    denied: bool = False

    def set(self, metric: str, regions: dict[str, int], default: int = 0) -> None:
        with self.fake.lock:
            self.metrics[metric] = Metric(dict(regions), default)

    def answer(self, project: str, service: str, metric: str) -> dict[str, Any]:
        found = self.metrics[metric]
        number = self.fake.projects.get(project, project)
        name = (f"projects/{number}/services/{service}/consumerQuotaMetrics/"
                f"{metric.replace('/', '%2F')}")
        unit = "1/{project}/{region}"
        buckets: list[dict[str, Any]] = [{"effectiveLimit": str(found.default),
                                          "defaultLimit": str(found.default)}]
        for region, limit in found.regions.items():
            buckets.append({
                "effectiveLimit": str(limit), "defaultLimit": str(found.default),
                "dimensions": {"region": region},
                "consumerOverride": {"name": f"{name}/limits/%2Fproject%2Fregion/"
                                             f"consumerOverrides/{region}",
                                     "overrideValue": str(limit),
                                     "dimensions": {"region": region}, "metric": metric,
                                     "unit": unit}})
        short = metric.rsplit("/", 1)[-1]
        return {"name": name, "metric": metric, "unit": "1",
                "displayName": short.replace("_", " ").capitalize() + " per region",
                "consumerQuotaLimits": [{
                    "name": f"{name}/limits/%2Fproject%2Fregion", "metric": metric,
                    "unit": unit, "isPrecise": True, "allowsAdminOverrides": True,
                    "quotaBuckets": buckets}]}


def _guard(fake: FakeGoogle, call: Call) -> None:
    if fake.quota.denied:
        raise Refused(403, permission_denied(
            "serviceusage.quotas.get",
            f"projects/{call.params['project']}/services/{call.params['service']}"))


def _get(fake: FakeGoogle, call: Call) -> Answer:
    metric = unquote(call.params["metric"])
    with fake.lock:
        if metric not in fake.quota.metrics:
            raise Refused(404, not_found(f"No quota metric {metric}."))
        return 200, fake.quota.answer(call.params["project"], call.params["service"],
                                      metric), {}


def _list(fake: FakeGoogle, call: Call) -> Answer:
    with fake.lock:
        metrics = [fake.quota.answer(call.params["project"], call.params["service"], m)
                   for m in sorted(fake.quota.metrics)]
    return 200, ({"metrics": metrics} if metrics else {}), {}


_PARENT = r"/v1beta1/projects/(?P<project>[^/]+)/services/(?P<service>[^/]+)/consumerQuotaMetrics"
ROUTES = [
    Route("GET", _PARENT + r"/(?P<metric>[^/]+)", "consumerQuotaMetrics.get", _get, DOC,
          ("services", "consumerQuotaMetrics", "get"), strict=True, guard=_guard),
    Route("GET", _PARENT, "consumerQuotaMetrics.list", _list, DOC,
          ("services", "consumerQuotaMetrics", "list"), strict=True, guard=_guard),
]
