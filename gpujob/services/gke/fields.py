"""Every field of an AI Platform config and of a native Vertex config, and what GKE does with it:
``mapped`` (carried into the JobSet: where), ``noted`` (a note says why it has no meaning on
GKE; what it holds is not read), or ``refused`` (an error says why). A mapped field's own fields
are listed too; a noted or refused one covers what it holds. The tests walk both schemas
(``schemas/job.schema.json``, ``schemas/vertex-custom-job*.schema.json``) and fail on a field
this table does not name; ``native_notes`` says the notes of a native config."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath
from gpujob.services.gke.unused import KMS, NETWORK, WEB

Kind = Literal["mapped", "noted", "refused"]
KINDS = ("master", "worker", "parameterServer", "evaluator")
_SERVICE_ACCOUNT = ("the pods' serviceAccountName (a Kubernetes service account; a Google one "
                    "is a note: Workload Identity maps a Kubernetes one to it)")
_NETWORK, _WEB, _KMS = NETWORK, WEB, KMS  # as the flags say it (gpujob.services.gke)
_BOOT = ("a pod has no boot disk of its own: the node pool's boot disk (gcloud container "
         "node-pools create --disk-type/--disk-size) holds the pods' images and files")

AP: dict[str, tuple[Kind, str]] = {
    "jobId": ("mapped", "metadata.name (lower case, '-' for '_')"),
    "labels": ("mapped", "metadata.labels"),
    "trainingInput": ("mapped", "spec"),
    "trainingInput.args": ("mapped", "each container's args"),
    "trainingInput.jobDir": ("mapped", "--job-dir and AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, "
                                       "AIP_TENSORBOARD_LOG_DIR"),
    "trainingInput.packageUris": ("mapped", "the command installs them from /gcs/ (GCS FUSE)"),
    "trainingInput.pythonModule": ("mapped", "the command runs it (python3 -m)"),
    "trainingInput.scaleTier": ("mapped", "CUSTOM: the replicas as the config lists them"),
    "trainingInput.hyperparameters": ("refused", "GKE has no hyperparameter tuning service"),
    "trainingInput.scheduling": ("mapped", "the Jobs' activeDeadlineSeconds"),
    "trainingInput.scheduling.maxRunningTime": ("mapped", "activeDeadlineSeconds of each Job; "
                                                "with flex-start and --queue, "
                                                "maxRunDurationSeconds"),
    "trainingInput.scheduling.maxWaitTime": ("noted", "Kueue's queue decides when the job "
                                             "starts (--queue)"),
    "trainingInput.scheduling.priority": ("noted", "Kueue's queue decides when the job starts "
                                          "(--queue)"),
    "trainingInput.region": ("noted", "the cluster decides where the pods run (the "
                                      "kubeconfig's context names it: --context)"),
    "trainingInput.runtimeVersion": ("noted", "the container image is what runs "
                                              "(--executor-image-uri for a package job)"),
    "trainingInput.pythonVersion": ("noted", "the container image's Python runs the trainer"),
    "trainingInput.network": ("noted", _NETWORK),
    "trainingInput.serviceAccount": ("mapped", _SERVICE_ACCOUNT),
    "trainingInput.encryptionConfig": ("noted", _KMS),
    "trainingInput.enableWebAccess": ("noted", _WEB),
    "trainingInput.useChiefInTfConfig": ("noted", "TF_CONFIG names the master 'chief', as on "
                                                  "Vertex AI"),
}
for _kind in KINDS:
    _c = f"trainingInput.{_kind}Config"
    AP.update({
        f"trainingInput.{_kind}Type": ("mapped", "the node selector "
                                                 "node.kubernetes.io/instance-type"),
        _c: ("mapped", "the ReplicatedJob's pod"),
        f"{_c}.acceleratorConfig": ("mapped", "the GPU node selector and nvidia.com/gpu limit"),
        f"{_c}.acceleratorConfig.count": ("mapped", "the nvidia.com/gpu limit"),
        f"{_c}.acceleratorConfig.type": ("mapped", "cloud.google.com/gke-accelerator"),
        f"{_c}.imageUri": ("mapped", "the container's image"),
        f"{_c}.containerCommand": ("mapped", "the container's command"),
        f"{_c}.containerArgs": ("mapped", "the container's args"),
        f"{_c}.diskConfig": ("noted", _BOOT),
        f"{_c}.tpuTfVersion": ("noted", "the image holds TensorFlow"),
    })
    if _kind != "master":
        AP[f"trainingInput.{_kind}Count"] = ("mapped", "the ReplicatedJob's replicas")

# a CustomJobSpec's fields (a CustomJob's are these under jobSpec)
SPEC: dict[str, tuple[Kind, str]] = {
    "workerPoolSpecs": ("mapped", "the ReplicatedJobs: master, worker, ps, evaluator"),
    "workerPoolSpecs[].replicaCount": ("mapped", "the ReplicatedJob's replicas"),
    "workerPoolSpecs[].machineSpec": ("mapped", "the pod's node selectors and GPU limit"),
    "workerPoolSpecs[].machineSpec.machineType": ("mapped", "node.kubernetes.io/instance-type"),
    "workerPoolSpecs[].machineSpec.acceleratorType": ("mapped",
                                                      "cloud.google.com/gke-accelerator"),
    "workerPoolSpecs[].machineSpec.acceleratorCount": ("mapped", "the nvidia.com/gpu limit"),
    "workerPoolSpecs[].machineSpec.reservationAffinity": (
        "mapped", "a SPECIFIC_RESERVATION of one reservation: the node selector "
                  "cloud.google.com/reservation-name"),
    "workerPoolSpecs[].machineSpec.tpuTopology": (
        "mapped", "a TPU slice: cloud.google.com/gke-tpu-topology, one pod per host (tpu)"),
    "workerPoolSpecs[].machineSpec.gpuPartitionSize": (
        "noted", "GKE partitions GPUs per node pool (--accelerator gpu-partition-size=...)"),
    "workerPoolSpecs[].containerSpec": ("mapped", "the container"),
    "workerPoolSpecs[].containerSpec.imageUri": ("mapped", "the container's image"),
    "workerPoolSpecs[].containerSpec.command": ("mapped", "the container's command"),
    "workerPoolSpecs[].containerSpec.args": ("mapped", "the container's args"),
    "workerPoolSpecs[].containerSpec.env": ("mapped", "the container's env"),
    "workerPoolSpecs[].pythonPackageSpec": ("mapped", "the container, running the module"),
    "workerPoolSpecs[].pythonPackageSpec.executorImageUri": ("mapped", "the container's image"),
    "workerPoolSpecs[].pythonPackageSpec.packageUris": ("mapped", "installed from /gcs/"),
    "workerPoolSpecs[].pythonPackageSpec.pythonModule": ("mapped", "python3 -m MODULE"),
    "workerPoolSpecs[].pythonPackageSpec.args": ("mapped", "the container's args"),
    "workerPoolSpecs[].pythonPackageSpec.env": ("mapped", "the container's env"),
    "workerPoolSpecs[].containerSpec.env[].name": ("mapped", "the variable's name"),
    "workerPoolSpecs[].containerSpec.env[].value": ("mapped", "its value"),
    "workerPoolSpecs[].pythonPackageSpec.env[].name": ("mapped", "the variable's name"),
    "workerPoolSpecs[].pythonPackageSpec.env[].value": ("mapped", "its value"),
    "workerPoolSpecs[].machineSpec.reservationAffinity.reservationAffinityType": (
        "mapped", "SPECIFIC_RESERVATION: the node selector; ANY_RESERVATION: the node pools' "
                  "own reservation affinity decides"),
    "workerPoolSpecs[].machineSpec.reservationAffinity.key": (
        "mapped", "compute.googleapis.com/reservation-name, the selector's subject"),
    "workerPoolSpecs[].machineSpec.reservationAffinity.values": (
        "mapped", "the reservation's short name"),
    "workerPoolSpecs[].diskSpec": ("noted", _BOOT),
    "workerPoolSpecs[].nfsMounts": ("mapped", "nfs volumes mounted at /mnt/nfs/MOUNT_POINT, as "
                                              "on Vertex AI"),
    "workerPoolSpecs[].nfsMounts[].server": ("mapped", "the nfs volume's server"),
    "workerPoolSpecs[].nfsMounts[].path": ("mapped", "the nfs volume's path"),
    "workerPoolSpecs[].nfsMounts[].mountPoint": ("mapped", "/mnt/nfs/MOUNT_POINT"),
    "workerPoolSpecs[].lustreMounts": ("noted", "mount the file system with a PersistentVolume "
                                                "(Managed Lustre CSI) in the cluster"),
    "scheduling": ("mapped", "strategy, timeout"),
    "scheduling.strategy": ("mapped", "SPOT: Spot selector, tolerations and restarts; "
                                      "FLEX_START: flex-start selector or ProvisioningRequest "
                                      "(--strategy over it)"),
    "scheduling.timeout": ("mapped", "activeDeadlineSeconds of each Job"),
    "scheduling.restartJobOnWorkerRestart": (
        "noted", "a JobSet always restarts all its Jobs together (--max-restarts N)"),
    "scheduling.disableRetries": ("noted", "a JobSet is restarted only --max-restarts times "
                                           "(default 0) and after Spot preemptions"),
    "scheduling.maxWaitDuration": ("noted", "Kueue's queue decides when the job starts "
                                            "(--queue)"),
    "baseOutputDirectory": ("mapped", "AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, "
                                      "AIP_TENSORBOARD_LOG_DIR and --job-dir"),
    "baseOutputDirectory.outputUriPrefix": ("mapped", "AIP_* directories"),
    "serviceAccount": ("mapped", _SERVICE_ACCOUNT),
    "network": ("noted", _NETWORK),
    "reservedIpRanges": ("noted", _NETWORK),
    "pscInterfaceConfig": ("noted", _NETWORK),
    "enableWebAccess": ("noted", _WEB),
    "enableDashboardAccess": ("noted", _WEB),
    "tensorboard": ("noted", "Vertex AI TensorBoard reads Vertex jobs; the logs stay in "
                             "AIP_TENSORBOARD_LOG_DIR"),
    "experiment": ("noted", "Vertex AI Experiments record Vertex jobs"),
    "experimentRun": ("noted", "Vertex AI Experiments record Vertex jobs"),
    "models": ("noted", "Vertex AI Model Registry records Vertex jobs' models"),
    "persistentResourceId": ("noted", "a persistent resource is Vertex AI's; the cluster's "
                                      "node pools are GKE's"),
    "protectedArtifactLocationId": ("noted", "Vertex AI's artifact location"),
}
JOB: dict[str, tuple[Kind, str]] = {
    "displayName": ("mapped", "the JobSet's name when no --job-id is given"),
    "labels": ("mapped", "metadata.labels"),
    "encryptionSpec": ("noted", _KMS),
    "jobSpec": ("mapped", "spec"),
    **{f"jobSpec.{k}": v for k, v in SPEC.items()},
}


def entry(table: dict[str, tuple[Kind, str]], path: str) -> tuple[Kind, str] | None:
    """The table's word on ``path`` (``a.b[].c``): its own, or a noted/refused parent's."""
    if path in table:
        return table[path]
    parts = path.split(".")
    for n in range(len(parts) - 1, 0, -1):
        found = table.get(".".join(parts[:n]).removesuffix("[]"))
        if found is not None and found[0] != "mapped":
            return found
    return None


def _present(data: Any, table: dict[str, tuple[Kind, str]], prefix: str,
             path: JsonPath) -> Iterator[tuple[JsonPath, str]]:
    """Each noted field ``data`` sets: its path, and the table's key."""
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        found = table.get(name)
        if found is None:
            continue
        if found[0] == "noted":
            yield (*path, key), name
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from _present(item, table, f"{name}[]", (*path, key, i))
        else:
            yield from _present(value, table, name, (*path, key))


def native_notes(doc: Document, found: str) -> list[Finding]:
    """A note for each field of the native config ``doc`` (a ``found``) that GKE does not
    use, at its line."""
    table = JOB if found == "CustomJob" else SPEC
    out = []
    for path, name in _present(doc.data, table, "", ()):
        why = table[name][1]
        out.append(Finding("note", "gke.unused", f"{name.rsplit('.', 1)[-1].rstrip('[]')} is "
                           f"not used on GKE: {why}", path, doc.locate(path, key=True)))
    return out
