"""GKE's catalog: the shipped file holds to its schema and cross-references, every machine type
names GPUs the catalog defines, and a user's catalog (--catalog) is checked the same way."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from gpujob.catalog import files
from gpujob.resources import load_schema
from gpujob.services.gke import catalog


def shipped() -> dict:
    return json.loads(Path(files.data_file(catalog)).read_text(encoding="utf-8"))


def test_the_shipped_catalog_holds_to_its_schema_and_cross_references():
    data = shipped()
    schema = load_schema(catalog.SCHEMA)
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors(data)) == []
    assert catalog.integrity(data) == []
    for section in ("gpus", "machine_types", "scale_tiers"):
        assert data[section]["source"]["as_of"]


def test_every_gpu_has_the_node_label_gke_gives_it():
    cat = files.built_in(catalog)
    assert cat.gpus["NVIDIA_TESLA_T4"].label == "nvidia-tesla-t4"
    assert cat.gpus["NVIDIA_H100_80GB"].label == "nvidia-h100-80gb"
    assert cat.find_gpu("t4") == cat.find_gpu("nvidia-tesla-t4") == cat.gpus["NVIDIA_TESLA_T4"]
    assert "NVIDIA_TESLA_K80" not in cat.gpus  # Compute Engine ended its support


def test_a_users_catalog_is_checked(cli, write, tmp_path):
    data = shipped()
    data["machine_types"]["types"]["n1-standard-8"]["gpus"]["NVIDIA_TESLA_T4"] = [1, 2, 3, 4]
    ok = tmp_path / "mine.json"
    ok.write_text(json.dumps(data))
    config = write("trainingInput:\n  masterType: n1-standard-8\n  masterConfig:\n"
                   "    imageUri: img\n    acceleratorConfig: {count: 3, type: NVIDIA_TESLA_T4}\n")
    assert cli("validate", "--service", "gke", config).code == 1
    assert cli("validate", "--service", "gke", "--catalog", str(ok), config).code == 0
    data["machine_types"]["types"]["n1-standard-8"]["gpus"]["NVIDIA_NOPE"] = [1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = cli("validate", "--service", "gke", "--catalog", str(bad), config)
    assert result.code == 2
    assert "machine_types.types.n1-standard-8: unknown GPU type NVIDIA_NOPE" in result.err


def test_the_system_pods_margin_says_it_is_inferred_and_how_it_is_checked():
    """GKE's page on allocatable (GKE-ALLOC, plan-node-sizes) gives the reservation tiers and the
    eviction threshold but no figure for GKE's own pods: the margin left to them is gpujob's
    inference, and its source says so, and what reads the real figure."""
    reserve = shipped()["pod_settings"]["node_reserve"]
    assert "GKE-ALLOC" in reserve["source"] and "inferred" not in reserve["source"]
    system = reserve["system_pods"]["source"]
    assert system.startswith("inferred, not a published figure: GKE-ALLOC ")
    assert "gpujob preflight --service gke compares the requests with the nodes' real " \
        "allocatable" in system
