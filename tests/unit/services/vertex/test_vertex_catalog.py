"""The Vertex catalog: valid data, every section sourced and dated, and its facts as the
sources state them (Google's pages, the discovery document, SkyPilot's GCP catalog), written out
here apart from the data."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from googleapiclient.discovery_cache import get_static_doc
from jsonschema import Draft202012Validator

from gpujob.catalog import data_file, load
from gpujob.errors import UsageError
from gpujob.resources import load_schema
from gpujob.services.vertex import catalog as vertex_data
from gpujob.services.vertex import records

DATA = json.loads(data_file("vertex").read_text(encoding="utf-8"))
CAT = load("vertex")


def test_the_shipped_catalog_holds_to_its_schema_and_cross_references():
    schema = load_schema(vertex_data.SCHEMA)
    Draft202012Validator.check_schema(schema)
    assert [e.message for e in Draft202012Validator(schema).iter_errors(DATA)] == []
    assert vertex_data.integrity(DATA) == []


def test_every_section_names_its_sources_and_date():
    sections = [k for k, v in DATA.items() if isinstance(v, dict) and "source" in v]
    assert len(sections) == 12  # scheduling; quota: the preflight's metrics; recovery
    for name in sections:
        source = DATA[name]["source"]
        date.fromisoformat(source["as_of"])
        assert source["refs"] and set(source["refs"]) <= set(DATA["source_key"]), name
        assert source["notes"], name


def test_every_cause_of_recovery_cites_known_sources_and_its_patterns_compile():
    import re

    recovery = DATA["recovery"]
    causes = {c["cause"] for c in recovery["causes"]}
    assert {"stockout", "capacity", "internal", "maintenance"} <= causes
    for cause in recovery["causes"]:
        assert cause["refs"] and set(cause["refs"]) <= set(DATA["source_key"]), cause["cause"]
        for pattern in cause["patterns"]:
            re.compile(pattern)
    assert set(recovery["exit_code"]["refs"]) <= set(DATA["source_key"])
    found = re.search(recovery["exit_code"]["pattern"], "The replica workerpool0-0 exited with "
                      "a non-zero status of 143. Termination reason: Error.")
    assert found is not None and found.group(1) == "143"


def test_a_broken_cross_reference_is_found():
    broken = json.loads(json.dumps(DATA))
    broken["legacy_machine_types"]["types"]["standard_gpu"]["accelerator"]["count"] = 3
    broken["machine_types"]["types"]["g2-standard-4"]["accelerators"] = {"NVIDIA_L5": [1]}
    assert vertex_data.integrity(broken) == [
        "machine_types.types.g2-standard-4: unknown accelerator type NVIDIA_L5",
        "legacy_machine_types.types.standard_gpu: n1-standard-8 takes 1, 2 or 4 × "
        "NVIDIA_TESLA_T4, not 3"]


def test_accelerator_names_are_the_api_enum():
    """The bundled aiplatform v1 discovery document is the source of the names: the catalog's
    are its enum, in its order, for the revision the catalog was taken from; any other release
    installed (the newest, or pyproject's floor) knows every one of them."""
    doc = json.loads(get_static_doc("aiplatform", "v1"))
    enum = doc["schemas"]["GoogleCloudAiplatformV1MachineSpec"]["properties"][
        "acceleratorType"]["enum"]
    assert DATA["accelerator_types"]["source"]["as_of"] == "2026-11-06"
    if doc["revision"] == "20261106":
        assert list(CAT.accelerators) == [e for e in enum if e != "ACCELERATOR_TYPE_UNSPECIFIED"]
    else:
        assert sorted(set(CAT.accelerators) - set(enum)) == []


def test_end_of_support():
    assert CAT.accelerators["NVIDIA_TESLA_P100"].end_of_support == date(2026, 9, 15)
    assert CAT.accelerators["NVIDIA_TESLA_K80"].retired
    assert CAT.machines_for("NVIDIA_TESLA_K80") == []


def test_machine_families():
    families = {}
    for m in CAT.machine_types.values():
        families.setdefault(m.family, []).append(m.name)
    assert sorted(families["a3-high"]) == [f"a3-highgpu-{n}g" for n in (1, 2, 4, 8)]
    assert families["a3-mega"] == ["a3-megagpu-8g"] and families["a3-ultra"] == [
        "a3-ultragpu-8g"]
    assert families["a4"] == ["a4-highgpu-8g"] and families["a4x"] == ["a4x-highgpu-4g"]
    assert len(families["e2"]) == 10 and len(families["n4"]) == 24
    assert len(families["c2"]) == 5 and len(families["m1"]) == 4
    assert sorted(families["tpu"]) == sorted(
        ["cloud-tpu", "ct5lp-hightpu-1t", "ct5lp-hightpu-4t", "ct5lp-hightpu-8t",
         "ct6e-standard-1t", "ct6e-standard-4t", "ct6e-standard-8t", "tpu7x-standard-4t"])
    assert not {"n1-standard-1", "n1-standard-2", "n1-highcpu-8", "e2-medium"} & set(
        CAT.machine_types)


def test_training_regions_are_gclouds_39():
    assert len(CAT.training_regions) == 39
    assert {"us-central1", "europe-west4", "africa-south1", "me-central2"} <= set(
        CAT.training_regions)
    assert "us-central2" in CAT.endpoint_only_regions
    assert not CAT.is_training_region("us-central2")


# SkyPilot's GCP catalog (skypilot-org/skypilot-catalog@8427bbf, catalogs/v8/gcp/vms.csv), its
# accelerator rows counted: gpu -> (zones, regions, max_count).
GPU_COUNTS = {"NVIDIA_TESLA_A100": (18, 10, 16), "NVIDIA_A100_80GB": (7, 5, 8),
              "NVIDIA_B200": (11, 10, 8), "NVIDIA_H100_80GB": (29, 19, 8),
              "NVIDIA_H100_MEGA_80GB": (24, 14, 8), "NVIDIA_H200_141GB": (9, 9, 8),
              "NVIDIA_L4": (43, 18, 8), "NVIDIA_TESLA_P100": (12, 7, 4),
              "NVIDIA_TESLA_P4": (16, 7, 4), "NVIDIA_TESLA_T4": (50, 23, 4),
              "NVIDIA_TESLA_V100": (11, 5, 8)}


def test_zones_match_the_counts_of_the_proxy():
    found = {gpu: (len(zones), len({z.rsplit("-", 1)[0] for z in zones}), top)
             for gpu, (top, zones) in CAT.gpu_zones.items()}
    assert found == GPU_COUNTS
    zones = {z for _, zs in CAT.gpu_zones.values() for z in zs}
    assert sum(len(zs) for _, zs in CAT.gpu_zones.values()) == 230
    assert len(zones) == 79 and len({z.rsplit("-", 1)[0] for z in zones}) == 31
    assert sum(len(z) for z in CAT.machine_zones.values()) == 591
    assert len(CAT.machine_zones["a3-highgpu-8g"]) == 24 and len(
        CAT.machine_zones["a3-highgpu-1g"]) == 25
    assert len(CAT.machine_zones["a2-megagpu-16g"]) == 7
    assert "a4x-highgpu-4g" not in CAT.machine_zones and "g4-standard-48" not in (
        CAT.machine_zones)
    assert DATA["zones"]["proxy"] is True and "warnings" in DATA["zones"]["source"]["notes"]


def test_where_a_machine_is_listed():
    # SkyPilot's GCP catalog (as above): the regions whose zones list a3-highgpu-1g
    assert CAT.regions_for("a3-highgpu-1g") == [
        "asia-east1", "asia-northeast1", "asia-south1", "asia-south2", "asia-southeast1",
        "australia-southeast1", "europe-north1", "europe-west1", "europe-west3", "europe-west4",
        "europe-west8", "europe-west9", "us-central1", "us-east4", "us-east5", "us-west1",
        "us-west4"]
    assert "us-central1" in CAT.regions_for("n1-standard-8", "NVIDIA_TESLA_T4")
    assert CAT.regions_for("a4x-highgpu-4g") is None and CAT.regions_for("e2-standard-4") is None


# the newest image of each framework and its dates, from Google's "Prebuilt containers for
# serverless training" page (docs.cloud.google.com/gemini-enterprise-agent-platform/
# machine-learning/training/pre-built-containers)
NEWEST = {"tf-gpu.2-17.py310": ("2025-07-11", "2026-07-11"),
          "pytorch-gpu.2-4.py310": ("2025-07-24", "2026-07-24"),
          "pytorch-xla.2-2.py310": ("2025-01-30", "2026-10-23"),
          "sklearn-cpu.1-6": ("2025-07-11", "2026-07-11"),
          "xgboost-gpu.2-1": ("2025-07-11", "2026-07-11"),
          "tf-gpu.2-11": ("2023-11-15", "2024-11-15"),
          "pytorch-gpu.1-13": ("2023-12-08", "2024-12-08")}


def test_prebuilt_images_and_their_dates():
    for name, (eos, eoa) in NEWEST.items():
        image = CAT.images[name]
        assert (image.end_of_support.isoformat(), image.end_of_availability.isoformat()) == (
            eos, eoa), name
    assert "tf-gpu.2-10" not in CAT.images
    # by that page's dates, as of late 2026 no image in the table is within its window
    assert [i.name for i in CAT.images.values() if i.available(date(2026, 11, 23))] == []
    assert CAT.images["tf-gpu.2-17.py310"].available(date(2026, 7, 10))
    assert not CAT.images["tf-gpu.2-17.py310"].available(date(2026, 7, 11))


def test_prebuilt_uris():
    uri = "europe-docker.pkg.dev/vertex-ai/training/tf-gpu.2-11:latest"
    assert CAT.is_prebuilt(uri) and CAT.image_of(uri).name == "tf-gpu.2-11"
    assert CAT.is_prebuilt("gcr.io/cloud-aiplatform/training/tf-cpu.2-1:latest")
    assert not CAT.is_prebuilt("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime")
    image = CAT.images["tf-gpu.2-11"]
    assert CAT.image_uri(image, "europe-west4") == uri
    assert CAT.image_uri(image, "asia-east1").startswith("asia-docker.pkg.dev/")
    assert CAT.image_uri(image, "northamerica-northeast1").startswith("us-docker.pkg.dev/")
    assert CAT.image_uri(image, None).startswith("us-docker.pkg.dev/")


@pytest.mark.parametrize(("version", "python", "kind", "image"), [
    ("2.11", "3.7", "gpu", "tf-gpu.2-11"),
    ("2.11", None, "cpu", "tf-cpu.2-11"),  # the legacy default, Python 3.7
    ("2.17", None, "gpu", "tf-gpu.2-17.py310"),  # only 3.10 exists
    ("2.11", "3.10", "gpu", "tf-gpu.2-11.py310"),
    ("1.15", "3.7", "cpu", "tf-cpu.1-15"),
    ("2.10", "3.7", "gpu", None),  # that page lists no 2.10 image
    ("2.11", "2.7", "cpu", None),
])
def test_runtime_versions_map_to_the_same_numbered_tensorflow_image(version, python, kind,
                                                                    image):
    found = CAT.runtime_image(version, python, kind)
    assert (found.name if found else None) == image


# legacy machine -> (Vertex machine, accelerator) as gpujob translates it (unverified: Google's
# table, cloud.google.com/ai-platform/training/docs/machine-types, could not be read).
LEGACY = {
    "standard": ("n1-standard-4", None), "large_model": ("n1-highmem-8", None),
    "complex_model_s": ("n1-standard-8", None), "complex_model_m": ("n1-highcpu-16", None),
    "complex_model_l": ("n1-highcpu-32", None),
    "standard_gpu": ("n1-standard-8", ("NVIDIA_TESLA_T4", 1)),
    "complex_model_m_gpu": ("n1-standard-16", ("NVIDIA_TESLA_T4", 4)),
    "complex_model_l_gpu": ("n1-standard-32", ("NVIDIA_TESLA_T4", 4)),
    "standard_p100": ("n1-standard-8", ("NVIDIA_TESLA_P100", 1)),
    "complex_model_m_p100": ("n1-standard-16", ("NVIDIA_TESLA_P100", 4)),
    "standard_v100": ("n1-standard-8", ("NVIDIA_TESLA_V100", 1)),
    "large_model_v100": ("n1-highmem-8", ("NVIDIA_TESLA_V100", 1)),
    "complex_model_m_v100": ("n1-standard-16", ("NVIDIA_TESLA_V100", 4)),
    "complex_model_l_v100": ("n1-standard-32", ("NVIDIA_TESLA_V100", 8)),
    "cloud_tpu": ("cloud-tpu", ("TPU_V2", 8)),
}


def test_legacy_machine_types_translate_as_the_reference_suggests():
    found = {name: (m.machine_type, tuple(m.accelerator) if m.accelerator else None)
             for name, m in CAT.legacy_machine_types.items()}
    assert found == LEGACY
    for name, m in CAT.legacy_machine_types.items():
        if m.legacy_accelerator and m.legacy_accelerator.type == "NVIDIA_TESLA_K80":
            assert m.changed, name  # every K80 replacement says why
        assert m.unverified or name == "cloud_tpu", name
    assert CAT.legacy_machine_types["standard_p100"].after_end_of_support == ("NVIDIA_TESLA_T4", 1)


def test_scale_tiers():
    assert CAT.scale_tiers["BASIC_GPU"].pools[0].legacy_machine_type == "standard_gpu"
    standard_1 = CAT.scale_tiers["STANDARD_1"]
    assert [p.count for p in standard_1.pools] == [1, 4, 3] and standard_1.unverified
    assert CAT.scale_tiers["PREMIUM_1"].untranslatable
    assert CAT.scale_tiers["BASIC_TPU"].pools[0] == records.TierPool(
        1, None, "cloud-tpu", records.Accel("TPU_V2", 8))


def test_a_catalog_file_of_ones_own(tmp_path: Path):
    edited = json.loads(json.dumps(DATA))
    edited["machine_types"]["types"]["g2-standard-4"]["accelerators"]["NVIDIA_L4"] = [1, 2]
    good = tmp_path / "vertex.json"
    good.write_text(json.dumps(edited), encoding="utf-8")
    assert load("vertex", str(good)).accepts("g2-standard-4", "NVIDIA_L4", 2)
    del edited["zones"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(edited), encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load("vertex", str(bad))
    assert "is not a valid Vertex catalog" in caught.value.message
    assert caught.value.message.endswith("bad.json:1:1: missing required key 'zones' "
                                         "[schema.required]")
