"""Create requests for the Vertex AI client tests, built as the vertex backend builds them
(docs/vertex-contracts: translated body, the submission label, origins and where the config
wrote each value)."""

from __future__ import annotations

from typing import Any

from conftest import PROJECT, REGION
from vertex_translation import CAT, TODAY

from gpujob.config.load import loads
from gpujob.gcp.settings import GcpSettings
from gpujob.services.base import Request
from gpujob.services.vertex.paths import SUBMISSION_LABEL, jobs_url
from gpujob.services.vertex.translate.job import translate
from gpujob.settings import JobOptions

TOKEN = "20261123-101010-123456-abcd"


def translated(text: str, endpoint: str, token: str = TOKEN, source: str = "job.yaml",
               project: str = PROJECT) -> Request:
    """The create request of the AI Platform config ``text`` (a file named ``source``)."""
    loaded = loads(text.encode(), source)
    assert loaded.document is not None, loaded.findings
    done = translate(loaded.document, CAT, TODAY, JobOptions())
    assert not done.errors, done.findings
    body = dict(done.body)
    body["labels"] = {**body.get("labels", {}), SUBMISSION_LABEL: token}
    url = jobs_url(GcpSettings(api_endpoint=endpoint), project, done.region or REGION,
                   done.kind)
    return Request("POST", url, body, done.kind, None, done.origins, loaded.document.locate)


def request(body: dict[str, Any], endpoint: str, noun: str = "CustomJob",
            region: str = REGION, token: str = TOKEN) -> Request:
    """A create request of a Vertex body written by hand."""
    body = {**body, "labels": {**body.get("labels", {}), SUBMISSION_LABEL: token}}
    url = jobs_url(GcpSettings(api_endpoint=endpoint), PROJECT, region, noun)
    return Request("POST", url, body, noun)

