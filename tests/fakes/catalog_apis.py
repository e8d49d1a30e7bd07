"""The APIs ``gpujob catalog refresh`` reads, in the fake Google (reached as ``fake.catalogs``):

- Compute Engine v1 ``acceleratorTypes.aggregatedList`` and ``machineTypes.aggregatedList``
  (``compute/v1/projects/P/aggregated/...``): the zones added with ``add_zone``, paged
  ``zones_per_page`` zone scopes at a time, a zone without any item answered with the
  NO_RESULTS_ON_PAGE warning as Compute Engine does; the regular-expression form of ``filter``
  (``name eq (a|b)``) is applied to machine types.
- Artifact Registry v1 ``dockerImages.list``: ``images`` (name -> tags), one entry per digest,
  ``pageSize`` at a time.
- Cloud Billing v1 ``services.skus.list``: ``skus`` (service id -> SKUs), read with an API key
  the test gave (``api_keys``), not a token.

Every answer is checked against the response type its discovery document declares before it
is sent (a fake that answers what Google could not is a broken test), and written as the
service prints it (int64 as strings)."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

from fakes.discovery import method, proto3_json, violations
from fakes.errors import Refused, error_body, invalid_field
from fakes.routing import Answer, Call, Route

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

READ_ONLY = "https://www.googleapis.com/auth/cloud-platform.read-only"
COMPUTE = "https://www.googleapis.com/auth/compute"


class Catalogs:
    def __init__(self) -> None:
        self.zones: dict[str, dict[str, list[dict[str, Any]]]] = {}  # zone -> kind -> items
        self.zones_per_page = 2
        self.images: dict[str, list[str]] = {}  # image name -> tags of its newest digest
        self.skus: dict[str, list[dict[str, Any]]] = {}  # billing service id -> SKUs
        self.api_keys: set[str] = set()
        self.page_size_cap = 1000

    def add_zone(self, zone: str, accelerators: dict[str, int] | None = None,
                 machines: dict[str, tuple[str, int] | None] | None = None,
                 shapes: dict[str, tuple[int, int]] | None = None) -> None:
        """A zone: its GPUs (Compute Engine name -> maximumCardsPerInstance) and machine types
        (name -> (built-in GPU, count), or None for one without GPUs), each with 8 vCPUs and
        30720 MB unless ``shapes`` gives its (guestCpus, memoryMb)."""
        base = f"https://www.googleapis.com/compute/v1/projects/p/zones/{zone}"
        entry = self.zones.setdefault(zone, {"acceleratorTypes": [], "machineTypes": []})
        for name, most in (accelerators or {}).items():
            entry["acceleratorTypes"].append({
                "kind": "compute#acceleratorType", "id": _id(zone + name), "name": name,
                "description": name.upper(), "zone": base, "maximumCardsPerInstance": most,
                "selfLink": f"{base}/acceleratorTypes/{name}"})
        for name, gpu in (machines or {}).items():
            machine: dict[str, Any] = {
                "kind": "compute#machineType", "id": _id(zone + name), "name": name,
                "guestCpus": (shapes or {}).get(name, (8, 0))[0],
                "memoryMb": (shapes or {}).get(name, (0, 30720))[1], "zone": zone,
                "isSharedCpu": False,
                "selfLink": f"{base}/machineTypes/{name}", "architecture": "X86_64"}
            if gpu:
                machine["accelerators"] = [{"guestAcceleratorType": gpu[0],
                                            "guestAcceleratorCount": gpu[1]}]
            entry["machineTypes"].append(machine)

    def add_sku(self, service: str, sku_id: str, description: str, regions: list[str],
                price: float, effective: str = "2026-11-26T08:00:00Z",
                usage_type: str = "OnDemand") -> None:
        units, nanos = int(price), round((price - int(price)) * 1e9)
        self.skus.setdefault(service, []).append({
            "name": f"services/{service}/skus/{sku_id}", "skuId": sku_id,
            "description": description,
            "category": {"serviceDisplayName": "Vertex AI", "resourceFamily": "Compute",
                         "resourceGroup": "GPU", "usageType": usage_type},
            "serviceRegions": regions,
            "pricingInfo": [{"summary": "", "effectiveTime": effective,
                             "currencyConversionRate": 1, "pricingExpression": {
                                 "usageUnit": "h", "usageUnitDescription": "hour",
                                 "baseUnit": "s", "baseUnitDescription": "second",
                                 "baseUnitConversionFactor": 3600, "displayQuantity": 1,
                                 "tieredRates": [{"startUsageAmount": 0, "unitPrice": {
                                     "currencyCode": "USD", "units": str(units),
                                     "nanos": nanos}}]}}],
            "serviceProviderName": "Google",
            "geoTaxonomy": {"type": "REGIONAL", "regions": regions}})


def _id(text: str) -> str:
    return str(int(hashlib.sha256(text.encode()).hexdigest()[:12], 16))


def _answer(doc: str, path: tuple[str, ...], answer: dict[str, Any]) -> Answer:
    schema = method(doc, *path)["response"]
    problems = violations(answer, schema, doc)
    assert problems == [], f"the fake's {'.'.join(path)} answer is not valid: {problems}"
    return 200, proto3_json(answer, schema, doc), {}


def _page(call: Call, items: list[Any], size: int) -> tuple[list[Any], str | None]:
    token = (call.query.get("pageToken") or ["0"])[0]
    if not re.fullmatch(r"\d+", token) or int(token) > len(items):
        raise Refused(400, invalid_field("page_token", "Invalid page token"))
    start = int(token)
    rest = items[start + size:]
    return items[start:start + size], str(start + size) if rest else None


def _aggregated(kind: str, fake: FakeGoogle, call: Call) -> Answer:
    catalogs = fake.catalogs
    project = call.params["project"]
    pattern = None
    found = re.fullmatch(r"name eq (.+)", (call.query.get("filter") or [""])[0])
    if found:
        pattern = re.compile(found[1])
    with fake.lock:
        zones = sorted(catalogs.zones.items())
    page, token = _page(call, zones, catalogs.zones_per_page)
    items: dict[str, Any] = {}
    for zone, listed in page:
        chosen = [i for i in listed[kind] if pattern is None or pattern.fullmatch(i["name"])]
        items[f"zones/{zone}"] = {kind: chosen} if chosen else {"warning": {
            "code": "NO_RESULTS_ON_PAGE",
            "message": f"There are no results for scope 'zones/{zone}' on this page.",
            "data": [{"key": "scope", "value": f"zones/{zone}"}]}}
    noun = kind[0].lower() + kind[1:-1]
    answer: dict[str, Any] = {
        "kind": f"compute#{noun}AggregatedList", "id": f"projects/{project}/aggregated/{kind}",
        "items": items, "selfLink": f"https://www.googleapis.com/compute/v1/projects/{project}"
                                    f"/aggregated/{kind}"}
    if token:
        answer["nextPageToken"] = token
    return _answer("compute.v1", (kind, "aggregatedList"), answer)


def _docker_images(fake: FakeGoogle, call: Call) -> Answer:
    parent = call.params["parent"]
    size = min(int((call.query.get("pageSize") or ["100"])[0]), fake.catalogs.page_size_cap)
    entries = []
    with fake.lock:
        images = sorted(fake.catalogs.images.items())
    for name, tags in images:  # each image: its newest digest (tagged) and an older one
        for n, digest_tags in enumerate((tags, [])):
            digest = "sha256:" + hashlib.sha256(f"{name}{n}".encode()).hexdigest()
            entries.append({"name": f"{parent}/dockerImages/{name}@{digest}",
                            "uri": f"us-docker.pkg.dev/vertex-ai/training/{name}@{digest}",
                            "tags": digest_tags, "imageSizeBytes": "9876543210",
                            "uploadTime": "2026-11-20T18:02:11.123456Z",
                            "updateTime": "2026-11-20T18:02:11.123456Z",
                            "mediaType": "application/vnd.docker.distribution.manifest.v2+json"})
    page, token = _page(call, entries, size)
    answer: dict[str, Any] = {"dockerImages": page}
    if token:
        answer["nextPageToken"] = token
    return _answer("artifactregistry.v1",
                   ("projects", "locations", "repositories", "dockerImages", "list"), answer)


def _skus(fake: FakeGoogle, call: Call) -> Answer:
    size = int((call.query.get("pageSize") or ["5000"])[0])
    with fake.lock:
        skus = list(fake.catalogs.skus.get(call.params["service"], []))
    page, token = _page(call, skus, min(size, fake.catalogs.page_size_cap))
    answer: dict[str, Any] = {"skus": page, "nextPageToken": token or ""}
    return _answer("cloudbilling.v1", ("services", "skus", "list"), answer)


def key_guard(fake: FakeGoogle, query: dict[str, list[str]]) -> str:
    """The API key of a request, when the fake knows it; else the refusal Google gives."""
    key = (query.get("key") or [""])[0]
    with fake.lock:
        known = key in fake.catalogs.api_keys
    if not known:
        raise Refused(400, error_body(400, "INVALID_ARGUMENT",
                                      "API key not valid. Please pass a valid API key."))
    return "api-key"


ROUTES = [
    Route("GET", r"/compute/v1/projects/(?P<project>[^/]+)/aggregated/acceleratorTypes",
          "acceleratorTypes.aggregatedList", lambda f, c: _aggregated("acceleratorTypes", f, c),
          "compute.v1", ("acceleratorTypes", "aggregatedList"),
          scopes=frozenset({"https://www.googleapis.com/auth/cloud-platform", COMPUTE})),
    Route("GET", r"/compute/v1/projects/(?P<project>[^/]+)/aggregated/machineTypes",
          "machineTypes.aggregatedList", lambda f, c: _aggregated("machineTypes", f, c),
          "compute.v1", ("machineTypes", "aggregatedList"),
          scopes=frozenset({"https://www.googleapis.com/auth/cloud-platform", COMPUTE})),
    Route("GET", r"/v1/(?P<parent>projects/[^/]+/locations/[^/]+/repositories/[^/]+)"
                 r"/dockerImages", "dockerImages.list", _docker_images, "artifactregistry.v1",
          ("projects", "locations", "repositories", "dockerImages", "list"),
          scopes=frozenset({"https://www.googleapis.com/auth/cloud-platform", READ_ONLY})),
    Route("GET", r"/v1/services/(?P<service>[^/]+)/skus", "skus.list", _skus, "cloudbilling.v1",
          ("services", "skus", "list"), api_key=True),
]
