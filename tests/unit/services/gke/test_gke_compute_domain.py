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
from fakes.faults import Reply
from fakes.kubernetes import FakeKubernetes, status
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
    # no blockOwnerDeletion: it would take rights on jobsets/finalizers (domains.owned)
    assert made["metadata"]["ownerReferences"] == [{
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "gb-run",
        "uid": jobset["metadata"]["uid"]}]
    posts = [(c.path.rsplit("/", 1)[-1], c.query) for c in cluster.calls if c.method == "POST"]
    assert posts == [("computedomains", {"dryRun": ["All"]}), ("jobsets", {}),
                     ("computedomains", {})]
    dry = cluster.route_calls("POST", "computedomains")[0].body
    assert "ownerReferences" not in dry["metadata"], "checked before its owner exists"
    assert len(cluster.objects) == 1, "the dry run stored nothing"


def test_a_cluster_without_the_dra_driver_gets_nothing(cluster, cli, write):
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    assert ("the cluster does not serve resource.nvidia.com/v1beta1 (NVIDIA's DRA driver for "
            "GPUs is not installed), so the ComputeDomain that gives the pods NVLink across "
            "nodes cannot be made; nothing was created") in " ".join(result.err.split())
    assert "hint: install NVIDIA's DRA driver for GPUs" in result.err
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
        "(NVIDIA's DRA driver for GPUs is not installed), so the ComputeDomain that gives the "
        "pods NVLink across nodes cannot be made; fix: "
        "install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD, "
        "https://github.com/NVIDIA/k8s-dra-driver-gpu) on the cluster, or submit the job on "
        "one a4x-highgpu-4g node"]
    kube_cluster.dra_driver(cluster)
    assert cli("preflight", write(CONFIG.format(workers=1)), "--service", "gke",
               "--gpudirect", "off").code == 0


def forbidden(what: str) -> Reply:
    return Reply(403, status(403, "Forbidden", f'{what} is forbidden: User "alice" cannot '
                             f'create resource "{what}" in API group'))


def test_a_refused_compute_domain_sends_no_jobset_and_names_the_right_fix(cluster, cli, write):
    """A 403 (RBAC) is found by the dry run before the JobSet: nothing is created, and the fix
    is the rights, not NVIDIA's driver (which is installed)."""
    kube_cluster.dra_driver(cluster)
    cluster.inject("POST computedomains dryRun", forbidden("computedomains"))
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    err = " ".join(result.err.split())
    assert ("checking ComputeDomain gb-run in namespace default (a dry-run create, before the "
            "JobSet): computedomains is forbidden") in err
    assert "(403 Forbidden); nothing was created" in err
    assert ("hint: ask the cluster's admin for RBAC rights to create "
            "computedomains.resource.nvidia.com in namespace default") in err
    assert "install NVIDIA's DRA driver" not in err
    assert not cluster.jobsets and not cluster.route_calls("POST", "jobsets")


def test_a_compute_domain_of_the_name_already_there_sends_no_jobset(cluster, cli, write):
    kube_cluster.dra_driver(cluster)
    cluster.objects[DOMAIN] = {"apiVersion": "resource.nvidia.com/v1beta1",
                               "kind": "ComputeDomain",
                               "metadata": {"name": "gb-run", "namespace": "default"},
                               "spec": {"numNodes": 2}}
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    err = " ".join(result.err.split())
    assert ("a ComputeDomain named gb-run already exists in namespace default (409 "
            "AlreadyExists); nothing was created") in err
    assert ("hint: delete it (kubectl delete computedomain gb-run -n default), or give "
            "another --job-id") in err
    assert "install NVIDIA's DRA driver" not in err and not cluster.jobsets


def test_a_webhook_refusal_of_the_compute_domain_sends_no_jobset(cluster, cli, write):
    kube_cluster.dra_driver(cluster)
    cluster.inject("POST computedomains dryRun", Reply(400, status(
        400, "BadRequest", 'admission webhook "computedomain.nvidia.com" denied the request: '
        "numNodes exceeds the cluster's limit")))
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    assert ("denied the request: numNodes exceeds the cluster's limit (400 BadRequest); nothing "
            "was created") in " ".join(result.err.split())
    assert "install NVIDIA's DRA driver" not in result.err and not cluster.jobsets


def test_a_webhook_that_takes_no_dry_run_leaves_the_create_to_tell(cluster, cli, write):
    kube_cluster.dra_driver(cluster)
    cluster.inject("POST computedomains dryRun", Reply(400, status(
        400, "BadRequest", 'admission webhook "computedomain.nvidia.com" does not support dry '
        "run")))
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 0, result.err
    assert "a webhook of the cluster takes no dry run; the create after the JobSet tells" in \
        " ".join(result.err.split())
    assert ("default", "gb-run") in cluster.jobsets and DOMAIN in cluster.objects


def test_a_compute_domain_refused_after_the_jobset_takes_the_jobset_with_it(cluster, cli,
                                                                            write):
    """The dry run passed, the create is refused: the JobSet just made is deleted, not left
    with pods waiting for a claim for ever."""
    kube_cluster.dra_driver(cluster)
    cluster.inject("POST computedomains", forbidden("computedomains"))
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    err = " ".join(result.err.split())
    assert ("JobSet gb-run was created, but its ComputeDomain was not: creating ComputeDomain "
            "gb-run in namespace default: computedomains is forbidden") in err
    assert ("(403 Forbidden); the JobSet was deleted again (its pods would have waited for the "
            "ComputeDomain for ever): nothing is left") in err
    assert "hint: ask the cluster's admin for RBAC rights to create computedomains" in err
    assert "install NVIDIA's DRA driver" not in err
    assert not cluster.jobsets and DOMAIN not in cluster.objects
    (delete,) = cluster.route_calls("DELETE", "jobsets/gb-run")
    assert delete.query["propagationPolicy"] == ["Background"]


def test_a_jobset_that_cannot_be_deleted_either_is_said_with_its_cancel(cluster, cli, write):
    kube_cluster.dra_driver(cluster)
    cluster.inject("POST computedomains", forbidden("computedomains"))
    cluster.inject("DELETE jobset", forbidden("jobsets"))
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 3
    err = " ".join(result.err.split())
    assert "deleting the JobSet failed too (deleting JobSet gb-run: jobsets is forbidden" in err
    assert "its pods wait for the ComputeDomain" in err
    assert "hint: gpujob cancel gb-run --service gke --context " in err
    assert ("default", "gb-run") in cluster.jobsets


def test_a_compute_domain_whose_answer_was_lost_is_kept_as_the_jobsets(cluster, cli, write):
    """Made, its answer lost, sent again: the 409's ComputeDomain is this JobSet's (its owner
    reference), so the submit goes on."""
    from fakes.faults import Drop

    kube_cluster.dra_driver(cluster)
    cluster.inject("POST computedomains", Drop(after=True))
    result = cli("submit", write(CONFIG.format(workers=1)), "--service", "gke",
                 "--gpudirect", "off")
    assert result.code == 0, result.err
    assert len(cluster.route_calls("POST", "computedomains")) == 3  # the dry run, 2 creates
    owner = cluster.objects[DOMAIN]["metadata"]["ownerReferences"][0]
    assert owner["uid"] == cluster.jobsets[("default", "gb-run")]["metadata"]["uid"]
