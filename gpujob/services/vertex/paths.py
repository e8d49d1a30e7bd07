"""What the Vertex AI API (aiplatform v1) fixes that several layers share: its regional address,
the collection each kind of job is created in (``jobs_url``), the order gcloud lays a body out
in (``layout``), and gpujob's own label on every job it submits (set by the backend, read by the
API client to find a job whose create answer was lost, warned about in a native config).
Imports nothing at load time but the services' base: ``validate`` and the dry-run read it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpujob.services.labels import SUBMISSION_LABEL as SUBMISSION_LABEL  # every job gpujob submits

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings

ENDPOINT = "https://{region}-aiplatform.googleapis.com/"  # regional: one per location

MAX_DISPLAY_NAME = 128  # characters of a job's displayName (the API's limit)
COLLECTIONS = {"CustomJob": "customJobs", "HyperparameterTuningJob": "hyperparameterTuningJobs"}
_FIRST = ("displayName", "labels", "encryptionSpec")  # as gcloud ai custom-jobs create lays it


def jobs_url(settings: GcpSettings, project: str, region: str, noun: str) -> str:
    """Where a job of ``noun`` (CustomJob, HyperparameterTuningJob) is created (``POST``):
    ``https://REGION-aiplatform.googleapis.com/v1/projects/P/locations/REGION/customJobs``
    (``--api-endpoint`` replaces the address)."""
    from gpujob.gcp.settings import api_endpoint

    base = api_endpoint(settings, "aiplatform", region)
    return f"{base}v1/projects/{project}/locations/{region}/{COLLECTIONS[noun]}"



def layout(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` in gcloud's order: displayName, labels, encryptionSpec, then the rest."""
    return {**{k: body[k] for k in _FIRST if k in body},
            **{k: v for k, v in body.items() if k not in _FIRST}}


def origin_of(path: tuple[Any, ...], origins: Mapping[tuple[Any, ...], tuple[Any, ...]]
              ) -> tuple[Any, ...] | None:
    """The config path the body's value at ``path`` (or its nearest ancestor) was made from,
    in a translation's ``origins``; None when none of them was."""
    for end in range(len(path), 0, -1):
        found = origins.get(path[:end])
        if found is not None:
            return found
    return None


def spec_of(body: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """The CustomJobSpec of a CustomJob, a tuning job or a spec itself, and how many of it run
    at once (a tuning job's parallel trials); a body read from the service is not trusted:
    what is not a spec is ``{}``, what is not a count is 1."""
    if "trialJobSpec" in body:
        spec = body.get("trialJobSpec")
        return spec if isinstance(spec, dict) else {}, max(count_of(
            body.get("parallelTrialCount"), 1), 1)
    spec = body.get("jobSpec", body if "workerPoolSpecs" in body else None)
    return (dict(spec) if isinstance(spec, Mapping) else {}), 1


def strategy_of(body: Mapping[str, Any]) -> str:
    """The job's scheduling strategy (STANDARD when it names none)."""
    spec, _ = spec_of(body)
    scheduling = spec.get("scheduling")
    return str((scheduling if isinstance(scheduling, dict) else {}).get("strategy")
               or "STANDARD")


def count_of(value: Any, default: int) -> int:
    """A count as the API writes it (int64 as a string, int32 as a number); ``default`` when
    absent or not a count."""
    from gpujob.numbers import as_count

    found = as_count(value)
    return default if found is None else found
