"""``gpujob submit --dry-run``: the exact Job body, and gcloud's field-by-field override rules."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest
from jobs import CONTAINER_JOB as BASE

from gpujob.config.merge import generate_job_id

# A runtime-version job (no container), for the flags that conflict with an image.
RUNTIME = """\
trainingInput:
  scaleTier: BASIC
  region: us-central1
  packageUris: [gs://b/trainer-0.1.tar.gz]
  pythonModule: trainer.task
"""


@pytest.fixture
def dry_run(cli, write):
    """Dry-run a config with flags; returns (Job body, stderr) and insists on exit 0."""

    def run(*flags: str, config: str = BASE, env: dict[str, str] | None = None):
        result = cli("submit", write(config), "--dry-run", "--job-id", "j1", *flags, env=env)
        assert result.code == 0, result.err
        return json.loads(result.out), result.err

    return run


def test_prints_exactly_the_file_as_the_job_body(dry_run):
    body, err = dry_run("--project", "my-proj")
    assert body == {
        "trainingInput": {
            "scaleTier": "CUSTOM", "region": "us-central1", "masterType": "n1-highcpu-16",
            "masterConfig": {"imageUri": "gcr.io/p/trainer:1",
                             "acceleratorConfig": {"count": 4, "type": "NVIDIA_TESLA_T4"}},
            "args": ["--from-file"],
        },
        "jobId": "j1",
    }
    assert "would POST this Job to https://ml.googleapis.com/v1/projects/my-proj/jobs" in err
    assert "nothing sent" in err


def test_an_invalid_config_prints_no_body_and_exits_1(cli, write):
    path = write(BASE.replace("masterType", "masterTyp"))
    result = cli("submit", path, "--dry-run")
    assert result.code == 1
    assert result.out == ""
    assert f"{path}:4:3: trainingInput.masterTyp: unknown key 'masterTyp'" in result.err
    assert "error: " in result.err and "nothing was submitted" in result.err


@pytest.mark.parametrize("flag, value, path, expected", [
    ("--region", "europe-west4", ("region",), "europe-west4"),
    ("--master-machine-type", "n1-standard-8", ("masterType",), "n1-standard-8"),
    ("--master-image-uri", "gcr.io/p/t:2", ("masterConfig", "imageUri"), "gcr.io/p/t:2"),
    ("--worker-machine-type", "n1-standard-8", ("workerType",), "n1-standard-8"),
    ("--worker-accelerator", "count=2,type=nvidia-tesla-v100", ("workerConfig",
     "acceleratorConfig"), {"type": "NVIDIA_TESLA_V100", "count": 2}),
    ("--worker-image-uri", "gcr.io/p/w:1", ("workerConfig", "imageUri"), "gcr.io/p/w:1"),
    ("--parameter-server-machine-type", "n1-highmem-8", ("parameterServerType",),
     "n1-highmem-8"),
    ("--parameter-server-accelerator", "type=NVIDIA_TESLA_T4,count=1",
     ("parameterServerConfig", "acceleratorConfig"), {"type": "NVIDIA_TESLA_T4", "count": 1}),
    ("--parameter-server-image-uri", "gcr.io/p/ps:1", ("parameterServerConfig", "imageUri"),
     "gcr.io/p/ps:1"),
    ("--evaluator-machine-type", "n1-standard-4", ("evaluatorType",), "n1-standard-4"),
    ("--evaluator-accelerator", "count=1,type=nvidia-tesla-t4", ("evaluatorConfig",
     "acceleratorConfig"), {"type": "NVIDIA_TESLA_T4", "count": 1}),
    ("--evaluator-image-uri", "gcr.io/p/e:1", ("evaluatorConfig", "imageUri"), "gcr.io/p/e:1"),
    ("--python-version", "3.7", ("pythonVersion",), "3.7"),
    ("--module-name", "trainer.task", ("pythonModule",), "trainer.task"),
    ("--packages", "gs://b/a.tar.gz,gs://b/b.whl", ("packageUris",),
     ["gs://b/a.tar.gz", "gs://b/b.whl"]),
    ("--job-dir", "gs://bkt/out", ("jobDir",), "gs://bkt/out"),  # "b" is too short a bucket
    ("--service-account", "sa@p.iam.gserviceaccount.com", ("serviceAccount",),
     "sa@p.iam.gserviceaccount.com"),
    ("--network", "projects/1/global/networks/n", ("network",), "projects/1/global/networks/n"),
    ("--use-chief-in-tf-config", "false", ("useChiefInTfConfig",), False),
    ("--kms-key", "projects/p/locations/l/keyRings/r/cryptoKeys/k",
     ("encryptionConfig", "kmsKeyName"), "projects/p/locations/l/keyRings/r/cryptoKeys/k"),
])
def test_each_flag_sets_its_field(dry_run, flag, value, path, expected):
    body, _ = dry_run(flag, value)
    node = body["trainingInput"]
    for key in path:
        node = node[key]
    assert node == expected


@pytest.mark.parametrize("flag, value, path, expected", [
    ("--worker-count", "3", ("workerCount",), 3),
    ("--parameter-server-count", "2", ("parameterServerCount",), 2),
    ("--evaluator-count", "1", ("evaluatorCount",), 1),
])
def test_replica_counts(dry_run, flag, value, path, expected):
    kind = flag[2:-len("-count")]
    body, _ = dry_run(flag, value, f"--{kind}-machine-type", "n1-standard-8")
    assert body["trainingInput"][path[0]] == expected


@pytest.mark.parametrize("flags, path, expected", [
    (["--scale-tier", "Basic-GPU"], ("scaleTier",), "BASIC_GPU"),
    (["--scale-tier", "premium_1"], ("scaleTier",), "PREMIUM_1"),
    (["--runtime-version", "2.11"], ("runtimeVersion",), "2.11"),
    (["--runtime-version", "1.15", "--python-version", "2.7"], ("pythonVersion",), "2.7"),
])
def test_flags_of_runtime_jobs(dry_run, flags, path, expected):
    body, _ = dry_run("--runtime-version", "2.11", *flags, config=RUNTIME)
    assert body["trainingInput"][path[0]] == expected


def test_a_flag_alone_sets_a_boolean(dry_run):
    body, _ = dry_run("--use-chief-in-tf-config", "--enable-web-access")
    assert body["trainingInput"]["useChiefInTfConfig"] is True
    assert body["trainingInput"]["enableWebAccess"] is True


def test_master_accelerator_replaces_type_and_count_and_keeps_the_image(dry_run):
    body, _ = dry_run("--master-accelerator", "count=2,type=nvidia-tesla-v100")
    assert body["trainingInput"]["masterConfig"] == {
        "imageUri": "gcr.io/p/trainer:1",
        "acceleratorConfig": {"type": "NVIDIA_TESLA_V100", "count": 2}}


def test_absent_flags_leave_the_file_alone_unlike_gcloud(dry_run):
    """gcloud drops the file's packageUris and resets enableWebAccess; gpujob does neither."""
    config = BASE + "  packageUris: [gs://b/t.tar.gz]\n  enableWebAccess: true\n"
    body, _ = dry_run(config=config)
    assert body["trainingInput"]["packageUris"] == ["gs://b/t.tar.gz"]
    assert body["trainingInput"]["enableWebAccess"] is True
    body, _ = dry_run("--no-enable-web-access", config=config)
    assert body["trainingInput"]["enableWebAccess"] is False


def test_labels_replace_the_files_labels(dry_run):
    config = BASE + "labels: {team: a, env: prod}\n"
    body, _ = dry_run(config=config)
    assert body["labels"] == {"team": "a", "env": "prod"}
    body, _ = dry_run("--labels", "owner=me,empty=", "--labels", "team=b", config=config)
    assert body["labels"] == {"owner": "me", "empty": "", "team": "b"}


def test_a_label_given_two_values_is_a_usage_error(cli, write):
    result = cli("submit", write(BASE), "--dry-run", "--labels", "a=1", "--labels", "a=2")
    assert result.code == 2
    assert "error: --labels: 'a' is given twice ('1' and '2')" in result.err


@pytest.mark.parametrize("args", [
    ["--epochs", "10"],
    ["", "a b", "--x=1=2", "-- ", "--", "ünïcödé", "$HOME", "'quoted'", "\\n"],
    [],
])
def test_user_args_after_the_separator_replace_args_byte_for_byte(dry_run, args):
    body, _ = dry_run("--", *args)
    assert body["trainingInput"]["args"] == args


def test_without_the_separator_the_files_args_stay(dry_run):
    body, _ = dry_run()
    assert body["trainingInput"]["args"] == ["--from-file"]


def test_extra_arguments_without_the_separator_are_a_usage_error(cli, write):
    result = cli("submit", write(BASE), "--dry-run", "--epochs", "10")
    assert result.code == 2
    assert "No such option: --epochs. Arguments for the trainer go after --" in result.err


def test_set_writes_any_field_with_a_yaml_value(dry_run):
    body, _ = dry_run("--set", "trainingInput.scheduling.maxWaitTime=3600s",
                      "--set", "trainingInput.masterConfig.acceleratorConfig.count=2",
                      "--set", "trainingInput.args=[--a, '1']",
                      "--set", 'labels["team"]=ml')
    ti = body["trainingInput"]
    assert ti["scheduling"] == {"maxWaitTime": "3600s"}
    assert ti["masterConfig"]["acceleratorConfig"] == {"count": 2, "type": "NVIDIA_TESLA_T4"}
    assert ti["args"] == ["--a", "1"]
    assert body["labels"] == {"team": "ml"}


def test_named_flags_win_over_set(dry_run):
    body, _ = dry_run("--set", "trainingInput.region=asia-east1", "--region", "europe-west4")
    assert body["trainingInput"]["region"] == "europe-west4"


@pytest.mark.parametrize("flags, message", [
    (["--set", "trainingInput"], "--set: 'trainingInput' is not PATH=VALUE"),
    (["--set", "trainingInput..x=1"], "--set: 'trainingInput..x' is not a path"),
    (["--set", "trainingInput.args=[a"], "--set trainingInput.args: YAML syntax error"),
    (["--set", "trainingInput.args[5]=a"], "trainingInput.args has no item 5"),
    (["--scale-tier", "huge"], "--scale-tier: 'huge' is not a scale tier"),
    (["--master-accelerator", "type=nvidia-tesla-t4"], "--master-accelerator: count is missing"),
    (["--master-accelerator", "count=0,type=t4"], "the count must be greater than 0"),
    (["--worker-count", "many"], "--worker-count: 'many' is not a whole number"),
    (["--use-chief-in-tf-config=maybe"], "'maybe' is not a boolean"),
    (["--kms-key", "k"], "--kms-key: encryption key not fully specified"),
])
def test_malformed_flags_are_usage_errors(cli, write, flags, message):
    result = cli("submit", write(BASE), "--dry-run", *flags)
    assert result.code == 2
    assert result.out == ""
    assert message in result.err


LONG = {"huge-number": "9" * 5000, "deep-path": "labels" + ".a" * 10000, "long-name": "x" * 300}


@pytest.mark.parametrize("flags, message", [
    (["--set", "trainingInput.workerCount=" + LONG["huge-number"]],
     "error: --set trainingInput.workerCount: number too large (5,000 digits)"),
    (["--set", 'labels["\\u"]=x'],
     "error: --set: 'labels[\"\\\\u\"]' is not a path: an invalid escape in a quoted key"),
    (["--set", 'labels["\\x41"]=x'], "is not a path: an invalid escape in a quoted key"),
    (["--set", 'labels["\\ud800"]=x'], "is not a path: a quoted key that is not valid Unicode"),
    (["--set", "trainingInput.args[٣]=x"], "error: --set: 'trainingInput.args[٣]' is not a path"),
    (["--set", f"trainingInput.args[{LONG['huge-number']}]=x"],
     "is not a path: 99999999999999999999…9999 (5,000 characters) is more than the maximum"),
    (["--set", LONG["deep-path"] + "=1"], "(20,006 characters)' is deeper than 32 levels"),
    (["--set", "labels" + ".a" * 32 + "=1"], "is deeper than 32 levels"),
    (["--worker-count", "9223372036854775808"],
     "error: --worker-count: 9223372036854775808 is more than the maximum, 9223372036854775807"),
    (["--worker-count", "٣"], "error: --worker-count: '٣' is not a whole number"),
    (["--worker-count", "2.0"], "error: --worker-count: '2.0' is not a whole number"),
    (["--master-accelerator", "count=²,type=t4"],
     "error: --master-accelerator: count '²' is not a whole number"),
], ids=["huge-number", "bad-escape-u", "bad-escape-x", "lone-surrogate", "arabic-index",
        "huge-index", "10000-levels", "33-levels", "int64", "arabic-digit", "float",
        "superscript"])
def test_hostile_flag_values_are_usage_errors(cli, write, flags, message):
    """Each of these ended in an internal error (exit 70) or passed unchecked."""
    result = cli("submit", write(BASE), "--dry-run", *flags)
    assert result.code == 2, result.err
    assert result.out == ""
    assert message in result.err
    assert "internal error" not in result.err


@pytest.mark.parametrize("flags, message", [
    (["--staging-bucket", "gs://bkt", "--packages", LONG["long-name"] + ".whl"],
     f"error: --packages: cannot read {LONG['long-name']}.whl: File name too long"),
    (["--package-path", LONG["long-name"]],
     f"error: --package-path: cannot read {LONG['long-name']}: File name too long"),
], ids=["packages", "package-path"])
def test_over_long_file_names_are_usage_errors(cli, write, flags, message):
    """Python 3.11's Path.exists() raises ENAMETOOLONG: it ended in an internal error."""
    result = cli("submit", write(BASE), "--dry-run", *flags)
    assert result.code == 2, result.err
    assert result.out == ""
    assert message in result.err


def test_a_set_path_may_be_as_deep_as_a_file(cli, write):
    result = cli("submit", write(BASE), "--dry-run", "--set", "labels" + ".a" * 31 + "=1")
    assert result.code == 1  # read, then refused by the schema: a label value is a string
    assert "labels.a: expected a string, found a mapping" in result.err


@pytest.mark.parametrize("value, message", [
    ("9223372036854775808",
     "trainingInput.workerCount: 9223372036854775808 is more than the maximum, "
     "9223372036854775807 [schema.range]"),
    ("'9223372036854775808'", "trainingInput.workerCount: 9223372036854775808 is more than the "
                              "maximum"),
    ("2.0", "trainingInput.workerCount: expected a whole number of at least 0, found the number "
            "2.0 [schema.type]"),
    ('"3\\n"', "trainingInput.workerCount: expected a whole number of at least 0, found the "
               "string '3\\n'"),
])
def test_counts_set_on_the_command_line_are_checked_like_the_files(cli, write, value, message):
    result = cli("submit", write(BASE), "--dry-run", "--set", f"trainingInput.workerCount={value}",
                 "--worker-machine-type", "n1-highcpu-16")
    assert result.code == 1, result.err
    assert result.out == ""
    assert f"command line (--set trainingInput.workerCount): {message}" in result.err


def test_a_short_kms_key_is_completed_from_the_other_flags(dry_run):
    body, _ = dry_run("--kms-key", "k", "--kms-keyring", "r", "--kms-location", "us",
                      "--project", "p")
    assert body["trainingInput"]["encryptionConfig"] == {
        "kmsKeyName": "projects/p/locations/us/keyRings/r/cryptoKeys/k"}


def test_bad_flag_values_are_reported_at_the_flag(cli, write):
    result = cli("submit", write(BASE), "--dry-run", "--region", "us-central1-a",
                 "--master-accelerator", "count=4,type=nvidia-tesla-t5")
    assert result.code == 1
    assert ("command line (--region): trainingInput.region: 'us-central1-a' is not a region "
            "AI Platform Training runs in [region.unknown]") in result.err
    assert "hint: us-central1-a looks like a zone; the job takes its region, us-central1" \
        in result.err
    assert ("command line (--master-accelerator): trainingInput.masterConfig.acceleratorConfig"
            ".type: 'NVIDIA_TESLA_T5' is not a valid type") in result.err
    assert "did you mean 'NVIDIA_TESLA_T4'?" in result.err


def test_settings_come_from_the_flag_then_the_environment_then_the_file(dry_run, cli, write):
    body, _ = dry_run()
    assert body["trainingInput"]["region"] == "us-central1"
    body, _ = dry_run(env={"GPUJOB_REGION": "europe-west1"})
    assert body["trainingInput"]["region"] == "europe-west1"
    body, _ = dry_run("--region", "asia-east1", env={"GPUJOB_REGION": "europe-west1"})
    assert body["trainingInput"]["region"] == "asia-east1"
    result = cli("submit", write(BASE), "--dry-run", env={"GPUJOB_REGION": "Europe"})
    assert "environment (GPUJOB_REGION): trainingInput.region: 'Europe'" in result.err


def test_project_from_the_environment(cli, write):
    result = cli("submit", write(BASE), "--dry-run", env={"GOOGLE_CLOUD_PROJECT": "envproj"})
    assert "v1/projects/envproj/jobs" in result.err


def test_job_id_from_flag_then_file_then_generated(cli, write):
    def job_id(*flags: str, config: str = BASE, name: str = "My-Config.v2.yaml") -> str:
        result = cli("submit", write(config, name), "--dry-run", *flags)
        assert result.code == 0, result.err
        return json.loads(result.out)["jobId"]

    assert job_id("--job-id", "flag_id", config="jobId: file_id\n" + BASE) == "flag_id"
    assert job_id(config="jobId: file_id\n" + BASE) == "file_id"
    assert re.fullmatch(r"My_Config_v2_\d{8}_\d{6}_\d{3}_[0-9a-f]{6}", job_id())
    assert re.fullmatch(r"job_2024_\d{8}_\d{6}_\d{3}_[0-9a-f]{6}", job_id(name="2024.yaml"))


def test_generated_job_ids_differ_for_submits_started_together():
    """The ID used to be FILE-STEM_YYYYMMDD_HHMMSS: parallel submits shared it and the service
    kept one job for all of them."""
    now = datetime(2026, 11, 21, 22, 52, 0, 123999, tzinfo=timezone.utc)
    ids = {generate_job_id("my-config.yaml", now) for _ in range(20)}
    assert len(ids) == 20
    assert all(re.fullmatch(r"my_config_20261121_225200_123_[0-9a-f]{6}", i) for i in ids)
    longest = generate_job_id("x" * 300 + ".yaml", now)
    assert len(longest) == 128
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,127}", longest)  # the service's ID rule


def test_submit_needs_a_region(cli, write):
    result = cli("submit", write(BASE.replace("  region: us-central1\n", "")), "--dry-run")
    assert result.code == 1
    assert "trainingInput: no region for the job [submit.region]" in result.err
    assert "hint: pass --region" in result.err


def test_a_missing_config_is_a_usage_error(cli, tmp_path):
    result = cli("submit", tmp_path / "nope.yaml", "--dry-run")
    assert result.code == 2
    assert result.err.splitlines() == [  # as validate says it (issue 12)
        f"error: no such file: {tmp_path / 'nope.yaml'}",
        "  hint: check the paths (a quoted glob is not expanded by the shell)"]


def test_config_from_standard_input(cli):
    result = cli("submit", "-", "--dry-run", "--job-id", "j", stdin=BASE.encode())
    assert result.code == 0
    assert json.loads(result.out)["trainingInput"]["masterType"] == "n1-highcpu-16"


def test_dry_run_needs_no_credentials(cli, write, monkeypatch, tmp_path):
    """No ADC file, no key, no metadata server, no network: the dry-run still works."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    result = cli("submit", write(BASE), "--dry-run")
    assert result.code == 0
    assert json.loads(result.out)["trainingInput"]["region"] == "us-central1"


def test_the_body_is_what_gcloud_sends_for_empty_keys_and_booleans(dry_run):
    """gcloud's decoder leaves out a null, and reads a string or a boolean in a double field as
    a number ('50' -> 50, false -> 0.0); no scaleTier is added (the service's default
    applies)."""
    config = RUNTIME.replace("  scaleTier: BASIC\n", "") + (
        "  runtimeVersion: '2.11'\n"
        "  hyperparameters:\n"
        "    params:\n"
        "      - {parameterName: first-layer-size, type: INTEGER, discreteValues: null,\n"
        "         minValue: '50', maxValue: 500}\n"
        "      - {parameterName: residual, type: DISCRETE, discreteValues: [false, true]}\n")
    body, err = dry_run("--project", "p", config=config)
    assert "scaleTier" not in body["trainingInput"]
    assert body["trainingInput"]["hyperparameters"] == {"params": [
        {"parameterName": "first-layer-size", "type": "INTEGER", "minValue": 50,
         "maxValue": 500},
        {"parameterName": "residual", "type": "DISCRETE", "discreteValues": [0.0, 1.0]}]}
    assert ("params[0].discreteValues: note: discreteValues is empty (null): it is not sent, "
            "as gcloud leaves an empty value out [load.null]") in err
    assert "warning: false is sent as the number 0.0" in err


@pytest.mark.parametrize("service", ["vertex", "ai-platform"])
def test_a_count_set_by_an_accelerator_flag_is_blamed_on_the_flag(cli, write, service):
    """--master-accelerator sets the whole acceleratorConfig: a finding about its count (or
    type) names the flag, as one about a value --set set does (docs/overrides.md)."""
    result = cli("submit", write(BASE), "--dry-run", "--job-id", "j1", "--service", service,
                 "--master-machine-type", "n1-standard-8",
                 "--master-accelerator", "count=8,type=nvidia-tesla-t4")
    assert result.code == 1
    (finding,) = [line for line in result.err.splitlines() if " 8" in line and "[" in line]
    assert finding.startswith("command line (--master-accelerator): "
                              "trainingInput.masterConfig.acceleratorConfig.count: ")
    assert "config.yaml" not in finding
