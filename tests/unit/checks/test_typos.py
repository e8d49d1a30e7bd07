"""A misspelt key does not hide the job's other problems: where its did-you-mean is clear, its
value stands in for the key it means while the rules run (their findings point at what the user
wrote); in every case the rules check the rest. One mistake still gives one message."""

from __future__ import annotations

import json

GPU_COUNT_3 = ("n1-standard-4 cannot take 3 × T4: T4 GPUs are attached 1, 2 or 4 at a time, "
               "never 3 [gpu.count]\n  hint: use 1, 2 or 4 × T4 on n1-standard-4\n")


def validate(cli, path: str, *args: str):
    return cli("validate", "--service", "ai-platform", *args, path)


def test_a_misspelt_master_type_still_gets_its_gpu_count_checked(cli, write):
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  masterTyp: n1-standard-4\n"
                 "  masterConfig:\n"
                 "    acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}\n")
    result = validate(cli, path)
    assert result.code == 1
    assert result.out == (
        f"{path}:4:3: trainingInput.masterTyp: unknown key 'masterTyp' [schema.unknown-key]\n"
        "  hint: did you mean 'masterType'?\n"
        f"{path}:6:32: trainingInput.masterConfig.acceleratorConfig.count: " + GPU_COUNT_3)
    assert result.err == "1 file checked: 0 valid, 1 invalid (2 errors, 0 warnings)\n"


def test_findings_about_the_misspelt_keys_value_point_at_what_was_written(cli, write):
    """A typo in the workers' config, an error in the master's: both found, the workers' at the
    line of the misspelt key's value, under the path as written."""
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  masterType: n1-standard-4\n"
                 "  masterConfig: {acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}}\n"
                 "  workerCount: 2\n"
                 "  workerType: n1-standard-4\n"
                 "  workerConfg:\n"
                 "    acceleratorConfig: {count: 5, type: NVIDIA_TESLA_P100}\n")
    result = validate(cli, path, "--format", "json")
    assert result.code == 1
    errors = json.loads(result.out)["files"][0]["errors"]
    assert [(e["path"], e["line"], e["column"], e["rule"], e["message"]) for e in errors] == [
        ("trainingInput.masterConfig.acceleratorConfig.count", 5, 45, "gpu.count",
         "n1-standard-4 cannot take 3 × T4: T4 GPUs are attached 1, 2 or 4 at a time, never 3"),
        ("trainingInput.workerConfg", 8, 3, "schema.unknown-key", "unknown key 'workerConfg'"),
        ("trainingInput.workerConfg.acceleratorConfig.count", 9, 32, "gpu.count",
         "n1-standard-4 cannot take 5 × P100: P100 GPUs are attached 1, 2 or 4 at a time, "
         "never 5")]
    assert errors[1]["hint"] == "did you mean 'workerConfig'?"


def test_an_ambiguous_typo_stands_in_for_nothing_and_the_rest_is_checked(cli, write):
    """workerConf is spelt almost as like workerCount as workerConfig: the hint names both, its
    value is not checked as either (no finding about its 3 GPUs), and the rest still is."""
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  masterType: n1-standard-99\n"
                 "  workerType: n1-standard-4\n"
                 "  workerConf: {acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}}\n")
    result = validate(cli, path)
    assert result.code == 1
    assert result.out == (
        f"{path}:4:15: trainingInput.masterType: 'n1-standard-99' is not a machine type AI "
        "Platform Training offers [machine.unknown]\n"
        "  hint: the n1-standard types it accepts: n1-standard-4, n1-standard-8, "
        "n1-standard-16, n1-standard-32, n1-standard-64, n1-standard-96\n"
        f"{path}:6:3: trainingInput.workerConf: unknown key 'workerConf' [schema.unknown-key]\n"
        "  hint: did you mean 'workerConfig' or 'workerCount'?\n")
    # (no "workerType is set but workerCount is 0": workerConf may be the count)


def test_a_typo_on_an_otherwise_valid_config_is_one_finding(cli, write):
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  region: us-central1\n"
                 "  masterTyp: n1-standard-4\n"
                 "  masterConfig:\n"
                 "    acceleratorConfig: {count: 2, type: NVIDIA_TESLA_T4}\n")
    result = validate(cli, path)
    assert result.code == 1
    assert result.out == (
        f"{path}:5:3: trainingInput.masterTyp: unknown key 'masterTyp' [schema.unknown-key]\n"
        "  hint: did you mean 'masterType'?\n")


def test_a_required_key_the_typo_supplies_is_not_reported_missing(cli, write):
    """``typ:`` was the typo and "missing required key 'type'" besides: two messages."""
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  masterType: n1-standard-4\n"
                 "  masterConfig:\n"
                 "    acceleratorConfig: {count: 3, typ: NVIDIA_TESLA_T4}\n")
    result = validate(cli, path)
    assert result.out == (
        f"{path}:6:32: trainingInput.masterConfig.acceleratorConfig.count: " + GPU_COUNT_3 +
        f"{path}:6:35: trainingInput.masterConfig.acceleratorConfig.typ: unknown key 'typ' "
        "[schema.unknown-key]\n  hint: did you mean 'type'?\n")


def test_a_misspelt_training_input_is_checked_as_the_job(cli, write):
    path = write("trainingInpt:\n"
                 "  scaleTier: BASIC\n"
                 "  runtimeVersion: '2.11'\n"
                 "  workerCount: 2\n")
    result = validate(cli, path)
    assert result.out == (
        f"{path}:1:1: trainingInpt: unknown key 'trainingInpt' [schema.unknown-key]\n"
        "  hint: did you mean 'trainingInput'?\n"
        f"{path}:4:3: trainingInpt.workerCount: workerCount is only used with scaleTier CUSTOM "
        "(this job is BASIC) [tier.cluster-fields]\n"
        "  hint: set scaleTier: CUSTOM to choose machines yourself, or remove workerCount\n")


def test_the_misspelt_keys_value_is_checked_by_the_schema_too(cli, write):
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  masterTyp: 42\n")
    result = validate(cli, path)
    assert result.out == (
        f"{path}:4:3: trainingInput.masterTyp: unknown key 'masterTyp' [schema.unknown-key]\n"
        "  hint: did you mean 'masterType'?\n"
        f"{path}:4:14: trainingInput.masterTyp: expected a string, found the number 42 "
        "[schema.type]\n  hint: quote it to make it a string: '42'\n")


def test_two_typos_of_one_key_stand_in_for_nothing(cli, write):
    """Which of the two is the master's type? Neither is used, and neither is reported missing."""
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  runtimeVersion: '2.11'\n"
                 "  masterTyp: n1-standard-4\n"
                 "  mastrType: n1-standard-99\n"
                 "  masterConfig: {acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}}\n")
    result = validate(cli, path)
    assert result.out == "".join(
        f"{path}:{line}:3: trainingInput.{key}: unknown key '{key}' [schema.unknown-key]\n"
        "  hint: did you mean 'masterType'?\n" for line, key in ((4, "masterTyp"),
                                                                 (5, "mastrType")))


def test_submit_dry_run_checks_past_a_typo_too(cli, write):
    path = write("trainingInput:\n"
                 "  scaleTier: CUSTOM\n"
                 "  region: us-central1\n"
                 "  masterConfig:\n"
                 "    imageUri: gcr.io/p/trainer:1\n"
                 "    acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}\n"
                 "  masterTyp: n1-standard-4\n")
    result = cli("submit", "--service", "ai-platform", path, "--dry-run")
    assert result.code == 1
    assert result.out == ""
    assert (f"{path}:6:32: trainingInput.masterConfig.acceleratorConfig.count: "
            + GPU_COUNT_3.splitlines()[0]) in result.err.splitlines()
    assert f"{path}:7:3: trainingInput.masterTyp: unknown key 'masterTyp' " \
           "[schema.unknown-key]" in result.err.splitlines()
