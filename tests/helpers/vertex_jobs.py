"""Request bodies for the fake Vertex AI: the smallest a careful client sends (int64 as strings,
int32 as numbers, nothing output-only), as fresh dicts to change freely."""

from __future__ import annotations

from typing import Any

IMAGE = "us-docker.pkg.dev/proj-a/trainers/trainer:1"


def custom_job(display_name: str = "train", labels: dict[str, str] | None = None,
               **machine: Any) -> dict[str, Any]:
    """A CustomJob with one container pool on n1-standard-4 with a T4 (``machine`` overrides
    the machineSpec's fields)."""
    body: dict[str, Any] = {
        "displayName": display_name,
        "jobSpec": {"workerPoolSpecs": [{
            "machineSpec": {"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_T4",
                            "acceleratorCount": 1, **machine},
            "replicaCount": "1",
            "containerSpec": {"imageUri": IMAGE, "args": ["--epochs", "2"]}}]}}
    if labels is not None:
        body["labels"] = labels
    return body


def tuning_job(display_name: str = "tune", labels: dict[str, str] | None = None,
               max_trials: int = 4, parallel: int = 2) -> dict[str, Any]:
    """A HyperparameterTuningJob over a learning rate and a batch size, maximizing accuracy."""
    body: dict[str, Any] = {
        "displayName": display_name,
        "maxTrialCount": max_trials, "parallelTrialCount": parallel,
        "studySpec": {
            "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
            "parameters": [
                {"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1},
                 "scaleType": "UNIT_LOG_SCALE"},
                {"parameterId": "batch", "integerValueSpec": {"minValue": "16",
                                                              "maxValue": "128"}},
                {"parameterId": "opt", "categoricalValueSpec": {"values": ["adam", "sgd"]}}]},
        "trialJobSpec": custom_job()["jobSpec"]}
    if labels is not None:
        body["labels"] = labels
    return body
