"""``gpujob schema``: the installed JSON Schemas, for editors, with stable ``$id``s."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[3]
NAMES = {"job": "job.schema.json", "ai-platform-catalog": "catalog.ai-platform.schema.json",
         "vertex-catalog": "vertex-catalog.schema.json",
         "vertex-prices": "vertex-prices.schema.json", "gke-catalog": "catalog.gke.schema.json",
         "vertex-custom-job-spec": "vertex-custom-job-spec.schema.json",
         "vertex-custom-job": "vertex-custom-job.schema.json",
         "vertex-tuning-job": "vertex-tuning-job.schema.json"}


@pytest.mark.parametrize("name, file", sorted(NAMES.items()))
def test_prints_the_schema_file_as_it_is(cli, name, file):
    result = cli("schema", name)
    assert result.code == 0, result.err
    assert result.out == (ROOT / "schemas" / file).read_text(encoding="utf-8")
    assert result.err == ""


def test_catalog_still_names_the_ai_platform_catalog_schema(cli):
    result = cli("schema", "catalog")
    assert result.code == 0, result.err
    assert result.out == (ROOT / "schemas" / "catalog.ai-platform.schema.json").read_text(
        encoding="utf-8")
    assert cli("schema", "catalog", "--path").out == cli(
        "schema", "ai-platform-catalog", "--path").out


def test_the_job_schema_is_the_default(cli):
    assert cli("schema").out == (ROOT / "schemas" / "job.schema.json").read_text(encoding="utf-8")


def test_every_schema_file_is_offered():
    assert sorted(p.name for p in (ROOT / "schemas").glob("*.schema.json")) == sorted(
        NAMES.values())


@pytest.mark.parametrize("name, file", sorted(NAMES.items()))
def test_each_schema_has_a_stable_urn_id(name, file):
    schema = json.loads((ROOT / "schemas" / file).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:gpujob:schema:{name}:1"
    # an absolute URI without a fragment, as JSON Schema 2020-12 asks of a root $id
    parts = urlsplit(schema["$id"])
    assert parts.scheme == "urn" and not parts.fragment


@pytest.mark.parametrize("name, file", sorted(NAMES.items()))
def test_path_and_uri_name_the_installed_file(cli, tmp_path, monkeypatch, name, file):
    monkeypatch.chdir(tmp_path)  # any directory: the path is absolute
    path = cli("schema", name, "--path")
    assert path.code == 0 and path.err == ""
    printed = Path(path.out.rstrip("\n"))
    assert path.out.count("\n") == 1 and printed.is_absolute()
    assert printed.read_bytes() == (ROOT / "schemas" / file).read_bytes()
    uri = cli("schema", name, "--uri")
    assert uri.out == printed.as_uri() + "\n"


def test_an_unknown_schema_is_a_usage_error(cli):
    result = cli("schema", "vertex")
    assert result.code == 2
    assert result.out == ""
    assert ("'vertex' is not one of 'job', 'ai-platform-catalog', 'vertex-catalog', "
            "'vertex-prices', 'gke-catalog', 'vertex-custom-job-spec', 'vertex-custom-job', "
            "'vertex-tuning-job', 'catalog'"
            in result.err)


def test_the_job_schema_with_its_id_still_checks_configs(cli):
    """The $id changes nothing for the checks: the examples still pass, a typo is still caught."""
    assert cli("validate", str(ROOT / "configs")).code == 0
