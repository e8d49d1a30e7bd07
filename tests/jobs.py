"""Job configs that several test modules share."""

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

# A runtime-version job with its module but no packages: the package tests add them.
RUNTIME_JOB_WITHOUT_PACKAGES = """\
trainingInput:
  scaleTier: BASIC
  region: us-central1
  runtimeVersion: '2.11'
  pythonVersion: '3.7'
  pythonModule: trainer.task
"""
