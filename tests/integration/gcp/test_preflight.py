"""The quota preflight of ``gpujob submit --service vertex`` and ``gpujob preflight``, against
the fake Service Usage and Vertex AI: the limit of the right metric, less what the project's
jobs hold, read before anything is built or uploaded."""

from __future__ import annotations

import json

import pytest
from conftest import CPUS, PROJECT, REGION, errors_of
from fakes.discovery import violations
from fakes.errors import unavailable
from fakes.faults import Reply
from vertex_jobs import tuning_job

VERTEX = ("--service", "vertex")
T4 = "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus"
T4_SPOT = "aiplatform.googleapis.com/custom_model_training_preemptible_nvidia_t4_gpus"
IMAGE = "us-docker.pkg.dev/proj-a/trainers/trainer:1"
# a master of n1-standard-8 with 4 T4s
FOUR_T4 = f"""\
trainingInput:
  region: {REGION}
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {{count: 4, type: NVIDIA_TESLA_T4}}
    imageUri: {IMAGE}
"""
# 10 replicas (a master and 9 workers) of n1-standard-8 with 4 T4s each: 40 T4s, 80 vCPUs
FORTY_T4 = FOUR_T4 + f"""\
  workerCount: 9
  workerType: n1-standard-8
  workerConfig:
    acceleratorConfig: {{count: 4, type: NVIDIA_TESLA_T4}}
    imageUri: {IMAGE}
"""
PACKAGE_JOB = f"""\
trainingInput:
  region: {REGION}
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {{count: 4, type: NVIDIA_TESLA_T4}}
  workerCount: 9
  workerType: n1-standard-8
  workerConfig:
    acceleratorConfig: {{count: 4, type: NVIDIA_TESLA_T4}}
  pythonModule: trainer.task
  runtimeVersion: "2.11"
  pythonVersion: "3.7"
"""


def _checked_against_discovery(google) -> None:
    """Every Service Usage request the fake took, as its discovery document allows: one
    listing of every metric (their limits in every region), no metric asked alone."""
    assert google.calls("consumerQuotaMetrics.get") == []
    (listing,) = google.calls("consumerQuotaMetrics.list")
    assert set(listing.query) <= {"view", "alt"}, listing.query
    assert listing.query["view"] == ["FULL"]
    assert listing.path.endswith("/services/aiplatform.googleapis.com/consumerQuotaMetrics")
    assert google.rejected == []


def test_a_job_needing_40_t4_against_a_limit_of_16_is_refused_before_any_upload(
        cli, google, key, gcs, write, trainer, vertex, preflight):
    google.quota.set(T4, {REGION: 16, "us-east4": 64})
    config = write(PACKAGE_JOB)
    result = cli("submit", config, *VERTEX, "--package-path", trainer(),
                 "--executor-image-uri", IMAGE, "--staging-bucket", f"gs://{gcs.bucket}")
    assert result.code == 1, result.err
    assert errors_of(result.err) == [
        f"error: not enough quota: {REGION}: the job needs 40 NVIDIA_TESLA_T4 GPUs ({T4}); the "
        "project's limit there is 16; nothing was built, uploaded or submitted",
        "  hint: ask for more at https://console.cloud.google.com/iam-admin/quotas?project="
        f"{PROJECT} (filter on custom_model_training_nvidia_t4_gpus, region {REGION}); the "
        "limit would do in us-east4 (--region)"]
    _checked_against_discovery(google)
    # the need alone is above the limit: what the project's jobs hold cannot change that, and
    # they are not listed (the one list is the access check before the build: no filter)
    assert [c.query for c in google.calls("customJobs.list") if "filter" in c.query] == []
    assert "Built " not in result.err  # nothing was built
    assert gcs.emulator.objects(gcs.bucket) == {} and gcs.requests() == []
    assert google.calls("customJobs.create") == [] and vertex.jobs == {}


def test_the_jobs_already_running_count_against_the_limit(cli, google, key, write, vertex,
                                                          preflight):
    google.quota.set(T4, {REGION: 48})
    running = {"displayName": "other", "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                        "acceleratorCount": 4}, "replicaCount": "3",
        "containerSpec": {"imageUri": IMAGE}}]}}
    vertex.add_job(PROJECT, REGION, running, state="JOB_STATE_RUNNING")
    vertex.add_job(PROJECT, REGION, running, state="JOB_STATE_SUCCEEDED")  # holds nothing
    vertex.add_job(PROJECT, "us-east4", running, state="JOB_STATE_RUNNING")  # elsewhere
    # a tuning job's parallel trials hold theirs: 2 trials of 1 T4
    vertex.add_job(PROJECT, REGION, tuning_job(parallel=2), state="JOB_STATE_PENDING")
    result = cli("submit", write(FORTY_T4), *VERTEX)
    assert result.code == 1
    assert ("the project's limit there is 48, and its running and pending jobs hold 14"
            in result.err)
    (listed,) = google.calls("customJobs.list")
    assert f"/locations/{REGION}/" in listed.path
    assert "JOB_STATE_RUNNING" in listed.query["filter"][0]
    assert len(vertex.jobs) == 4


def test_with_strategy_spot_the_preemptible_metric_is_read(cli, google, key, write, vertex,
                                                           preflight):
    google.quota.set(T4, {REGION: 64})
    google.quota.set(T4_SPOT, {REGION: 16})
    result = cli("submit", write(FORTY_T4), *VERTEX, "--strategy", "spot")
    assert result.code == 1
    assert f"40 NVIDIA_TESLA_T4 GPUs ({T4_SPOT}); the project's limit there is 16" in result.err
    assert f"({T4})" not in result.err
    assert vertex.jobs == {}


def test_a_limit_that_holds_the_job_lets_it_through_with_one_create(cli, google, key, write,
                                                                    vertex, preflight):
    google.quota.set(T4, {REGION: 40})
    result = cli("submit", write(FORTY_T4), *VERTEX, "--format", "json")
    assert result.code == 0, result.err
    assert len(google.calls("customJobs.create")) == 1 and len(vertex.jobs) == 1
    assert "warning" not in result.err
    assert "Chose" not in result.err  # one choice: nothing to say about choosing
    assert json.loads(result.out)["failover"] == {
        "chosen": {"region": REGION, "strategy": "STANDARD"}, "why": "the only choice",
        "passedOver": []}


@pytest.mark.parametrize("setup", ["denied", "unknown metric", "503"])
def test_no_permission_or_no_answer_is_one_warning_and_the_submit_goes_on(
        cli, google, key, write, vertex, clock, preflight, setup):
    if setup == "denied":
        google.quota.set(T4, {REGION: 0})
        google.quota.denied = True
    elif setup == "503":  # asked once, not retried: the submit does not wait on advice
        google.quota.set(T4, {REGION: 0})
        google.inject("consumerQuotaMetrics.list", Reply(503, unavailable()),
                      Reply(503, unavailable()))
    else:
        google.quota.metrics.clear()
    result = cli("submit", write(FORTY_T4), *VERTEX)
    assert result.code == 0, result.err
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: the quota preflight could not read the project's "
                                  "quota or jobs (")
    assert warnings[0].endswith("); submitting without it (--no-preflight skips it)")
    assert len(vertex.jobs) == 1
    assert clock.sleeps == []


def test_no_preflight_skips_it(cli, google, key, write, vertex, preflight):
    google.quota.set(T4, {REGION: 0})
    result = cli("submit", write(FORTY_T4), *VERTEX, "--no-preflight")
    assert result.code == 0, result.err
    assert google.calls("consumerQuotaMetrics.list") == [] and len(vertex.jobs) == 1


def test_preflight_command_says_the_choice_and_sends_nothing(cli, google, key, write, vertex,
                                                             preflight):
    google.quota.set(T4, {REGION: 0, "us-east4": 40})
    config = write(FORTY_T4)
    result = cli("preflight", config, *VERTEX, "--region", f"{REGION},us-east4",
                 "--format", "json")
    assert result.code == 0, result.err
    shown = json.loads(result.out)["failover"]
    # the numbers of the choice taken too (newcomer L11)
    assert shown["chosen"] == {"region": "us-east4", "strategy": "STANDARD", "quota": [
        {"region": "us-east4", "metric": T4, "what": "NVIDIA_TESLA_T4 GPUs", "need": 40,
         "limit": 40, "inUse": 0},
        {"region": "us-east4", "metric": CPUS, "what": "vCPUs (n1 machines)", "need": 80,
         "limit": None, "inUse": 0}]}
    (passed,) = shown["passedOver"]
    assert passed["region"] == REGION
    assert passed["quota"] == [{"region": REGION, "metric": T4, "what": "NVIDIA_TESLA_T4 GPUs",
                                "need": 40, "limit": 0, "enoughIn": ["us-east4"]}]
    assert google.calls("customJobs.create") == [] and vertex.jobs == {}
    text = cli("preflight", config, *VERTEX, "--region", f"{REGION},us-east4")
    assert text.out == "us-east4/STANDARD\n"
    assert text.err.splitlines()[-2:] == [
        f"  quota: us-east4: the job needs 40 NVIDIA_TESLA_T4 GPUs ({T4}); the project's limit "
        "there is 40, and its running and pending jobs hold 0",
        f"  quota: us-east4: the job needs 80 vCPUs (n1 machines) ({CPUS}); the project's "
        "quota there has no limit"]
    short = cli("preflight", config, *VERTEX)
    assert short.code == 1 and short.out == ""
    assert "error: not enough quota: us-central1: the job needs 40" in short.err


def test_the_fakes_answer_is_the_discovery_documents_shape(google):
    """What the fake Service Usage answers fits ConsumerQuotaMetric as the bundled document
    types it (the requests are checked against it on every call, in the fake)."""
    from fakes.discovery import method

    google.quota.set(T4, {REGION: 16, "us-east4": -1}, default=0)
    answer = google.quota.answer(PROJECT, "aiplatform.googleapis.com", T4)
    assert violations(answer, {"$ref": "ConsumerQuotaMetric"}, "serviceusage.v1beta1") == []
    assert violations({**answer, "limits": 1}, {"$ref": "ConsumerQuotaMetric"},
                      "serviceusage.v1beta1") != []  # the check does look
    described = method("serviceusage.v1beta1", "services", "consumerQuotaMetrics", "get")
    assert set(described["parameters"]) == {"name", "view"}


def test_the_regions_whose_limit_would_do_offer_the_gpu(cli, google, key, write, vertex,
                                                        preflight):
    from gpujob.catalog import load

    google.quota.set(T4, {REGION: 16}, default=100)  # every other region: 100
    result = cli("preflight", write(FORTY_T4), *VERTEX, "--format", "json")
    assert result.code == 1
    catalog = load("vertex")
    zones = catalog.gpu_zones["NVIDIA_TESLA_T4"][1]
    offering = [r for r in catalog.training_regions
                if r != REGION and any(z.startswith(r + "-") for z in zones)]
    assert "europe-north1" not in offering  # listed nowhere there: not named
    assert f"the limit would do in {', '.join(offering[:8])} and {len(offering) - 8} more " \
        "(--region)" in result.err
    refused = json.loads(result.out)["failover"]["passedOver"][0]["quota"][0]
    assert refused["enoughIn"] == offering


@pytest.mark.parametrize(("strategy", "metric"), [
    ("FLEX_START", "aiplatform.googleapis.com/custom_model_training_preemptible_nvidia_l4_gpus"),
    ("SPOT", "aiplatform.googleapis.com/custom_model_training_preemptible_nvidia_l4_gpus"),
    ("STANDARD", "aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus"),
    (None, "aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus")])
def test_flex_start_and_spot_draw_on_the_preemptible_metric(strategy, metric):
    from gpujob.services.vertex.quota.preflight import needs

    spec = {"workerPoolSpecs": [{"machineSpec": {"machineType": "g2-standard-48",
                                                 "acceleratorType": "NVIDIA_L4",
                                                 "acceleratorCount": 4},
                                 "replicaCount": "2", "containerSpec": {"imageUri": IMAGE}}]}
    if strategy:
        spec["scheduling"] = {"strategy": strategy}
    (need,) = needs({"displayName": "x", "jobSpec": spec})  # g2 vCPUs: no metric known
    assert (need.metric, need.count, need.what) == (metric, 8, "NVIDIA_L4 GPUs")


def test_a_listed_job_with_unreadable_counts_is_read_without_failing():
    from gpujob.services.vertex.quota.preflight import in_use

    held = in_use([
        {"jobSpec": {"workerPoolSpecs": [{"machineSpec": {
            "machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
            "acceleratorCount": "many"}, "replicaCount": "x"}, {}, "pool"]}},
        {"jobSpec": "spec"}, {"trialJobSpec": {"workerPoolSpecs": [{"machineSpec": {
            "machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_T4",
            "acceleratorCount": 2}}]}, "parallelTrialCount": 3}])
    assert held == {T4: 6, CPUS: 8 + 12}


def test_a_metric_that_cannot_be_read_is_asked_once(cli, google, key, write, vertex,
                                                     preflight):
    google.quota.denied = True
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},us-east4")
    assert result.code == 0, result.err
    # T4 and vCPUs in two regions: one listing, asked once
    assert len(google.calls("consumerQuotaMetrics.list")) == 1


def test_limits_are_read_per_region_with_the_default_bucket_and_minus_one_unlimited(google):
    from gpujob.gcp.serviceusage import read_limits

    google.quota.set(T4, {REGION: 16, "us-east4": -1}, default=4)
    limits = read_limits(T4, google.quota.answer(PROJECT, "aiplatform.googleapis.com", T4))
    assert (limits.limit(REGION), limits.limit("us-east4"), limits.limit("europe-west4")) == \
        (16, None, 4)
    bare = read_limits(T4, {"consumerQuotaLimits": [{"unit": "1/{project}", "quotaBuckets": [
        {"effectiveLimit": "99"}]}]})  # a limit not per region is not this one
    with pytest.raises(LookupError, match=f"no limit of {T4} in {REGION}"):
        bare.limit(REGION)  # unknown, not 0: the preflight warns and goes on


def test_a_metric_without_a_limit_for_the_region_is_unknown_not_short():
    from gpujob.gcp.serviceusage import Limits
    from gpujob.services.vertex.quota.preflight import Preflight

    class Usage:  # answers as Service Usage would for a metric not limited per region
        def all_limits(self, service: str) -> dict[str, Limits]:
            return {T4: Limits(T4, {}, None, False)}

    class Jobs:
        def place(self, region: str, collection: str = "customJobs") -> str:
            return region

        def list(self, place: str, filter_: str) -> list:
            return []

    body = {"jobSpec": {"workerPoolSpecs": [{"machineSpec": {
        "machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
        "acceleratorCount": 4}, "replicaCount": "10"}]}}
    verdict = Preflight(Usage(), Jobs()).check(body, REGION)  # type: ignore[arg-type]
    assert not verdict.short
    assert verdict.unknown == f"Service Usage gives no limit of {T4} in {REGION}"


def test_preflight_says_when_the_quota_could_not_be_read(cli, google, key, write, vertex,
                                                          preflight):
    google.quota.denied = True
    config = write(FORTY_T4)
    shown = cli("preflight", config, *VERTEX, "--format", "json")
    assert shown.code == 0, shown.err
    assert json.loads(shown.out)["quotaChecked"] is False
    text = cli("preflight", config, *VERTEX)
    assert text.out == f"{REGION}/STANDARD\n"
    assert text.err.count("warning: the quota preflight could not read") == 1
    assert vertex.jobs == {} and google.calls("customJobs.create") == []


def test_preflight_says_a_package_has_nowhere_to_be_staged(cli, google, key, write, trainer,
                                                            vertex, preflight, monkeypatch):
    monkeypatch.delenv("GPUJOB_STAGING_BUCKET", raising=False)
    google.quota.set(T4, {REGION: 64})
    result = cli("preflight", write(PACKAGE_JOB), *VERTEX, "--package-path", trainer(),
                 "--executor-image-uri", IMAGE)
    assert result.code == 2, result.err
    assert "error: local packages need a place in Cloud Storage" in result.err
    assert google.calls("consumerQuotaMetrics.list") == []  # refused before asking
