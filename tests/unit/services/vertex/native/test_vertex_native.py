"""Native Vertex configs: a CustomJobSpec, a whole CustomJob or a HyperparameterTuningJob file,
recognised by its keys, checked with positions against the schema generated from the bundled
aiplatform v1 discovery document and against the Vertex catalog, and sent as written."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fakes.discovery import request_violations
from vertex_native_configs import SPEC, TUNING
from vertex_translation import CAT

from gpujob.config import native_form
from gpujob.config.load import loads
from gpujob.findings import Location, finding_line
from gpujob.services.vertex import native as vertex_native
from gpujob.services.vertex.rules.translated import NATIVE_RULES

ROOT = Path(__file__).resolve().parents[5]
TODAY = date(2026, 11, 23)


def doc(text: str, source: str = "job.yaml"):
    loaded = loads(text.encode("utf-8"), source)
    assert loaded.document is not None, loaded.findings
    return loaded.document


def shown(text: str, today: date = TODAY, **options) -> list[str]:
    """Every finding as validate prints it, without the file name."""
    found = vertex_native.check(doc(text), CAT, today, **options)
    return [finding_line(f).removeprefix("job.yaml:") for f in found]


def pool(machine: str, accel: str | None = None, count: int | None = None,
         code: str = "containerSpec: {imageUri: 'gcr.io/p/i:1'}") -> str:
    spec = f"machineType: {machine}"
    if accel:
        spec += f", acceleratorType: {accel}"
    if count is not None:
        spec += f", acceleratorCount: {count}"
    return f"workerPoolSpecs:\n  - machineSpec: {{{spec}}}\n    replicaCount: 1\n    {code}\n"


# -- recognising the kind of file -----------------------------------------------------------------

@pytest.mark.parametrize("data, kind", [
    ({"workerPoolSpecs": []}, "CustomJobSpec"),
    ({"displayName": "j", "jobSpec": {}}, "CustomJob"),
    ({"displayName": "t", "trialJobSpec": {}, "studySpec": {}}, "HyperparameterTuningJob"),
    ({"studySpec": {}}, "HyperparameterTuningJob"),
    ({"trainingInput": {"scaleTier": "BASIC"}}, None),
    ({"trainingInput": {}, "workerPoolSpecs": []}, None),  # an AI Platform Job with a stray key
    ({"jobId": "x"}, None), ([], None), ("text", None),
    # a marking key misspelt or in snake_case, or CustomJobSpec fields a Job lacks (E11)
    ({"workerPoolSpec": []}, "CustomJobSpec"), ({"jobSpc": {}}, "CustomJob"),
    ({"worker_pool_specs": []}, "CustomJobSpec"), ({"trial_job_spec": {}},
                                                    "HyperparameterTuningJob"),
    ({"baseOutputDirectory": {}}, "CustomJobSpec"),
    ({"traningInput": {}, "workerPoolSpec": []}, None),  # a Job's trainingInput misspelt
    ({"scaleTier": "BASIC", "network": "n"}, None),  # trainingInput's fields at the top
])
def test_the_kind_of_file_is_told_by_its_top_level_keys(data, kind):
    assert native_form.kind(data) == kind


def test_snake_case_keys_of_a_custom_job_are_read_as_their_fields_with_a_note():
    text = pool("n1-standard-4").replace("replicaCount", "replica_count")
    assert shown(text) == [
        "3:5: workerPoolSpecs[0].replica_count: note: replica_count is read as replicaCount: "
        "gcloud passes such keys on and Vertex's JSON reader takes a field's proto name; gpujob "
        "sends the camelCase names [vertex.snake-case]\n"
        "  hint: write the camelCase names the API reference uses"]


# -- the schema, generated from the discovery document ---------------------------------------------

def _generator():
    spec = importlib.util.spec_from_file_location("vertex_schema",
                                                  ROOT / "scripts" / "vertex_schema.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _names(schema: dict[str, Any]) -> set[tuple[str, ...]]:
    """Every (definition, property) and (definition, property, enum value) a schema accepts."""
    found: set[tuple[str, ...]] = set()
    for name, definition in schema.get("$defs", {}).items():
        for prop, spec in definition.get("properties", {}).items():
            found.add((name, prop))
            for node in (spec, spec.get("items", {})):
                found |= {(name, prop, str(value)) for value in node.get("enum", ())}
    return found


def test_the_shipped_schemas_are_what_the_script_generates_from_the_bundled_document():
    """Generated from the document of the release the schemas name (its revision): the same
    text. From another release (a fresh install takes the newest; pyproject's floor is the
    oldest that knows them): every field and enum value the shipped schemas accept is one that
    release's document knows, so a request gpujob accepts is one its client can build."""
    gen = _generator()
    doc_ = gen.discovery()
    generated = gen.generate(doc_)
    assert sorted(generated) == sorted(native_form.SCHEMAS.values())
    for name, schema in generated.items():
        shipped = (ROOT / "schemas" / name).read_text(encoding="utf-8")
        if f"(revision {doc_['revision']})" in shipped:
            assert shipped == gen.text_of(schema), f"{name} is stale: run scripts/vertex_schema.py"
        else:
            unknown = _names(json.loads(shipped)) - _names(schema)
            assert sorted(unknown) == [], f"{name}: unknown to revision {doc_['revision']}"


def test_the_schema_holds_the_api_s_accelerator_enum_and_leaves_output_only_fields_out():
    gen = _generator()
    doc_ = gen.discovery()
    machine = doc_["schemas"]["GoogleCloudAiplatformV1MachineSpec"]["properties"]
    schema = json.loads((ROOT / "schemas" / "vertex-custom-job.schema.json").read_text())
    assert schema["$defs"]["MachineSpec"]["properties"]["acceleratorType"]["enum"] == \
        machine["acceleratorType"]["enum"]
    job = schema["$defs"]["CustomJob"]
    assert "state" not in job["properties"] and "state" in job["x-output-only"]
    assert job["required"] == ["displayName", "jobSpec"]


def test_a_good_spec_has_no_findings():
    assert shown(SPEC) == []


def test_misspelt_keys_and_values_get_a_did_you_mean_at_their_place():
    text = SPEC.replace("containerSpec:\n      imageUri", "containerSpec:\n      imageUrl") \
        .replace("NVIDIA_TESLA_T4", "NVIDIA_TESLA_T5").replace("strategy: SPOT", "strategy: spot")
    assert shown(text) == [
        "4:24: workerPoolSpecs[0].machineSpec.acceleratorType: 'NVIDIA_TESLA_T5' is not a valid "
        "acceleratorType [schema.enum]\n  hint: did you mean 'NVIDIA_TESLA_T4'?",
        # (imageUrl stands in for imageUri: not also "missing required key 'imageUri'")
        "9:7: workerPoolSpecs[0].containerSpec.imageUrl: unknown key 'imageUrl' "
        "[schema.unknown-key]\n  hint: did you mean 'imageUri'?",
        "15:40: scheduling.strategy: 'spot' is not a valid strategy [schema.enum]\n"
        "  hint: did you mean 'SPOT'?"]


def test_a_job_copied_from_describe_is_told_which_fields_the_service_sets():
    text = ("displayName: j\nstate: JOB_STATE_SUCCEEDED\nname: projects/1/locations/l/"
            "customJobs/2\njobSpec:\n" + "\n".join("  " + line for line in
                                                   pool("n1-standard-4").splitlines()) + "\n")
    assert shown(text) == [
        "2:1: state: unknown key 'state' [schema.unknown-key]\n"
        "  hint: state is set by the service (output only); remove it",
        "3:1: name: unknown key 'name' [schema.unknown-key]\n"
        "  hint: name is set by the service (output only); remove it"]
    assert shown("trials: []\n" + TUNING)[0] == (
        "1:1: trials: unknown key 'trials' [schema.unknown-key]\n"
        "  hint: trials is set by the service (output only); remove it")


@pytest.mark.parametrize("line, message", [
    ("    replicaCount: 2.0", "3:19: workerPoolSpecs[0].replicaCount: expected a whole number of "
                            "at least 0, found the number 2.0 [schema.type]"),
    ("    replicaCount: -1", "3:19: workerPoolSpecs[0].replicaCount: expected a whole number of "
                           "at least 0, found the number -1 [schema.type]"),
    # an int32 in a string (proto3 JSON takes it) is held to int32's range
    ("    diskSpec: {bootDiskSizeGb: '3000000000'}\n    replicaCount: 1",
     "3:32: workerPoolSpecs[0].diskSpec.bootDiskSizeGb: 3000000000 is more than the maximum, "
     "2147483647 [schema.range]\n  hint: the API holds this field as an int32"),
    ("    diskSpec: {bootDiskSizeGb: '100.5'}\n    replicaCount: 1",
     "3:32: workerPoolSpecs[0].diskSpec.bootDiskSizeGb: expected a whole number of at least 0, "
     "found the string '100.5' [schema.type]"),
])
def test_counts_and_sizes_are_whole_numbers(line, message):
    text = pool("n1-standard-4").replace("    replicaCount: 1", line)
    assert shown(text)[0].startswith(message)


# -- the catalog's rules ---------------------------------------------------------------------------

@pytest.mark.parametrize("machine, accel, count, message", [
    ("n1-standard-8", "NVIDIA_TESLA_T4", 3, "2:99: workerPoolSpecs[0].machineSpec."
     "acceleratorCount: n1-standard-8 takes 1, 2 or 4 × NVIDIA_TESLA_T4, not 3 [vertex.machine]"),
    ("a2-highgpu-1g", "NVIDIA_TESLA_T4", 1, "2:64: workerPoolSpecs[0].machineSpec."
     "acceleratorType: a2-highgpu-1g does not take NVIDIA_TESLA_T4 (machine types that do: "
     "n1-standard-4, n1-standard-8, n1-standard-16, n1-standard-32, n1-standard-64, "
     "n1-standard-96 …) [vertex.machine]"),
    ("a3-highgpu-8g", None, None, "2:32: workerPoolSpecs[0].machineSpec.machineType: "
     "a3-highgpu-8g comes with 8 × NVIDIA_H100_80GB: state acceleratorType and acceleratorCount "
     "[vertex.machine]"),
    ("n1-standard-8", "NVIDIA_TESLA_T4", None, "2:64: workerPoolSpecs[0].machineSpec."
     "acceleratorType: acceleratorType and acceleratorCount go together: set both or neither "
     "[vertex.machine]"),
    ("n1-standard-8", "NVIDIA_TESLA_K80", 1, "2:64: workerPoolSpecs[0].machineSpec."
     "acceleratorType: NVIDIA_TESLA_K80: K80 GPUs reached end of support"),
    ("n1-standrd-8", None, None, "2:32: workerPoolSpecs[0].machineSpec.machineType: "
     "n1-standrd-8 is not a machine type Vertex AI custom training offers [vertex.machine]\n"
     "  hint: did you mean 'n1-standard-8'?"),
])
def test_machine_accelerator_and_count_are_checked_against_the_catalog(machine, accel, count,
                                                                        message):
    (line,) = shown(pool(machine, accel, count))
    assert line.startswith(message), line


@pytest.mark.parametrize("machine, accel, count", [
    ("a3-highgpu-8g", "NVIDIA_H100_80GB", 8), ("g2-standard-48", "NVIDIA_L4", 4),
    ("a2-ultragpu-2g", "NVIDIA_A100_80GB", 2), ("n1-highmem-2", "NVIDIA_TESLA_V100", 8),
    ("e2-standard-4", None, None)])
def test_machines_vertex_takes_pass(machine, accel, count):
    assert shown(pool(machine, accel, count)) == []


def test_a_p100_past_its_end_of_support_is_a_warning():
    text = pool("n1-standard-8", "NVIDIA_TESLA_P100", 1)
    assert shown(text, today=date(2026, 9, 14)) == []
    assert shown(text) == [
        "2:64: workerPoolSpecs[0].machineSpec.acceleratorType: warning: NVIDIA_TESLA_P100 "
        "reached its end of support on Vertex AI on 2026-09-15 [vertex.accelerator]\n"
        "  hint: use NVIDIA_TESLA_T4"]


PACKAGE = ("pythonPackageSpec: {{executorImageUri: '{uri}', packageUris: ['gs://b/t.tar.gz'], "
           "pythonModule: trainer.task}}")
PREBUILT = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"


@pytest.mark.parametrize("uri, today, message", [
    (PREBUILT, date(2026, 5, 1), "warning: the prebuilt image pytorch-gpu.2-4.py310 is past its "
     "end of support (2025-07-24: no more fixes) and can be used until 2026-07-24"),
    (PREBUILT, TODAY, "the prebuilt image pytorch-gpu.2-4.py310 reached its end of availability "
     "on 2026-07-24 [vertex.executor-image]"),
    ("gcr.io/p/i:1", TODAY, "gcr.io/p/i:1 is not a Vertex prebuilt training image: a "
     "pythonPackageSpec runs only on those [vertex.executor-image]"),
    ("us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.9-9.py312:latest", TODAY, "warning: "
     "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.9-9.py312:latest is not among the "
     "prebuilt training images gpujob knows"),
])
def test_a_package_runs_on_a_prebuilt_executor_image_still_available(uri, today, message):
    text = pool("n1-standard-4", code=PACKAGE.format(uri=uri))
    (line,) = shown(text, today=today)
    assert line.startswith(f"4:43: workerPoolSpecs[0].pythonPackageSpec.executorImageUri: "
                           f"{message}"), line


def test_every_used_pool_has_a_machine_and_exactly_one_kind_of_code():
    text = ("workerPoolSpecs:\n  - {}\n  - replicaCount: 1\n    containerSpec: {imageUri: i}\n"
            "  - machineSpec: {machineType: n1-standard-4}\n")
    assert shown(text) == [
        "2:5: workerPoolSpecs[0]: the first worker pool is empty: it runs the primary replica "
        "(workerpool0) [vertex.pool]\n  hint: describe its machine and code; only later pools "
        "may be empty placeholders ({})",
        "3:5: workerPoolSpecs[1]: worker pool 1 has no machineSpec.machineType [vertex.pool]\n"
        "  hint: name the machine type of its replicas (gpujob gpus --service vertex lists "
        "them)",
        "5:5: workerPoolSpecs[2]: worker pool 2 has no code to run: a pool runs exactly one of "
        "them [vertex.code]\n  hint: containerSpec runs an image; pythonPackageSpec runs a "
        "Python package on a prebuilt executor image"]


def test_a_tpu_machine_is_a_job_s_only_pool_with_one_replica():
    text = pool("cloud-tpu", "TPU_V3", 8) + "  - machineSpec: {machineType: n1-standard-4}\n" \
        "    replicaCount: 1\n    containerSpec: {imageUri: i}\n"
    assert shown(text) == [
        "2:32: workerPoolSpecs[0].machineSpec.machineType: Vertex runs cloud-tpu only as a "
        "job's single worker pool with one replica [vertex.tpu]\n"
        "  hint: put the whole program in one pool with replicaCount 1"]
    assert shown(pool("cloud-tpu", "TPU_V3", 32)) == []  # a Pod slice: a multiple of 32


def test_the_region_when_given():
    text = pool("a3-highgpu-1g", "NVIDIA_H100_80GB", 1)
    assert shown(text, region="us-central1") == []
    assert shown(text, region="us-centrl1") == [
        "command line (--region): 'us-centrl1' is not a region Vertex AI custom training runs "
        "in [vertex.region]\n  hint: did you mean 'us-central1'?"]
    assert shown(text, region="us-central1-a")[0].endswith(
        "hint: us-central1-a looks like a zone; the job takes its region, us-central1")
    assert shown(text, region="us-centrl1", region_check=False)[0].startswith(
        "command line (--region): warning: 'us-centrl1' is not a region")
    (endpoint_only,) = shown(text, region="us-central2")  # as for an AI Platform config's
    assert endpoint_only.startswith(
        "command line (--region): 'us-central2' is not a region Vertex AI custom training runs "
        "in (it has an API endpoint, but it is not among the training regions) [vertex.region]"
        "\n  hint: training regions: africa-south1, asia-east1, "), endpoint_only


def test_gpus_the_zone_proxy_does_not_list_in_the_region_are_a_warning_as_for_ai_platform():
    """vertex.region-gpu, worded as for an AI Platform config, once per machine and GPU, and
    left out with --no-region-check (and in local runs, which check with region_check off)."""
    text = pool("a3-highgpu-1g", "NVIDIA_H100_80GB", 1)
    twice = text + text.removeprefix("workerPoolSpecs:\n")
    assert shown(twice, region="us-west2") == [
        "2:64: workerPoolSpecs[0].machineSpec.acceleratorType: warning: a3-highgpu-1g machines "
        "(H100 GPUs), asked for by worker pool 0, are not listed in any zone of us-west2 in "
        "Compute Engine's zone list (a proxy for Vertex AI's, read 2026-11-23) "
        "[vertex.region-gpu]\n  hint: training regions where they are listed: asia-east1, "
        "asia-northeast1, asia-south1, asia-south2, asia-southeast1, australia-southeast1, "
        "europe-north1, europe-west1 … (17 in all); Vertex AI's own list can differ "
        "(--no-region-check leaves this out)"]
    assert shown(text, region="us-west2", region_check=False) == []




def test_a_tuning_study_takes_one_stopping_rule_and_grid_search_no_doubles():
    assert shown(TUNING) == [
        "9:7: studySpec.parameters[0].doubleValueSpec: GRID_SEARCH searches integer, "
        "categorical and discrete parameters only [vertex.study]\n  hint: give the values to try "
        "as a discreteValueSpec, or choose another algorithm",
        "10:20: studySpec.parameters[1].parameterId: parameterId 'lr' is used twice: each "
        "parameter needs its own [vertex.study]",
        "13:3: studySpec.medianAutomatedStoppingSpec: medianAutomatedStoppingSpec and "
        "decayCurveStoppingSpec are both set: a study takes at most one automated stopping rule "
        "[vertex.study]\n  hint: remove one of them"]


def test_the_submission_label_is_gpujob_s_and_a_long_file_name_is_refused():
    text = "displayName: j\nlabels: {gpujob-submission: x}\njobSpec:\n" + "\n".join(
        "  " + line for line in pool("n1-standard-4").splitlines()) + "\n"
    assert shown(text) == [
        "2:10: labels.gpujob-submission: warning: gpujob-submission is gpujob's own label: each "
        "submission sets it to a new value, replacing this one [vertex.label]\n"
        "  hint: remove it from the file"]
    found = vertex_native.check(doc(pool("n1-standard-4"), "x" * 129 + ".yaml"), CAT, TODAY)
    assert [f.rule for f in found] == ["vertex.display-name"]
    assert vertex_native.check(doc(pool("n1-standard-4"), "x" * 129 + ".yaml"), CAT, TODAY,
                               name="short") == []


# -- the body sent ---------------------------------------------------------------------------------

def test_a_spec_is_sent_as_a_custom_job_named_after_its_file_with_the_encodings_declared():
    kind, body = vertex_native.body(doc(SPEC, "configs/t4.vertex.yaml"))
    assert kind == "CustomJob"
    assert list(body) == ["displayName", "jobSpec"]  # the backend adds the submission label
    assert body["displayName"] == "t4.vertex"
    pools = body["jobSpec"]["workerPoolSpecs"]
    assert [p.get("replicaCount") for p in pools] == ["1", None, "3"]  # int64: strings
    assert pools[0]["machineSpec"]["acceleratorCount"] == 2  # int32: as written
    assert pools[0]["diskSpec"]["bootDiskSizeGb"] == 200
    assert body["jobSpec"]["scheduling"] == {"timeout": "7200s", "strategy": "SPOT"}
    assert request_violations("aiplatform.v1", body, "projects", "locations", "customJobs",
                              "create") == []


def test_the_command_line_names_labels_and_key_replace_the_file_s():
    text = "displayName: j\nlabels: {team: ml}\njobSpec:\n" + "\n".join(
        "  " + line for line in pool("n1-standard-4").splitlines()) + "\n"
    kind, body = vertex_native.body(doc(text), name="other", labels={"a": "b"},
                                    kms_key="projects/p/locations/l/keyRings/r/cryptoKeys/k")
    assert (kind, body["displayName"]) == ("CustomJob", "other")
    assert body["labels"] == {"a": "b"}
    assert body["encryptionSpec"] == {
        "kmsKeyName": "projects/p/locations/l/keyRings/r/cryptoKeys/k"}
    assert vertex_native.body(doc(text))[1]["labels"] == {"team": "ml"}


def test_a_tuning_job_is_sent_as_written_with_int64_bounds_as_strings():
    text = TUNING.replace("algorithm: GRID_SEARCH", "algorithm: RANDOM_SEARCH").replace(
        "- parameterId: lr\n      integer", "- parameterId: batch\n      integer").replace(
        "  medianAutomatedStoppingSpec: {}\n", "")
    assert shown(text) == []
    kind, body = vertex_native.body(doc(text))
    assert kind == "HyperparameterTuningJob"
    assert body["studySpec"]["parameters"][1]["integerValueSpec"] == {"minValue": "16",
                                                                      "maxValue": "128"}
    assert body["maxTrialCount"] == 4
    assert request_violations("aiplatform.v1", body, "projects", "locations",
                              "hyperparameterTuningJobs", "create") == []


def test_checking_and_building_a_body_import_no_google_client_library(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC, encoding="utf-8")
    probe = ("import sys; from gpujob.catalog import load; "
             "from gpujob.config.load import load_file; "
             "from gpujob.services.vertex import native as n; "
             f"d = load_file({str(path)!r}).document; "
             "print(n.check(d, load('vertex')), n.body(d)[0], file=sys.stderr); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2')), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env=dict(os.environ), timeout=60)
    assert result.stderr.splitlines() == ["[] CustomJob", "[]"], result.stderr


# -- the command line ---------------------------------------------------------------------------

def test_submit_s_flags_mean_for_a_native_config_what_gcloud_s_mean():
    from gpujob.config.native_flags import apply_flags
    from gpujob.config.overrides import Override, parse_set

    def flag(path, value, name):
        return Override(path, value, Location("command line", flag=name))

    overrides = [
        flag(("trainingInput", "region"), "europe-west4", "--region"),
        flag(("labels",), {"team": "ml"}, "--labels"),
        flag(("trainingInput", "encryptionConfig", "kmsKeyName"), "projects/p/k", "--kms-key"),
        flag(("jobId",), "run_7", "--job-id"),
        flag(("trainingInput", "jobDir"), "gs://b/out2", "--job-dir"),
        flag(("trainingInput", "serviceAccount"), "sa@p.iam.gserviceaccount.com",
             "--service-account"),
        parse_set("workerPoolSpecs[2].replicaCount=5")]
    job = apply_flags(doc(SPEC), overrides, ["--epochs", "9"])
    assert (job.region, job.name, job.labels, job.kms_key) == (
        "europe-west4", "run_7", {"team": "ml"}, "projects/p/k")
    assert job.region_origin.flag == "--region"
    data = job.doc.data
    assert data["baseOutputDirectory"] == {"outputUriPrefix": "gs://b/out2"}
    assert data["serviceAccount"] == "sa@p.iam.gserviceaccount.com"
    assert data["workerPoolSpecs"][2]["replicaCount"] == 5
    assert [p.get("containerSpec", {}).get("args") for p in data["workerPoolSpecs"]] == [
        ["--epochs", "9"], None, ["--epochs", "9"]]
    assert job.doc.locate(("workerPoolSpecs", 2, "replicaCount")).flag == \
        "--set workerPoolSpecs[2].replicaCount"
    assert apply_flags(doc(SPEC), overrides, None, display_name="given").name == "given"
    tuning = apply_flags(doc(TUNING), [flag(("trainingInput", "jobDir"), "gs://b/t",
                                            "--job-dir")], None)
    assert tuning.doc.data["trialJobSpec"]["baseOutputDirectory"] == {
        "outputUriPrefix": "gs://b/t"}


def test_flags_that_set_ai_platform_s_cluster_are_refused_with_the_set_path_to_use():
    from gpujob.config.native_flags import apply_flags
    from gpujob.config.overrides import Override, parse_set
    from gpujob.errors import UsageError

    overrides = [Override(("trainingInput", "workerCount"), 3,
                          Location("command line", flag="--worker-count")),
                 parse_set("trainingInput.masterType=n1-standard-8")]
    with pytest.raises(UsageError) as raised:
        apply_flags(doc(SPEC), overrides, None)
    assert raised.value.message == ("--worker-count, --set trainingInput.masterType: the config "
                                    "is a native Vertex config, and these flags set AI "
                                    "Platform's fields (trainingInput)")
    assert raised.value.hint == ("set its own fields with --set, e.g. --set "
                                 "workerPoolSpecs[1].replicaCount=VALUE")


@pytest.mark.parametrize("whole, where", [("", ""), ("job", "jobSpec."),
                                          ("tuning", "trialJobSpec.")])
def test_a_refused_set_is_hinted_at_the_path_its_field_has_in_the_file(whole, where):
    from gpujob.config.native_flags import apply_flags
    from gpujob.config.overrides import parse_set
    from gpujob.errors import UsageError

    text = {"": SPEC, "tuning": TUNING, "job": "displayName: j\njobSpec:\n" + "\n".join(
        "  " + line for line in SPEC.splitlines()) + "\n"}[whole]
    with pytest.raises(UsageError) as raised:
        apply_flags(doc(text), [parse_set("trainingInput.workerCount=3")], None)
    assert raised.value.message == ("--set trainingInput.workerCount: the config is a native "
                                    "Vertex config, and this flag sets AI Platform's fields "
                                    "(trainingInput)")
    assert raised.value.hint == ("set its own fields with --set, e.g. --set "
                                 f"{where}workerPoolSpecs[1].replicaCount=VALUE")


def test_a_misspelt_machine_field_is_one_message_and_the_rest_is_still_checked():
    text = pool("n1-standard-8", "NVIDIA_TESLA_T4", 3).replace("machineType:", "machineTyp:")
    assert shown(text) == [
        "2:19: workerPoolSpecs[0].machineSpec.machineTyp: unknown key 'machineTyp' "
        "[schema.unknown-key]\n  hint: did you mean 'machineType'?",
        "2:98: workerPoolSpecs[0].machineSpec.acceleratorCount: n1-standard-8 takes 1, 2 or 4 × "
        "NVIDIA_TESLA_T4, not 3 [vertex.machine]\n  hint: `gpujob gpus --service vertex --gpu "
        "t4` lists the machine types that take it and their counts"]


def test_a_clear_typo_stands_in_and_what_its_value_breaks_is_reported_where_it_is_written():
    text = pool("n1-standard-8", "NVIDIA_TESLA_T4", 3).replace("acceleratorCount:",
                                                                "acceleratorCoun:")
    assert shown(text) == [
        "2:81: workerPoolSpecs[0].machineSpec.acceleratorCoun: unknown key 'acceleratorCoun' "
        "[schema.unknown-key]\n  hint: did you mean 'acceleratorCount'?",
        "2:98: workerPoolSpecs[0].machineSpec.acceleratorCoun: n1-standard-8 takes 1, 2 or 4 × "
        "NVIDIA_TESLA_T4, not 3 [vertex.machine]\n  hint: `gpujob gpus --service vertex --gpu "
        "t4` lists the machine types that take it and their counts"]


def test_an_ambiguous_typo_stands_in_for_nothing_and_the_rest_is_checked():
    """acceleratorC is spelt like acceleratorCount and like acceleratorType (set beside it): the
    hint names both, its 3 is not checked as a count, no "set both or neither" repeats the
    typo, and the next pool is still checked."""
    text = pool("n1-standard-8", "NVIDIA_TESLA_T4", 3).replace(
        "acceleratorCount:", "acceleratorC:") + pool("n1-standrd-8").removeprefix(
        "workerPoolSpecs:\n")
    assert shown(text) == [
        "2:81: workerPoolSpecs[0].machineSpec.acceleratorC: unknown key 'acceleratorC' "
        "[schema.unknown-key]\n  hint: did you mean 'acceleratorCount' or 'acceleratorType' "
        "(already set here)?",
        "5:32: workerPoolSpecs[1].machineSpec.machineType: n1-standrd-8 is not a machine type "
        "Vertex AI custom training offers [vertex.machine]\n"
        "  hint: did you mean 'n1-standard-8'?"]
    # two typos of one key: neither stands in, and the key is not also said to be missing
    twice = pool("n1-standard-4").replace("machineType: n1-standard-4",
                                          "machineTyp: n1-standard-4, machinType: n1-standard-4")
    assert [line.split(" [")[0] for line in shown(twice)] == [
        "2:19: workerPoolSpecs[0].machineSpec.machineTyp: unknown key 'machineTyp'",
        "2:46: workerPoolSpecs[0].machineSpec.machinType: unknown key 'machinType'"]


# -- the rules, as gpujob rules lists them -------------------------------------------------------

def _text(node: ast.expr, module: object) -> str:
    """A rule id or severity as the source gives it: a literal, or an f-string of the module's
    names."""
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v.value if isinstance(v, ast.FormattedValue) else v, module)
                       for v in node.values)
    if isinstance(node, ast.Name):
        return getattr(module, node.id)
    assert isinstance(node, ast.Constant) and isinstance(node.value, str), \
        f"{module}: line {node.lineno}: a rule id the test cannot read"
    return node.value


def _emitted() -> dict[str, set[str]]:
    """Every rule id the native modules give a finding, with its severities, read from their
    source: ``f.add(SEVERITY, NAME, …)`` (NAME under the module's ``RULES``), and
    ``error(ID, …)``/``warning(ID, …)``."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "gpujob" / "services" / "vertex" / "native").glob("*.py")):
        module = importlib.import_module("gpujob.services.vertex.native" + (
            "" if path.stem == "__init__" else f".{path.stem}"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "add" and \
                    hasattr(module, "RULES") and len(node.args) > 1:
                severity = _text(node.args[0], module)
                rule_id = f"{module.RULES}.{_text(node.args[1], module)}"
            elif isinstance(func, ast.Name) and func.id in ("error", "warning"):
                severity, rule_id = func.id, _text(node.args[0], module)
            else:
                continue
            out.setdefault(rule_id, set()).add(severity)
    return out


def test_every_rule_a_native_config_s_findings_name_is_listed_by_gpujob_rules(cli):
    listed = {r["id"]: r["severity"] for r in json.loads(
        cli("rules", "--service", "vertex", "--format", "json").out)["rules"]}
    emitted = _emitted()
    assert {"vertex.pool", "vertex.study", "vertex.region-gpu", "vertex.label",
            "vertex-convert.not-in-spec"} <= set(emitted)  # the reading finds each module's
    for rule_id, severities in emitted.items():
        assert rule_id in listed, rule_id
        # as listed: the most severe it gives
        assert listed[rule_id] == ("error" if "error" in severities else "warning"), rule_id


def test_every_native_rule_listed_is_exercised_here_or_in_convert_s_tests():
    text = "".join(next((ROOT / "tests").rglob(name)).read_text(encoding="utf-8")
                   for name in ("test_vertex_native.py", "test_convert.py"))
    named = set(re.findall(r'\["?(vertex[a-z-]*\.[a-z0-9-]+)"?\]', text))  # [ID], ["ID"]
    assert {rule_id for rule_id, _, _ in NATIVE_RULES} <= named
