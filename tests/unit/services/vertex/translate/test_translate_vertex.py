"""The AI Platform -> Vertex translation, rule by rule: what each field becomes, and what the
user is told (each at the value it is about)."""

from __future__ import annotations

from datetime import date

import pytest
from vertex_translation import pools, problems, run, shown

CUSTOM = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  masterType: n1-standard-8
  masterConfig:
    imageUri: gcr.io/p/trainer:1
"""


def test_pools_come_in_order_with_an_empty_middle_pool_as_an_empty_object():
    t = run(CUSTOM + "  evaluatorCount: 2\n  evaluatorType: n1-highmem-8\n")
    assert pools(t) == [("n1-standard-8", None, None, "1"), (), (),
                        ("n1-highmem-8", None, None, "2")]
    assert t.body["jobSpec"]["workerPoolSpecs"][3]["containerSpec"] == {
        "imageUri": "gcr.io/p/trainer:1"}
    assert problems(t) == [] and t.findings == []


def test_container_jobs_run_the_masters_image_in_every_pool_unless_a_pool_has_its_own():
    t = run(CUSTOM + """\
    containerCommand: [python, -m, trainer.task]
  workerCount: '3'
  workerType: n1-standard-8
  parameterServerCount: 1
  parameterServerType: n1-standard-4
  parameterServerConfig:
    imageUri: gcr.io/p/ps:2
    containerArgs: [--ps]
  args: [--epochs, '3']
""")
    specs = [p["containerSpec"] for p in t.body["jobSpec"]["workerPoolSpecs"]]
    assert specs == [
        {"imageUri": "gcr.io/p/trainer:1", "command": ["python", "-m", "trainer.task"],
         "args": ["--epochs", "3"]},
        {"imageUri": "gcr.io/p/trainer:1", "args": ["--epochs", "3"]},
        {"imageUri": "gcr.io/p/ps:2", "args": ["--ps", "--epochs", "3"]},
    ]
    assert [p[3] for p in pools(t)] == ["1", "3", "1"]  # int64: strings
    assert problems(t) == []


def test_job_dir_is_the_base_output_directory_and_an_argument_in_every_pool():
    t = run(CUSTOM + "  workerCount: 1\n  workerType: n1-standard-8\n  args: [--lr, '0.1']\n"
            "  jobDir: gs://b/out\n")
    spec = t.body["jobSpec"]
    assert spec["baseOutputDirectory"] == {"outputUriPrefix": "gs://b/out"}
    assert [p["containerSpec"]["args"] for p in spec["workerPoolSpecs"]] == [
        ["--lr", "0.1", "--job-dir", "gs://b/out"]] * 2
    assert shown(t) == [
        "10:11 note job-dir: jobDir became baseOutputDirectory gs://b/out (Vertex sets "
        "AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and AIP_TENSORBOARD_LOG_DIR under it) and, as Vertex "
        "does not pass it, `--job-dir gs://b/out` is appended to the trainer's arguments in "
        "every pool"]


def test_job_dir_already_in_the_arguments_is_not_added_again():
    t = run(CUSTOM + "  args: [--job-dir=gs://b/mine]\n  jobDir: gs://b/out\n")
    assert t.body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == [
        "--job-dir=gs://b/mine"]
    assert t.findings == []


def test_scheduling_identity_network_encryption_labels_web_access_and_disks():
    t = run("""\
jobId: nightly_run
labels: {team: vision}
trainingInput:
  scaleTier: CUSTOM
  region: europe-west4
  masterType: n1-standard-8
  masterConfig:
    imageUri: gcr.io/p/trainer:1
    diskConfig: {bootDiskType: pd-standard, bootDiskSizeGb: '250'}
  scheduling: {maxRunningTime: 7200s}
  serviceAccount: trainer@p.iam.gserviceaccount.com
  network: projects/123/global/networks/vpc
  encryptionConfig: {kmsKeyName: projects/p/locations/europe-west4/keyRings/r/cryptoKeys/k}
  enableWebAccess: true
""", strategy="SPOT")
    assert list(t.body) == ["displayName", "labels", "encryptionSpec", "jobSpec"]
    assert t.body["displayName"] == "nightly_run" and t.body["labels"] == {"team": "vision"}
    assert t.body["encryptionSpec"] == {
        "kmsKeyName": "projects/p/locations/europe-west4/keyRings/r/cryptoKeys/k"}
    spec = t.body["jobSpec"]
    assert spec["scheduling"] == {"timeout": "7200s", "strategy": "SPOT"}
    assert spec["serviceAccount"] == "trainer@p.iam.gserviceaccount.com"
    assert spec["network"] == "projects/123/global/networks/vpc"
    assert spec["enableWebAccess"] is True
    assert spec["workerPoolSpecs"][0]["diskSpec"] == {"bootDiskType": "pd-standard",
                                                      "bootDiskSizeGb": 250}
    assert t.region == "europe-west4" and t.collection == "customJobs"
    assert problems(t) == [] and t.findings == []
    assert t.origins[("jobSpec", "scheduling", "timeout")] == (
        "trainingInput", "scheduling", "maxRunningTime")
    assert t.origins[("jobSpec", "workerPoolSpecs", 0, "machineSpec", "machineType")] == (
        "trainingInput", "masterType")


def test_what_vertex_cannot_do_is_an_error_with_a_fix():
    t = run(CUSTOM + """\
    acceleratorConfig: {type: NVIDIA_TESLA_K80, count: 2}
  workerCount: 1
  workerType: n1-standard-8
  workerConfig:
    acceleratorConfig: {type: TPU_V2_POD, count: 32}
  scheduling: {maxWaitTime: 3600s, priority: 5}
  useChiefInTfConfig: true
""")
    assert shown(t) == [
        "7:31 error accelerator: NVIDIA_TESLA_K80: Vertex no longer offers K80 GPUs (end of "
        "support)",
        "11:31 error accelerator: TPU_V2_POD: Vertex has no TPU_V2_POD accelerator type",
        "12:29 error scheduling: Vertex bounds the wait for resources (maxWaitDuration) only "
        "with the FLEX_START scheduling strategy",
        "12:46 warning dropped: priority is not sent: Vertex has no job priority",
        "13:23 warning dropped: useChiefInTfConfig is not sent: Vertex has no such field (its "
        "primary replica is workerpool0, which TF_CONFIG calls chief)",
    ]
    hints = [f.hint for f in t.findings]
    assert hints[0].startswith("use NVIDIA_TESLA_T4 (n1-standard-4, n1-standard-8, "
                               "n1-standard-16, … take it")
    assert "machineType cloud-tpu with acceleratorType TPU_V2 and acceleratorCount a multiple "\
           "of 32" in hints[1]
    assert hints[2] == ("remove maxWaitTime, or choose the FLEX_START strategy (Dynamic "
                        "Workload Scheduler) with --strategy FLEX_START")


def test_max_wait_time_with_the_flex_start_strategy():
    t = run(CUSTOM + "  scheduling: {maxWaitTime: 3600s}\n", strategy="FLEX_START")
    assert t.body["jobSpec"]["scheduling"] == {"strategy": "FLEX_START",
                                               "maxWaitDuration": "3600s"}
    assert [f.severity for f in t.findings] == ["note"] and problems(t) == []


def test_a_master_plus_cloud_tpu_workers_cannot_be_translated():
    t = run("""\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig: {imageUri: gcr.io/p/tpu:1}
  workerType: cloud_tpu
  workerCount: 1
  workerConfig:
    acceleratorConfig: {type: TPU_V3, count: 8}
    tpuTfVersion: '2.11'
""")
    lines = shown(t)
    assert lines[0] == "5:15 note machine-type: cloud_tpu became cloud-tpu with 8 × TPU_V3"
    assert lines[1].startswith("5:15 error tpu-cluster: Vertex runs cloud-tpu only as a job's "
                               "single pool with one replica; AI Platform's master plus Cloud "
                               "TPU workers cannot be translated")
    assert lines[2].startswith("9:19 warning dropped: tpuTfVersion is not sent")


def test_basic_tpu_is_one_cloud_tpu_pool():
    t = run("trainingInput:\n  scaleTier: BASIC_TPU\n  masterConfig: {imageUri: gcr.io/p/t:1}\n")
    assert pools(t) == [("cloud-tpu", "TPU_V2", 8, "1")]
    assert shown(t) == ["2:14 note scale-tier: scaleTier BASIC_TPU became pool 0: 1 × cloud-tpu "
                        "with 8 × TPU_V2 (AI Platform ran a master plus a Cloud TPU; a Vertex "
                        "TPU job is a single pool of one replica)"]
    assert problems(t) == []


def test_scale_tiers():
    t = run("trainingInput:\n  masterConfig: {imageUri: gcr.io/p/t:1}\n")
    assert pools(t) == [("n1-standard-4", None, None, "1")]
    assert shown(t) == ["1:1 note scale-tier: scaleTier BASIC (the default) became pool 0: "
                        "1 × n1-standard-4"]
    t = run("trainingInput:\n  scaleTier: STANDARD_1\n  masterConfig: {imageUri: g/t:1}\n")
    assert pools(t) == [("n1-standard-8", None, None, "1"), ("n1-standard-8", None, None, "4"),
                        ("n1-standard-4", None, None, "3")]
    (finding,) = t.findings
    assert finding.severity == "warning" and "STANDARD_1's machine types" in finding.hint
    t = run("trainingInput:\n  scaleTier: PREMIUM_1\n  masterConfig: {imageUri: g/t:1}\n")
    assert shown(t) == ["2:14 error scale-tier: scaleTier PREMIUM_1 cannot be translated: the "
                        "machine types of PREMIUM_1's master, 19 workers and 11 parameter "
                        "servers are not known"]


def test_legacy_gpus_past_their_end_of_support_are_replaced_by_the_tables_choice():
    config = CUSTOM + "  workerCount: 2\n  workerType: complex_model_m_p100\n"
    before = run(config, today=date(2026, 9, 14))
    assert pools(before)[1] == ("n1-standard-16", "NVIDIA_TESLA_P100", 4, "2")
    after = run(config, today=date(2026, 9, 15))
    assert pools(after)[1] == ("n1-standard-16", "NVIDIA_TESLA_T4", 4, "2")
    assert shown(after) == [
        "8:15 note machine-type: complex_model_m_p100 became n1-standard-16 with 4 × "
        "NVIDIA_TESLA_T4 instead of 4 × NVIDIA_TESLA_P100: P100 reached its end of support on "
        "Vertex AI on 2026-09-15; T4 replaces it"]


def test_a_p100_the_user_chose_is_kept_with_a_warning_after_its_end_of_support():
    t = run(CUSTOM + "    acceleratorConfig: {type: NVIDIA_TESLA_P100, count: 1}\n")
    assert pools(t) == [("n1-standard-8", "NVIDIA_TESLA_P100", 1, "1")]
    assert shown(t) == ["7:31 warning accelerator: NVIDIA_TESLA_P100 reached its end of support "
                        "on Vertex AI on 2026-09-15"]
    assert t.findings[0].hint == "use NVIDIA_TESLA_T4"


def test_vertex_gpu_names_pass_through():
    t = run(CUSTOM.replace("n1-standard-8", "a3-highgpu-8g")
            + "    acceleratorConfig: {type: NVIDIA_H100_80GB, count: 8}\n")
    assert pools(t) == [("a3-highgpu-8g", "NVIDIA_H100_80GB", 8, "1")]
    assert problems(t) == [] and t.findings == []


def test_unused_and_missing_replica_types():
    t = run(CUSTOM + "  workerType: n1-standard-8\n  parameterServerCount: 2\n")
    assert shown(t) == [
        "7:15 warning dropped: workerType is not sent: workerCount is not set, so there are no "
        "workers",
        "8:25 error pool: parameterServerCount is 2 but parameterServerType is not set"]


@pytest.mark.parametrize("count", ['"²"', "2.0", "'9999999999999999999999'", "-1"])
def test_a_count_the_schema_refuses_is_not_read_as_not_set(count):
    """The schema says what is wrong with ``workerCount: "²"``; the translation neither crashes
    on it (int() reads '²' as an error, '٣' as 3) nor calls it "not set"."""
    t = run(CUSTOM + f"  workerType: n1-standard-8\n  workerCount: {count}\n")
    assert pools(t) == [("n1-standard-8", None, None, "1")]
    assert shown(t) == []


def test_cluster_fields_a_scale_tier_overrides_are_reported_as_dropped():
    t = run("trainingInput:\n  scaleTier: BASIC\n  masterType: n1-standard-8\n  workerCount: 2\n"
            "  masterConfig:\n    imageUri: g/t:1\n"
            "    acceleratorConfig: {type: NVIDIA_TESLA_T4, count: 1}\n")
    assert pools(t) == [("n1-standard-4", None, None, "1")]
    assert shown(t) == [
        "2:14 note scale-tier: scaleTier BASIC became pool 0: 1 × n1-standard-4",
        "3:15 warning dropped: masterType is not sent: scaleTier BASIC sets the machines",
        "4:16 warning dropped: workerCount is not sent: scaleTier BASIC sets the machines",
        "7:24 warning dropped: acceleratorConfig is not sent: scaleTier BASIC sets the machines"]


def test_custom_without_a_master():
    t = run("trainingInput:\n  scaleTier: CUSTOM\n  workerCount: 1\n  workerType: n1-standard-4\n")
    assert shown(t) == ["2:14 error pool: scaleTier CUSTOM needs masterType"]
    assert t.body["jobSpec"]["workerPoolSpecs"] == []


def test_a_finding_under_a_rule_no_check_adopts_is_refused_not_lost():
    """validate reports the translation's findings rule by rule (``gpujob.services.vertex.rules``
    registers one rule per name of ``notes.RULES``): a finding under any other name would go
    unreported, and validate would call the config valid."""
    from gpujob import services
    from gpujob.config.load import loads
    from gpujob.services.vertex.translate.notes import RULE, Notes
    from gpujob.services.vertex.translate.notes import RULES as NAMES

    notes = Notes(loads(CUSTOM.encode(), "job.yaml").document)
    with pytest.raises(ValueError, match=r"vertex-translate\.priority is not a translation rule"):
        notes.error("priority", ("trainingInput", "scheduling", "priority"), "not sent")
    assert notes.findings == []
    registered = {r.id: (r.severity, r.doc) for r in services.get("vertex").listed_rules()
                  if r.id.startswith(f"{RULE}.")}
    assert registered == {f"{RULE}.{name}": entry for name, entry in NAMES.items()}
