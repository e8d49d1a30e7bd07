"""The ``vertex`` service: Vertex AI custom training (the ``aiplatform v1`` API).

The request is the checked AI Platform config translated (``gpujob.translate.vertex``) into a
``CustomJob``, or a ``HyperparameterTuningJob`` when it has ``hyperparameters``, POSTed to the
collection of the job's region at the region's endpoint. Vertex chooses the job's ID, so every
request carries a label unique to the submission (``gpujob-submission``): after an ambiguous
failure the client finds the job by it instead of creating a second one.

Following jobs (the client, states, references, links, next commands) is
``gpujob.backends.vertex_jobs``, imported when first needed.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

from gpujob.backends.base import Commands, JobClient, JobOptions, JobRef, JobStatus, Links, Request
from gpujob.errors import InvalidConfig, UsageError
from gpujob.vertex_api import SUBMISSION_LABEL, jobs_url, layout

if TYPE_CHECKING:
    from gpujob.gcp.session import Session
    from gpujob.gcp.settings import GcpSettings


def submission_token(now: datetime | None = None) -> str:
    """A label value of its own for one submission: the UTC time to the microsecond, then eight
    random hex digits (``20261123-134740-123456-1a2b3c4d``; a label value holds lowercase
    letters, digits, ``-`` and ``_``, at most 63), so that submits started together differ."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%d-%H%M%S-%f}-{secrets.token_hex(4)}"


class Vertex:
    """``base.Backend`` for Vertex AI custom training."""

    name = "vertex"
    title = "Vertex AI custom training"
    # every flag of submit is translated, or reported where it is dropped (a warning)
    unsupported_flags: frozenset[str] = frozenset()

    def request(self, body: dict[str, Any], gcp: GcpSettings, project: str | None,
                options: JobOptions | None = None) -> Request:
        """The create request of the AI Platform job ``body``, checked already (its findings,
        at their places in the file, were reported then): a config the translation refuses
        raises ``InvalidConfig``. A native Vertex job (a ``CustomJob`` or
        ``HyperparameterTuningJob`` body, ``vertex_native.body``) is sent as it is, to the
        region of ``options``."""
        from gpujob.catalog import vertex_data
        from gpujob.config.document import Document
        from gpujob.translate.vertex import VertexOptions, translate
        from gpujob.vertex_native.shapes import kind

        options = options or JobOptions()
        native = kind(body)
        if native is not None:
            return self._request(body, gcp, project, options.region, native,
                                 "pass --region REGION (or set GPUJOB_REGION): a native Vertex "
                                 "config does not name its region")
        cat = options.catalog if options.catalog is not None else vertex_data.load()
        given = options.document
        doc = given if given is not None and given.data is body else Document("<job>", body)
        translation = translate(doc, cat, date.today(),
                                VertexOptions(executor_image_uri=options.executor_image_uri,
                                              strategy=options.strategy,
                                              display_name=options.display_name,
                                              extras=options.extras))
        if translation.errors:
            raise InvalidConfig(f"the job cannot run on Vertex AI: "
                                f"{translation.errors[0].message}")
        request = self._request(translation.body, gcp, project, translation.region,
                                translation.kind, "pass --region (or set GPUJOB_REGION, or "
                                "trainingInput.region)")
        # the service's complaints about a field then name the config's value (vertex_refusals)
        return replace(request, origins=translation.origins,
                       locate=doc.locate if doc is given else None)

    def _request(self, body: dict[str, Any], gcp: GcpSettings, project: str | None,
                 region: str | None, noun: str, no_region_hint: str) -> Request:
        """POST ``body`` with the submission's label to the ``noun`` collection of
        ``region``; without one, a usage error hinted by ``no_region_hint`` (where the region
        can be given: a native config cannot say)."""
        if region is None:
            raise UsageError("no region for the job", no_region_hint)
        labels = {**body.get("labels", {}), SUBMISSION_LABEL: submission_token()}
        job = layout({**body, "labels": labels})
        return Request("POST", jobs_url(gcp, project or "PROJECT", region, noun), job, noun,
                       job_id=None)

    def client(self, gcp: GcpSettings, session: Session | None = None) -> JobClient:
        from gpujob.backends import vertex_jobs

        return vertex_jobs.client(gcp, session)

    def status(self, raw: dict[str, Any]) -> JobStatus:
        from gpujob.backends import vertex_jobs

        return vertex_jobs.status(raw)

    def parse_ref(self, text: str) -> JobRef:
        from gpujob.backends import vertex_jobs

        return vertex_jobs.parse_ref(text)

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        from gpujob.backends import vertex_jobs

        return vertex_jobs.links(job_id, project, location)

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands:
        from gpujob.backends import vertex_jobs

        return vertex_jobs.commands(job_id, project, location)


BACKEND = Vertex()
