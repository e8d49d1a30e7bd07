"""Every cell of the GPU table and every region, through the real ``gpujob validate``.

The expected verdicts come from the facts as published (the seed's table with its columns
aligned, and the zone table), written out here independently of gpujob's catalog, so a mistake
in the catalog shows up as a failing cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# The machine type x GPU table of Google's "Using GPUs for training models in the cloud" page
# (https://cloud.google.com/ai-platform/training/docs/using-gpus), its columns aligned as in the
# machine-readable copies of tensorflow/cloud (src/python/tensorflow_cloud/core/gcp.py) and
# GoogleCloudPlatform/jupyter-extensions (jupyterlab_gcpscheduler/src/data.ts).
TABLE = """
| n1-standard-4 | — | 1, 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4, 8 |
| n1-standard-8 | — | 1, 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4, 8 |
| n1-standard-16 | — | 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 2, 4, 8 |
| n1-standard-32 | — | 4, 8 | 2, 4 | 2, 4 | 2, 4 | 4, 8 |
| n1-standard-64 | — | — | 4 | — | 4 | 8 |
| n1-standard-96 | — | — | 4 | — | 4 | 8 |
| n1-highmem-2 | — | 1, 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4, 8 |
| n1-highmem-4 | — | 1, 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4, 8 |
| n1-highmem-8 | — | 1, 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4, 8 |
| n1-highmem-16 | — | 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 2, 4, 8 |
| n1-highmem-32 | — | 4, 8 | 2, 4 | 2, 4 | 2, 4 | 4, 8 |
| n1-highmem-64 | — | — | 4 | — | 4 | 8 |
| n1-highmem-96 | — | — | 4 | — | 4 | 8 |
| n1-highcpu-16 | — | 2, 4, 8 | 1, 2, 4 | 1, 2, 4 | 1, 2, 4 | 2, 4, 8 |
| n1-highcpu-32 | — | 4, 8 | 2, 4 | 2, 4 | 2, 4 | 4, 8 |
| n1-highcpu-64 | — | 8 | 4 | 4 | 4 | 8 |
| n1-highcpu-96 | — | — | 4 | — | 4 | 8 |
| a2-highgpu-1g | 1 | — | — | — | — | — |
| a2-highgpu-2g | 2 | — | — | — | — | — |
| a2-highgpu-4g | 4 | — | — | — | — | — |
| a2-highgpu-8g | 8 | — | — | — | — | — |
| a2-megagpu-16g | 16 | — | — | — | — | — |
"""
COLUMNS = ["NVIDIA_TESLA_A100", "NVIDIA_TESLA_K80", "NVIDIA_TESLA_P4", "NVIDIA_TESLA_P100",
           "NVIDIA_TESLA_T4", "NVIDIA_TESLA_V100"]

# GPU types per training region, from Compute Engine's "GPU regions and zones" table as it stood
# in late 2021 (https://cloud.google.com/compute/docs/gpus/gpu-regions-zones, as transcribed in
# DataBiosphere/terra-ui src/data/machines.js of 2021-10-25), and the training regions without
# GPUs (https://cloud.google.com/ai-platform/training/docs/regions and the release notes).
REGION_GPUS = {
    "us-west1": "K80 P100 T4 V100 A100", "us-west2": "P4 T4",
    "us-central1": "K80 P4 P100 T4 V100 A100", "us-east1": "K80 P100 T4 V100 A100",
    "us-east4": "P4 T4", "northamerica-northeast1": "P4", "southamerica-east1": "T4",
    "europe-west1": "K80 P100 T4", "europe-west2": "T4", "europe-west4": "P4 P100 T4 V100",
    "asia-south1": "T4", "asia-southeast1": "P4 T4", "asia-east1": "K80 P100 T4 V100",
    "asia-northeast1": "T4", "asia-northeast3": "T4", "australia-southeast1": "P4 P100 T4",
    "us-west3": "", "europe-north1": "", "europe-west3": "", "europe-west6": "",
    "asia-east2": "", "asia-northeast2": "",
}


def parse_table() -> dict[tuple[str, str], set[int]]:
    cells = {}
    for line in TABLE.strip().splitlines():
        machine, *counts = [c.strip() for c in line.strip("|").split("|")]
        for gpu, text in zip(COLUMNS, counts, strict=True):
            cells[machine, gpu] = set() if text == "—" else {int(c) for c in text.split(",")}
    return cells


CELLS = parse_table()


def config(machine: str, gpu: str, count: int, region: str = "us-central1") -> str:
    return (f"trainingInput:\n  scaleTier: CUSTOM\n  region: {region}\n"
            f"  runtimeVersion: '2.11'\n  masterType: {machine}\n  masterConfig:\n"
            f"    acceleratorConfig: {{count: {count}, type: {gpu}}}\n")


def validate_all(cli, tmp_path: Path, files: dict[str, str]) -> dict[str, dict]:
    folder = tmp_path / "configs"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    result = cli("validate", "--format", "json", folder)
    return {Path(f["path"]).name: f for f in json.loads(result.out)["files"]}


def test_every_cell_of_the_table(cli, tmp_path: Path):
    """22 machine types x 6 GPU types x counts 1-16: 2,112 configs in one run. us-central1
    offers all six GPU types, so only the table decides."""
    files = {f"{m}__{g}__{c}.yaml": config(m, g, c)
             for (m, g) in CELLS for c in range(1, 17)}
    report = validate_all(cli, tmp_path, files)
    assert len(report) == len(CELLS) * 16 == 2112
    wrong = []
    for (machine, gpu), counts in CELLS.items():
        for count in range(1, 17):
            verdict = report[f"{machine}__{gpu}__{count}.yaml"]
            if verdict["valid"] != (count in counts):
                wrong.append((machine, gpu, count, verdict["errors"]))
            elif not verdict["valid"]:
                (error,) = verdict["errors"]
                assert error["rule"] in ("gpu.count", "gpu.machine"), error
                assert machine in error["message"], error
                assert error["line"] is not None and error["hint"]
    assert wrong == []


@pytest.mark.parametrize("region", sorted(REGION_GPUS))
def test_every_region(cli, tmp_path: Path, region: str):
    """In each region: a job without GPUs runs; each GPU type is accepted exactly where it is
    offered; refusals name the regions that offer it."""
    offered = set(REGION_GPUS[region].split())
    files = {"cpu.yaml": "trainingInput:\n  scaleTier: CUSTOM\n  region: " + region
             + "\n  runtimeVersion: '2.11'\n  masterType: n1-standard-8\n"}
    for gpu in COLUMNS:
        machine = "a2-highgpu-1g" if gpu.endswith("A100") else "n1-standard-8"
        files[f"{gpu}.yaml"] = config(machine, gpu, 1, region)
    report = validate_all(cli, tmp_path, files)
    assert report["cpu.yaml"]["valid"]
    for gpu in COLUMNS:
        verdict = report[f"{gpu}.yaml"]
        short = gpu.rsplit("_", 1)[-1]
        assert verdict["valid"] == (short in offered), (region, gpu, verdict)
        if not verdict["valid"]:
            (error,) = verdict["errors"]
            assert error["rule"] == ("region.gpu" if offered else "region.no-gpus")
            assert f"regions with {short}:" in error["hint"]


def test_an_unknown_region_is_refused(cli, tmp_path: Path):
    report = validate_all(cli, tmp_path, {"c.yaml": config("n1-standard-8", COLUMNS[4], 1,
                                                           "mars-north1")})
    (error,) = report["c.yaml"]["errors"]
    assert error["rule"] == "region.unknown"
