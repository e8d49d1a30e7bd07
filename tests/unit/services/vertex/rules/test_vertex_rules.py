"""Validation for Vertex AI of an AI Platform config: the job schema with Vertex's accelerator
names, the translation's findings (each once), and Vertex's rules (training region, GPUs in
the region by the zone proxy, machine × GPU × count), every finding at the config's
file:line:col with a fix. The service is always named: these tests do not depend on the
default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpujob import services
from gpujob.checks.engine import CheckOptions, check_job
from gpujob.config.load import loads
from gpujob.services.vertex.rules import scheduling
from gpujob.services.vertex.rules.translated import NATIVE_RULES

pytestmark = pytest.mark.default_service  # they name their service; the default is not set

VERTEX_RULES = {r.id: r for r in services.get("vertex").listed_rules()}

CONTAINER = """\
trainingInput:
  scaleTier: CUSTOM
  region: {region}
  masterType: {machine}
  masterConfig:
    imageUri: gcr.io/p/t:1
    acceleratorConfig: {{count: {count}, type: {gpu}}}
"""


def container(region: str = "us-central1", machine: str = "n1-standard-8", count: int = 1,
              gpu: str = "NVIDIA_TESLA_T4") -> str:
    return CONTAINER.format(region=region, machine=machine, count=count, gpu=gpu)


def validate(cli, write, text: str, *flags: str):
    """``gpujob validate --service vertex FLAGS CONFIG``, the config's directory left out of
    the output (so findings read ``config.yaml:LINE:COL``)."""
    path = write(text)
    result = cli("validate", "--service", "vertex", *flags, path)
    result.out = result.out.replace(str(Path(path).parent) + "/", "")
    return result


# -- Vertex's accelerator names -----------------------------------------------------------------

@pytest.mark.parametrize("machine, count, gpu", [("g2-standard-8", 1, "NVIDIA_L4"),
                                                 ("a3-highgpu-8g", 8, "NVIDIA_H100_80GB")])
def test_vertex_gpu_names_are_valid_for_vertex_only(cli, write, machine, count, gpu):
    config = write(container(machine=machine, count=count, gpu=gpu))
    vertex = cli("validate", "--service", "vertex", config)
    assert (vertex.code, vertex.out) == (0, "")
    ai_platform = cli("validate", "--service", "ai-platform", config)
    assert ai_platform.code == 1
    assert f"'{gpu}' is not a valid type [schema.enum]" in ai_platform.out


def test_a_misspelt_gpu_is_one_schema_finding_with_vertex_names(cli, write):
    result = validate(cli, write, container(gpu="NVIDIA_L4X"))
    assert result.code == 1
    assert result.out == (
        "config.yaml:7:41: trainingInput.masterConfig.acceleratorConfig.type: 'NVIDIA_L4X' is not "
        "a valid type [schema.enum]\n  hint: did you mean 'NVIDIA_L4'?\n")


# -- where: the training region, the GPUs by zone -------------------------------------------------

@pytest.mark.parametrize("region, hint", [
    ("us-centrall1", "did you mean 'us-central1'?"),
    ("us-central1-a", "us-central1-a looks like a zone; the job takes its region, us-central1"),
    ("mars-north1", "training regions: africa-south1, asia-east1, asia-east2, "),
])
def test_a_region_vertex_does_not_train_in_is_an_error(cli, write, region, hint):
    result = validate(cli, write, container(region=region))
    assert result.code == 1
    assert (f"config.yaml:3:11: trainingInput.region: '{region}' is not a region Vertex AI "
            f"custom training runs in [vertex.region]\n  hint: {hint}") in result.out


def test_a_region_with_an_endpoint_but_no_training_says_so(cli, write):
    result = validate(cli, write, container(region="us-central2"))
    assert result.code == 1
    assert ("'us-central2' is not a region Vertex AI custom training runs in (it has an API "
            "endpoint, but it is not among the training regions) [vertex.region]") in result.out


def test_region_checks_off_and_local_runs_make_the_region_a_warning(cli, write):
    result = validate(cli, write, container(region="us-centrall1"), "--no-region-check")
    assert result.code == 0
    assert ("trainingInput.region: warning: 'us-centrall1' is not a region Vertex AI custom "
            "training runs in [vertex.region]\n  hint: did you mean 'us-central1'?; (a warning: "
            "region checks are off)") in result.out
    doc = loads(container(region="us-centrall1").encode(), "job.yaml").document
    local = check_job(doc, CheckOptions(services.get("vertex"), submit=True, local=True)).findings
    assert [(f.severity, f.rule) for f in local] == [("warning", "vertex.region")]


def test_a_gpu_the_zone_proxy_does_not_list_in_the_region_is_a_dated_warning(cli, write):
    result = validate(cli, write, container(region="europe-west6"))
    assert result.code == 0
    assert result.out == (
        "config.yaml:7:41: trainingInput.masterConfig.acceleratorConfig.type: warning: T4 GPUs, "
        "asked for by the master, are not listed in any zone of europe-west6 in Compute "
        "Engine's zone list (a proxy for Vertex AI's, read 2026-11-23) [vertex.region-gpu]\n"
        "  hint: training regions where they are listed: asia-east1, asia-east2, "
        "asia-northeast1, asia-northeast3, asia-south1, asia-southeast1, asia-southeast2, "
        "australia-southeast1 … (23 in all); Vertex AI's own list can differ (--no-region-check "
        "leaves this out)\n")
    assert validate(cli, write, container(region="europe-west6"), "--no-region-check").out == ""
    doc = loads(container(region="europe-west6").encode(), "job.yaml").document
    assert check_job(doc, CheckOptions(local=True, service=services.get("vertex"))).findings == []


def test_a_machine_with_gpus_built_in_is_named_in_the_proxy_warning_once(cli, write):
    text = container(region="asia-east2", machine="g2-standard-8", gpu="NVIDIA_L4") + (
        "  workerCount: 2\n  workerType: g2-standard-8\n"
        "  workerConfig:\n    acceleratorConfig: {count: 1, type: NVIDIA_L4}\n")
    result = validate(cli, write, text)
    assert result.code == 0
    assert result.out.count("[vertex.region-gpu]") == 1
    assert ("config.yaml:7:41: trainingInput.masterConfig.acceleratorConfig.type: warning: "
            "g2-standard-8 machines (L4 GPUs), asked for by the master, are not listed in any "
            "zone of asia-east2") in result.out


# -- machines: machine type x GPU x count ----------------------------------------------------------

@pytest.mark.parametrize("machine, count, gpu, where, message, hint", [
    ("n1-standard-8", 1, "NVIDIA_L4", "7:41: trainingInput.masterConfig.acceleratorConfig.type",
     "n1-standard-8 does not take NVIDIA_L4 (machine types that do: g2-standard-4, "
     "g2-standard-8, g2-standard-12, g2-standard-16, g2-standard-24, g2-standard-32 …)",
     "`gpujob gpus --service vertex --gpu l4` lists the machine types that take it and their "
     "counts"),
    # the hint names the machine that takes that count (its own family's first)
    ("g2-standard-4", 2, "NVIDIA_L4", "7:32: trainingInput.masterConfig.acceleratorConfig.count",
     "g2-standard-4 takes 1 × NVIDIA_L4, not 2",
     "for 2 × NVIDIA_L4 use g2-standard-24, or keep g2-standard-4 with 1 × NVIDIA_L4; "
     "`gpujob gpus --service vertex --gpu l4` lists the machine types that take it and their "
     "counts"),
    ("g2-standard-8", 2, "NVIDIA_L4", "7:32: trainingInput.masterConfig.acceleratorConfig.count",
     "g2-standard-8 takes 1 × NVIDIA_L4, not 2",
     "for 2 × NVIDIA_L4 use g2-standard-24, or keep g2-standard-8 with 1 × NVIDIA_L4; "
     "`gpujob gpus --service vertex --gpu l4` lists the machine types that take it and their "
     "counts"),
    ("a3-highgpu-8g", 4, "NVIDIA_H100_80GB",
     "7:32: trainingInput.masterConfig.acceleratorConfig.count",
     "a3-highgpu-8g takes 8 × NVIDIA_H100_80GB, not 4",
     "for 4 × NVIDIA_H100_80GB use a3-highgpu-4g, or keep a3-highgpu-8g with 8 × "
     "NVIDIA_H100_80GB; `gpujob gpus --service vertex --gpu h100` lists the machine types that "
     "take it and their counts"),
    # a machine with its GPUs built in, given another GPU: what it comes with
    ("a2-highgpu-1g", 1, "NVIDIA_TESLA_T4",
     "7:41: trainingInput.masterConfig.acceleratorConfig.type",
     "a2-highgpu-1g does not take NVIDIA_TESLA_T4 (machine types that do: n1-standard-4, "
     "n1-standard-8, n1-standard-16, n1-standard-32, n1-standard-64, n1-standard-96 …)",
     "a2-highgpu-1g comes with 1 × NVIDIA_TESLA_A100: set acceleratorType NVIDIA_TESLA_A100 and "
     "acceleratorCount 1, or, for NVIDIA_TESLA_T4, a machine type that takes it; `gpujob gpus "
     "--service vertex --gpu t4` lists the machine types that take it and their counts"),
    # no machine takes 8 T4: where to look
    ("n1-standard-8", 8, "NVIDIA_TESLA_T4",
     "7:32: trainingInput.masterConfig.acceleratorConfig.count",
     "n1-standard-8 takes 1, 2 or 4 × NVIDIA_TESLA_T4, not 8",
     "`gpujob gpus --service vertex --gpu t4` lists the machine types that take it and their "
     "counts"),
    ("n1-standard-7", 1, "NVIDIA_TESLA_T4", "4:15: trainingInput.masterType",
     "n1-standard-7 is not a machine type Vertex AI custom training offers",
     "did you mean 'n1-standard-8'?"),
])
def test_machine_gpu_and_count_are_checked_against_the_vertex_catalog(
        cli, write, machine, count, gpu, where, message, hint):
    result = validate(cli, write, container(machine=machine, count=count, gpu=gpu))
    assert result.code == 1
    assert result.out == f"config.yaml:{where}: {message} [vertex.machine]\n  hint: {hint}\n"


def test_gpus_built_in_must_be_stated(cli, write):
    text = container() + "  parameterServerCount: 1\n  parameterServerType: a2-highgpu-4g\n"
    result = validate(cli, write, text)
    assert result.code == 1
    assert result.out == (
        "config.yaml:9:24: trainingInput.parameterServerType: a2-highgpu-4g has 4 × "
        "NVIDIA_TESLA_A100 built in, and Vertex AI wants them stated [vertex.machine]\n"
        "  hint: add parameterServerConfig.acceleratorConfig {count: 4, type: "
        "NVIDIA_TESLA_A100}\n")


# -- what Vertex cannot do: the translation's findings, each once, with a fix ---------------------

CANNOT = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  masterType: n1-standard-8
  masterConfig:
    imageUri: gcr.io/p/t:1
    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_K80}
  workerCount: 1
  workerType: cloud_tpu
  workerConfig:
    acceleratorConfig: {count: 8, type: TPU_V2}
  scheduling: {maxWaitTime: 3600s}
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: acc
    resumePreviousJobId: old_job
    params:
      - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 0.1}
"""


def test_what_vertex_cannot_do_is_reported_once_each_with_a_fix(cli, write):
    result = validate(cli, write, CANNOT)
    assert result.code == 1
    assert result.out == (
        "config.yaml:7:41: trainingInput.masterConfig.acceleratorConfig.type: NVIDIA_TESLA_K80: "
        "Vertex no longer offers K80 GPUs (end of support) [vertex-translate.accelerator]\n"
        "  hint: use NVIDIA_TESLA_T4 (n1-standard-4, n1-standard-8, n1-standard-16, … take it: "
        "gpujob gpus --service vertex)\n"
        "config.yaml:9:15: trainingInput.workerType: note: cloud_tpu became cloud-tpu with 8 × "
        "TPU_V2 [vertex-translate.machine-type]\n"
        "config.yaml:9:15: trainingInput.workerType: Vertex runs cloud-tpu only as a job's single "
        "pool with one replica; AI Platform's master plus Cloud TPU workers cannot be translated "
        "[vertex-translate.tpu-cluster]\n"
        "  hint: write a native Vertex config with one pool: machineType cloud-tpu, "
        "acceleratorType TPU_V2 (or TPU_V3), acceleratorCount 8, replicaCount 1, running the "
        "whole program\n"
        "config.yaml:12:29: trainingInput.scheduling.maxWaitTime: Vertex bounds the wait for "
        "resources (maxWaitDuration) only with the FLEX_START scheduling strategy "
        "[vertex-translate.scheduling]\n"
        "  hint: remove maxWaitTime, or choose the FLEX_START strategy (Dynamic Workload "
        "Scheduler) with --strategy FLEX_START\n"
        "config.yaml:16:26: trainingInput.hyperparameters.resumePreviousJobId: Vertex cannot "
        "resume a previous hyperparameter tuning job: it has no resumePreviousJobId "
        "[vertex-translate.hyperparameters]\n"
        "  hint: remove resumePreviousJobId: the job starts a new study\n")
    assert result.err == "1 file checked: 0 valid, 1 invalid (4 errors, 0 warnings, 1 note)\n"


def test_a_tpu_pod_is_refused_with_the_way_to_run_one(cli, write):
    result = validate(cli, write, container(machine="n1-standard-8", count=32, gpu="TPU_V3_POD"))
    assert result.code == 1
    assert result.out == (
        "config.yaml:7:42: trainingInput.masterConfig.acceleratorConfig.type: TPU_V3_POD: Vertex "
        "has no TPU_V3_POD accelerator type [vertex-translate.accelerator]\n"
        "  hint: on Vertex a TPU Pod slice is one pool of one replica: machineType cloud-tpu "
        "with acceleratorType TPU_V3 and acceleratorCount a multiple of 32 (write a native "
        "Vertex config)\n")


def test_the_schema_speaks_first_and_once(cli, write):
    """A value the schema refused is not judged again by the translation or the rules."""
    result = validate(cli, write, CANNOT.replace("maxWaitTime: 3600s", "maxWaitTime: 3600"))
    assert "[vertex-translate.scheduling]" not in result.out
    assert "trainingInput.scheduling.maxWaitTime: " in result.out
    assert result.out.count("trainingInput.scheduling.maxWaitTime") == 1


def test_json_lists_the_notes_of_the_translation(cli, write):
    import json

    result = validate(cli, write, CANNOT, "--format", "json")
    (entry,) = json.loads(result.out)["files"]
    assert [e["rule"] for e in entry["notes"]] == ["vertex-translate.machine-type"]
    assert (entry["notes"][0]["line"], entry["notes"][0]["column"]) == (9, 15)
    assert len(entry["errors"]) == 4 and entry["warnings"] == []


def test_what_a_vertex_submission_needs(cli, write):
    bare = container().replace("  region: us-central1\n", "")
    assert validate(cli, write, bare).code == 0
    result = cli("submit", write(bare), "--dry-run", "--service", "vertex")
    assert (result.code, result.out) == (1, "")
    assert ("config.yaml:1:1: trainingInput: no region for the job [vertex.submit-region]\n"
            "  hint: pass --region (or set GPUJOB_REGION, or trainingInput.region)") in result.err
    local_dir = container() + "  jobDir: /tmp/out\n"
    result = cli("submit", write(local_dir), "--dry-run", "--service", "vertex")
    assert result.code == 1
    assert ("trainingInput.jobDir: jobDir '/tmp/out' is not a Cloud Storage path "
            "[vertex.submit-job-dir]") in result.err


# -- the registry ---------------------------------------------------------------------------------

def test_gpujob_rules_lists_vertex_rules_for_vertex_only(cli):
    vertex = cli("rules", "--service", "vertex", "--format", "json")
    import json

    listed = json.loads(vertex.out)["rules"]
    assert [r["id"] for r in listed] == list(VERTEX_RULES)
    assert {r["id"] for r in listed if r["region"]} == {"vertex.region", "vertex.region-gpu"}
    assert {r["id"] for r in listed if r["submit"]} == {"vertex.submit-region",
                                                          "vertex.submit-job-dir",
                                                          "vertex-translate.package"}
    ai_platform = cli("rules", "--service", "ai-platform").out
    assert "vertex" not in ai_platform


def test_every_vertex_rule_says_what_it_checks():
    for rule in VERTEX_RULES.values():
        assert re.fullmatch(r"vertex(-translate|-convert)?\.[a-z0-9-]+", rule.id), rule.id
        assert rule.doc.endswith(".") and "\n" not in rule.doc and len(rule.doc) < 200, rule.id
        assert rule.services == ("vertex",), rule.id


def test_every_vertex_rule_a_finding_can_name_is_exercised_here():
    """The rule ids the tests of this file expect, against the registry (the translation's
    other rules have their cases in tests/test_translate_vertex*.py)."""
    text = Path(__file__).read_text(encoding="utf-8")
    named = set(re.findall(r"\[(vertex[a-z-]*\.[a-z0-9-]+)\]", text))
    translation_elsewhere = {"vertex-translate.scale-tier", "vertex-translate.pool",
                             "vertex-translate.runtime-version",
                             "vertex-translate.executor-image",
                             "vertex-translate.job-dir"}
    native_elsewhere = {rule_id for rule_id, _, _ in NATIVE_RULES}  # test_vertex_native.py
    # tests/unit/services/vertex/rules/test_vertex_scheduling.py
    scheduling_elsewhere = {rule_id for rule_id, _, _ in scheduling.RULES}
    assert set(VERTEX_RULES) - translation_elsewhere - native_elsewhere - \
        scheduling_elsewhere == named


def test_a_local_run_leaves_the_translation_to_the_run():
    """A local run translates the job itself, with its own job dir and package, and reports
    what it did (an image Vertex AI would refuse is a warning there: test_local_vertex.py);
    its check says nothing of the translation, so nothing is said twice."""
    text = container().replace("    imageUri: gcr.io/p/t:1\n", "") + (
        "  runtimeVersion: '2.11'\n  packageUris: [gs://my-bucket/t.tar.gz]\n"
        "  pythonModule: trainer.task\n")
    doc = loads(text.encode(), "job.yaml").document
    cloud = check_job(doc, CheckOptions(services.get("vertex"), submit=True)).findings
    local = check_job(doc, CheckOptions(services.get("vertex"), submit=True, local=True)).findings
    assert [(f.severity, f.rule) for f in cloud] == [
        ("error", "vertex-translate.runtime-version")]
    assert local == []


def test_a_misspelt_master_type_is_one_message(cli, write):
    text = container().replace("masterType:", "masterTyp:")
    result = validate(cli, write, text)
    assert result.code == 1
    assert result.out == (
        "config.yaml:4:3: trainingInput.masterTyp: unknown key 'masterTyp' "
        "[schema.unknown-key]\n  hint: did you mean 'masterType'?\n")


def test_two_misspellings_of_one_key_are_their_two_messages_and_no_more(cli, write):
    """Neither stands in for the key (which is it?): the translation's "needs masterType" or
    "needs packageUris and pythonModule" would only repeat the schema's did-you-means."""
    text = container().replace("  masterType: n1-standard-8\n",
                               "  masterTyp: n1-standard-8\n  mastrType: n1-standard-8\n")
    result = validate(cli, write, text)
    assert result.code == 1
    assert result.out == (
        "config.yaml:4:3: trainingInput.masterTyp: unknown key 'masterTyp' "
        "[schema.unknown-key]\n  hint: did you mean 'masterType'?\n"
        "config.yaml:5:3: trainingInput.mastrType: unknown key 'mastrType' "
        "[schema.unknown-key]\n  hint: did you mean 'masterType'?\n")
    package = write("trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n"
                    "  packageUris: [gs://b/t.tar.gz]\n"
                    "  pythonModul: trainer.task\n  pythnModule: trainer.task\n")
    sent = cli("submit", "--service", "vertex", "--dry-run", package)
    assert sent.code == 1
    assert "unknown key 'pythonModul'" in sent.err and "unknown key 'pythnModule'" in sent.err
    assert "vertex-translate.package" not in sent.err


AMBIGUOUS = container() + "  workerType: n1-standard-8\n  workerConf: 2\n"


def test_a_key_that_may_be_a_misspelt_count_is_one_message_as_for_ai_platform(cli, write):
    """workerConf may be workerConfig or workerCount: no "workerType is not sent: workerCount
    is not set" beside the did-you-mean (AI Platform's replica.unused stays quiet too)."""
    expected = ("config.yaml:9:3: trainingInput.workerConf: unknown key 'workerConf' "
                "[schema.unknown-key]\n  hint: did you mean 'workerConfig' or 'workerCount'?\n")
    for service in ("vertex", "ai-platform"):
        path = write(AMBIGUOUS)
        result = cli("validate", "--service", service, path)
        assert (result.code, result.out.replace(str(Path(path).parent) + "/", "")) == (
            1, expected), service


def test_a_type_a_scale_tier_overrides_is_dropped_whatever_the_misspelt_count(cli, write):
    text = AMBIGUOUS.replace("scaleTier: CUSTOM", "scaleTier: BASIC").replace(
        "  masterType: n1-standard-8\n", "")
    result = validate(cli, write, text)
    assert ("config.yaml:7:15: trainingInput.workerType: warning: workerType is not sent: "
            "scaleTier BASIC sets the machines [vertex-translate.dropped]\n") in result.out
    assert "unknown key 'workerConf'" in result.out


def test_a_package_job_is_checked_without_its_package_and_refused_without_one_at_submit(cli,
                                                                                      tmp_path):
    """As for ai-platform: validate takes a config whose package submit's --package-path will
    build; a dry-run (a job about to be sent) needs packageUris and pythonModule."""
    config = tmp_path / "nopkg.yaml"
    config.write_text("trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n")
    checked = cli("validate", "--service", "vertex", str(config))
    assert checked.code == 0, checked.err
    assert "vertex-translate.package" not in checked.out + checked.err
    sent = cli("submit", "--service", "vertex", "--dry-run", str(config))
    assert sent.code == 1
    assert (f"{config}:1:1: trainingInput.pythonModule: a job without a container image runs a "
            "Python package: it needs packageUris and pythonModule [vertex-translate.package]"
            ) in sent.err


# -- the tuning study: what Vertex AI's StudySpec refuses, found by validate as by convert ------

STUDY = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-4
  masterConfig: {imageUri: gcr.io/p/t:1}
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: Eval Accuracy
    algorithm: GRID_SEARCH
    params:
      - {parameterName: first-layer-size, type: INTEGER, minValue: 8, maxValue: 64}
      - {parameterName: learning rate, type: DOUBLE, minValue: 0.001, maxValue: 0.1}
      - {parameterName: first-layer-size, type: DISCRETE, discreteValues: [1, 2]}
"""


def test_a_study_vertex_refuses_is_refused_at_its_lines(cli, write):
    """metricId and parameterId hold no whitespace (a hyphen is fine), each parameter once,
    GRID_SEARCH over no DOUBLE: the discovery document's rules, found before any request."""
    result = validate(cli, write, STUDY)
    assert result.code == 1
    assert result.out == (
        "config.yaml:7:30: trainingInput.hyperparameters.hyperparameterMetricTag: metric "
        "'Eval Accuracy' becomes Vertex AI's metricId, which must not contain whitespace "
        "[vertex.study-id]\n  hint: report the metric under a name without spaces "
        "(cloudml-hypertune's hyperparameter_metric_tag) and set hyperparameterMetricTag to it\n"
        "config.yaml:11:25: trainingInput.hyperparameters.params[1].parameterName: parameterName "
        "'learning rate' becomes Vertex AI's parameterId, which must not contain whitespace "
        "[vertex.study-id]\n  hint: name the parameter as the trainer's flag, without spaces\n"
        "config.yaml:11:46: trainingInput.hyperparameters.params[1].type: GRID_SEARCH cannot "
        "search a DOUBLE parameter (learning rate): it searches INTEGER, CATEGORICAL and "
        "DISCRETE parameters only [vertex.study-grid]\n  hint: give the values to try as type "
        "DISCRETE with discreteValues, or remove algorithm: GRID_SEARCH\n"
        "config.yaml:12:25: trainingInput.hyperparameters.params[2].parameterName: parameterName "
        "'first-layer-size' is used twice: params[0] (line 10) has it too, and each parameter "
        "needs its own name [vertex.study-name]\n  hint: rename one of them, or remove the "
        "repeated parameter\n")
    ai_platform = cli("validate", "--service", "ai-platform", write(STUDY))
    assert "[study.grid-search]" in ai_platform.out and "[study.unique-name]" in ai_platform.out
    assert "whitespace" not in ai_platform.out  # AI Platform sets no such rule


def test_a_legacy_type_that_halves_the_gpus_is_a_warning_that_says_so(cli, write):
    """complex_model_l_gpu had 8 K80s; its translation has 4 T4s: a trainer written for 8
    GPUs gets 4, which a note would let pass unseen."""
    text = ("trainingInput:\n  scaleTier: CUSTOM\n  region: us-central1\n"
            "  masterType: complex_model_l_gpu\n  masterConfig:\n    imageUri: gcr.io/p/t:1\n"
            "  workerCount: 1\n  workerType: complex_model_m_gpu\n")
    result = validate(cli, write, text)
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0].startswith("config.yaml:4:15: trainingInput.masterType: warning: "
                               "complex_model_l_gpu became n1-standard-32 with 4 × "
                               "NVIDIA_TESLA_T4 instead of 8 × NVIDIA_TESLA_K80")
    assert lines[1].startswith("  hint: each master gets 4 GPUs, not 8: check what the trainer "
                               "assumes (its device count, batch size), or set masterType to a "
                               "Compute Engine machine type and masterConfig.acceleratorConfig "
                               "to the GPUs you want; unverified: ")
    # 4 K80s became 4 T4s: the same count, a note
    assert lines[2].startswith("config.yaml:8:15: trainingInput.workerType: note: "
                               "complex_model_m_gpu became n1-standard-16 with 4 × "
                               "NVIDIA_TESLA_T4 instead of 4 × NVIDIA_TESLA_K80")
    assert "1 warning" in result.err
