"""The catalog: valid data, sourced and dated, explained by the vCPU/memory rule, replaceable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gpujob import catalog
from gpujob.resources import load_schema

DATA = json.loads(catalog.BUILT_IN.read_text(encoding="utf-8"))
CAT = catalog.load()


def test_the_shipped_catalog_holds_to_its_schema():
    schema = load_schema("catalog.schema.json")
    Draft202012Validator.check_schema(schema)
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(DATA)]
    assert errors == []
    assert catalog.integrity(DATA) == []


def test_every_section_names_its_sources_and_date():
    sections = [k for k, v in DATA.items() if isinstance(v, dict)]
    assert sorted(sections) == sorted(["gpu_types", "machine_types", "legacy_machine_types",
                                       "scale_tiers", "regions", "runtime_versions"])
    for name in sections:
        source = DATA[name]["source"]
        assert source["as_of"][:4].isdigit() and source["urls"], name


def test_the_accepted_machine_types_are_exactly_the_tables_22():
    names = {m.name for m in CAT.compute_engine_types()}
    assert len(names) == 22
    assert not names & {"n1-standard-1", "n1-standard-2", "n1-highcpu-2", "n1-highcpu-4",
                        "n1-highcpu-8"}


def test_training_regions_are_the_16_with_gpus_and_6_without():
    assert len(CAT.gpu_regions()) == 16
    assert sorted(set(CAT.regions) - set(CAT.gpu_regions())) == [
        "asia-east2", "asia-northeast2", "europe-north1", "europe-west3", "europe-west6",
        "us-west3"]


def derived_counts(machine: catalog.MachineType, gpu: catalog.GpuType) -> tuple[int, ...]:
    """The counts the vCPU/memory rule allows: each GPU supplies at most so many vCPUs and GB,
    within the GPU's allowed counts and caps."""
    allowed = []
    for count in gpu.counts:
        vcpus, memory = gpu.limits(count)
        if machine.vcpus <= vcpus and machine.memory_gb <= memory:
            allowed.append(count)
    return tuple(allowed)


@pytest.mark.parametrize("machine", [m for m in CAT.compute_engine_types() if m.family == "n1"],
                         ids=lambda m: m.name)
def test_every_n1_cell_follows_from_the_vcpu_and_memory_rule(machine):
    """The table and its explanation cannot drift apart: derive each cell, compare."""
    for gpu in CAT.gpu_types.values():
        if gpu.vcpus_per_gpu is None:
            assert gpu.api_name not in machine.gpus
            continue
        assert derived_counts(machine, gpu) == machine.gpus.get(gpu.api_name, ()), gpu.name


def test_n1_memory_follows_the_size_per_vcpu():
    per_vcpu = {"standard": 3.75, "highmem": 6.5, "highcpu": 0.9}
    for m in CAT.compute_engine_types():
        if m.family == "n1":
            assert m.memory_gb == pytest.approx(m.vcpus * per_vcpu[m.name.split("-")[1]])


def test_a2_types_take_exactly_their_built_in_a100s():
    for m in CAT.compute_engine_types():
        if m.family == "a2":
            kind, count = m.built_in
            assert kind == "NVIDIA_TESLA_A100"
            assert m.gpus == {kind: (count,)}


def test_explanations_read_as_the_seed_explains_them():
    assert CAT.explain("n1-standard-32", "NVIDIA_TESLA_V100", 2) == (
        "n1-standard-32 has 32 vCPUs and 120 GB; 2 × V100 support at most 24 vCPUs and 156 GB")
    assert CAT.explain("n1-standard-32", "NVIDIA_TESLA_V100", 4) is None
    assert "208 GB" in CAT.explain("n1-standard-64", "NVIDIA_TESLA_P100", 4)


@pytest.mark.parametrize("name", ["t4", "T4", "nvidia-tesla-t4", "NVIDIA_TESLA_T4",
                                  "Nvidia_Tesla_T4"])
def test_gpu_names_in_every_spelling(name):
    assert CAT.find_gpu(name).api_name == "NVIDIA_TESLA_T4"


# -- a user's own catalog ------------------------------------------------------------------------

SEED_ZONE_EXAMPLE = Path(__file__).parent / "cases" / "invalid" / "rule-zone-gpu-mix.yaml"


@pytest.fixture
def newer_catalog(tmp_path: Path) -> Path:
    """The built-in catalog plus 2022's change: T4 in us-central1-c (with the K80 and P100)."""
    data = json.loads(json.dumps(DATA))
    data["regions"]["regions"]["us-central1"]["zones"]["us-central1-c"].append("NVIDIA_TESLA_T4")
    data["regions"]["source"]["as_of"] = "2022-06-01"
    path = tmp_path / "catalog-2022.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_newer_catalog_changes_the_verdict(cli, newer_catalog):
    assert cli("validate", SEED_ZONE_EXAMPLE).code == 1
    result = cli("validate", "--catalog", newer_catalog, SEED_ZONE_EXAMPLE)
    assert result.code == 0, result.out
    assert cli("validate", SEED_ZONE_EXAMPLE, env={"GPUJOB_CATALOG": str(newer_catalog)}).code == 0


def test_the_exported_catalog_is_the_one_in_use_and_round_trips(cli, tmp_path, newer_catalog):
    exported = cli("gpus", "--export-catalog").out
    assert json.loads(exported) == DATA
    again = tmp_path / "again.json"
    again.write_text(exported, encoding="utf-8")
    assert cli("validate", "--catalog", again, SEED_ZONE_EXAMPLE).code == 1
    assert json.loads(cli("gpus", "--export-catalog", "--catalog", newer_catalog).out)[
        "regions"]["source"]["as_of"] == "2022-06-01"


def test_a_catalog_may_be_yaml(cli, tmp_path, newer_catalog):
    import yaml

    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(json.loads(newer_catalog.read_text())), encoding="utf-8")
    assert cli("validate", "--catalog", path, SEED_ZONE_EXAMPLE).code == 0


def test_a_broken_catalog_is_a_usage_error_with_positions(cli, tmp_path):
    data = json.loads(json.dumps(DATA))
    data["gpu_types"]["types"]["NVIDIA_TESLA_T4"]["count"] = [1]
    del data["regions"]["source"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    result = cli("validate", "--catalog", path, SEED_ZONE_EXAMPLE)
    assert result.code == 2
    assert result.out == ""
    assert f"error: --catalog {path} is not a valid catalog:" in result.err
    assert "gpu_types.types.NVIDIA_TESLA_T4.count: unknown key 'count'" in result.err
    assert "regions: missing required key 'source'" in result.err
    assert f"{path}:" in result.err  # positioned


def test_a_catalog_naming_an_undefined_gpu_is_refused(cli, tmp_path):
    data = json.loads(json.dumps(DATA))
    data["regions"]["regions"]["us-west1"]["zones"]["us-west1-a"].append("NVIDIA_L4")
    path = tmp_path / "l4.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = cli("validate", "--catalog", path, SEED_ZONE_EXAMPLE)
    assert result.code == 2
    assert "regions.regions.us-west1.zones.us-west1-a: unknown GPU type NVIDIA_L4" in result.err


def test_a_missing_catalog_file_is_a_usage_error(cli, tmp_path):
    result = cli("validate", "--catalog", tmp_path / "none.json", SEED_ZONE_EXAMPLE)
    assert result.code == 2
    assert result.err.startswith(f"error: no such file: {tmp_path / 'none.json'}\n")
