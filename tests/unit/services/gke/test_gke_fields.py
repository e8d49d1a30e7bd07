"""Nothing the user wrote is lost on ``--service gke``: every field of the AI Platform job schema
and of the native Vertex schemas is carried into the JobSet or named in a note (or refused with
an error), as ``gpujob.services.gke.fields`` says; a native config's env, strategy and timeout
reach the JobSet, and what has no meaning on GKE is noted at its line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from gpujob.services.gke import fields

SCHEMAS = Path(__file__).resolve().parents[4] / "schemas"


def walk(node: dict[str, Any], root: dict[str, Any], path: str = "",
         seen: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every field path the schema declares (``a.b[].c``), through $refs and combinators."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        if ref in seen:
            return
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        yield from walk({**target, **{k: v for k, v in node.items() if k != "$ref"}}, root,
                        path, seen | {ref})
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key) or []:
            yield from walk(sub, root, path, seen)
    if isinstance(node.get("items"), dict):
        yield from walk(node["items"], root, f"{path}[]", seen)
    for key, sub in (node.get("properties") or {}).items():
        here = f"{path}.{key}" if path else key
        yield here
        if isinstance(sub, dict):
            yield from walk(sub, root, here, seen)


def unaccounted(schema: str, table: dict[str, tuple[str, str]]) -> list[str]:
    root = json.loads((SCHEMAS / schema).read_text(encoding="utf-8"))
    return sorted({p for p in walk(root, root) if fields.entry(table, p) is None})


def test_every_field_of_both_schemas_is_mapped_or_noted():
    assert unaccounted("job.schema.json", fields.AP) == []
    assert unaccounted("vertex-custom-job-spec.schema.json", fields.SPEC) == []
    assert unaccounted("vertex-custom-job.schema.json", fields.JOB) == []


def test_the_walk_finds_a_field_the_table_does_not_name():
    table = {k: v for k, v in fields.SPEC.items() if k != "workerPoolSpecs[].containerSpec.env"}
    assert unaccounted("vertex-custom-job-spec.schema.json", table) == \
        ["workerPoolSpecs[].containerSpec.env"]


NATIVE = """\
workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8, acceleratorType: NVIDIA_TESLA_T4,
                  acceleratorCount: 1}
    replicaCount: 1
    diskSpec: {bootDiskType: pd-ssd, bootDiskSizeGb: 200}
    containerSpec:
      imageUri: us-docker.pkg.dev/p/r/trainer:1
      env:
        - {name: WANDB_API_KEY, value: secret-value}
        - {name: MASTER_PORT, value: "29500"}
  - machineSpec: {machineType: n1-standard-8, acceleratorType: NVIDIA_TESLA_T4,
                  acceleratorCount: 1}
    replicaCount: 2
    containerSpec:
      imageUri: us-docker.pkg.dev/p/r/trainer:1
      env: [{name: BUCKET, value: gs://b}]
scheduling: {strategy: SPOT, timeout: 7200s, restartJobOnWorkerRestart: true}
serviceAccount: trainer@p.iam.gserviceaccount.com
enableWebAccess: true
"""


def test_a_native_configs_env_strategy_and_timeout_reach_the_jobset_and_the_rest_is_noted(
        cli, write):
    result = cli("submit", write(NATIVE), "--service", "gke", "--dry-run", "--job-id", "nat")
    assert result.code == 0, result.err
    body = yaml.safe_load(result.out)
    rjobs = {r["name"]: r["template"]["spec"] for r in body["spec"]["replicatedJobs"]}
    master = {e["name"]: e.get("value") for e in
              rjobs["master"]["template"]["spec"]["containers"][0]["env"]}
    worker = {e["name"]: e.get("value") for e in
              rjobs["worker"]["template"]["spec"]["containers"][0]["env"]}
    assert master["WANDB_API_KEY"] == "secret-value" and "BUCKET" not in master
    assert master["MASTER_PORT"] == "29500"  # the user's own value wins, once
    assert [e["name"] for e in rjobs["master"]["template"]["spec"]["containers"][0]["env"]
            ].count("MASTER_PORT") == 1
    assert worker["BUCKET"] == "gs://b" and "WANDB_API_KEY" not in worker
    assert all(r["activeDeadlineSeconds"] == 7200 for r in rjobs.values())
    assert all(r["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
               for r in rjobs.values())
    err = result.err
    for line in ("config.yaml:5:5: workerPoolSpecs[0].diskSpec: note: diskSpec is not used on "
                 "GKE: a pod has no boot disk of its own",
                 "scheduling.restartJobOnWorkerRestart: note: restartJobOnWorkerRestart is not "
                 "used on GKE: a JobSet always restarts all its Jobs together",
                 # a Google service account: the pods run as a Kubernetes one (scheduling)
                 "serviceAccount: note: serviceAccount trainer@p.iam.gserviceaccount.com is a "
                 "Google service account",
                 "enableWebAccess: note: enableWebAccess is not used on GKE"):
        assert line in err, line
    assert "secret-value" not in err


def test_a_custom_jobs_fields_are_noted_under_job_spec(cli, write):
    text = "displayName: nightly\nencryptionSpec: {kmsKeyName: k}\njobSpec:\n" + "".join(
        f"  {line}\n" for line in NATIVE.splitlines())
    result = cli("submit", write(text), "--service", "gke", "--dry-run")
    assert result.code == 0, result.err
    assert "encryptionSpec: note: encryptionSpec is not used on GKE" in result.err
    assert "jobSpec.serviceAccount: note: serviceAccount trainer@p.iam.gserviceaccount.com is " \
        "a Google service account" in result.err


def test_nfs_mounts_become_nfs_volumes_where_vertex_mounts_them(cli, write):
    text = NATIVE.replace("    diskSpec:", "    nfsMounts: [{server: 10.0.0.2, path: /share, "
                          "mountPoint: data}]\n    diskSpec:")
    result = cli("submit", write(text), "--service", "gke", "--dry-run")
    assert result.code == 0, result.err
    body = yaml.safe_load(result.out)
    pod = body["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert {"name": "nfs-0-data", "nfs": {"server": "10.0.0.2", "path": "/share"}} in \
        pod["volumes"]
    assert {"name": "nfs-0-data", "mountPath": "/mnt/nfs/data"} in \
        pod["containers"][0]["volumeMounts"]
    assert "nfsMounts" not in result.err


def test_region_given_to_a_native_config_is_noted(cli, write):
    result = cli("submit", write(NATIVE), "--service", "gke", "--dry-run", "--region",
                 "us-east5")
    assert result.code == 0, result.err
    assert "(--region): note: --region us-east5 is not used on GKE: the cluster decides where " \
           "the pods run (the kubeconfig's context names it: --context) [gke.unused]" in result.err


def test_region_and_network_get_one_wording_in_either_form(cli, write):
    """An AI Platform config's region and network notes read as a native config's --region and
    network notes do (one wording each, fields.AP)."""
    config = {"jobId": "ap_1", "trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "n1-standard-8", "region": "us-central1",
        "masterConfig": {"imageUri": "us-docker.pkg.dev/p/r/t:1"},
        "network": "projects/1/global/networks/n"}}
    ap = cli("validate", "--service", "gke", write(json.dumps(config), "ap.json"))
    native = cli("submit", write("network: projects/1/global/networks/n\n" + NATIVE), "--service",
                 "gke", "--dry-run", "--region", "us-east5")
    assert native.code == 0, native.err
    region = "is not used on GKE: the cluster decides where the pods run (the kubeconfig's " \
             "context names it: --context)"
    network = "network is not used on GKE: pods use the cluster's network (the cluster's VPC is " \
              "chosen when it is created)"
    assert f"region {region}" in ap.out and network in ap.out
    assert f"--region us-east5 {region}" in native.err and network in native.err


def test_every_noted_field_of_an_ai_platform_config_gets_its_note(cli, write):
    config = {"jobId": "ap_1", "trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "n1-standard-8",
        "masterConfig": {"imageUri": "us-docker.pkg.dev/p/r/t:1",
                         "diskConfig": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100},
                         "tpuTfVersion": "2.12"},
        "runtimeVersion": "2.11", "pythonVersion": "3.7", "network": "projects/1/global/"
        "networks/n", "serviceAccount": "a@p.iam.gserviceaccount.com",
        "encryptionConfig": {"kmsKeyName": "projects/p/locations/l/keyRings/r/cryptoKeys/k"},
        "enableWebAccess": True, "useChiefInTfConfig": True,
        "scheduling": {"maxWaitTime": "3600s", "priority": 5}}}
    result = cli("validate", "--service", "gke", write(json.dumps(config), "ap.json"))
    noted = [p for p, (kind, _) in fields.AP.items() if kind == "noted"
             and p != "trainingInput.region" and not p.startswith(
                 ("trainingInput.workerConfig", "trainingInput.parameterServerConfig",
                  "trainingInput.evaluatorConfig"))]
    for path in noted:
        key = path.split(".")[-1]
        assert f"{path}: note: " in result.out or f"{key} is not used on GKE" in result.out, path
