"""``--gpudirect auto`` decided by the cluster's networks (GKE multi-networking's cluster-scoped
``Network`` and ``GKENetworkParamSet`` objects, ``networking.gke.io/v1``; the names the recipes
and xpk attach: GKE-RUNS.md §7): a submit to the fake cluster on 127.0.0.1 sends the JobSet with
the machine's GPUDirect when the cluster has every network, without it (exactly the
``--gpudirect off`` JobSet) and a warning when it has not; a dry run, which reads no cluster,
says what auto assumed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import crd
import pytest
import yaml
from fakes import kube_cluster
from fakes.faults import Reply
from fakes.kubernetes import FakeKubernetes, refusals, status
from gke_cluster import connect

CONFIG = """\
jobId: gd_run
trainingInput:
  scaleTier: CUSTOM
  masterType: {machine}
  masterConfig:
    imageUri: us-docker.pkg.dev/p/r/trainer:1
    containerCommand: [torchrun, train.py]
  workerType: {machine}
  workerCount: 1
"""
MEGA = [f"vpc{i}" for i in range(1, 9)]
A4 = ["gvnic-1", *(f"rdma-{i}" for i in range(8))]
SUBMISSION = "gpujob-submission"


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubernetes]:
    with FakeKubernetes() as fake:
        connect(fake, tmp_path, monkeypatch)
        yield fake


def submit(cli, write, machine: str, *flags: str):
    return cli("submit", write(CONFIG.format(machine=machine)), "--service", "gke", *flags)


def unlabelled(body: dict[str, Any]) -> dict[str, Any]:
    body["metadata"]["labels"].pop(SUBMISSION, None)
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation"):
        body["metadata"].pop(key, None)
    body.pop("status", None)
    return body


def interfaces(body: dict[str, Any]) -> list[str | None]:
    return [((r["template"]["spec"]["template"].get("metadata") or {}).get("annotations")
             or {}).get("networking.gke.io/interfaces") for r in body["spec"]["replicatedJobs"]]


@pytest.mark.parametrize(("machine", "nets", "name"), [
    ("a3-megagpu-8g", MEGA, "GPUDirect-TCPXO"),
    ("a4-highgpu-8g", A4, "GPUDirect-RDMA (gIB)")])
def test_a_cluster_with_the_networks_gets_gpudirect_and_is_told_so(cluster, cli, write, machine,
                                                                   nets, name):
    for net in nets:
        kube_cluster.network(cluster, net)
    result = submit(cli, write, machine)
    assert result.code == 0, result.err
    sent = cluster.received[-1]
    assert all(interfaces(sent)), "GPUDirect's interfaces are in every pod"
    shown = f"{nets[0]}..{nets[-1]}"
    assert (f"note: --gpudirect auto: the cluster has the networks {shown} (a Network and a "
            f"GKENetworkParamSet each): {name} is on for the 2 {machine} nodes") in result.err
    for net in nets:
        assert cluster.route_calls("GET", f"/networking.gke.io/v1/networks/{net}")
        assert cluster.route_calls("GET", f"/networking.gke.io/v1/gkenetworkparamsets/{net}")
    assert refusals(sent) == [] and crd.problems(unlabelled(sent)) == []


@pytest.mark.parametrize("arrange", ["no multi-networking", "one network short",
                                     "a network without its params"])
def test_a_cluster_without_the_networks_gets_the_gpudirect_off_jobset_and_a_warning(
        cluster, cli, write, arrange):
    if arrange == "one network short":
        for net in MEGA[:-1]:
            kube_cluster.network(cluster, net)
    elif arrange == "a network without its params":
        for net in MEGA:
            kube_cluster.network(cluster, net, params=net != "vpc3")
    result = submit(cli, write, "a3-megagpu-8g")
    assert result.code == 0, result.err
    sent = unlabelled(cluster.received[-1])
    off = cli("submit", write(CONFIG.format(machine="a3-megagpu-8g")), "--service", "gke",
              "--dry-run", "--gpudirect", "off")
    assert off.code == 0, off.err
    assert sent == unlabelled(yaml.safe_load(off.out)), "what --gpudirect off sends"
    assert interfaces(sent) == [None, None]
    lacking = {"no multi-networking": "vpc1..vpc8", "one network short": "vpc8",
               "a network without its params": "vpc3"}[arrange]
    assert (f"warning: --gpudirect auto: the cluster lacks the networks {lacking} (a Network "
            "and a GKENetworkParamSet each): the JobSet goes without GPUDirect-TCPXO, so its "
            "2 a3-megagpu-8g nodes talk over one network interface each instead of their 8 GPU "
            "NICs") in result.err
    assert ("  hint: create a Network and a GKENetworkParamSet for each of vpc1..vpc8 (gpujob "
            "preflight --service gke says how; multi-networking must be on) and submit again; "
            "--gpudirect on sends GPUDirect without looking") in result.err
    assert crd.problems(sent) == []


def test_gpudirect_on_and_off_read_no_networks(cluster, cli, write):
    for mode, attached in (("on", True), ("off", False)):
        result = submit(cli, write, "a3-megagpu-8g", "--gpudirect", mode)
        assert result.code == 0, result.err
        assert all(interfaces(cluster.received[-1])) is attached
        assert "--gpudirect auto:" not in result.err
        cluster.jobsets.clear()
    assert not cluster.route_calls("GET", "networking.gke.io")


def off_body(cli, write) -> dict[str, Any]:
    """The JobSet ``--gpudirect off`` sends (its dry run's)."""
    off = cli("submit", write(CONFIG.format(machine="a3-megagpu-8g")), "--service", "gke",
              "--dry-run", "--gpudirect", "off")
    assert off.code == 0, off.err
    return unlabelled(yaml.safe_load(off.out))


def submit_off_after_a_failed_read(cluster, cli, write, networks: list[str], path: str,
                                   reply: Reply) -> Any:
    """A submit of an A3 Mega job to a cluster with ``networks``, whose read of ``path`` gets
    ``reply``: it succeeds with the JobSet --gpudirect off sends; its result."""
    for net in networks:
        kube_cluster.network(cluster, net)
    cluster.inject(f"GET /apis/networking.gke.io/v1/{path}", reply)
    result = submit(cli, write, "a3-megagpu-8g")
    assert result.code == 0, result.err
    assert unlabelled(cluster.received[-1]) == off_body(cli, write)
    return result


def test_networks_the_user_may_not_read_get_the_gpudirect_off_jobset_and_a_warning(
        cluster, cli, write):
    """Unknown is not "has": pods naming networks the cluster may lack would never start."""
    result = submit_off_after_a_failed_read(
        cluster, cli, write, MEGA, "networks/vpc1",
        Reply(403, status(403, "Forbidden", "networks is forbidden")))
    assert ("warning: --gpudirect auto: the cluster's networks vpc1..vpc8 could not be read "
            "(403 Forbidden: the kubeconfig's user may not read them): the JobSet goes without "
            "GPUDirect-TCPXO, as pods attached to networks the cluster may lack would never "
            "start; so its 2 a3-megagpu-8g nodes talk over one network interface each") \
        in " ".join(result.err.split())
    assert ("  hint: grant the kubeconfig's user get on networks and gkenetworkparamsets "
            "(networking.gke.io, cluster-scoped: a ClusterRole and its ClusterRoleBinding), or "
            "pass --gpudirect on to send GPUDirect without looking") in result.err
    assert "is on for the" not in result.err


def test_a_network_known_missing_is_said_though_a_later_read_is_refused(cluster, cli, write):
    """vpc1 is missing and vpc2's GKENetworkParamSet may not be read: what is known missing is
    still missing (the JobSet goes without GPUDirect, naming vpc1)."""
    result = submit_off_after_a_failed_read(
        cluster, cli, write, MEGA[1:], "gkenetworkparamsets/vpc2",
        Reply(403, status(403, "Forbidden", "gkenetworkparamsets is forbidden")))
    assert ("warning: --gpudirect auto: the cluster lacks the networks vpc1 (a Network and a "
            "GKENetworkParamSet each): the JobSet goes without GPUDirect-TCPXO") in result.err
    assert "could not be read" not in result.err


def test_networks_whose_read_fails_get_the_gpudirect_off_jobset(cluster, cli, write):
    result = submit_off_after_a_failed_read(
        cluster, cli, write, MEGA, "networks/vpc1",
        Reply(400, status(400, "BadRequest", "the server rejected our request")))
    assert ("warning: --gpudirect auto: the cluster's networks vpc1..vpc8 could not be read "
            "(read /apis/networking.gke.io/v1/networks/vpc1: the server rejected our request "
            "(400 Bad Request))") in " ".join(result.err.split())
    assert "hint: submit again, or pass --gpudirect on to send GPUDirect without looking" in \
        result.err


def test_preflight_reads_the_networks_as_the_submit_does(cluster, cli, write):
    """One reader: the same gap (vpc1) and the same unread network (vpc2) in a preflight."""
    for net in MEGA[1:]:
        kube_cluster.network(cluster, net)
    cluster.inject("GET /apis/networking.gke.io/v1/gkenetworkparamsets/vpc2",
                   Reply(403, status(403, "Forbidden", "gkenetworkparamsets is forbidden")))
    result = cli("preflight", write(CONFIG.format(machine="a3-megagpu-8g")), "--service",
                 "gke", "--gpudirect", "on")
    assert [line for line in result.out.splitlines() if "GPUDirect" in line] == [
        "missing: GPUDirect network vpc1: no Network vpc1 (networking.gke.io/v1), which the "
        "a3-megagpu-8g pods' eth1 attaches to; fix: create Network vpc1 (spec.type: Device, "
        "spec.parametersRef: GKENetworkParamSet vpc1) and GKENetworkParamSet vpc1 (spec.vpc "
        "and spec.vpcSubnet: its VPC and subnet, spec.deviceMode: NetDevice)"]
    assert ("note: not checked: /apis/networking.gke.io/v1/gkenetworkparamsets/vpc2 (403 "
            "Forbidden") in result.err


def test_preflight_says_what_auto_does_where_the_networks_cannot_be_read(cluster, cli, write):
    for net in MEGA:
        kube_cluster.network(cluster, net)
    cluster.inject("GET /apis/networking.gke.io/v1/networks/vpc1",
                   Reply(403, status(403, "Forbidden", "networks is forbidden")))
    result = cli("preflight", write(CONFIG.format(machine="a3-megagpu-8g")), "--service",
                 "gke")
    assert "GPUDirect" not in result.out
    assert ("note: --gpudirect auto: while the networks cannot be read, a submit sends the "
            "JobSet without GPUDirect-TCPXO (slower between nodes); grant the kubeconfig's user "
            "get on networks and gkenetworkparamsets") in result.err


def test_a_check_translates_the_job_once(cli, write, monkeypatch):
    """The --gpudirect off JobSet auto may send is translated when a submit needs it, not on
    every validate (and check)."""
    from gpujob.services.gke import translate

    calls = []
    original = translate.translate

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(translate, "translate", counted)
    result = cli("validate", write(CONFIG.format(machine="a3-megagpu-8g")), "--service",
                 "gke")
    assert result.code == 0, result.err
    assert "GPUDirect-TCPXO is on (--gpudirect auto" in result.out
    assert len(calls) == 1


def test_a_dry_run_says_what_auto_assumed_without_a_cluster(cli, write):
    result = cli("submit", write(CONFIG.format(machine="a3-megagpu-8g")), "--service", "gke",
                 "--dry-run")
    assert result.code == 0, result.err
    assert all(interfaces(yaml.safe_load(result.out)))
    assert ("GPUDirect-TCPXO is on (--gpudirect auto: 2 a3-megagpu-8g nodes): each "
            "a3-megagpu-8g pod gets its 8 GPU NICs (the cluster's networks vpc1..vpc8) and a "
            "tcpxo-daemon sidecar; auto assumed the cluster has those networks, as no cluster "
            "is read before a submit [gke.gpudirect]") in result.err
    assert ("hint: submit reads the cluster's Network and GKENetworkParamSet objects and sends "
            "the JobSet without GPUDirect, with a warning, where they are missing") in result.err
