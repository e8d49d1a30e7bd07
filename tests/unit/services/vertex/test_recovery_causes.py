"""How a Vertex AI job that ended is read by --recover (``vertex.recovery.ended``): the
catalog's causes and messages, whether it ran, and a replica's exit code."""

from __future__ import annotations

from typing import Any

import pytest

from gpujob.catalog import files
from gpujob.services.recovery import Ended
from gpujob.services.vertex import catalog
from gpujob.services.vertex import recovery as vertex_recovery

NAME = "projects/123/locations/us-central1/customJobs/42"
STOCKOUT = ("Resources are insufficient in region: us-central1. Try a different region or use a "
            "different accelerator.")


def ended(raw: dict[str, Any]) -> Ended:
    """How ``raw`` ended, by the built-in catalog's recovery section."""
    return vertex_recovery.ended(raw, files.built_in(catalog).recovery)


def _job(message: str, strategy: str = "SPOT", ran: bool = True,
         state: str = "JOB_STATE_FAILED") -> dict[str, Any]:
    job: dict[str, Any] = {"name": NAME, "state": state, "error": {"code": 8, "message": message},
                           "jobSpec": {"scheduling": {"strategy": strategy}},
                           "endTime": "2026-11-29T02:00:00Z"}
    if ran:
        job["startTime"] = "2026-11-29T01:00:00Z"
    return job


def test_a_spot_job_that_ran_and_stocked_out_was_preempted():
    found = ended(_job(STOCKOUT))
    assert found.failed and found.ran and found.seconds == 3600.0
    assert found.cause is not None and found.cause.startswith(
        "preemption: its Spot VMs were preempted")
    assert found.where == "us-central1/SPOT"


@pytest.mark.parametrize(("message", "strategy", "ran", "starts"), [
    (STOCKOUT, "SPOT", False, "stockout: Compute Engine had no capacity"),
    (STOCKOUT, "STANDARD", True, "preemption: its VMs were preempted or lost"),
    ("STOCKOUT", "SPOT", True, "preemption: its Spot VMs"),
    ("The following quota metrics exceed quota limits: aiplatform.googleapis.com/x", "SPOT",
     False, "capacity: the project's quota"),
    ("Internal error occurred for the current attempt.", "STANDARD", True, "internal: "),
])
def test_the_infrastructures_causes(message, strategy, ran, starts):
    found = ended(_job(message, strategy, ran))
    assert found.cause is not None and found.cause.startswith(starts), found
    assert found.exit_code is None


def test_a_replicas_exit_code_is_read_from_its_message_and_is_not_a_cause():
    found = ended(_job("The replica workerpool0-0 exited with a non-zero status of 137. "
                       "Termination reason: Error."))
    assert found.failed and found.cause is None and found.exit_code == 137


def test_a_job_that_did_not_fail_has_no_cause():
    found = ended(_job("", state="JOB_STATE_SUCCEEDED"))
    assert not found.failed and found.cause is None and found.ran
    cancelled = ended(_job("CANCELED", state="JOB_STATE_CANCELLED", ran=False))
    assert not cancelled.failed and cancelled.seconds is None


def test_a_replica_that_exited_is_the_trainers_end_whatever_its_traceback_says():
    """Vertex quotes the trainer's error after the exit status: words of an infrastructure
    cause in that traceback do not make the trainer's failure a preemption."""
    found = ended(_job("The replica workerpool0-0 exited with a non-zero status of 1. "
                       "Traceback: RuntimeError: " + STOCKOUT))
    assert found.cause is None and found.exit_code == 1
