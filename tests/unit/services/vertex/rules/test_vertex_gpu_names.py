"""Names people write for a GPU, and the prebuilt images under every registry (issue 32 item
4): a refused accelerator name's hint names the type it stands for and the machine types that
take it (the catalog's aliases); an image under us.gcr.io, eu.gcr.io or asia.gcr.io is the
prebuilt image of that name, with its dates."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.default_service

POOL = """\
workerPoolSpecs:
- machineSpec: {{machineType: g2-standard-8, acceleratorType: {name}, acceleratorCount: 1}}
  replicaCount: 1
  containerSpec: {{imageUri: us-central1-docker.pkg.dev/demo/train/img:1}}
"""
L4 = ("did you mean 'NVIDIA_L4'? (L4: machine types g2-standard-4, g2-standard-8, "
      "g2-standard-12, g2-standard-16 … (8 in all))")
H100 = ("did you mean 'NVIDIA_H100_80GB'? (H100: machine types a3-highgpu-1g, a3-highgpu-2g, "
        "a3-highgpu-4g, a3-highgpu-8g)")
A100_80 = ("did you mean 'NVIDIA_A100_80GB'? (A100 80GB: machine types a2-ultragpu-1g, "
           "a2-ultragpu-2g, a2-ultragpu-4g, a2-ultragpu-8g)")


@pytest.mark.parametrize("name, hint", [
    ("NVIDIA_TESLA_L4", L4), ("nvidia-l4", L4), ("L4", L4), ("H100", H100),
    ("nvidia-h100-80gb", H100), ("A100-80GB", A100_80), ("NVIDIA_A100_80GB_PCIE", A100_80),
    ("B200", "did you mean 'NVIDIA_B200'? (B200: machine types a4-highgpu-8g)"),
    ("NVIDIA_TESLA_T5", "did you mean 'NVIDIA_TESLA_T4'?"),  # no alias: the spelling's guess
])
def test_a_gpu_name_leads_to_its_type_and_machines(cli, write, name, hint):
    result = cli("validate", "--service", "vertex", write(POOL.format(name=name)))
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].endswith(f"workerPoolSpecs[0].machineSpec.acceleratorType: {name!r} is "
                             "not a valid acceleratorType [schema.enum]")
    assert lines[1] == f"  hint: {hint}"


def test_an_ai_platform_config_s_gpu_name_too(cli, write):
    path = write("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n"
                 "  masterConfig:\n    imageUri: us-central1-docker.pkg.dev/d/t/i:1\n"
                 "    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_L4}\n")
    result = cli("validate", "--service", "vertex", path)
    assert result.out.splitlines()[:2] == [
        f"{path}:6:41: trainingInput.masterConfig.acceleratorConfig.type: 'NVIDIA_TESLA_L4' is "
        "not a valid type [schema.enum]", f"  hint: {L4}"]


@pytest.mark.parametrize("registry", ["gcr.io", "us.gcr.io", "eu.gcr.io", "asia.gcr.io"])
def test_a_retired_image_is_refused_under_every_registry(cli, write, registry):
    path = write("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-8}\n"
                 "  replicaCount: 1\n  containerSpec:\n    imageUri: "
                 f"{registry}/cloud-aiplatform/training/tf-gpu.2-1\n")
    result = cli("validate", "--service", "vertex", path)
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        f"{path}:5:15: workerPoolSpecs[0].containerSpec.imageUri: {registry}/cloud-aiplatform/"
        "training/tf-gpu.2-1 is the prebuilt image tf-gpu.2-1, which reached its end of "
        "availability on 2024-09-01: Vertex AI no longer runs it for new jobs "
        "[vertex.executor-image]")


def test_the_europe_registry_s_image_has_the_same_dates(cli, write):
    path = write("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-8}\n"
                 "  replicaCount: 1\n  pythonPackageSpec:\n    executorImageUri: "
                 "europe-docker.pkg.dev/vertex-ai/training/tf-gpu.2-1:latest\n"
                 "    pythonModule: t.task\n    packageUris: [gs://b/p.tar.gz]\n")
    result = cli("validate", "--service", "vertex", path)
    assert result.out.splitlines()[0].endswith(
        "executorImageUri: the prebuilt image tf-gpu.2-1 reached its end of availability on "
        "2024-09-01 [vertex.executor-image]")


@pytest.mark.parametrize("registry, now", [
    ("gcr.io", "us-docker.pkg.dev"), ("us.gcr.io", "us-docker.pkg.dev"),
    ("eu.gcr.io", "europe-docker.pkg.dev"), ("asia.gcr.io", "asia-docker.pkg.dev")])
def test_a_retired_executor_names_the_registry_its_images_moved_to(cli, write, registry, now):
    path = write("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-8}\n"
                 "  replicaCount: 1\n  pythonPackageSpec:\n    executorImageUri: "
                 f"{registry}/cloud-aiplatform/training/tf-gpu.2-1:latest\n"
                 "    pythonModule: t.task\n    packageUris: [gs://b/p.tar.gz]\n")
    result = cli("validate", "--service", "vertex", path)
    assert result.out.splitlines()[0].endswith(
        "executorImageUri: the prebuilt image tf-gpu.2-1 reached its end of availability on "
        f"2024-09-01 ({registry}/cloud-aiplatform/training is an older location of "
        f"{now}/vertex-ai/training) [vertex.executor-image]")
