"""A GPU pod's CPU and memory requests on ``--service gke``: what one node of its machine type
leaves to pods, so that Kueue's quotas count them. GKE's reservation (GKE-ALLOC,
https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes): CPU 6% of the first
core, 1% of the second, 0.5% of the 3rd and 4th, 0.25% of each core above 4; memory 25% of the
first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 GiB, and a
100 MiB eviction threshold. gpujob leaves 500m and 1024 Mi of that to GKE's own pods. The
machines' sizes are Compute Engine's; the numbers below are worked out here, not read from the
catalog."""

from __future__ import annotations

import crd
import pytest
from test_gke_pods import CONFIG, dry_run, pod_of

# machine: (vCPUs, GiB, allocatable millicores, allocatable MiB)
NODES = {
    # 208 vCPU: 60+10+2*5+204*2.5 = 590m reserved; 1872 GiB: 1+0.8+0.8+6.72+1744*0.02=44.2 GiB
    # = 45260.8 MiB, + 100 MiB eviction, of 1916928 MiB
    "a3-megagpu-8g": (208, 1872, 207410, 1871567),
    # 24 vCPU: 80m + 20*2.5 = 130m; 96 GiB: 2.6 + 80*0.06 = 7.4 GiB = 7577.6 MiB, + 100
    "g2-standard-24": (24, 96, 23870, 90626),
    # 8 vCPU: 80m + 4*2.5 = 90m; 30 GiB: 2.6 + 14*0.06 = 3.44 GiB = 3522.56 MiB, + 100 (the
    # reference's "about 7.91 CPU and 26.5 GiB")
    "n1-standard-8": (8, 30, 7910, 27097),
}
T4 = "    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}\n"


def _config(machine: str) -> str:
    text = CONFIG.format(machine=machine, workers=1)
    if machine.startswith("n1-"):
        text = text.replace("    containerCommand: [torchrun, train.py]\n",
                            "    containerCommand: [torchrun, train.py]\n" + T4)
        text += "  workerConfig:\n" + T4
    return text


@pytest.mark.parametrize("machine", sorted(NODES))
def test_a_gpu_pod_requests_what_its_node_leaves_to_pods(cli, write, machine):
    _, _, cpu_m, memory_mib = NODES[machine]
    body, err = dry_run(cli, write(_config(machine)))
    for rjob in ("master", "worker"):
        resources = pod_of(body, rjob)["spec"]["containers"][0]["resources"]
        assert resources["requests"] == {"cpu": f"{cpu_m - 500}m",
                                         "memory": f"{memory_mib - 1024}Mi"}
        # no CPU or memory limits, as the recipes and xpk set none; the GPUs are limits
        assert set(resources["limits"]) == {"nvidia.com/gpu"}
    assert "request no CPU or memory" not in err
    assert crd.problems(body) == []


def test_a_machine_without_a_size_gets_no_requests_and_a_note(cli, write):
    body, err = dry_run(cli, write(CONFIG.format(machine="a4x-highgpu-4g", workers=0)))
    resources = pod_of(body)["spec"]["containers"][0]["resources"]
    assert "requests" not in resources
    assert "a4x-highgpu-4g: gpujob's catalog has no vCPU and memory size for it, so its pods " \
           "request no CPU or memory (only GPUs)" in err


def test_a_pod_without_gpus_requests_nothing(cli, write):
    text = _config("n1-standard-8") + "  parameterServerType: n1-standard-4\n" \
        "  parameterServerCount: 1\n"
    body, _ = dry_run(cli, write(text))
    assert "resources" not in pod_of(body, "ps")["spec"]["containers"][0]
