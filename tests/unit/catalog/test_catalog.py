"""The catalog: valid data, sourced and dated, explained by the vCPU/memory rule, replaceable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jobs import ZONE_MIX
from jsonschema import Draft202012Validator

from gpujob import catalog
from gpujob.resources import load_schema, schema_path

SERVICE = catalog.services.service("ai-platform")
DATA = json.loads(catalog.data_file("ai-platform").read_text(encoding="utf-8"))
CAT = catalog.load("ai-platform")


def test_the_shipped_catalog_holds_to_its_schema():
    schema = load_schema(SERVICE.SCHEMA)
    Draft202012Validator.check_schema(schema)
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(DATA)]
    assert errors == []
    assert SERVICE.integrity(DATA) == []
    assert DATA["service"] == CAT.service == "ai-platform"


def test_every_section_names_its_sources_and_date():
    sections = [k for k, v in DATA.items() if isinstance(v, dict)]
    assert sorted(sections) == sorted(["gpu_types", "machine_types", "legacy_machine_types",
                                       "scale_tiers", "regions", "runtime_versions",
                                       "scheduling", "suggestions"])
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



@pytest.fixture
def newer_catalog(user_catalog) -> Path:
    """The built-in catalog plus 2022's change: T4 in us-central1-c (with the K80 and P100)."""
    def edit(data: dict) -> None:
        data["regions"]["regions"]["us-central1"]["zones"]["us-central1-c"].append(
            "NVIDIA_TESLA_T4")
        data["regions"]["source"]["as_of"] = "2022-06-01"

    return user_catalog(edit, "catalog-2022.json")


def test_a_newer_catalog_changes_the_verdict(cli, newer_catalog):
    assert cli("validate", ZONE_MIX).code == 1
    result = cli("validate", "--catalog", newer_catalog, ZONE_MIX)
    assert result.code == 0, result.out
    assert cli("validate", ZONE_MIX, env={"GPUJOB_CATALOG": str(newer_catalog)}).code == 0


def test_the_exported_catalog_is_the_one_in_use_and_round_trips(cli, tmp_path, newer_catalog):
    exported = cli("gpus", "--export-catalog").out
    assert json.loads(exported) == DATA
    again = tmp_path / "again.json"
    again.write_text(exported, encoding="utf-8")
    assert cli("validate", "--catalog", again, ZONE_MIX).code == 1
    assert json.loads(cli("gpus", "--export-catalog", "--catalog", newer_catalog).out)[
        "regions"]["source"]["as_of"] == "2022-06-01"


def test_a_catalog_may_be_yaml(cli, tmp_path, newer_catalog):
    import yaml

    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(json.loads(newer_catalog.read_text())), encoding="utf-8")
    assert cli("validate", "--catalog", path, ZONE_MIX).code == 0


@pytest.mark.parametrize("command", [("gpus",), ("validate", "--format", "json", ZONE_MIX)])
def test_a_date_the_calendar_has_not_is_a_usage_error(cli, user_catalog, command):
    # the schema's pattern takes 2026-02-30; the catalog's age is counted from it
    def edit(data: dict) -> None:
        data["regions"]["source"]["as_of"] = "2026-02-30"

    path = user_catalog(edit, "bad.json")
    result = cli(*command, "--catalog", path)
    assert result.code == 2
    assert result.err.splitlines() == [
        f"error: --catalog {path}: regions.source.as_of: '2026-02-30' is not a date",
        "  hint: write each as_of as a day of the calendar, YYYY-MM-DD"]


def test_a_broken_catalog_is_a_usage_error_with_positions(cli, user_catalog):
    def edit(data: dict) -> None:
        data["gpu_types"]["types"]["NVIDIA_TESLA_T4"]["count"] = [1]
        del data["regions"]["source"]

    path = user_catalog(edit, "bad.json", indent=1)
    result = cli("validate", "--catalog", path, ZONE_MIX)
    assert result.code == 2
    assert result.out == ""
    assert f"error: --catalog {path} is not a valid catalog:" in result.err
    assert "gpu_types.types.NVIDIA_TESLA_T4.count: unknown key 'count'" in result.err
    assert "regions: missing required key 'source'" in result.err
    assert f"{path}:" in result.err  # positioned
    # the hint names the flag that exists and the schema where this installation has it (and
    # the service: Vertex AI's catalog is the default one)
    schema_file = schema_path("catalog.ai-platform.schema.json")
    assert schema_file.is_file()
    assert (f"hint: start from gpujob's own (`gpujob gpus --service ai-platform "
            f"--export-catalog` prints it) and keep its shape: {schema_file}") in result.err


def test_a_catalog_naming_an_undefined_gpu_is_refused(cli, user_catalog):
    path = user_catalog(lambda data: data["regions"]["regions"]["us-west1"]["zones"][
        "us-west1-a"].append("NVIDIA_L4"), "l4.json")
    result = cli("validate", "--catalog", path, ZONE_MIX)
    assert result.code == 2
    assert "regions.regions.us-west1.zones.us-west1-a: unknown GPU type NVIDIA_L4" in result.err


def test_a_catalog_of_another_service_is_refused(cli, user_catalog):
    path = user_catalog(lambda data: data.update(service="vertex"), "vertex.json")
    result = cli("validate", "--catalog", path, ZONE_MIX)
    assert result.code == 2
    assert (f"error: --catalog {path} is the catalog of service 'vertex', not of 'ai-platform'"
            in result.err)


def test_a_missing_catalog_file_is_a_usage_error(cli, tmp_path):
    result = cli("validate", "--catalog", tmp_path / "none.json", ZONE_MIX)
    assert result.code == 2
    assert result.err.startswith(f"error: --catalog: no such file: {tmp_path / 'none.json'}\n")


# -- a catalog owns the names a config may use ---------------------------------------------------

def add_l4(data: dict) -> None:
    """An NVIDIA L4 on g2-standard-8, built in as A100s are on a2, offered in us-central1-a."""
    data["gpu_types"]["types"]["NVIDIA_L4"] = {"name": "L4", "counts": [1, 2, 4, 8],
                                               "built_in_only": True}
    data["machine_types"]["types"]["g2-standard-8"] = {
        "family": "g2", "vcpus": 8, "memory_gb": 32, "gpus": {"NVIDIA_L4": [1]},
        "built_in": {"type": "NVIDIA_L4", "count": 1}}
    data["regions"]["regions"]["us-central1"]["zones"]["us-central1-a"].append("NVIDIA_L4")


L4_JOB = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  runtimeVersion: '2.11'
  masterType: g2-standard-8
  masterConfig:
    acceleratorConfig: {count: COUNT, type: NVIDIA_L4}
"""


def test_a_new_gpu_type_in_a_users_catalog_is_listed_and_accepted(cli, user_catalog, write):
    catalog_file = user_catalog(add_l4, "l4.json")
    listed = cli("gpus", "--catalog", catalog_file, "--gpu", "l4", "--format", "json")
    assert listed.code == 0, listed.err
    (offer,) = json.loads(listed.out)["offerings"]
    assert (offer["gpu"], offer["counts"], offer["machine_types"], offer["built_in"],
            offer["zones"]) == ("NVIDIA_L4", [1], ["g2-standard-8"], True, ["us-central1-a"])

    config = write(L4_JOB.replace("COUNT", "1"))
    validated = cli("validate", "--catalog", catalog_file, config)
    assert (validated.code, validated.out) == (0, ""), validated.out
    # the built-in catalog knows neither the GPU nor the machine
    without = cli("validate", config)
    assert without.code == 1
    assert ("7:41: trainingInput.masterConfig.acceleratorConfig.type: 'NVIDIA_L4' is not a "
            "valid type [schema.enum]") in without.out
    assert "'g2-standard-8' is not a machine type AI Platform Training offers" in without.out


def test_gpus_built_into_a_machine_are_known_from_the_data_not_its_name(cli, user_catalog,
                                                                         write):
    """g2-standard-8's L4 is built in as a2's A100s are: the count is the machine's."""
    catalog_file = user_catalog(add_l4, "l4.json")
    result = cli("validate", "--catalog", catalog_file, write(L4_JOB.replace("COUNT", "2")))
    assert result.code == 1
    assert ("7:32: trainingInput.masterConfig.acceleratorConfig.count: g2-standard-8 has exactly "
            "1 × L4, not 2 [gpu.count]\n  hint: set count: 1\n") in result.out
