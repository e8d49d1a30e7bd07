"""How to reach Google Cloud, as resolved from flags and environment; no heavy imports.

The addresses here are the transport's: Cloud Logging, IAM Credentials, Cloud Storage. Each
training API's address is its client module's (``gpujob.services.ai_platform.api``), given as a
template that may
name a region; ``--api-endpoint`` replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

LOGGING_ENDPOINT = "https://logging.googleapis.com/"
IAM_CREDENTIALS_ENDPOINT = "https://iamcredentials.googleapis.com/"
STORAGE_ENDPOINT = "https://storage.googleapis.com/"


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
    see ``endpoint``). Endpoints are base URLs ending in ``/``.
    """

    project: str | None = None
    region: str | None = None  # where a regional API's jobs are (Vertex AI; --region)
    credentials_file: str | None = None
    impersonate_service_account: str | None = None
    api_endpoint: str | None = None
    logging_endpoint: str = LOGGING_ENDPOINT
    iam_endpoint: str = IAM_CREDENTIALS_ENDPOINT
    storage_endpoint: str = STORAGE_ENDPOINT
    request_timeout: float = 60.0
    retry: RetryPolicy = RetryPolicy()
    verbose: bool = False


def storage_endpoint(environ: Mapping[str, str]) -> str:
    """Cloud Storage's address: GPUJOB_STORAGE_ENDPOINT, else STORAGE_EMULATOR_HOST (the variable
    Google's storage libraries read for an emulator; ``http://`` when it names no scheme), else
    https://storage.googleapis.com/."""
    if environ.get("GPUJOB_STORAGE_ENDPOINT"):
        return environ["GPUJOB_STORAGE_ENDPOINT"]
    emulator = environ.get("STORAGE_EMULATOR_HOST")
    if emulator:
        return emulator if "://" in emulator else f"http://{emulator}"
    return STORAGE_ENDPOINT


def base_url(url: str) -> str:
    """An endpoint as the client libraries join paths onto it: with one trailing ``/``."""
    return url.rstrip("/") + "/"


def endpoint(override: str | None, default: str, region: str | None = None) -> str:
    """An API's base URL: ``override`` when given, else ``default`` with ``{region}`` filled in
    (``https://{region}-aiplatform.googleapis.com/`` for a regional API)."""
    if override:
        return base_url(override)
    return base_url(default.format(region=region) if region else default)
