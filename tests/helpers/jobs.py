"""Job configs that several test modules share."""

from pathlib import Path
from typing import Any

# The seed's own example of a refused job: T4, K80 and P100 in us-central1, which no zone offered
# together in 2021 (a newer catalog accepts it).
ZONE_MIX = Path(__file__).parent.parent / "cases" / "invalid" / "rule-zone-gpu-mix.yaml"

# A custom-container job on a T4 machine: valid for validate, dry-runs and the fake API.
CONTAINER_JOB = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  masterType: n1-highcpu-16
  masterConfig:
    imageUri: gcr.io/p/trainer:1
    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}
  args: [--from-file]
"""

# A native Vertex CustomJobSpec: one pool of a T4 machine.
NATIVE_JOB = """\
workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8, acceleratorType: NVIDIA_TESLA_T4,
                  acceleratorCount: 1}
    replicaCount: 1
    containerSpec: {imageUri: us-docker.pkg.dev/p/r/trainer:1}
"""

# A runtime-version job with its module but no packages: the package tests add them.
RUNTIME_JOB_WITHOUT_PACKAGES = """\
trainingInput:
  scaleTier: BASIC
  region: us-central1
  runtimeVersion: '2.11'
  pythonVersion: '3.7'
  pythonModule: trainer.task
"""


# The recorder trainer (tests/trainers/recorder), which writes down what each replica saw, and a
# cluster of every kind of replica for it (trainingInput fields): the local-run tests' job.
RECORDER = Path(__file__).resolve().parent.parent / "trainers" / "recorder"

CLUSTER: dict[str, Any] = {
    "scaleTier": "CUSTOM", "region": "us-central1",
    "masterType": "n1-standard-8",
    "masterConfig": {"acceleratorConfig": {"count": 2, "type": "NVIDIA_TESLA_T4"}},
    "workerCount": 2, "workerType": "n1-standard-8",
    "workerConfig": {"acceleratorConfig": {"count": 1, "type": "NVIDIA_TESLA_T4"}},
    "parameterServerCount": 1, "parameterServerType": "n1-highmem-8",
    "evaluatorCount": 1, "evaluatorType": "n1-standard-4",
    "runtimeVersion": "2.11", "pythonVersion": "3.7", "pythonModule": "recorder.task",
}


# the keys of a Job's trainingInput (and of its parts) that property tests draw documents from
TRAINING_INPUT_KEYS = ["scaleTier", "masterType", "workerType", "parameterServerType",
                       "evaluatorType", "workerCount", "parameterServerCount", "evaluatorCount",
                       "masterConfig", "workerConfig", "parameterServerConfig",
                       "evaluatorConfig", "region", "runtimeVersion", "pythonVersion",
                       "packageUris", "pythonModule", "args", "jobDir", "scheduling",
                       "hyperparameters", "useChiefInTfConfig", "acceleratorConfig", "imageUri",
                       "count", "type", "containerCommand", "containerArgs", "tpuTfVersion",
                       "maxWaitTime", "diskConfig"]
