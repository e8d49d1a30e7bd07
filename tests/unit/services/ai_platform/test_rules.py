"""The rules as a whole: every rule has a case, one engine for validate and submit, warnings
never block, region checks can be downgraded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jobs import ZONE_MIX

from gpujob import services
from gpujob.checks.engine import CheckOptions, check_job
from gpujob.config.load import load_file

# AI Platform's rules (Vertex AI's are tests/unit/services/vertex/rules/test_vertex_rules.py's)
RULES = {r.id: r for r in services.get("ai-platform").listed_rules()}
ROOT = Path(__file__).resolve().parents[4]
CASES = ROOT / "tests" / "cases"

# rules only a submission checks: their cases are the dry-run tests below
SUBMIT_RULES = {"submit.region", "submit.packages", "submit.module", "submit.job-dir"}


def rule_ids_in_cases() -> set[str]:
    found = set()
    for path in CASES.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            found |= set(re.findall(r"^# expect: .*\[([a-z0-9.-]+)\]$", text, re.MULTILINE))
    return found


def test_every_rule_has_a_case_with_its_expected_message():
    ids = set(RULES)
    assert len(ids) > 30
    assert {r.id for r in RULES.values() if r.submit} == SUBMIT_RULES
    assert ids - SUBMIT_RULES - rule_ids_in_cases() == set()


def test_every_rule_says_what_it_checks_and_where_it_applies():
    for rule in RULES.values():
        assert re.fullmatch(r"[a-z]+\.[a-z0-9-]+", rule.id), rule.id
        assert rule.doc.endswith(".") and "\n" not in rule.doc and len(rule.doc) < 120, rule.id
        assert rule.services == ("ai-platform",), rule.id
        assert rule.severity in ("error", "warning"), rule.id
    assert {r.id for r in RULES.values() if r.region} == {
        "region.unknown", "region.no-gpus", "region.gpu", "zone.gpu-mix"}


def test_the_cases_report_each_rule_at_its_severity():
    """A warning rule never fails a file; an error rule does (unless region checks are off)."""
    seen = {}
    for path in CASES.rglob("*.yaml"):
        text = path.read_bytes().decode("utf-8", "replace")
        for warned, rule_id in re.findall(r"^# expect: \S+ [^ ]+: (warning: )?.*\[([a-z0-9.-]+)\]$",
                                          text, re.MULTILINE):
            if rule_id in RULES:
                seen[rule_id] = "warning" if warned else "error"
                assert RULES[rule_id].severity == seen[rule_id], (path.name, rule_id)
    assert len(seen) > 25 and "warning" in seen.values()


BASE = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  runtimeVersion: '2.11'
  masterType: n1-standard-8
  packageUris: [gs://b/t.tar.gz]
  pythonModule: trainer.task
"""


@pytest.mark.parametrize("edit, rule, message, hint", [
    (lambda t: t.replace("  region: us-central1\n", ""), "submit.region",
     "trainingInput: no region for the job", "pass --region"),
    (lambda t: t.replace("  packageUris: [gs://b/t.tar.gz]\n", ""), "submit.packages",
     "trainingInput: no trainer package to run", "pass --package-path DIR (or --packages)"),
    (lambda t: t.replace("  pythonModule: trainer.task\n", ""), "submit.module",
     "trainingInput: no Python module to run", "pass --module-name"),
    (lambda t: t + "  jobDir: /tmp/out\n", "submit.job-dir",
     "trainingInput.jobDir: jobDir '/tmp/out' is not a Cloud Storage path",
     "a cloud job writes to gs://BUCKET/PATH"),
])
def test_what_a_submission_needs(cli, write, edit, rule, message, hint):
    path = write(edit(BASE))
    assert cli("validate", path).code == 0  # a file may leave these to the command line
    result = cli("submit", path, "--dry-run")
    assert result.code == 1
    assert result.out == ""
    assert f"{message} [{rule}]" in result.err
    assert f"hint: {hint}" in result.err


def test_flags_can_supply_what_a_submission_needs(cli, write):
    bare = BASE.replace("  region: us-central1\n", "").replace(
        "  packageUris: [gs://b/t.tar.gz]\n", "").replace("  pythonModule: trainer.task\n", "")
    result = cli("submit", write(bare), "--dry-run", "--region", "us-central1",
                 "--packages", "gs://b/t.tar.gz", "--module-name", "trainer.task")
    assert result.code == 0, result.err


def test_a_custom_container_needs_no_package(cli, write):
    config = ("trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n"
              "  masterConfig: {imageUri: gcr.io/p/t:1}\n")
    assert cli("submit", write(config), "--dry-run").code == 0


def test_validate_and_submit_run_the_same_engine(cli):
    validated = cli("validate", ZONE_MIX)
    submitted = cli("submit", ZONE_MIX, "--dry-run", "--packages", "gs://b/t.tar.gz",
                    "--module-name", "trainer.task")
    assert validated.code == submitted.code == 1
    findings = [line for line in validated.out.splitlines()]
    assert findings and all(line in submitted.err.splitlines() for line in findings)
    assert submitted.out == ""


def test_warnings_never_block(cli):
    legacy = CASES / "valid" / "rule-warnings-legacy-k80-unused.yaml"
    result = cli("submit", legacy, "--dry-run", "--packages", "gs://b/t.tar.gz",
                 "--module-name", "trainer.task")
    assert result.code == 0
    assert "warning: complex_model_m_gpu is a legacy machine type" in result.err
    assert '"masterType": "complex_model_m_gpu"' in result.out


def test_no_region_check_turns_region_and_zone_errors_into_warnings(cli):
    result = cli("validate", "--no-region-check", ZONE_MIX)
    assert result.code == 0
    assert ("trainingInput.region: warning: no zone of us-central1 offers K80, P100 and T4 "
            "together") in result.out
    assert "(a warning: region checks are off)" in result.out


def test_no_region_check_leaves_other_errors_alone(cli, write):
    path = write(BASE.replace("n1-standard-8", "n1-standard-8\n  masterConfig:\n"
                              "    acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}")
                 .replace("us-central1", "europe-west3"))
    result = cli("validate", "--no-region-check", path)
    assert result.code == 1
    assert "[gpu.count]" in result.out
    assert "warning: europe-west3 offers no GPUs" in result.out


def test_local_runs_downgrade_region_checks_and_need_no_submission_fields():
    doc = load_file(str(ZONE_MIX)).document
    options = CheckOptions(services.get("ai-platform"), submit=True, local=True)
    findings = check_job(doc, options).findings
    assert [f.rule for f in findings if f.is_error] == []
    assert "zone.gpu-mix" in [f.rule for f in findings]
    cloud = check_job(doc, CheckOptions(services.get("ai-platform"), submit=True)).findings
    assert {"zone.gpu-mix", "submit.packages", "submit.module"} <= {
        f.rule for f in cloud if f.is_error}


def test_a_schema_mistake_is_reported_once():
    """The rules stay quiet about a value the schema refused."""
    doc = load_file(str(CASES / "invalid" / "wrong-enum-values.yaml")).document
    checked = check_job(doc, CheckOptions(service=services.get("ai-platform")))
    rules = {f.rule for f in checked.findings}
    assert rules == {"schema.enum"}


def test_gpujob_rules_lists_the_registry(cli):
    result = cli("rules")
    assert result.code == 0 and result.err == ""
    lines = result.out.splitlines()
    assert lines[0].split() == ["ID", "SEVERITY", "SERVICES", "NOTE", "CHECKS"]
    rows = {line.split()[0]: line.split() for line in lines[1:len(RULES) + 1]}
    assert list(rows) == list(RULES)
    assert rows["gpu.count"][1:3] == ["error", "ai-platform"]
    assert rows["gpu.deprecated"][1] == "warning"
    assert rows["zone.gpu-mix"][3] == "region" and rows["submit.region"][3] == "submit"
    assert ("region: a warning with --no-region-check and for local runs" in lines)


def test_gpujob_rules_as_json_has_a_versioned_shape(cli):
    result = cli("rules", "--format", "json")
    assert result.code == 0
    report = json.loads(result.out)
    assert report["version"] == 1
    assert [r["id"] for r in report["rules"]] == list(RULES)
    assert report["rules"][0] == {
        "id": "tier.cluster-fields", "severity": "error", "services": ["ai-platform"],
        "region": False, "submit": False,
        "doc": "Machine types, counts and accelerators are set only with the custom scale tier."}
    assert {r["id"] for r in report["rules"] if r["region"]} == {
        "region.unknown", "region.no-gpus", "region.gpu", "zone.gpu-mix"}
