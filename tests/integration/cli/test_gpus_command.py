"""``gpujob gpus``: what can I use, on what, how many, where."""

from __future__ import annotations

import json

import pytest


def offerings(cli, *args: str) -> list[dict]:
    result = cli("gpus", "--format", "json", *args)
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["version"] == 1
    return report["offerings"]


def test_the_table_lists_every_gpu_with_counts_machines_and_regions(cli):
    result = cli("gpus")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0].split() == ["GPU", "COUNT", "MACHINE", "TYPES", "REGIONS"]
    firsts = [line.split()[0] for line in lines[1:] if line and not line.startswith(" ")]
    assert [f for f in firsts if f in {"K80", "P4", "P100", "T4", "V100", "A100"}] == [
        "K80", "P4", "P100", "T4", "V100", "A100"]
    assert "K80 *" in result.out and "past its end of support" in result.out
    assert "complex_model_m_gpu (built in)" in result.out


@pytest.mark.parametrize("name", ["t4", "nvidia-tesla-t4", "NVIDIA_TESLA_T4"])
def test_gpu_filter_takes_every_spelling(cli, name):
    found = offerings(cli, "--gpu", name)
    assert {o["gpu"] for o in found} == {"NVIDIA_TESLA_T4"}
    assert [o["counts"] for o in found] == [[1, 2, 4], [2, 4], [4]]


def test_table_and_json_come_from_one_record(cli):
    (offer,) = offerings(cli, "--gpu", "v100", "--machine-type", "n1-standard-32")
    assert offer == {
        "gpu": "NVIDIA_TESLA_V100", "name": "V100", "gcloud_name": "nvidia-tesla-v100",
        "counts": [4, 8], "machine_types": ["n1-standard-32"], "built_in": False,
        "zones": ["us-west1-a", "us-west1-b", "us-central1-a", "us-central1-b", "us-central1-c",
                  "us-central1-f", "us-east1-c", "europe-west4-a", "europe-west4-b",
                  "europe-west4-c", "asia-east1-c"],
        "deprecated": None,
        "regions": {"us-west1": ["us-west1-a", "us-west1-b"],
                    "us-central1": ["us-central1-a", "us-central1-b", "us-central1-c",
                                    "us-central1-f"],
                    "us-east1": ["us-east1-c"],
                    "europe-west4": ["europe-west4-a", "europe-west4-b", "europe-west4-c"],
                    "asia-east1": ["asia-east1-c"]},
    }
    table = cli("gpus", "--gpu", "v100", "--machine-type", "n1-standard-32").out
    assert table.splitlines()[1].split()[:4] == ["V100", "4,", "8", "n1-standard-32"]


def test_count_and_region_narrow_and_merge(cli):
    found = offerings(cli, "--gpu", "t4", "--count", "2", "--region", "europe-west4")
    assert len(found) == 1
    assert found[0]["counts"] == [2]
    assert found[0]["zones"] == ["europe-west4-b", "europe-west4-c"]
    assert "n1-standard-32" in found[0]["machine_types"]
    assert "n1-standard-64" not in found[0]["machine_types"]


def test_zone_filter(cli):
    found = offerings(cli, "--zone", "us-east1-b")
    assert {o["name"] for o in found} == {"P100", "A100"}
    assert all(o["zones"] == ["us-east1-b"] for o in found)


def test_nothing_matches_exit_1_with_the_reasons_and_alternatives(cli):
    result = cli("gpus", "--gpu", "t4", "--machine-type", "n1-standard-64", "--count", "2")
    assert result.code == 1
    assert result.out == ""
    assert ("n1-standard-64 takes 4 × T4, not 2: n1-standard-64 has 64 vCPUs and 240 GB; 2 × "
            "T4 support at most 48 vCPUs and 312 GB") in result.err
    assert "without --count: T4 × 4 on n1-standard-64" in result.err
    assert "without --machine-type: T4 × 2 on" in result.err


def test_a_gpu_not_offered_in_a_region(cli):
    result = cli("gpus", "--gpu", "a100", "--region", "europe-west4")
    assert result.code == 1
    assert "europe-west4 does not offer A100 (regions with it: us-west1, us-central1, us-east1)" \
        in result.err


def test_json_of_nothing_is_still_json(cli):
    result = cli("gpus", "--format", "json", "--region", "europe-west3")
    assert result.code == 1
    assert json.loads(result.out)["offerings"] == []
    assert "europe-west3 offers no GPUs for training" in result.err


@pytest.mark.parametrize("args, message, hint", [
    (["--gpu", "t5"], "no GPU type 't5'", "GPU types: K80, P4, P100, T4, V100, A100"),
    (["--gpu", "NVIDIA_TESLA_V10"], "no GPU type 'NVIDIA_TESLA_V10'",
     "did you mean 'NVIDIA_TESLA_V100'?"),
    (["--machine-type", "n1-standrd-8"], "no machine type 'n1-standrd-8' in the catalog",
     "did you mean 'n1-standard-8'?"),
    (["--region", "us-central"], "no region 'us-central' in the catalog",
     "did you mean 'us-central1'?"),
    (["--region", "us-west1", "--zone", "us-east1-b"], "zone us-east1-b is not in region "
     "us-west1", None),
    # Vertex AI's names are not misspellings of AI Platform's (H100 is not a V100)
    (["--gpu", "h100"], "no GPU type 'h100'", "NVIDIA_H100_80GB (H100) is a Vertex AI GPU, "
     "which AI Platform Training does not offer: use --service vertex"),
    (["--gpu", "nvidia-l4"], "no GPU type 'nvidia-l4'", "NVIDIA_L4 (L4) is a Vertex AI GPU, "
     "which AI Platform Training does not offer: use --service vertex"),
    (["--machine-type", "g2-standard-24"], "no machine type 'g2-standard-24' in the catalog",
     "g2-standard-24 is a Vertex AI machine type, which AI Platform Training does not offer: "
     "use --service vertex"),
    (["--machine-type", "cloud-tpu"], "no machine type 'cloud-tpu' in the catalog",
     "did you mean 'cloud_tpu'?"),
])
def test_unknown_names_are_misses_with_a_did_you_mean(cli, args, message, hint):
    result = cli("gpus", *args)
    assert result.code == 1
    assert f"error: {message}" in result.err
    if hint:
        assert f"hint: {hint}" in result.err


def test_a_tpu_is_not_a_gpu(cli):
    assert cli("gpus", "--gpu", "tpu-v3").code == 1
