"""The discovery-document validator the fakes and the request tests share: it must refuse what
the service would, for ml v1 and aiplatform v1 alike, so a passing body means something."""

from __future__ import annotations

from fakes.discovery import request_violations, violations

CREATE = ("projects", "locations", "customJobs", "create")
GOOD = {
    "displayName": "j",
    "labels": {"team": "ml"},
    "jobSpec": {
        "workerPoolSpecs": [
            {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                             "acceleratorCount": 1},
             "replicaCount": "1",
             "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
             "containerSpec": {"imageUri": "gcr.io/p/i:1", "args": ["--x"]}},
            {},
        ],
        "scheduling": {"timeout": "3600s", "strategy": "SPOT"},
        "baseOutputDirectory": {"outputUriPrefix": "gs://b/out"},
    },
}


def test_a_good_custom_job_passes():
    assert request_violations("aiplatform.v1", GOOD, *CREATE) == []


def test_every_kind_of_mistake_is_named_by_its_field():
    bad = {
        "name": "projects/p/locations/l/customJobs/1",  # output only
        "jobSpec": {
            "workerPoolSpecs": [
                {"machineSpec": {"machineType": "n1-standard-8",
                                 "acceleratorType": "NVIDIA_TESLA_T5",  # not in the enum
                                 "acceleratorCount": "1"},  # int32 as a string
                 "replicaCount": 1,  # int64 as a number
                 "diskSpec": {"bootDiskSizeGb": 2**31},  # beyond int32
                 "containerSpec": {"imageUri": "i", "comand": ["sh"]}},  # unknown field
            ],
            "scheduling": {"timeout": "1h"},  # not a duration
        },
    }
    pool = "jobSpec.workerPoolSpecs[0]"
    assert request_violations("aiplatform.v1", bad, *CREATE) == [
        ("name", "output only: a request must not set it"),
        (f"{pool}.machineSpec.acceleratorType", "invalid value 'NVIDIA_TESLA_T5'"),
        (f"{pool}.machineSpec.acceleratorCount", 'int32 must be sent as a JSON number, got "1"'),
        (f"{pool}.replicaCount", "int64 must be sent as a string of digits, got 1"),
        (f"{pool}.diskSpec.bootDiskSizeGb", "2147483648 is out of range for int32"),
        (f"{pool}.containerSpec.comand", 'Unknown name "comand": Cannot find field.'),
        ("jobSpec.scheduling.timeout", "invalid duration '1h'"),
        ("displayName", "required field missing"),
    ]


def test_required_fields_of_nested_messages():
    body = {"displayName": "j", "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
         "pythonPackageSpec": {"pythonModule": "trainer.task"}}]}}
    spec = "jobSpec.workerPoolSpecs[0].pythonPackageSpec"
    assert request_violations("aiplatform.v1", body, *CREATE) == [
        (f"{spec}.executorImageUri", "required field missing"),
        (f"{spec}.packageUris", "required field missing"),
    ]


def test_the_lenient_mode_the_fake_server_uses_is_unchanged():
    """Without strict, integers are accepted in either encoding, as the service's parser does."""
    body = {"jobId": "j", "trainingInput": {"workerCount": 3, "parameterServerCount": "2"}}
    schema = {"$ref": "GoogleCloudMlV1__Job"}
    assert violations(body, schema, "ml.v1") == []
    assert request_violations("ml.v1", body, "projects", "jobs", "create", strict=False) == []
