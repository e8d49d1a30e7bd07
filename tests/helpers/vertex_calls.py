"""Calls to the fake Vertex AI through google-api-python-client, for the tests of the fake."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import PROJECT, PROJECT_NUMBER, REGION
from googleapiclient.errors import HttpError

PARENT = f"projects/{PROJECT}/locations/{REGION}"
NAME = re.compile(rf"projects/{PROJECT_NUMBER}/locations/{REGION}/customJobs/(\d{{19}})")
T4 = "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus"


def custom_jobs(client):
    return client.projects().locations().customJobs()


def tuning_jobs(client):
    return client.projects().locations().hyperparameterTuningJobs()


def refusal(call) -> tuple[int, dict[str, Any]]:
    """The status and ``error`` of a call that must fail."""
    with pytest.raises(HttpError) as caught:
        call.execute()
    return caught.value.resp.status, json.loads(caught.value.content)["error"]


def fields(error: dict[str, Any]) -> list[str]:
    """The field paths of an error's google.rpc.BadRequest."""
    (bad,) = [d for d in error["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    return [v["field"] for v in bad["fieldViolations"]]


def id_of(job: dict[str, Any]) -> str:
    return job["name"].rsplit("/", 1)[1]
