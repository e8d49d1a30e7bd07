"""Random configs through the loader and the whole engine: it never crashes, and every finding
points at a place in the file."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jobs import TRAINING_INPUT_KEYS

from gpujob import services
from gpujob.catalog import load
from gpujob.checks.engine import CheckOptions, FileResult, check_job
from gpujob.checks.report import render_github, render_json, render_text
from gpujob.checks.rules import RULES
from gpujob.config.load import loads
from gpujob.findings import finding_line

CAT = load("ai-platform")
for _name in services.SERVICES:  # every service's rules registered, whatever ran before
    services.get(_name).listed_rules()
KNOWN_RULES = set(RULES)
NAMES = sorted(CAT.machine_types) + sorted(CAT.gpu_types) + sorted(CAT.regions) + [
    "CUSTOM", "BASIC", "BASIC_GPU", "BASIC_TPU", "STANDARD_1", "2.11", "1.15", "3.7", "2.7",
    "gs://b/t.tar.gz", "gcr.io/p/i:1", "600s", "7200s", "trainer.task", ""]
KEYS = [*TRAINING_INPUT_KEYS, "bogusKey"]

scalars = st.one_of(st.sampled_from(NAMES), st.integers(-3, 20), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)),
    max_leaves=25)
training_input = st.dictionaries(st.sampled_from(KEYS), values, max_size=14)
documents = st.fixed_dictionaries(
    {"trainingInput": training_input},
    optional={"labels": st.dictionaries(st.text(max_size=6), scalars, max_size=3),
              "jobId": scalars, "state": scalars})
options = st.builds(CheckOptions, submit=st.booleans(), local=st.booleans(), catalog=st.none(),
                    region_check=st.booleans(),
                    service=st.sampled_from(sorted(services.SERVICES)).map(services.get))


@pytest.mark.slow  # 400 generated documents
@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(documents, options)
def test_the_engine_never_crashes_and_always_says_where(document, opts):
    text = yaml.safe_dump(document, default_flow_style=False, allow_unicode=True)
    loaded = loads(text.encode("utf-8"), "random.yaml")
    assert loaded.document is not None, loaded.findings
    findings = check_job(loaded.document, opts).findings
    for f in findings:
        assert f.severity in ("error", "warning", "note")  # notes: the vertex translation's
        assert f.rule in KNOWN_RULES or f.rule.startswith(("schema.", "load.")), f.rule
        assert f.message
        assert f.location is not None and f.location.source in ("random.yaml",)
        assert f.location.line is not None and f.location.line >= 1
    # every reporter renders every finding, whatever its text holds
    result = FileResult("random.yaml", findings)
    report = json.loads(render_json([result]))
    assert report["files"][0]["valid"] == (not result.errors)
    entry = report["files"][0]
    rendered = entry["errors"] + entry["warnings"] + entry.get("notes", [])
    assert sorted((d["line"], d["column"], d["rule"], d["message"]) for d in rendered) == sorted(
        (f.location.line, f.location.column, f.rule, f.message) for f in findings)
    text = render_text([result])
    assert [line for line in text.split("\n")[:-1] if not line.startswith("  hint: ")] == [
        finding_line(f).split("\n")[0] for f in findings]
    annotations = render_github([result]).splitlines()
    assert len(annotations) == len(findings)
    assert all(a.startswith(("::error file=random.yaml,", "::warning file=random.yaml,",
                             "::notice file=random.yaml,"))
               for a in annotations)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.binary(max_size=300))
def test_the_loader_never_crashes_on_bytes(raw):
    loaded = loads(raw, "blob")
    assert loaded.document is not None or loaded.findings
    for f in loaded.findings:
        assert f.location is not None
