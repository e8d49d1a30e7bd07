"""The quick check (``gpujob.checks.schema_accept``) answers as jsonschema does, or a problem in a
user's
config would go unreported: real configs, mutated at random, for every schema it compiles."""

from __future__ import annotations

import copy
import math
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpujob import services
from gpujob.catalog import load
from gpujob.checks import schema
from gpujob.checks.schema_accept import compile_schema
from gpujob.config.load import load_file
from gpujob.services.vertex.translate.job import translate
from gpujob.settings import JobOptions

ROOT = Path(__file__).resolve().parents[3]
IMAGE = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"


def _documents(paths: list[Path]) -> list[Any]:
    loaded = [load_file(str(p)) for p in paths]
    return [d.document for d in loaded if d.document is not None]


JOB_DOCS = _documents(sorted((ROOT / "configs").glob("*.yaml"))
                      + sorted((ROOT / "tests" / "cases").glob("*/*.y*ml")))
VERTEX = load("vertex")
BODIES = [translate(doc, VERTEX, date(2024, 1, 1), JobOptions(executor_image_uri=IMAGE)).body
          for doc in JOB_DOCS if "trainingInput" in doc.data]

# (schema file, choices, documents that start the mutations)
CASES = [
    (schema.SCHEMA_FILE, load("ai-platform").choices, [d.data for d in JOB_DOCS]),
    (schema.SCHEMA_FILE, VERTEX.choices, [d.data for d in JOB_DOCS]),
    ("vertex-custom-job.schema.json", (), [b for b in BODIES if "jobSpec" in b]),
    ("vertex-custom-job-spec.schema.json", (), [b["jobSpec"] for b in BODIES if "jobSpec" in b]),
    ("vertex-tuning-job.schema.json", (), [b for b in BODIES if "trialJobSpec" in b]),
]
IDS = ["job-ai-platform", "job-vertex", "custom-job", "custom-job-spec", "tuning-job"]


def _harvest(node: Any, keys: set[str], values: list[Any]) -> None:
    """The schema's own words and edges: its property names, enum and const values, and each
    bound with its neighbours, so that mutations land near what the schema decides on."""
    if isinstance(node, dict):
        keys.update(node.get("properties", {}))
        values.extend(node.get("enum", []))
        if "const" in node:
            values.append(node["const"])
        for bound in ("minimum", "maximum", "minLength", "minItems", "maxItems"):
            if isinstance(node.get(bound), int):
                values.extend([node[bound] - 1, node[bound], node[bound] + 1,
                               float(node[bound]), str(node[bound])])
        for sub in node.values():
            _harvest(sub, keys, values)
    elif isinstance(node, list):
        for sub in node:
            _harvest(sub, keys, values)


def _words(inlined: dict[str, Any]) -> tuple[list[str], list[Any]]:
    keys: set[str] = set()
    values: list[Any] = []
    _harvest(inlined, keys, values)
    values += [True, False, None, 0, 1, -1, 1.0, 2.5, math.nan, math.inf, 2**63, "9" * 25, "",
               "1", "1e2", "NVIDIA_TESLA_T4", "gs://b/o", [], {}]
    return sorted(keys), values


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*path, i))
    return found


@st.composite
def mutated(draw: st.DrawFn, docs: list[Any], keys: list[str], values: list[Any]) -> Any:
    """A real document with one to four changes: a value replaced, a key removed or added, a
    list item dropped or appended."""
    leaf = st.one_of(st.sampled_from(values), st.integers(), st.floats(), st.text(max_size=6),
                     st.booleans(), st.none())
    anything = st.recursive(leaf, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(keys), st.text(max_size=4)), inner,
                        max_size=3)), max_leaves=6)
    doc = copy.deepcopy(draw(st.sampled_from(docs)))
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(_paths(doc)))
        if not path:
            continue
        *head, last = path
        parent = doc
        for step in head:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if action == "replace":
            parent[last] = draw(anything)
        elif action == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.one_of(st.sampled_from(keys), st.text(max_size=4)))] = draw(anything)
        else:
            parent.append(draw(anything))
    return doc


@pytest.mark.slow  # 300 generated documents a schema
@pytest.mark.parametrize("name, choices, docs", CASES, ids=IDS)
def test_the_quick_check_answers_as_jsonschema_does(name, choices, docs):
    assert docs, f"no documents to start from for {name}"
    accepts = schema._accepts(name, choices)
    assert accepts is not None, f"{name} is not compiled: every config pays for jsonschema"
    validator = schema._validator(name, choices)
    keys, values = _words(schema._inlined(name, choices))
    for doc in docs:  # the documents as written: both say the same
        assert accepts(doc) == validator.is_valid(doc), doc

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(mutated(docs, keys, values))
    def agree(doc: Any) -> None:
        expected = validator.is_valid(doc)
        assert accepts(doc) == expected, (expected, list(validator.iter_errors(doc))[:3], doc)

    agree()


def _schemas_at(node: Any, path: tuple, defs: dict[str, Any]) -> list[dict[str, Any]]:
    """Every subschema that can apply at ``path`` (through properties, items, the combinators
    and references)."""
    if not isinstance(node, dict):
        return []
    here = [node]
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key, []):
            here += _schemas_at(sub, (), defs)
    for key in ("if", "then", "else"):
        here += _schemas_at(node.get(key), (), defs)
    ref = node.get("$ref", "")
    if ref.startswith("#/$defs/") and len(path) < 12:
        here += _schemas_at(defs.get(ref[len("#/$defs/"):]), (), defs)
    if not path:
        return here
    step, rest = path[0], path[1:]
    found = []
    for node_here in here:
        if isinstance(step, int):
            found += _schemas_at(node_here.get("items"), rest, defs)
        else:
            found += _schemas_at(node_here.get("properties", {}).get(
                step, node_here.get("additionalProperties")), rest, defs)
    return found


def _edges(schemas: list[dict[str, Any]]) -> list[Any]:
    """The values just inside and just outside each schema's limits."""
    edges: list[Any] = [None, True, "", [], {}]
    for s in schemas:
        edges += s.get("enum", [])[:2] + ([s["const"]] if "const" in s else [])
        for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(s.get(bound), (int, float)):
                b = s[bound]
                edges += [b - 1, b, b + 1, float(b), str(b)]
        for bound, make in (("minLength", "x"), ("maxLength", "x"), ("minItems", [1]),
                            ("maxItems", [1])):
            if isinstance(s.get(bound), int):
                edges += [make * max(s[bound] - 1, 0), make * (s[bound] + 1)]
        if s.get("format") == "int64":
            edges += [str(2**63 - 1), str(2**63), "٣"]
    return edges


@pytest.mark.parametrize("name, choices, docs", CASES, ids=IDS)
def test_every_value_at_each_limit_gets_jsonschemas_answer(name, choices, docs):
    """Each value of each document, replaced by the values at the edges of what its schema
    allows there: what random mutations rarely hit."""
    accepts, validator = schema._accepts(name, choices), schema._validator(name, choices)
    inlined = schema._inlined(name, choices)
    tried = 0
    for doc in docs:
        for path in _paths(doc)[1:]:
            for edge in _edges(_schemas_at(inlined, path, inlined["$defs"])):
                changed = copy.deepcopy(doc)
                parent = changed
                for step in path[:-1]:
                    parent = parent[step]
                parent[path[-1]] = edge
                assert accepts(changed) == validator.is_valid(changed), (path, edge)
                tried += 1
    assert tried > 1000, tried


@pytest.mark.parametrize("value, valid", [
    (2, True), (2.0, False), (True, False), ("2", True), ("9" * 20, False), ("٣", False),
])
def test_gpujob_number_rule_holds_on_the_quick_path(write, value, valid):
    """``workerCount: 2.0`` and a count beyond int64 are refused whichever check sees them."""
    from gpujob.checks.engine import CheckOptions, check_file

    path = write("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n"
                 "  workerType: n1-standard-8\n  region: us-central1\n"
                 f"  workerCount: {value!r}\n".replace("'", '"'))
    errors = [f for f in check_file(path, CheckOptions(service=services.get("ai-platform"))).errors
              if f.path == ("trainingInput", "workerCount")]
    assert (not errors) == valid, errors


@pytest.mark.parametrize("keyword", [
    {"uniqueItems": True}, {"patternProperties": {"a": {}}}, {"prefixItems": [{}]},
    {"$ref": "https://example.com/x"}, {"dependentRequired": {"a": ["b"]}},
    {"properties": {"a": {"$dynamicRef": "#x"}}},
])
def test_a_keyword_it_does_not_know_leaves_the_schema_to_jsonschema(keyword):
    assert compile_schema({"type": "object", **keyword}) is None


@pytest.mark.parametrize("service", ["ai-platform", "vertex"])
def test_a_valid_config_is_checked_without_importing_jsonschema(write, service):
    """What keeps ``validate``'s start-up quick in CI, where most configs are valid; a config
    with a schema error still gets jsonschema's explanation."""
    valid = write("trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n"
                  "  masterConfig: {imageUri: gcr.io/p/trainer:1}\n")
    typo = write("trainingInput:\n  scaleTier: BASIC\n  masterTyp: n1-highcpu-16\n", "typo.yaml")
    assert _validate_in_a_new_python(valid, service)[:2] == (0, False)
    code, imported, out = _validate_in_a_new_python(typo, service)
    assert (code, imported) == (1, True)
    assert "unknown key 'masterTyp'" in out


def _validate_in_a_new_python(path: str, service: str) -> tuple[int, bool, str]:
    """validate's exit code, whether it imported jsonschema, and its report; it must import
    no Google client library either (valid or not, whatever the service)."""
    probe = ("import sys; from gpujob.cli import main; code = main(['validate', '--service', "
             f"{service!r}, {path!r}]); print(code, 'jsonschema' in sys.modules, ','.join("
             "m for m in sys.modules if m.startswith(('google', 'httplib2'))) or '-', "
             "file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    code, imported, google = result.stderr.split()[-3:]
    assert google == "-", f"validate --service {service} imported {google}"
    return int(code), imported == "True", result.stdout
