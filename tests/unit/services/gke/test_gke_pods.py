"""The machine's own pod settings on ``--service gke``: a memory-backed /dev/shm for every GPU
pod, A4X's Arm toleration and selector, and for a job of 2 or more nodes the GPUDirect profile of
the machine, key for key as Google's tooling writes it:

- XPK: AI-Hypercomputer/xpk@367c838253bea41e7d7716145ad6513f44c1a21e
  src/xpk/core/workload_decorators/tcpx_decorator.py (A3 High) and tcpxo_decorator.py (A3 Mega);
- CEA: GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpx/nccl-config.yaml (the
  TCPX NCCL environment);
- REC: AI-Hypercomputer/gpu-recipes@2e1fd5efbf1af9c08f8ac50b9d7fef2cfa675b68
  src/helm-charts/a3mega|a3ultra|a4/jobset/templates/workload-jobset.yaml and
  training/a4x/llama3_70b/nemo-gke/nemo2507/64gpus-bf16-gbs2048/recipe/templates/workload-job.yaml.

The expected values are written out here from those files, not read from gpujob's catalog."""

from __future__ import annotations

from typing import Any

import crd
import pytest
import yaml

GPU_TOL = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
TERM_TOL = {"key": "cloud.google.com/impending-node-termination", "operator": "Exists"}
XPK_TOL = {"key": "user-workload", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
ARM_TOL = {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64",
           "effect": "NoSchedule"}
LD = {"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}
NVIDIA = "".join(f"- path: /dev/nvidia{i}\n" for i in range(8)) + \
    "- path: /dev/nvidiactl\n- path: /dev/nvidia-uvm\n"


def interfaces(*networks: str) -> str:
    return "[\n" + ",\n".join(f'    {{"interfaceName":"eth{i}","network":"{n}"}}'
                              for i, n in enumerate(networks)) + "\n]"


# XPK tcpx_decorator.py:58-183; CEA nccl-config.yaml for the NCCL_* values
TCPX: dict[str, Any] = {
    "annotations": {"devices.gke.io/container.tcpx-daemon": NVIDIA,
                    "networking.gke.io/default-interface": "eth0",
                    "networking.gke.io/interfaces": interfaces("default", "vpc1", "vpc2", "vpc3",
                                                               "vpc4")},
    "volumes": [{"name": "libraries", "hostPath": {"path": "/home/kubernetes/bin/nvidia/lib64"}},
                {"name": "sys", "hostPath": {"path": "/sys"}},
                {"name": "proc-sys", "hostPath": {"path": "/proc/sys"}},
                {"name": "tcpx-socket", "hostPath": {"path": "/run/tcpx"}},
                {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "128Gi"}}],
    "daemon": {"name": "tcpx-daemon",
               "image": "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.11",
               "imagePullPolicy": "Always", "restartPolicy": "Always",
               "command": ["/tcpgpudmarxd/build/app/tcpgpudmarxd", "--gpu_nic_preset", "a3vm",
                           "--gpu_shmem_type", "fd", "--uds_path", "/run/tcpx", "--setup_param",
                           '"--verbose 128 2 0 "'],
               "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}},
               "volumeMounts": [{"name": "libraries", "mountPath": "/usr/local/nvidia/lib64"},
                                {"name": "tcpx-socket", "mountPath": "/run/tcpx"},
                                {"name": "sys", "mountPath": "/hostsysfs"},
                                {"name": "proc-sys", "mountPath": "/hostprocsysfs"}],
               "env": [LD]},
    "mounts": [{"name": "tcpx-socket", "mountPath": "/tmp"},
               {"name": "libraries", "mountPath": "/usr/local/nvidia/lib64"},
               {"name": "dshm", "mountPath": "/dev/shm"}],
    "env": {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64", "NCCL_SOCKET_IFNAME": "eth0",
            "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME": "eth1,eth2,eth3,eth4",
            "NCCL_GPUDIRECTTCPX_CTRL_DEV": "eth0",
            "NCCL_GPUDIRECTTCPX_TX_BINDINGS": "eth1:8-21,112-125;eth2:8-21,112-125;"
                                              "eth3:60-73,164-177;eth4:60-73,164-177",
            "NCCL_GPUDIRECTTCPX_RX_BINDINGS": "eth1:22-35,126-139;eth2:22-35,126-139;"
                                              "eth3:74-87,178-191;eth4:74-87,178-191",
            "NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS": "500000",
            "NCCL_CROSS_NIC": "0", "NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple",
            "NCCL_NET_GDR_LEVEL": "PIX", "NCCL_P2P_PXN_LEVEL": "0",
            "NCCL_DYNAMIC_CHUNK_SIZE": "524288", "NCCL_P2P_NET_CHUNKSIZE": "524288",
            "NCCL_P2P_PCI_CHUNKSIZE": "524288", "NCCL_P2P_NVL_CHUNKSIZE": "1048576",
            "NCCL_NSOCKS_PERTHREAD": "4", "NCCL_SOCKET_NTHREADS": "1",
            "NCCL_BUFFSIZE": "4194304"},
    "tolerations": [GPU_TOL, XPK_TOL],
}
# XPK tcpxo_decorator.py:65-183 (interfaces as REC a3mega writes them: eth1..eth8 -> vpc1..vpc8);
# /dev/shm 250Gi and the impending-node-termination toleration: REC a3mega :128-157
TCPXO: dict[str, Any] = {
    "annotations": {"devices.gke.io/container.tcpxo-daemon":
                    NVIDIA + "- path: /dev/dmabuf_import_helper\n",
                    "networking.gke.io/default-interface": "eth0",
                    "networking.gke.io/interfaces": interfaces(
                        "default", *(f"vpc{i}" for i in range(1, 9)))},
    "volumes": [{"name": "libraries", "hostPath": {"path": "/home/kubernetes/bin/nvidia"}},
                {"name": "sys", "hostPath": {"path": "/sys"}},
                {"name": "proc-sys", "hostPath": {"path": "/proc/sys"}},
                {"name": "aperture-devices", "hostPath": {"path": "/dev/aperture_devices"}},
                {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "250Gi"}}],
    "daemon": {"name": "tcpxo-daemon",
               "image": "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.12",
               "imagePullPolicy": "Always", "restartPolicy": "Always",
               "command": ["/bin/sh", "-c"],
               "args": ["set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n"
                        "/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics=8 --uid= "
                        "--alsologtostderr"],
               "securityContext": {"capabilities": {"add": ["NET_ADMIN", "NET_BIND_SERVICE"]}},
               "volumeMounts": [{"name": "libraries", "mountPath": "/usr/local/nvidia"},
                                {"name": "sys", "mountPath": "/hostsysfs"},
                                {"name": "proc-sys", "mountPath": "/hostprocsysfs"}],
               "env": [LD]},
    "mounts": [{"name": "aperture-devices", "mountPath": "/dev/aperture_devices"},
               {"name": "libraries", "mountPath": "/usr/local/nvidia"},
               {"name": "dshm", "mountPath": "/dev/shm"}],
    "env": {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64",
            "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY": "/dev/aperture_devices"},
    "tolerations": [GPU_TOL, TERM_TOL, XPK_TOL],
}


def rdma(nics: int, image: str, shm: str, exports: str) -> dict[str, Any]:
    """REC's RDMA (gIB) pod: a3ultra :68-330, a4 :65-327, A4X workload-job.yaml :79-330."""
    return {
        "annotations": {"networking.gke.io/default-interface": "eth0",
                        "networking.gke.io/interfaces": interfaces(
                            "default", "gvnic-1", *(f"rdma-{i}" for i in range(nics)))},
        "volumes": [{"name": "gib", "emptyDir": {}},
                    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": shm}}],
        "daemon": {"name": "nccl-plugin-installer", "image": image, "imagePullPolicy": "Always",
                   "args": ["set -ex\n/scripts/container_entry.sh install --install-nccl\n"
                            "cp -R /var/lib/gib/lib64/. /target/usr/local/gib/lib64\n"
                            "cp -R /var/lib/gib/. /target/usr/local/gib\n"],
                   "command": ["/bin/sh", "-c"],
                   "volumeMounts": [{"mountPath": "/target/usr/local/gib", "name": "gib"}]},
        "mounts": [{"name": "gib", "mountPath": "/usr/local/gib"},
                   {"name": "dshm", "mountPath": "/dev/shm"}],
        "env": {"NCCL_PLUGIN_PATH": "/usr/local/gib/lib64",
                "NCCL_INIT_SCRIPT": "/usr/local/gib/scripts/set_nccl_env.sh"},
        "tolerations": [GPU_TOL, TERM_TOL],
        # the recipes' command: source the init script, then export what overrides it
        "prelude": 'if [ -n "${NCCL_INIT_SCRIPT}" ]; then source "${NCCL_INIT_SCRIPT}"; fi; '
                   f'{exports}exec "$@"'}


GIB = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/"
A4_EXPORTS = ("export NCCL_SOCKET_IFNAME=eth0,eth1; export NCCL_TUNER_CONFIG_PATH="
              "/usr/local/gib/configs/tuner_config_{}.txtpb; ")
MACHINES = {
    "a3-highgpu-8g": TCPX,
    "a3-megagpu-8g": TCPXO,
    "a3-ultragpu-8g": rdma(8, GIB + "nccl-plugin-gib:v1.1.0", "500Gi", ""),
    "a4-highgpu-8g": rdma(8, GIB + "nccl-plugin-gib:v1.1.0", "250Gi", A4_EXPORTS.format("a4")),
    "a4x-highgpu-4g": {**rdma(4, GIB + "nccl-plugin-gib-arm64:v1.1.0", "250Gi",
                              A4_EXPORTS.format("a3u")),
                       "tolerations": [GPU_TOL, TERM_TOL, ARM_TOL]},
}

CONFIG = """\
jobId: gd_run
trainingInput:
  scaleTier: CUSTOM
  masterType: {machine}
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    containerCommand: [torchrun, train.py]
  workerType: {machine}
  workerCount: {workers}
"""


def dry_run(cli, path: str, *args: str) -> tuple[dict[str, Any], str]:
    result = cli("submit", path, "--service", "gke", "--dry-run", *args)
    assert result.code == 0, result.err
    return list(yaml.safe_load_all(result.out))[-1], result.err  # (a ComputeDomain first)


def pod_of(body: dict[str, Any], rjob: str = "master") -> dict[str, Any]:
    return next(r["template"]["spec"]["template"] for r in body["spec"]["replicatedJobs"]
                if r["name"] == rjob)


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_a_multi_node_job_carries_its_machines_gpudirect_key_for_key(cli, write, machine):
    want = MACHINES[machine]
    body, err = dry_run(cli, write(CONFIG.format(machine=machine, workers=1)))
    for rjob in ("master", "worker"):
        pod = pod_of(body, rjob)
        spec, container = pod["spec"], pod["spec"]["containers"][0]
        for key, value in want["annotations"].items():
            assert pod["metadata"]["annotations"][key] == value, key
        assert spec["volumes"] == want["volumes"]
        assert spec["initContainers"] == [want["daemon"]]
        assert container["volumeMounts"] == want["mounts"]
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert {k: env.get(k) for k in want["env"]} == want["env"]
        assert spec["tolerations"] == want["tolerations"]
        if "prelude" in want:  # the recipes' launch: the init script, then the command
            assert container["command"] == ["bash", "-c", want["prelude"], "bash", "torchrun",
                                            "train.py"]
        else:
            assert container["command"] == ["torchrun", "train.py"]
    assert "is on (--gpudirect auto: 2 " + machine + " nodes)" in err
    assert crd.problems(body) == []


def test_a4x_pods_select_and_tolerate_arm_and_say_the_image_must_be_arm(cli, write):
    body, err = dry_run(cli, write(CONFIG.format(machine="a4x-highgpu-4g", workers=0)))
    spec = pod_of(body)["spec"]
    assert spec["nodeSelector"]["kubernetes.io/arch"] == "arm64"
    assert ARM_TOL in spec["tolerations"]
    assert "a4x-highgpu-4g nodes are Arm" in err and "linux/arm64" in err
    # one node: no GPUDirect, and the note says why
    assert "initContainers" not in spec and "metadata" not in pod_of(body)
    assert "GPUDirect-RDMA (gIB) is off (--gpudirect auto: one a4x-highgpu-4g node" in err


def test_every_gpu_pod_gets_a_memory_backed_dev_shm(cli, write):
    """T4 pods: Memory with no size, as xpk gives other GPUs (docker_resources.get_volumes);
    a parameter server without GPUs gets none."""
    text = CONFIG.format(machine="n1-standard-8", workers=1).replace(
        "    containerCommand: [torchrun, train.py]\n",
        "    acceleratorConfig: {count: 2, type: NVIDIA_TESLA_T4}\n") + \
        "  workerConfig:\n    acceleratorConfig: {count: 2, type: NVIDIA_TESLA_T4}\n" \
        "  parameterServerType: n1-standard-4\n  parameterServerCount: 1\n"
    body, err = dry_run(cli, write(text))
    for rjob in ("master", "worker"):
        spec = pod_of(body, rjob)["spec"]
        assert spec["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
        assert spec["containers"][0]["volumeMounts"] == [{"name": "dshm",
                                                          "mountPath": "/dev/shm"}]
    assert "volumes" not in pod_of(body, "ps")["spec"]
    assert "GPUDirect" not in err
    assert crd.problems(body) == []


def test_without_gpudirect_a_multi_node_job_is_warned_of_what_it_costs(cli, write):
    body, err = dry_run(cli, write(CONFIG.format(machine="a3-megagpu-8g", workers=3)),
                        "--gpudirect", "off")
    assert "warning: 4 a3-megagpu-8g nodes without GPUDirect-TCPXO: the GPUs of different " \
           "nodes talk over each pod's one network interface instead of the machine's 8 GPU " \
           "NICs" in err
    assert "hint: --gpudirect auto (or on) adds it; the cluster needs the networks " \
           "vpc1..vpc8" in err
    pod = pod_of(body)
    assert "initContainers" not in pod["spec"] and "metadata" not in pod
    # /dev/shm stays: it is the machine's, not GPUDirect's
    assert pod["spec"]["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory",
                                                                    "sizeLimit": "250Gi"}}]


def test_gpudirect_on_for_one_node_and_for_a_machine_without_gpu_nics(cli, write):
    body, err = dry_run(cli, write(CONFIG.format(machine="a3-highgpu-8g", workers=0)),
                        "--gpudirect", "on")
    assert pod_of(body)["spec"]["initContainers"][0]["name"] == "tcpx-daemon"
    assert "GPUDirect-TCPX is on (--gpudirect on)" in err
    text = CONFIG.format(machine="n1-standard-8", workers=1)
    _, err = dry_run(cli, write(text), "--gpudirect", "on")
    assert "warning: --gpudirect on: n1-standard-8 has no GPUDirect (no GPU NICs)" in err


def test_gpudirect_takes_auto_on_or_off(cli, write):
    result = cli("submit", write(CONFIG.format(machine="a4-highgpu-8g", workers=1)),
                 "--service", "gke", "--dry-run", "--gpudirect", "fast")
    assert result.code == 2
    assert "--gpudirect fast: is not one of auto, on, off" in result.err


def test_an_image_entrypoint_on_rdma_is_warned_that_nccls_script_is_not_sourced(cli, write):
    text = CONFIG.format(machine="a4-highgpu-8g", workers=1).replace(
        "    containerCommand: [torchrun, train.py]\n", "")
    body, err = dry_run(cli, write(text))
    container = pod_of(body)["spec"]["containers"][0]
    assert "command" not in container
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["NCCL_SOCKET_IFNAME"] == "eth0,eth1"
    assert "warning: the master runs its image's entrypoint: gpujob cannot source " \
           "$NCCL_INIT_SCRIPT" in err
