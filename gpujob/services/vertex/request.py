"""The request that creates a Vertex AI job, built once from the checked job.

The job is a ``CustomJob``, or a ``HyperparameterTuningJob`` when the config has
``hyperparameters``, POSTed to the collection of the job's region at the region's endpoint.
Vertex chooses the job's ID, so every request carries a label unique to the submission
(``gpujob-submission``): after an ambiguous failure the client finds the job by it instead of
creating a second one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gpujob.errors import UsageError
from gpujob.findings import JsonPath, Location
from gpujob.services.vertex.paths import MAX_DISPLAY_NAME, SUBMISSION_LABEL, jobs_url, layout

if TYPE_CHECKING:
    from typing import NamedTuple

    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.base import Request
    from gpujob.services.vertex.translate.job import Translation
else:
    from gpujob.tuples import NamedTuple

NO_REGION = "pass --region (or set GPUJOB_REGION, or trainingInput.region)"
NO_NATIVE_REGION = ("pass --region REGION (or set GPUJOB_REGION): a native Vertex config does "
                    "not name its region")


class Job(NamedTuple):
    """A checked job as Vertex AI takes it: the body of its create request (translated from an
    AI Platform config, or a native config as written), its kind and region, and, for a
    translation, each body path's config path and where the config wrote it (so that the
    service's complaints about a field point at the config)."""

    kind: str  # CustomJob | HyperparameterTuningJob
    body: dict[str, Any]
    region: str | None
    origins: Mapping[JsonPath, JsonPath] = {}
    locate: Callable[[JsonPath], Location] | None = None
    no_region: str = NO_REGION  # where the region can be given
    translation: Translation | None = None  # the AI Platform config's, whole (``convert``)


def submission_token(now: datetime | None = None) -> str:
    """A label value of its own for one submission: the UTC time to the microsecond, then eight
    random hex digits (``20261123-134740-123456-1a2b3c4d``; a label value holds lowercase
    letters, digits, ``-`` and ``_``, at most 63), so that submits started together differ."""
    now = now or datetime.now(timezone.utc)
    import secrets  # a submit's, not a check's (validate's start-up)

    return f"{now:%Y%m%d-%H%M%S-%f}-{secrets.token_hex(4)}"


def request(job: Job, gcp: GcpSettings, project: str | None) -> Request:
    """POST the job's body with the submission's label to its kind's collection in its region;
    without a region, a usage error saying where to give one."""
    from gpujob.services.base import Request

    if job.region is None:
        raise UsageError("no region for the job", job.no_region)
    labels = {**job.body.get("labels", {}), SUBMISSION_LABEL: submission_token()}
    body = layout({**job.body, "labels": labels})
    return Request("POST", jobs_url(gcp, project or "PROJECT", job.region, job.kind), body,
                   job.kind, job_id=None, origins=job.origins, locate=job.locate)


def check_display_name(name: str) -> None:
    """--display-name names the Vertex AI job, whatever the config's form: not empty, and not
    longer than Vertex takes."""
    if not name.strip():
        raise UsageError("--display-name is empty", "give a name, or leave --display-name out "
                         "(the job is then named by its jobId)")
    if len(name) > MAX_DISPLAY_NAME:
        raise UsageError(f"--display-name is {len(name)} characters long; a Vertex AI job's "
                         f"display name has at most {MAX_DISPLAY_NAME}", "give a shorter name")
