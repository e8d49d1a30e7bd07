"""AI Platform's legacy machine types (standard_gpu, complex_model_m_gpu) for ``--service gke``:
refused, as GKE's nodes are Compute Engine VMs, with a hint that names the Compute Engine
machine type and GPUs Vertex AI translates each to (Vertex's catalog, read through the
registry)."""

from __future__ import annotations

CONFIG = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: {master}
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1{master_gpus}
  workerType: {worker}
  workerCount: 2{worker_gpus}
"""


def test_a_legacy_machine_type_is_refused_with_its_compute_engine_equivalent(cli, write):
    path = write(CONFIG.format(master="standard_gpu", master_gpus="",
                               worker="complex_model_m_gpu", worker_gpus=""))
    result = cli("validate", "--service", "gke", path)
    assert result.code == 1
    assert result.out.splitlines()[:4] == [
        f"{path}:3:15: trainingInput.masterType: standard_gpu is not a Compute Engine machine "
        "type gpujob knows for GKE nodes [gke.machine]",
        "  hint: standard_gpu is AI Platform's legacy machine type: on GKE give its Compute "
        "Engine equivalent, masterType n1-standard-8 with masterConfig.acceleratorConfig "
        "{count: 1, type: NVIDIA_TESLA_T4} (what Vertex AI translates it to)",
        f"{path}:6:15: trainingInput.workerType: complex_model_m_gpu is not a Compute Engine "
        "machine type gpujob knows for GKE nodes [gke.machine]",
        "  hint: complex_model_m_gpu is AI Platform's legacy machine type: on GKE give its "
        "Compute Engine equivalent, workerType n1-standard-16 with workerConfig."
        "acceleratorConfig {count: 4, type: NVIDIA_TESLA_T4} (what Vertex AI translates it to)"]


def test_fewer_gpus_than_the_legacy_machine_had_are_said(cli, write):
    path = write(CONFIG.format(master="n1-standard-4", master_gpus="",
                               worker="complex_model_l_gpu", worker_gpus=""))
    result = cli("validate", "--service", "gke", path)
    assert result.code == 1
    assert "  hint: complex_model_l_gpu is AI Platform's legacy machine type: on GKE give its " \
           "Compute Engine equivalent, workerType n1-standard-32 with workerConfig." \
           "acceleratorConfig {count: 4, type: NVIDIA_TESLA_T4} (what Vertex AI translates it " \
           "to; it had 8 × NVIDIA_TESLA_K80 built in)\n" in result.out


def test_a_legacy_cpu_machine_type_gets_its_machine_type_alone(cli, write):
    path = write(CONFIG.format(master="n1-standard-4", master_gpus="", worker="standard",
                               worker_gpus=""))
    result = cli("validate", "--service", "gke", path)
    assert result.code == 1
    assert "  hint: standard is AI Platform's legacy machine type: on GKE give its Compute " \
           "Engine equivalent, workerType n1-standard-4 (what Vertex AI translates it to)\n" \
           in result.out


def test_what_the_hint_says_is_valid_on_gke(cli, write):
    path = write(CONFIG.format(
        master="n1-standard-8",
        master_gpus="\n    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}",
        worker="n1-standard-16",
        worker_gpus="\n  workerConfig:\n    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}"))
    result = cli("validate", "--service", "gke", path)
    assert result.code == 0, result.out + result.err


def test_a_name_that_is_no_legacy_type_keeps_its_did_you_mean(cli, write):
    path = write(CONFIG.format(master="n1-standrd-8", master_gpus="", worker="n1-standard-4",
                               worker_gpus=""))
    result = cli("validate", "--service", "gke", path)
    assert result.code == 1
    assert "  hint: did you mean 'n1-standard-8'?\n" in result.out
