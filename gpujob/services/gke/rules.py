"""GKE's rules for an AI Platform config: the cluster is described replica by replica (scale tier
CUSTOM) on Compute Engine machine types, each taking its GPUs in a count Compute Engine offers
(GKE's nodes are Compute Engine VMs) and named by a GPU GKE labels nodes with; every replica
runs an image; the JobSet's name is a Kubernetes name whose pods' names fit in 63 characters;
labels are Kubernetes labels; what the JobSet has no place for is said (a note), and what a
JobSet requires (``jobset.requirements``) holds of the translation.

The translation (``translate``) is made once; the rules read the config and the JobSet.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from gpujob.checks.context import Checking
from gpujob.checks.registry import listed, rule
from gpujob.checks.rules import run
from gpujob.config.job import TI, JobView, view
from gpujob.errors import UsageError
from gpujob.findings import Finding, JsonPath, Location
from gpujob.services.gke import jobset, legacy, scheduling, tpu, translate
from gpujob.services.gke.names import DNS_1035
from gpujob.suggest import did_you_mean

if TYPE_CHECKING:
    from gpujob.checks.engine import CheckOptions
    from gpujob.config.document import Document
    from gpujob.config.job import Replica
    from gpujob.services.gke.catalog import GkeCatalog

GKE = ("gke",)
# a native config's own check (``native``), listed for gpujob rules
listed("gke.pool-package", "A native package job's later worker pools run the master's "
       "pythonPackageSpec: another package, module or arguments of their own is an error.",
       services=GKE, severity="error")
KUBE_ID = re.compile(r"[A-Za-z][-A-Za-z0-9_]*")  # a jobId or a Kubernetes name
LABEL_NAME = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
EXAMPLE_MACHINE = "n1-standard-8"


class GkeContext(Checking):
    """One AI Platform config being checked for GKE, with its JobSet."""

    def __init__(self, job: JobView, catalog: GkeCatalog, locate: Callable[..., Location],
                 refused: set[JsonPath], translation: translate.Translation,
                 options: CheckOptions) -> None:
        super().__init__(job, locate, refused, relax_region=True)
        self.catalog = catalog
        self.translation = translation
        self.options = options
        self.tier = catalog.scale_tiers.get(job.scale_tier or "CUSTOM")


@rule("gke.scale-tier", "The cluster is described replica by replica (scaleTier CUSTOM, or "
      "none): the other tiers name AI Platform's own machines.", services=GKE)
def scale_tier(ctx: GkeContext) -> None:
    if ctx.tier is not None and ctx.tier.refused:
        ctx.emit((TI, "scaleTier"), f"scaleTier {ctx.tier.name} does not translate to GKE: "
                 f"{ctx.tier.refused}", f"use scaleTier CUSTOM with masterType (a Compute "
                 f"Engine machine type, e.g. {EXAMPLE_MACHINE}) and its acceleratorConfig")


@rule("gke.master", "A custom cluster has a master (masterType).", services=GKE)
def master(ctx: GkeContext) -> None:
    if ctx.tier is not None and ctx.tier.custom and not ctx.job.master.machine \
            and not ctx.misspelt("masterType") and not ctx.broken((TI, "masterType")):
        ctx.emit((TI,), "the job has no masterType: the JobSet's master runs on it",
                 f"set trainingInput.masterType, e.g. {EXAMPLE_MACHINE}", key=True)


@rule("gke.replica", "Workers, parameter servers and evaluators that are counted name their "
      "machine type.", services=GKE)
def replica(ctx: GkeContext) -> None:
    if ctx.tier is None or not ctx.tier.custom:
        return
    for r in ctx.job.replicas[1:]:
        if r.count > 0 and not r.machine and not ctx.misspelt(str(r.type_path[-1])) \
                and not ctx.broken(r.type_path):
            ctx.emit(r.count_path, f"{r.count_path[-1]} {r.count} needs a {r.type_path[-1]}: "
                     "the JobSet's pods run on it", f"set trainingInput.{r.type_path[-1]}, e.g. "
                     f"{ctx.job.master.machine or EXAMPLE_MACHINE}")


@rule("gke.machine", "Each replica's machine type is a Compute Engine machine type that takes "
      "its GPU type and count (machine types with GPUs built in take exactly theirs), and GKE "
      "names the GPU with a node label; a TPU machine type names a slice topology GKE offers "
      "on it (tpuTopology).", services=GKE)
def machine(ctx: GkeContext) -> None:
    if ctx.tier is None or not ctx.tier.custom:
        return
    cat = ctx.catalog
    for r in ctx.job.active():
        if r.machine in cat.tpus:  # a TPU slice: its topology is checked instead
            found = tpu.problem(cat, r)
            if found is not None:
                at = (*r.config_path, "tpuTopology") if tpu.topology_of(r) else r.type_path
                ctx.emit(at, *found)
            continue
        m = cat.machine_types.get(r.machine or "")
        if m is None:
            ctx.emit(r.type_path, f"{r.machine} is not a Compute Engine machine type gpujob "
                     "knows for GKE nodes", legacy.hint(cat, r) or _unknown_hint(cat, r))
            continue
        if ctx.broken((*r.accel_path, "type")) or ctx.broken((*r.accel_path, "count")):
            continue
        problem = cat.problem(m.name, r.accel_type, r.accel_count)
        if problem is None or (r.accel_type is None and m.built_in and not r.accel_count):
            continue  # a built-in GPU the config leaves unstated is the machine's own
        where = r.accel_path if r.accel_type else r.type_path
        gpu = cat.gpus.get(r.accel_type or "")
        ctx.emit(where, problem, f"`gpujob gpus --service gke --gpu {gpu.name.lower()}` lists "
                 "the machine types that take it and their counts" if gpu else
                 "`gpujob gpus --service gke` lists the machine types and their GPUs")


def _unknown_hint(cat: GkeCatalog, r: Replica) -> str:
    """The hint for a machine type GKE's catalog lacks (and that no legacy name explains): the
    spelling meant, else where the list is. Only then worked out: a guess over every machine
    type is a third of a validate of many files that name AI Platform's legacy types."""
    guess = did_you_mean(r.machine or "", [*cat.machine_types, *cat.tpus])
    return (f"did you mean {guess!r}?" if guess else "GKE nodes are Compute Engine VMs: "
            "`gpujob gpus --service gke` lists the machine types and their GPUs")


@rule("gke.tpu", "A TPU job is one slice: a single worker pool of one replica, as on Vertex "
      "AI (its hosts are the slice's pods).", services=GKE)
def tpu_slice(ctx: GkeContext) -> None:
    active = ctx.job.active()
    if not any(r.machine in ctx.catalog.tpus for r in active):
        return
    for r in active[1:]:
        ctx.emit(r.count_path, f"a TPU job runs one slice, in one worker pool; this one also "
                 f"runs {r.count} × {r.machine}", "remove the other worker pools (the slice's "
                 "hosts are its pods: tpuTopology sets how many)")


@rule("gke.code", "Every replica runs an image: its imageUri (or the master's), or, for a "
      "Python package job, --executor-image-uri with pythonModule and gs:// packageUris.",
      services=GKE)
def code(ctx: GkeContext) -> None:
    ti, master_ = ctx.ti, ctx.job.master
    if any(r.image for r in ctx.job.active()) or master_.image:
        missing = [r for r in ctx.job.active() if not (r.image or master_.image)]
        for r in missing:
            ctx.emit(r.config_path, f"the {r.label} runs no image", "set its imageUri")
        return
    if not ti.get("pythonModule") and not ctx.broken((TI, "pythonModule")):
        ctx.emit((TI,), "the job runs neither a container (masterConfig.imageUri) nor a Python "
                 "module", "set masterConfig.imageUri, or pythonModule and packageUris",
                 key=True)
        return
    uris = ti.get("packageUris")  # not a list: the schema refused it
    bad = [u for u in uris if not (isinstance(u, str) and u.startswith("gs://"))] \
        if isinstance(uris, list) else []
    if bad:
        ctx.emit((TI, "packageUris"), f"{bad[0]!r} is not a gs:// URI: a GKE pod mounts the "
                 "packages' buckets (Cloud Storage FUSE)", "stage the packages in Cloud Storage "
                 "(submit --package-path --staging-bucket does)")
    if not ctx.options.job.executor_image_uri and ctx.options.submit and \
            not ctx.options.local:
        ctx.emit((TI, "pythonModule"), "a Python package job on GKE needs an image to run in",
                 "give --executor-image-uri (a Python image with the trainer's framework, e.g. "
                 "one of Vertex AI's prebuilt training images)")


@rule("gke.name", "The JobSet's name (the jobId, lower case, '-' for '_') is a DNS-1035 label, "
      "short enough that its pods' names fit in 63 characters.", services=GKE)
def name(ctx: GkeContext) -> None:
    job_id = ctx.job.data.get("jobId")
    if not isinstance(job_id, str) or ctx.broken(("jobId",)):
        return
    t = ctx.translation
    limit = translate.budget(ctx.job, ctx.catalog)
    suffix = translate.longest_suffix(ctx.job, ctx.catalog) - translate.POD_SUFFIX
    fixed = re.sub(r"-+", "-", t.name).strip("-")[:limit].rstrip("-") or "job"
    if not DNS_1035.fullmatch(t.name):
        ctx.emit(("jobId",), f"the JobSet would be named {t.name!r}, which is not a Kubernetes "
                 "name (a DNS-1035 label: lower-case letters, digits and '-', starting with a "
                 "letter and ending with a letter or digit)",
                 f"give --job-id {fixed.replace('-', '_')}")
    elif len(t.name) > limit:
        ctx.emit(("jobId",), f"the JobSet name {t.name!r} is {len(t.name)} characters; its "
                 f"longest pod name ({t.name}{suffix}-xxxxx) would pass Kubernetes' 63",
                 f"give a --job-id of at most {limit} characters, e.g. --job-id "
                 f"{fixed.replace('-', '_')}")


@rule("gke.labels", "The job's labels are Kubernetes labels (names and values of at most 63 "
      "letters, digits, '-', '_' and '.'), and gpujob-submission is gpujob's own.",
      services=GKE)
def labels(ctx: GkeContext) -> None:
    given = ctx.job.data.get("labels")
    if not isinstance(given, dict) or ctx.broken(("labels",)):
        return
    for key, value in given.items():
        path: JsonPath = ("labels", key)
        if key == translate.SUBMISSION_LABEL:
            ctx.emit(path, f"{key} is gpujob's own label: each submission sets it",
                     "remove it from labels")
        elif len(str(key)) > 63 or not LABEL_NAME.fullmatch(str(key)) or not key:
            ctx.emit(path, f"label name {key!r} is not a Kubernetes label name",
                     "use at most 63 letters, digits, '-', '_' and '.', starting and ending "
                     "with a letter or digit", key=True)
        elif len(str(value)) > 63 or not LABEL_NAME.fullmatch(str(value)):
            ctx.emit(path, f"label value {value!r} is not a Kubernetes label value",
                     "use at most 63 letters, digits, '-', '_' and '.', starting and ending "
                     "with a letter or digit")


@rule("gke.size", "The JobSet fits in what the API server stores (etcd's 1.5 MiB): every "
      "pod's CLUSTER_SPEC and TF_CONFIG list every replica.", services=GKE)
def size(ctx: GkeContext) -> None:
    listing = translate.listing_bytes(ctx.job, ctx.translation.name)
    if listing > translate.MAX_BYTES:
        largest = max(ctx.job.active(), key=lambda r: r.count)
        ctx.emit(largest.count_path, f"{sum(r.count for r in ctx.job.active())} replicas make "
                 f"a JobSet of about {listing // 1024} KiB (their addresses in CLUSTER_SPEC and "
                 f"TF_CONFIG): the API server stores at most {translate.MAX_BYTES // 1024} KiB",
                 "run fewer replicas (or one JobSet per group of them)")


@rule("gke.hyperparameters", "GKE has no tuning service: a config with hyperparameters does "
      "not translate.", services=GKE)
def hyperparameters(ctx: GkeContext) -> None:
    if ctx.job.has((TI, "hyperparameters")):
        ctx.emit((TI, "hyperparameters"), "GKE has no hyperparameter tuning service",
                 "submit the study to Vertex AI (--service vertex), or run one JobSet per "
                 "trial (--set / -- arguments)", key=True)


@rule("gke.unused", "Fields a JobSet has no place for are said to be left out (a note).",
      services=GKE, severity="note")
def unused(ctx: GkeContext) -> None:
    # every noted field of trainingInput: fields.AP holds the one wording of each note
    noted = {path.split(".")[1]: why for path, (kind, why) in fields.AP.items()
             if kind == "noted" and path.count(".") == 1}
    for key, why in noted.items():
        if key in ctx.ti and not ctx.broken((TI, key)):
            ctx.emit((TI, key), f"{key} is not used on GKE: {why}", key=True)
    for r in ctx.job.replicas:  # what a replica's config holds that a pod has no place for
        for key in ("diskConfig", "tpuTfVersion"):
            if key in r.config and not ctx.broken((*r.config_path, key)):
                ctx.emit((*r.config_path, key), f"{key} is not used on GKE: "
                         f"{fields.AP[f'trainingInput.masterConfig.{key}'][1]}", key=True)
    scheduling = ctx.ti.get("scheduling")
    if isinstance(scheduling, dict):
        for key in sorted(set(scheduling) - {"maxRunningTime"}):
            ctx.emit((TI, "scheduling", key), f"scheduling.{key} is not used on GKE (Kueue's "
                     "queue decides when the job starts: --queue)", key=True)


def _account(ctx: GkeContext) -> str | None:
    """The config's serviceAccount when it is not a Kubernetes service account's name."""
    value = ctx.ti.get("serviceAccount")
    if not isinstance(value, str) or ctx.broken((TI, "serviceAccount")) or \
            scheduling.service_account(ctx.ti):
        return None
    return value


@rule("gke.service-account", "serviceAccount (--service-account) is the Kubernetes service "
      "account the pods run as (serviceAccountName), or a Google one (see "
      "gke.google-service-account).", services=GKE)
def service_account(ctx: GkeContext) -> None:
    value = _account(ctx)
    if value is not None and not scheduling.EMAIL.fullmatch(value):
        ctx.emit((TI, "serviceAccount"), f"serviceAccount {value!r} is not a Kubernetes service "
                 "account name", "use lower-case letters, digits, '-' and '.'")


@rule("gke.google-service-account", "A Google service account (an email) is not what a pod "
      "runs as: Workload Identity maps a Kubernetes service account to it (a note).",
      services=GKE, severity="note")
def google_service_account(ctx: GkeContext) -> None:
    value = _account(ctx)
    if value is not None and scheduling.EMAIL.fullmatch(value):
        ctx.emit((TI, "serviceAccount"), f"serviceAccount {value} is a Google service account: "
                 "GKE pods run as a Kubernetes service account (here the namespace's "
                 "default), which Workload Identity maps to a Google one",
                 "give --service-account KSA, the Kubernetes service account bound to it")


@rule("gke.packages", "A package job says what the cluster needs for its pods to mount the "
      "packages' buckets (a note).", services=GKE, severity="note")
def packages(ctx: GkeContext) -> None:
    buckets = translate.buckets(ctx.ti)
    if buckets and not ctx.broken((TI, "packageUris")):
        names = ", ".join(f"gs://{b}" for b in buckets)
        ctx.emit((TI, "packageUris"), f"the pods mount {names} with the Cloud Storage FUSE CSI "
                 "driver: the cluster needs its GCS FUSE CSI add-on, and Workload Identity "
                 "with read access to the bucket for the pods' Kubernetes service account "
                 "(the namespace's default one); without them the pods stay in "
                 "ContainerCreating", "docs/gke.md (Package jobs) has the two gcloud commands",
                 key=True)


@rule("gke.jobset", "The JobSet holds what a JobSet requires: ReplicatedJobs with unique "
      "DNS-1035 names and whole replica counts, named containers with an image, whole GPU "
      "limits, pods that are not restarted in place.", services=GKE)
def requires(ctx: GkeContext) -> None:
    if any(f.is_error for f in ctx.findings):
        return  # what the config gets wrong is said at the config's value
    sent = ctx.options.submit and not ctx.options.local
    for path, message in jobset.requirements(ctx.translation.body, image=sent):
        origin = _origin(ctx.translation.origins, path)
        ctx.emit(origin, f"the JobSet's {'.'.join(map(str, path))}: {message}",
                 "this is a gpujob bug when the config is valid: please report it")


def _origin(origins: Mapping[JsonPath, JsonPath], path: JsonPath) -> JsonPath:
    """The config path the JobSet's ``path`` (or what holds it) was made from."""
    for n in range(len(path), 0, -1):
        if path[:n] in origins:
            return origins[path[:n]]
    return (TI,)


def check_flags(options: CheckOptions) -> None:
    """A submit stages no package (its pods mount Cloud Storage; gpujob holds no Google
    session for GKE), a local run does; Kueue places by topology, so --topology needs
    --queue."""
    if translate.extra(options.job, "--topology") and not translate.extra(options.job,
                                                                          "--queue"):
        raise UsageError("--topology asks Kueue to place the pods, and a JobSet without "
                         "--queue is not Kueue's", "give --queue LOCALQUEUE (its ClusterQueue's "
                         "flavor needs a Topology for the level)")
    if options.command_line.package_path and options.submit and not options.local:
        raise UsageError("--package-path is not supported by the gke service for a submit: "
                         "gpujob stages packages with Google credentials, and a GKE job runs "
                         "with the kubeconfig's",
                         "build the package, copy it to Cloud Storage (gcloud storage cp), "
                         "name it in packageUris and give --executor-image-uri; gpujob local "
                         "--service gke --package-path runs it here")


def names_a_jobset(doc: Document) -> bool:
    """Whether the jobId is a Kubernetes name AI Platform's pattern refuses (``nightly-run``):
    on GKE it names the JobSet, and ``gke.name`` checks it as one."""
    job_id = doc.data.get("jobId")
    return isinstance(job_id, str) and "-" in job_id and bool(KUBE_ID.fullmatch(job_id))


def kubernetes_names(doc: Document) -> set[JsonPath]:
    """The values AI Platform's patterns refuse that GKE takes as Kubernetes names: a jobId
    that names the JobSet (``nightly-run``), a serviceAccount that names a Kubernetes service
    account (``trainer``); ``gke.name`` and ``gke.service-account`` check them as such."""
    ti = doc.data.get(TI)
    paths: set[JsonPath] = {("jobId",)} if names_a_jobset(doc) else set()
    if isinstance(ti, dict) and scheduling.service_account(ti):
        paths.add((TI, "serviceAccount"))
    return paths


def relax(findings: list[Finding], doc: Document) -> list[Finding]:
    """``findings`` without AI Platform's patterns for the values GKE takes as Kubernetes
    names (``kubernetes_names``)."""
    names_ = kubernetes_names(doc)
    return [f for f in findings if not (f.rule == "schema.pattern" and f.path in names_)]


def check(doc: Document, cat: GkeCatalog, refused: set[JsonPath],
          options: CheckOptions) -> tuple[list[Finding], translate.Translation | None]:
    """The findings of an AI Platform config for GKE, and its JobSet (None: it has errors)."""
    check_flags(options)
    refused = refused - kubernetes_names(doc)
    t = translate.translate(doc, cat, options.job)
    ctx = GkeContext(view(doc.data), cat, doc.locate, refused, t, options)
    findings = run(ctx, "gke", submit=options.submit and not options.local)
    return findings, None if any(f.is_error for f in findings) else t


from gpujob.services.gke import fields, run_rules  # noqa: E402, F401  (they register rules)
