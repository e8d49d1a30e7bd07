"""Every cell of Vertex AI's machine × accelerator × count table for custom training.

The expected verdicts are the compatibility table of Google's "Configure compute resources" page
(docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/training/configure-compute),
written out here independently of gpujob's catalog, so a mistake in the catalog shows up as a
failing cell. The verdict comes from one function, ``verdict``: it asks the catalog's query
layer today; pointing it at ``gpujob validate --service vertex`` later leaves the table alone.
"""

from __future__ import annotations

import pytest

from gpujob.catalog import load

# that table, accelerator-optimised types (one fixed GPU model, built in).
BUILT_IN = """
| a3-megagpu-8g | NVIDIA_H100_MEGA_80GB | 8 |
| a3-highgpu-1g / 2g / 4g / 8g | NVIDIA_H100_80GB | 1 / 2 / 4 / 8 |
| a3-ultragpu-8g | NVIDIA_H200_141GB | 8 |
| a4-highgpu-8g | NVIDIA_B200 | 8 |
| a4x-highgpu-4g | NVIDIA_GB200 | 4 |
| a2-ultragpu-1g / 2g / 4g / 8g | NVIDIA_A100_80GB | 1 / 2 / 4 / 8 |
| a2-highgpu-1g / 2g / 4g / 8g | NVIDIA_TESLA_A100 | 1 / 2 / 4 / 8 |
| a2-megagpu-16g | NVIDIA_TESLA_A100 | 16 |
| g2-standard-4, -8, -12, -16, -32 | NVIDIA_L4 | 1 |
| g2-standard-24 / -48 / -96 | NVIDIA_L4 | 2 / 4 / 8 |
| g4-standard-48 / -96 / -192 / -384 | NVIDIA_RTX_PRO_6000 | 1 / 2 / 4 / 8 |
"""

# that table, N1 rows: P4 | P100 | T4 | V100.
N1 = """
| n1-standard-4, n1-standard-8, n1-highmem-2, n1-highmem-4, n1-highmem-8 |1,2,4|1,2,4|1,2,4|1,2,4,8|
| n1-standard-16, n1-highmem-16, n1-highcpu-16 | 1,2,4 | 1,2,4 | 1,2,4 | 2,4,8 |
| n1-standard-32, n1-highmem-32, n1-highcpu-32 | 2,4 | 2,4 | 2,4 | 4,8 |
| n1-highcpu-64 | 4 | 4 | 4 | 8 |
| n1-standard-64, n1-standard-96, n1-highmem-64, n1-highmem-96, n1-highcpu-96 | 4 | – | 4 | 8 |
"""
N1_COLUMNS = ["NVIDIA_TESLA_P4", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_T4", "NVIDIA_TESLA_V100"]

# that page's machine types without GPUs (a sample of each CPU-only family).
CPU_ONLY = ["e2-standard-4", "e2-highmem-2", "e2-highcpu-32", "n4-standard-2", "n4-highcpu-80",
            "n2-standard-4", "n2-highmem-80", "n2-highcpu-16", "c2-standard-30", "m1-ultramem-40",
            "m1-megamem-96"]

# the discovery document's acceleratorType enum: the API's GPU names (every column a cell can have).
GPUS = ["NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_V100", "NVIDIA_TESLA_P4",
        "NVIDIA_TESLA_T4", "NVIDIA_TESLA_A100", "NVIDIA_A100_80GB", "NVIDIA_L4",
        "NVIDIA_H100_80GB", "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_B200",
        "NVIDIA_GB200", "NVIDIA_RTX_PRO_6000"]
COUNTS = range(1, 17)


def _expand(names: str) -> list[str]:
    """``a3-highgpu-1g / 2g / 4g`` or ``g2-standard-4, -8`` -> full machine type names."""
    parts = [p.strip() for p in names.replace(",", "/").split("/")]
    first = parts[0]
    stem = first.rsplit("-", 1)[0]
    out = [first]
    for part in parts[1:]:
        out.append(part if part.count("-") >= 2 else f"{stem}-{part.lstrip('-')}")
    return out


def parse() -> dict[tuple[str, str], set[int]]:
    cells: dict[tuple[str, str], set[int]] = {}
    for line in BUILT_IN.strip().splitlines():
        names, gpu, counts = (c.strip() for c in line.strip("|").split("|"))
        machines = _expand(names)
        numbers = [int(c) for c in counts.split("/")]
        if len(numbers) == 1:
            numbers *= len(machines)
        for machine, count in zip(machines, numbers, strict=True):
            cells[machine, gpu] = {count}
    for line in N1.strip().splitlines():
        names, *columns = (c.strip() for c in line.strip("|").split("|"))
        for machine in (n.strip() for n in names.split(",")):
            for gpu, text in zip(N1_COLUMNS, columns, strict=True):
                cells[machine, gpu] = set() if text == "–" else {int(c) for c in text.split(",")}
    return cells


CELLS = parse()
MACHINES = sorted({m for m, _ in CELLS} | set(CPU_ONLY))


def verdict(machine: str, gpu: str, count: int) -> bool:
    """Does Vertex take ``count`` × ``gpu`` on ``machine``? (The one place that asks gpujob.)"""
    return load("vertex").accepts(machine, gpu, count)


def test_the_table_has_every_row_of_the_reference():
    assert len({m for m, _ in CELLS if m.startswith("n1-")}) == 17
    assert len({m for m, _ in CELLS if not m.startswith("n1-")}) == 29
    assert CELLS["g2-standard-24", "NVIDIA_L4"] == {2}
    assert CELLS["n1-highmem-96", "NVIDIA_TESLA_P100"] == set()


@pytest.mark.parametrize("machine", MACHINES)
def test_every_cell(machine: str):
    """Each machine type × each GPU name × counts 1-16: accepted exactly where the table says."""
    wrong = [(gpu, count) for gpu in GPUS for count in COUNTS
             if verdict(machine, gpu, count) != (count in CELLS.get((machine, gpu), set()))]
    assert wrong == []


def test_n1_with_t4_takes_one_two_or_four():
    assert [c for c in COUNTS if verdict("n1-standard-8", "NVIDIA_TESLA_T4", c)] == [1, 2, 4]


def test_the_catalog_offers_no_gpu_machine_the_table_lacks():
    cat = load("vertex")
    with_gpus = {m.name for m in cat.machine_types.values()
                 if any(cat.accelerators[a].kind == "gpu" for a in m.accelerators)}
    assert with_gpus == {m for m, _ in CELLS}


def test_a_refusal_says_what_the_machine_takes():
    cat = load("vertex")
    assert cat.problem("n1-standard-32", "NVIDIA_TESLA_T4", 1) == (
        "n1-standard-32 takes 2 or 4 × NVIDIA_TESLA_T4, not 1")
    assert cat.problem("a3-highgpu-2g", "NVIDIA_H100_80GB", 8) == (
        "a3-highgpu-2g takes 2 × NVIDIA_H100_80GB, not 8")
    assert cat.problem("e2-standard-4", "NVIDIA_TESLA_T4", 1) == (
        "e2-standard-4 takes no accelerators")
    assert cat.problem("n1-standard-4", "NVIDIA_L4", 1).startswith(
        "n1-standard-4 does not take NVIDIA_L4 (machine types that do: g2-standard-4,")
    assert "end of support" in cat.problem("n1-standard-4", "NVIDIA_TESLA_K80", 1)
    assert cat.problem("n1-standard-4", "NVIDIA_TESLA_T4", None) == (
        "acceleratorType and acceleratorCount go together: set both or neither")
    assert cat.problem("n1-standard-1", None, None) == (
        "n1-standard-1 is not a machine type Vertex AI custom training offers")


def test_machines_without_accelerators_and_tpus():
    cat = load("vertex")
    assert cat.accepts("n1-standard-4", None, None)
    assert not cat.accepts("a2-highgpu-1g", None, None)  # its A100 must be stated
    # that page's TPUs: cloud-tpu takes 8 TPU v2/v3 cores, or 32·n for a Pod slice
    assert [c for c in range(1, 129) if cat.accepts("cloud-tpu", "TPU_V2", c)] == [8, 32, 64, 96,
                                                                                    128]
    assert not cat.accepts("cloud-tpu", "NVIDIA_TESLA_T4", 1)
