"""NVLink across nodes for a multi-node GB200 job (``a4x-highgpu-4g``) as Google's A4X recipe
writes it (AI-Hypercomputer/gpu-recipes@2e1fd5efbf1af9c08f8ac50b9d7fef2cfa675b68
training/a4x/llama3_70b/nemo-gke/nemo2507/64gpus-bf16-gbs2048/recipe/templates/workload-job.yaml:
lines 22-30 the ComputeDomain, 214-216 the pod's resourceClaims, 351-355 the container's
resources.claims): the dry run prints the ComputeDomain before the JobSet, a submit to the fake
cluster makes it after the JobSet, owned by it, and nothing at all where the cluster lacks
NVIDIA's DRA driver. The expected values are written out here from that file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import crd
import pytest
import yaml
from fakes import kube_cluster
from fakes.kubernetes import FakeKubernetes
from gke_cluster import connect

CONFIG = """\
jobId: gb_run
trainingInput:
  scaleTier: CUSTOM
  masterType: a4x-highgpu-4g
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    containerCommand: [torchrun, train.py]
  workerType: a4x-highgpu-4g
  workerCount: {workers}
"""
DOMAIN = "/apis/resource.nvidia.com/v1beta1/namespaces/default/computedomains/gb-run"


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        connect(fake, tmp_path, monkeypatch)
        yield fake


def pods_of(jobset):
    return [r["template"]["spec"]["template"]["spec"] for r in jobset["spec"]["replicatedJobs"]]


def test_a_multi_node_gb200_job_claims_a_compute_domain_printed_before_the_jobset(cli, write):
    result = cli("submit", write(CONFIG.format(workers=2)), "--service", "gke", "--dry-run",
                 "--gpudirect", "off")
    assert result.code == 0, result.err
    domain, jobset = yaml.safe_load_all(result.out)
    assert domain == {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
                      "metadata": {"name": "gb-run", "namespace": "default"},
                      "spec": {"numNodes": 3,
                               "channel": {"resourceClaimTemplate": {"name": "gb-run"}}}}
    for pod in pods_of(jobset):
        assert pod["resourceClaims"] == [{"name": "compute-domain-channel",
                                          "resourceClaimTemplateName": "gb-run"}]
        resources = pod["containers"][0]["resources"]
        assert resources["claims"] == [{"name": "compute-domain-channel"}]
        assert resources["limits"] == {"nvidia.com/gpu": "4"}
    assert crd.problems(jobset) == []
    assert "Dry run: would also create ComputeDomain gb-run (printed before the JobSet; " \
        "nothing sent)" in result.err
    assert "NVLink across the 3 a4x-highgpu-4g nodes: a ComputeDomain " \
        "(resource.nvidia.com/v1beta1) of as many nodes is made with the JobSet" \
        in " ".join(result.err.split())


def test_one_gb200_node_needs_no_compute_domain(cli, write):
    result = cli("submit", write(CONFIG.format(workers=0)), "--service", "gke", "--dry-run")
    assert result.code == 0, result.err
    (jobset,) = yaml.safe_load_all(result.out)
    assert "resourceClaims" not in pods_of(jobset)[0]
    assert "ComputeDomain" not in result.err


def test_convert_writes_both_objects_for_kubectl_apply(cli, write, tmp_path):
    out = tmp_path / "gb.yaml"
    result = cli("convert", write(CONFIG.format(workers=1)), "--to", "gke", "-o",
                 str(out))
    assert result.code == 0, result.err
    kinds = [d["kind"] for d in yaml.safe_load_all(out.read_text())]
    assert kinds == ["ComputeDomain", "JobSet"]


def test_a_submit_makes_the_compute_domain_owned_by_the_jobset(cluster, cli, write):
    kube_cluster.dra_driver(cluster)
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 0, result.err
    jobset = cluster.jobsets[("default", "gb-run")]
    made = cluster.objects[DOMAIN]
    assert made["spec"] == {"numNodes": 2,
                            "channel": {"resourceClaimTemplate": {"name": "gb-run"}}}
    assert made["metadata"]["ownerReferences"] == [{
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "gb-run",
        "uid": jobset["metadata"]["uid"], "blockOwnerDeletion": True}]
    posts = [c.path.rsplit("/", 1)[-1] for c in cluster.calls if c.method == "POST"]
    assert posts == ["jobsets", "computedomains"]


def test_a_cluster_without_the_dra_driver_gets_nothing(cluster, cli, write):
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    assert ("the cluster does not serve resource.nvidia.com/v1beta1: the ComputeDomain that "
            "gives the pods of JobSet gb-run NVLink across nodes cannot be made (NVIDIA's DRA "
            "driver for GPUs is not installed); nothing was created") in \
        " ".join(result.err.split())
    assert not cluster.jobsets and not cluster.route_calls("POST", "")


def test_preflight_says_the_dra_driver_is_missing(cluster, cli, write):
    kube_cluster.jobset(cluster)
    for i in range(2):
        kube_cluster.node(cluster, f"gb-{i}", "a4x-highgpu-4g", "nvidia-gb200", 4)
        cluster.nodes[-1]["metadata"]["labels"]["kubernetes.io/arch"] = "arm64"
    result = cli("preflight", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 1
    assert result.out.splitlines() == [
        "missing: ComputeDomain: the cluster does not serve resource.nvidia.com/v1beta1 "
        "(NVIDIA's DRA driver for GPUs), so the pods' NVLink across nodes cannot be made; fix: "
        "install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD, "
        "https://github.com/NVIDIA/k8s-dra-driver-gpu) on the cluster, or submit the job on "
        "one a4x-highgpu-4g node"]
    kube_cluster.dra_driver(cluster)
    assert cli("preflight", write(CONFIG.format(workers=1)), "--service", "gke",
               "--gpudirect", "off").code == 0
