"""Native Vertex configs shared by the unit and the fake-service tests: a CustomJobSpec with
three pools (the middle one empty) and a HyperparameterTuningJob with two problems."""

SPEC = """\
workerPoolSpecs:
  - machineSpec:
      machineType: n1-standard-8
      acceleratorType: NVIDIA_TESLA_T4
      acceleratorCount: 2
    replicaCount: 1
    diskSpec: {bootDiskType: pd-ssd, bootDiskSizeGb: 200}
    containerSpec:
      imageUri: gcr.io/p/trainer:1
      args: [--epochs, '3']
  - {}
  - machineSpec: {machineType: n1-highmem-8}
    replicaCount: '3'
    containerSpec: {imageUri: gcr.io/p/trainer:1}
scheduling: {timeout: 7200s, strategy: SPOT}
baseOutputDirectory: {outputUriPrefix: gs://b/out}
"""


TUNING = """\
displayName: tune
maxTrialCount: 4
parallelTrialCount: 2
studySpec:
  algorithm: GRID_SEARCH
  metrics: [{metricId: accuracy, goal: MAXIMIZE}]
  parameters:
    - parameterId: lr
      doubleValueSpec: {minValue: 0.001, maxValue: 0.1}
    - parameterId: lr
      integerValueSpec: {minValue: 16, maxValue: '128'}
  decayCurveStoppingSpec: {}
  medianAutomatedStoppingSpec: {}
trialJobSpec:
  workerPoolSpecs:
    - machineSpec: {machineType: n1-standard-4}
      replicaCount: 1
      containerSpec: {imageUri: 'gcr.io/p/i:1'}
"""
