"""How to reach Google Cloud, as resolved from flags and environment; no heavy imports.

Every Google API gpujob calls has its address decided by one function, ``api_endpoint``: the
service's own API (aiplatform, ml) takes ``--api-endpoint`` (GPUJOB_API_ENDPOINT) first; any API
takes ``GPUJOB_<API>_ENDPOINT`` (its discovery name in capitals); else its default address in
``ENDPOINTS``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

LOGGING_ENDPOINT = "https://logging.googleapis.com/"
IAM_CREDENTIALS_ENDPOINT = "https://iamcredentials.googleapis.com/"
STORAGE_ENDPOINT = "https://storage.googleapis.com/"

# Every Google API gpujob calls, by its discovery name, and its root URL ({region}: a regional
# API, one address per location). The paths of an API's methods are joined onto its root URL and
# the discovery document's servicePath (compute/v1/ for Compute Engine, "" for most).
ENDPOINTS: dict[str, str] = {
    "aiplatform": "https://{region}-aiplatform.googleapis.com/",
    "ml": "https://ml.googleapis.com/",
    "compute": "https://compute.googleapis.com/",
    "artifactregistry": "https://artifactregistry.googleapis.com/",
    "cloudbilling": "https://cloudbilling.googleapis.com/",
    "serviceusage": "https://serviceusage.googleapis.com/",
    "bigquery": "https://bigquery.googleapis.com/",
    "logging": LOGGING_ENDPOINT,
    "storage": STORAGE_ENDPOINT,
    "iamcredentials": IAM_CREDENTIALS_ENDPOINT,
}
# the training services' own APIs: --api-endpoint (GPUJOB_API_ENDPOINT) stands for whichever a
# command calls
SERVICE_APIS = frozenset({"aiplatform", "ml"})
# older names kept: GPUJOB_IAM_ENDPOINT for IAM Credentials
_ALIASES = {"iamcredentials": ("GPUJOB_IAM_ENDPOINT",)}


# What a project and a region can be, checked before either becomes part of a resource name
# (``projects/PROJECT/locations/REGION/…``). A project ID: lowercase letters, digits and hyphens
# (https://cloud.google.com/resource-manager/docs/creating-managing-projects), an older
# domain-scoped one prefixed by its domain and ':'; or a project number.
_PROJECT = re.compile(r"(?:[a-z0-9][a-z0-9.-]*:)?[a-z0-9][a-z0-9-]*")
PROJECT_RULE = ("a project ID holds only lowercase letters, digits and hyphens (a domain-scoped "
                "one: example.com:my-project), or is a project number; see "
                "https://cloud.google.com/resource-manager/docs/creating-managing-projects")
_REGION = re.compile(r"[a-z][a-z0-9-]*")
REGION_RULE = "a region name holds only lowercase letters, digits and hyphens, as us-central1"


def project_problem(project: str) -> str | None:
    """What keeps ``project`` from being a project ID or number, or None."""
    return None if _PROJECT.fullmatch(project) else PROJECT_RULE


def region_problem(region: str) -> str | None:
    """What keeps ``region`` from being a region's name, or None."""
    return None if _REGION.fullmatch(region) else REGION_RULE


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of one API call: at most ``max_attempts`` tries, none starting after ``deadline``
    seconds; the n-th wait is ``initial_delay * 2**n`` (at most ``max_delay``) scaled by a random
    factor in [0.5, 1), or what the server's ``Retry-After`` asks for."""

    max_attempts: int = 5
    deadline: float = 120.0
    initial_delay: float = 1.0
    max_delay: float = 30.0


@dataclass(frozen=True)
class GcpSettings:
    """Everything needed to call the APIs, as the user gave it (nothing resolved yet).

    ``project``: --project, else GPUJOB_PROJECT, GOOGLE_CLOUD_PROJECT or CLOUDSDK_CORE_PROJECT,
    else (when None) the credentials' project. ``region``: the jobs' region for the commands
    that follow jobs of a regional API (a job's full name gives its own). ``credentials_file``:
    a key or credentials file used instead of Application Default Credentials.
    ``api_endpoint``: the training API's address when the user gave one (None: the API's own,
    see ``endpoint``). ``endpoints``: other APIs' addresses the user gave, by discovery name
    (``environment_endpoints``). ``api_endpoint()`` decides each API's address from them.
    """

    project: str | None = None
    region: str | None = None  # where a regional API's jobs are (Vertex AI; --region)
    credentials_file: str | None = None
    impersonate_service_account: str | None = None
    api_endpoint: str | None = None
    endpoints: Mapping[str, str] = field(default_factory=dict)
    request_timeout: float = 60.0
    retry: RetryPolicy = RetryPolicy()
    verbose: bool = False


def environment_endpoints(environ: Mapping[str, str]) -> dict[str, str]:
    """The addresses the environment gives, by API: GPUJOB_<API>_ENDPOINT for each API of
    ``ENDPOINTS`` (GPUJOB_IAM_ENDPOINT too, for iamcredentials), and for Cloud Storage
    STORAGE_EMULATOR_HOST (the variable Google's storage libraries read for an emulator;
    ``http://`` when it names no scheme) when GPUJOB_STORAGE_ENDPOINT is not set."""
    found = {}
    for api in ENDPOINTS:
        for name in (f"GPUJOB_{api.upper()}_ENDPOINT", *_ALIASES.get(api, ())):
            if environ.get(name):
                found[api] = environ[name]
                break
    emulator = environ.get("STORAGE_EMULATOR_HOST")
    if emulator and "storage" not in found:
        found["storage"] = emulator if "://" in emulator else f"http://{emulator}"
    return found


def api_endpoint(settings: GcpSettings, api: str, region: str | None = None) -> str:
    """The root URL gpujob calls ``api`` (a discovery name, a key of ``ENDPOINTS``) at, for
    ``region`` where the API is regional: ``--api-endpoint`` for the service's own API, else
    GPUJOB_<API>_ENDPOINT, else Google's address. A given address may name ``{region}``."""
    given = settings.api_endpoint if api in SERVICE_APIS else None
    return endpoint(given or settings.endpoints.get(api), ENDPOINTS[api], region)


def base_url(url: str) -> str:
    """An endpoint as the client libraries join paths onto it: with one trailing ``/``."""
    return url.rstrip("/") + "/"


def endpoint(override: str | None, default: str, region: str | None = None) -> str:
    """An API's base URL: ``override`` when given, else ``default`` with ``{region}`` filled in
    (``https://{region}-aiplatform.googleapis.com/`` for a regional API)."""
    address = override or default
    return base_url(address.replace("{region}", region) if region else address)
