"""``gpujob convert``: an AI Platform config, with submit's flags applied, written as a native
Vertex config (the CustomJobSpec gcloud's --config reads, a whole CustomJob, or a
HyperparameterTuningJob), with a comment at each translated value; every change reported at
file:line:col on stderr; nothing written when the config cannot be converted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from vertex_translation import CAT, PYTORCH

from gpujob.config.load import load_file, loads
from gpujob.services.vertex.translate.job import translate
from gpujob.settings import JobOptions

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs"
SEEDS = ROOT / "tests" / "seeds"  # package jobs, as AI Platform had them
T4 = str(SEEDS / "t4-compute-engine.yaml")
LEGACY = str(SEEDS / "legacy-complex-model-m-gpu.yaml")


def both_readers(text: str) -> object:
    """The data of a YAML text, the same for PyYAML (YAML 1.1, as gcloud reads it) and
    gpujob's loader (YAML 1.2 core)."""
    ours = loads(text.encode("utf-8"), "out.yaml")
    assert ours.findings == [] and ours.document is not None
    assert yaml.safe_load(text) == ours.document.data
    return ours.document.data


def translated_body(path: str, **options: str) -> dict:
    loaded = load_file(path)
    assert loaded.document is not None
    from datetime import date

    return translate(loaded.document, CAT, date.today(), JobOptions(**options)).body


def test_the_t4_cluster_becomes_a_custom_job_spec_with_a_comment_at_each_value(cli):
    result = cli("convert", T4, "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    assert both_readers(result.out) == translated_body(T4, executor_image_uri=PYTORCH)["jobSpec"]
    lines = result.out.splitlines()
    assert lines[:5] == [
        f"# Vertex AI CustomJobSpec converted by gpujob from {T4}.",
        "# The job's name, labels and encryption key are not part of a CustomJobSpec: they "
        "are flags.",
        "# Create it with either of:",
        "#   gpujob submit FILE --service vertex --region us-central1 --display-name "
        "t4-compute-engine",
        "#   gcloud ai custom-jobs create --config=FILE --region=us-central1 "
        "--display-name=t4-compute-engine"]
    assert lines[5:11] == [
        "workerPoolSpecs:",
        "  - machineSpec:",
        "      machineType: n1-highcpu-16  # from trainingInput.masterType (line 13)",
        "      acceleratorType: NVIDIA_TESLA_T4  # from "
        "trainingInput.masterConfig.acceleratorConfig.type (line 17)",
        "      acceleratorCount: 4  # from trainingInput.masterConfig.acceleratorConfig.count "
        "(line 16)",
        "    replicaCount: '1'"]
    assert "      imageUri: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime  # from " \
           "--executor-image-uri" in lines
    assert "    replicaCount: '9'  # from trainingInput.workerCount (line 19)" in lines
    assert lines[-2:] == ["baseOutputDirectory:",
                          "  outputUriPrefix: gs://my-bucket/jobs/t4  # from trainingInput.jobDir "
                          "(line 32)"]
    assert f"{T4}:32:11: trainingInput.jobDir: note: jobDir became baseOutputDirectory " \
           "gs://my-bucket/jobs/t4" in result.err


def test_each_legacy_machine_type_says_what_it_became_on_stderr_and_in_the_file(cli):
    result = cli("convert", LEGACY, "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    notes = [line for line in result.err.splitlines() if "[vertex-translate.machine-type]" in line]
    became = ("complex_model_m_gpu became n1-standard-16 with 4 × NVIDIA_TESLA_T4 instead of 4 × "
              "NVIDIA_TESLA_K80: Vertex no longer offers K80; T4 replaces it")
    assert notes == [
        f"{LEGACY}:11:15: trainingInput.masterType: note: {became} "
        "[vertex-translate.machine-type]",
        f"{LEGACY}:14:15: trainingInput.workerType: note: {became} "
        "[vertex-translate.machine-type]",
        f"{LEGACY}:17:24: trainingInput.parameterServerType: note: large_model became "
        "n1-highmem-8 [vertex-translate.machine-type]"]
    assert "      machineType: n1-standard-16  # from trainingInput.masterType (line 11): " \
           "complex_model_m_gpu" in result.out.splitlines()
    assert "      acceleratorType: NVIDIA_TESLA_T4  # from trainingInput.workerType (line 14): " \
           "complex_model_m_gpu" in result.out.splitlines()


def test_a_config_that_cannot_be_converted_writes_nothing(cli, tmp_path):
    out = tmp_path / "out.yaml"
    result = cli("convert", LEGACY, "-o", out)  # runtimeVersion 2.11: its image is gone
    assert result.code == 1
    assert result.out == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert f"{LEGACY}:18:19: trainingInput.runtimeVersion: runtimeVersion '2.11' maps to the " \
           "prebuilt image tf-gpu.2-11, which reached its end of availability on 2024-11-15" \
           in result.err
    assert result.err.rstrip().endswith(f"error: {LEGACY}: 1 problem; nothing was written")


def test_the_config_is_checked_against_the_job_schema(cli, write):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  masterTyp: n1-standard-8\n"
                   "  masterConfig:\n    imageUri: gcr.io/p/i:1\n")
    result = cli("convert", config)
    assert result.code == 1 and result.out == ""
    assert f"{config}:3:3: trainingInput.masterTyp: unknown key 'masterTyp' " \
           "[schema.unknown-key]\n  hint: did you mean 'masterType'?" in result.err


def test_vertex_gpu_names_are_valid_in_the_config(cli, write):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  region: us-central1\n"
                   "  masterType: g2-standard-8\n  masterConfig:\n"
                   "    acceleratorConfig: {count: 1, type: NVIDIA_L4}\n"
                   "    imageUri: gcr.io/p/i:1\n", name="l4.yaml")
    result = cli("convert", config)
    assert result.code == 0, result.err
    spec = both_readers(result.out)
    assert spec["workerPoolSpecs"][0]["machineSpec"] == {
        "machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1}


def test_flags_and_trainer_arguments_apply_as_submit_applies_them(cli, write, tmp_path):
    out = tmp_path / "job.yaml"
    result = cli("convert", T4, "--executor-image-uri", PYTORCH, "--worker-count", "2",
                 "--set", "trainingInput.scheduling.maxRunningTime=3600s",
                 "--unset", "trainingInput.jobDir", "-o", out, "--", "--epochs", "3")
    assert result.code == 0, result.err
    assert result.out == ""
    assert result.err.splitlines()[0] == "note: --unset trainingInput.jobDir removed " \
        f"trainingInput.jobDir (set at {T4}:32:11)"
    wrote, cost, worst, prices = result.err.splitlines()[-4:]
    assert wrote == f"Wrote {out}"
    assert cost.startswith("cost: $") and " × NVIDIA_TESLA_T4" in cost  # the job's $/hour
    assert worst.startswith("worst case: at most $") and worst.endswith(
        "if it runs until its timeout of 1 hour")  # (maxRunningTime)
    assert prices.startswith("prices: Vertex AI list prices in USD as of ")
    text = out.read_text(encoding="utf-8")
    spec = both_readers(text)
    pools = spec["workerPoolSpecs"]
    assert pools[1]["replicaCount"] == "2"
    assert [p["containerSpec"]["args"] for p in pools] == [["--epochs", "3"]] * 3
    assert spec["scheduling"] == {"timeout": "3600s"}
    assert "    replicaCount: '2'  # from trainingInput.workerCount (--worker-count)" in \
        text.splitlines()
    assert "  timeout: '3600s'  # from trainingInput.scheduling.maxRunningTime " \
           "(--set trainingInput.scheduling.maxRunningTime)" in text.splitlines()
    assert f"#   gpujob submit {out} --service vertex" in text


def test_labels_and_the_key_are_flags_of_a_spec_and_fields_of_a_whole_job(cli, write):
    key = "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  region: us-central1\n"
                   "  masterType: n1-standard-8\n  masterConfig: {imageUri: 'gcr.io/p/i:1'}\n"
                   f"  encryptionConfig: {{kmsKeyName: '{key}'}}\n"
                   "labels: {team: ml, cost-center: '42'}\n", name="labelled.yaml")
    spec = cli("convert", config)
    assert spec.code == 0, spec.err
    assert both_readers(spec.out).keys() == {"workerPoolSpecs"}
    assert (f"#   gpujob submit FILE --service vertex --region us-central1 --display-name "
            f"labelled --labels team=ml,cost-center=42 --kms-key {key}") in spec.out
    assert (f"#   gcloud ai custom-jobs create --config=FILE --region=us-central1 "
            f"--display-name=labelled --labels=team=ml,cost-center=42 --kms-key={key}") \
        in spec.out
    assert f"{config}:7:9: labels: warning: labels are not written into the file: a " \
           "CustomJobSpec (the file gcloud's --config reads) has no labels " \
           "[vertex-convert.not-in-spec]" in spec.err
    assert f"{config}:6:34: trainingInput.encryptionConfig.kmsKeyName: warning: the " \
           "encryption key is not written into the file" in spec.err
    whole = cli("convert", config, "--whole-job")
    assert whole.code == 0, whole.err
    job = both_readers(whole.out)
    assert list(job) == ["displayName", "labels", "encryptionSpec", "jobSpec"]
    assert job["labels"] == {"team": "ml", "cost-center": "42"}
    assert job["encryptionSpec"] == {"kmsKeyName": key}
    assert "not-in-spec" not in whole.err
    assert "  cost-center: '42'" in whole.out.splitlines()


def test_a_tuning_job_is_written_whole(cli, tmp_path):
    config = str(SEEDS / "hyperparameter-tuning.yaml")
    result = cli("convert", config, "--executor-image-uri", PYTORCH)
    assert result.code == 0, result.err
    job = both_readers(result.out)
    assert job == translated_body(config, executor_image_uri=PYTORCH)
    assert list(job)[:2] == ["displayName", "studySpec"] and "trialJobSpec" in job
    assert "#   gcloud ai hp-tuning-jobs create --config=FILE --region=us-central1 " \
           "--display-name=hyperparameter-tuning" in result.out
    assert "maxTrialCount: 20  # from trainingInput.hyperparameters.maxTrials (line 22)" \
        in result.out.splitlines()
    # a tuning job is always whole: --whole-job changes nothing, its header included
    assert cli("convert", config, "--executor-image-uri", PYTORCH, "--whole-job").out == \
        result.out


def test_an_empty_pool_is_written_and_gcloud_s_refusal_of_it_is_said(cli, write):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n"
                   "  masterConfig: {imageUri: 'gcr.io/p/i:1'}\n  parameterServerCount: 2\n"
                   "  parameterServerType: n1-highmem-8\n")
    result = cli("convert", config)
    assert result.code == 0, result.err
    assert [bool(p) for p in both_readers(result.out)["workerPoolSpecs"]] == [True, False, True]
    assert "  - {}" in result.out.splitlines()
    assert "note: worker pool 1 is an empty placeholder ({}): Vertex takes it, but gcloud's " \
           "own check of a --config file refuses it" in result.err


@pytest.mark.parametrize("arg", ["yes", "1e3", "--lr=0.1", "a: b", "#x", "it's", "tab\there",
                                 "line\nbreak", "naïve ✓", "x\u2028y", "", " padded ", "~",
                                 "2024-01-01", "0o17", "null", "=", "<<"])
def test_any_trainer_argument_reads_back_as_written(cli, write, arg):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n"
                   "  masterConfig: {imageUri: 'gcr.io/p/i:1'}\n")
    result = cli("convert", config, "--", arg, "--flag")
    assert result.code == 0, result.err
    result.out.encode("utf-8")  # valid UTF-8
    spec = both_readers(result.out)
    assert spec["workerPoolSpecs"][0]["containerSpec"]["args"] == [arg, "--flag"]


def test_the_strategy_flag_makes_max_wait_time_a_max_wait_duration(cli, write):
    # (on an L4: the Dynamic Workload Scheduler queues GPU jobs, and takes no CPU-only machine)
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  masterType: g2-standard-8\n"
                   "  masterConfig: {imageUri: 'gcr.io/p/i:1', acceleratorConfig: "
                   "{count: 1, type: NVIDIA_L4}}\n"
                   "  scheduling: {maxWaitTime: 7200s}\n")
    refused = cli("convert", config)
    assert refused.code == 1
    assert "only with the FLEX_START scheduling strategy" in refused.err
    result = cli("convert", config, "--strategy", "flex_start")
    assert result.code == 0, result.err
    assert both_readers(result.out)["scheduling"] == {"strategy": "FLEX_START",
                                                      "maxWaitDuration": "7200s"}


def test_the_output_may_not_be_the_config_itself(cli, write):
    config = write("trainingInput:\n  scaleTier: BASIC\n")
    result = cli("convert", config, "-o", config)
    assert result.code == 2
    assert f"error: -o {config} is the config being converted" in result.err
    assert Path(config).read_text() == "trainingInput:\n  scaleTier: BASIC\n"


def test_a_missing_config_is_no_such_file(cli, tmp_path):
    result = cli("convert", tmp_path / "nope.yaml")
    assert result.code == 2
    assert "no such file" in result.err


def test_what_vertex_would_refuse_is_reported_at_the_config_s_value(cli, write):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  region: us-west2\n"
                   "  masterType: n1-standard-8\n  masterConfig:\n    imageUri: gcr.io/p/i:1\n"
                   "    acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}\n"
                   "  workerCount: 1\n  workerType: a3-highgpu-1g\n  workerConfig:\n"
                   "    acceleratorConfig: {count: 1, type: NVIDIA_H100_80GB}\n")
    result = cli("convert", config)
    assert result.code == 1 and result.out == ""
    assert result.err.splitlines() == [
        f"{config}:7:32: trainingInput.masterConfig.acceleratorConfig.count: n1-standard-8 "
        "takes 1, 2 or 4 × NVIDIA_TESLA_T4, not 3 [vertex.machine]",
        "  hint: `gpujob gpus --service vertex --gpu t4` lists the machine types that take it "
        "and their counts",
        f"{config}:11:41: trainingInput.workerConfig.acceleratorConfig.type: warning: "
        "a3-highgpu-1g machines (H100 GPUs), asked for by the workers, are not listed in any "
        "zone of us-west2 in Compute Engine's zone list (a proxy for Vertex AI's, read "
        "2026-11-23) [vertex.region-gpu]",
        "  hint: training regions where they are listed: asia-east1, asia-northeast1, "
        "asia-south1, asia-south2, asia-southeast1, australia-southeast1, europe-north1, "
        "europe-west1 … (17 in all); Vertex AI's own list can differ (--no-region-check leaves "
        "this out)",
        f"error: {config}: 1 problem; nothing was written"]


def test_a_region_without_training_is_refused_at_the_config_s_region(cli, write):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  region: us-centrl1\n"
                   "  masterType: n1-standard-8\n  masterConfig: {imageUri: 'gcr.io/p/i:1'}\n")
    result = cli("convert", config)
    assert result.code == 1
    assert result.err.splitlines()[:2] == [
        f"{config}:3:11: trainingInput.region: 'us-centrl1' is not a region Vertex AI custom "
        "training runs in [vertex.region]", "  hint: did you mean 'us-central1'?"]
    relaxed = cli("convert", config, "--no-region-check")
    assert relaxed.code == 0, relaxed.err
    assert f"{config}:3:11: trainingInput.region: warning: 'us-centrl1' is not a region" \
        in relaxed.err


def test_a_native_vertex_config_is_not_converted_again(cli, tmp_path):
    out = tmp_path / "spec.yaml"
    assert cli("convert", T4, "--executor-image-uri", PYTORCH, "-o", out).code == 0
    again = cli("convert", out)
    assert again.code == 1 and again.out == ""
    assert again.err.splitlines() == [
        f"error: {out} is a native Vertex config already (a CustomJobSpec): convert takes an "
        "AI Platform config", "  hint: check it with gpujob validate --service vertex, or send "
        "it with gpujob submit (--service vertex or gke)"]


def test_a_config_from_standard_input_is_named_as_a_spec_from_it_is_sent(cli):
    result = cli("convert", "-", "--executor-image-uri", PYTORCH,
                 stdin=Path(T4).read_bytes())
    assert result.code == 0, result.err
    assert "#   gpujob submit FILE --service vertex --region us-central1 --display-name job" \
        in result.out.splitlines()
    sent = cli("submit", "-", "--service", "vertex", "--region", "us-central1", "--dry-run",
               stdin=result.out.encode("utf-8"))
    assert sent.code == 0, sent.err
    assert json.loads(sent.out)["displayName"] == "job"


def test_the_config_is_translated_once(cli, translations):
    """The translation written is the one checked (it was made twice, on days that could
    differ)."""
    assert cli("convert", T4, "--executor-image-uri", PYTORCH).code == 0
    assert translations == [T4]


def test_the_unverified_hint_is_said_once_per_file_not_after_each_legacy_type(cli, tmp_path):
    configs = ROOT / "configs"
    converted = cli("convert", str(configs / "legacy-complex-model-m-gpu.yaml"), "-o",
                    str(tmp_path / "out.yaml"))
    assert converted.code == 0, converted.err
    notes = [line for line in converted.err.splitlines() if "[vertex-translate.machine-type]"
             in line]
    assert len(notes) == 3
    assert converted.err.count("hint: unverified:") == 1
    # validate, per file: in text and in GitHub's annotations; JSON keeps every finding whole
    copy = tmp_path / "configs"
    copy.mkdir()
    for name in ("legacy-complex-model-m-gpu.yaml", "t4-compute-engine.yaml"):
        (copy / name).write_bytes((configs / name).read_bytes())
    text = cli("validate", str(copy), "--service", "vertex")
    assert text.code == 0, text.err
    assert (text.out + text.err).count("unverified:") == 1
    github = cli("validate", str(copy), "--service", "vertex", "--format", "github")
    assert github.out.count("unverified:") == 1
    data = json.loads(cli("validate", str(copy), "--service", "vertex", "--format", "json").out)
    hints = [note["hint"] for entry in data["files"] for note in entry.get("notes", [])
             if note["rule"] == "vertex-translate.machine-type"]
    assert len(hints) == 3 and all(hint.startswith("unverified:") for hint in hints)
