"""Issue 31 item 4: what a Vertex AI job cost, against the fake Vertex AI. ``describe``, ``wait``
and ``list`` show each job's estimate: its run time (startTime to endTime; queued time is not
billed) × its machines × the dated list price of its strategy in its region; ``--format json``
carries the figures; a price gpujob does not have is said. Before a job runs, ``--max-cost``
caps the whole job: a shorter timeout in the request sent, or a refusal before anything is
sent."""

from __future__ import annotations

import json

import pytest
from conftest import PROJECT, REGION
from vertex_jobs import custom_job

from gpujob.services.vertex.pricing import prices

VERTEX = ("--service", "vertex", "--region", REGION)
A100 = {"machineType": "a2-highgpu-1g", "acceleratorType": "NVIDIA_TESLA_A100",
        "acceleratorCount": 1}
B200 = {"machineType": "a4-highgpu-8g", "acceleratorType": "NVIDIA_B200", "acceleratorCount": 8}
STARTED, ENDED = "2026-11-26T10:00:00.250Z", "2026-11-26T12:37:30.250Z"  # 2 h 37 min 30 s


def _job(vertex, state: str, machine: dict, strategy: str | None = None,
         started: str | None = STARTED, ended: str | None = ENDED, replicas: int = 1) -> str:
    body = custom_job("train", **machine)
    body["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] = str(replicas)
    if strategy:
        body["jobSpec"]["scheduling"] = {"strategy": strategy}
    stored = vertex.add_job(PROJECT, REGION, body, state=state,
                            created="2026-11-26T09:00:00Z")
    for key, value in (("startTime", started), ("endTime", ended)):
        stored.pop(key, None)
        if value:
            stored[key] = value
    return stored["name"].rsplit("/", 1)[1]


def _price(machine: str, strategy: str = "on_demand") -> float:
    found = prices.built_in().machine(REGION, machine)
    assert found is not None
    figure = found.for_strategy(strategy)
    assert figure is not None
    return figure


def test_describe_of_a_finished_job_shows_its_cost_to_the_cent(cli, google, key, vertex):
    job_id = _job(vertex, "JOB_STATE_SUCCEEDED", A100, replicas=2)
    hourly = 2 * _price("a2-highgpu-1g")
    expected = hourly * 2.625  # 2 h 37 min 30 s
    result = cli("describe", job_id, *VERTEX)
    assert result.code == 0, result.err
    assert result.err.splitlines()[-1] == (
        f"cost: about ${expected:,.2f}, an estimate: it ran 2 hours 37 minutes × "
        f"${hourly:,.2f}/hour on-demand in {REGION} (2 × a2-highgpu-1g with 1 × "
        "NVIDIA_TESLA_A100), list prices as of 2026-07-30")
    envelope = json.loads(cli("describe", job_id, *VERTEX, "--format", "json").out)
    cost = envelope["job"]["cost"]
    assert cost["amount"] == pytest.approx(expected, abs=1e-5)
    assert round(cost["amount"], 2) == round(expected, 2)
    assert cost["seconds"] == 2.625 * 3600 and cost["running"] is False
    assert cost["estimate"] is True and cost["currency"] == "USD"
    assert cost["strategy"] == "on_demand" and cost["region"] == REGION
    assert cost["prices"]["as_of"] == "2026-07-30"


def test_a_spot_job_is_priced_at_spot_and_queued_time_is_free(cli, google, key, vertex):
    spot = _job(vertex, "JOB_STATE_FAILED", A100, "SPOT")
    queued = _job(vertex, "JOB_STATE_PENDING", A100, started=None, ended=None)
    described = cli("describe", spot, *VERTEX, "--format", "json")
    cost = json.loads(described.out)["job"]["cost"]
    assert cost["strategy"] == "spot"
    assert cost["amount"] == pytest.approx(2.625 * _price("a2-highgpu-1g", "spot"), abs=1e-5)
    result = cli("describe", queued, *VERTEX)
    assert result.err.splitlines()[-2].startswith(
        "cost: nothing yet: the job has not run, and time queued or pending is not billed; "
        f"${_price('a2-highgpu-1g'):,.2f}/hour on-demand in {REGION}")
    assert cli("describe", spot, *VERTEX).err.splitlines()[-1].endswith(
        "list prices as of 2026-07-30; time its Spot VMs were preempted, which is not billed, "
        "is counted")
    stocked_out = _job(vertex, "JOB_STATE_FAILED", A100, started=None)  # it never ran
    assert cli("describe", stocked_out, *VERTEX).err.splitlines()[-1] == (
        "cost: nothing: the job ended without having run (no startTime), and time queued or "
        "pending is not billed")


def test_wait_ends_with_the_cost(cli, google, key, vertex, clock):
    job_id = _job(vertex, "JOB_STATE_RUNNING", A100)
    vertex.script(job_id, "JOB_STATE_SUCCEEDED")
    result = cli("wait", job_id, *VERTEX, "--poll-interval", "1")
    assert result.code == 0, result.err
    ended = vertex.job(job_id)["endTime"]  # the fake ends it now
    assert ended != ENDED
    last = result.err.splitlines()[-1]
    assert last.startswith("cost: about $") and " × $" in last
    assert "/hour on-demand in us-central1 (1 × a2-highgpu-1g with 1 × NVIDIA_TESLA_A100), " \
        "list prices as of 2026-07-30" in last


def test_an_unknown_price_is_said(cli, google, key, vertex):
    job_id = _job(vertex, "JOB_STATE_SUCCEEDED", A100, "FLEX_START")
    result = cli("describe", job_id, *VERTEX)
    assert result.err.splitlines()[-1] == (
        "cost: not estimated: it ran 2 hours 37 minutes, and no flex-start price for "
        f"a2-highgpu-1g in {REGION}")
    cost = json.loads(cli("describe", job_id, *VERTEX, "--format", "json").out)["job"]["cost"]
    assert cost["amount"] is None and cost["unknown"] == []


def test_list_has_a_cost_column(cli, google, key, vertex):
    done = _job(vertex, "JOB_STATE_SUCCEEDED", A100)
    queued = _job(vertex, "JOB_STATE_QUEUED", A100, started=None, ended=None)
    unpriced = _job(vertex, "JOB_STATE_SUCCEEDED", A100, "FLEX_START")
    result = cli("list", *VERTEX)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == ["JOB_ID", "STATE", "CREATED", "COST", "NAME"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows[done][3] == f"${2.625 * _price('a2-highgpu-1g'):,.2f}"
    assert rows[queued][3] == "-"
    assert rows[unpriced][3:5] == ["no", "price"]
    listed = json.loads(cli("list", *VERTEX, "--format", "json").out)
    amounts = {env["job"]["id"]: env["job"]["cost"]["amount"] for env in listed["jobs"]}
    assert amounts[queued] == 0.0 and amounts[unpriced] is None


# -- before it runs: the worst case and --max-cost ------------------------------------------

SPEC = """\
workerPoolSpecs:
  - machineSpec: {machineType: a2-highgpu-1g, acceleratorType: NVIDIA_TESLA_A100,
                  acceleratorCount: 1}
    replicaCount: 1
    containerSpec: {imageUri: us-docker.pkg.dev/proj-a/trainers/trainer:1}
"""


def test_max_cost_gives_a_job_without_a_timeout_one_and_sends_it(cli, google, key, vertex,
                                                                 write, clock):
    spec = write(SPEC, "spec.yaml")
    hourly = _price("a2-highgpu-1g")
    result = cli("submit", spec, *VERTEX, "--max-cost", "20")
    assert result.code == 0, result.err
    seconds = int(20 / hourly * 3600) // 60 * 60
    sent = google.calls("customJobs.create")
    assert len(sent) == 1
    assert sent[0].body["jobSpec"]["scheduling"]["timeout"] == f"{seconds}s"
    assert (f"{spec}:1:1: note: --max-cost $20.00: the job's timeout is set to {seconds}s (")\
        in result.err
    assert f"so that it costs at most ${hourly * seconds / 3600:,.2f} at ${hourly:,.2f}/hour " \
        "on-demand; Vertex AI's default timeout of 7 days would allow " \
        f"${hourly * 168:,.2f}. Vertex AI stops the job then [cost.max-cost]" in result.err
    assert f"worst case: at most ${hourly * seconds / 3600:,.2f}, if it runs until its " \
        "timeout of 4 hours 44 minutes" in result.err.splitlines()  # before the create
    again = cli("submit", spec, *VERTEX, "--max-cost", "20", "--format", "json")
    cost = json.loads(again.out)["cost"]  # the note is said by the figures
    assert cost["timeout_s"] == seconds and cost["timeout_from"] == "--max-cost"
    assert json.loads(again.out)["raw"]["jobSpec"]["scheduling"]["timeout"] == f"{seconds}s"
    assert cost["worst_case"] == pytest.approx(hourly * seconds / 3600, abs=1e-5)
    assert cost["worst_case"] <= 20


def test_max_cost_refuses_a_job_whose_own_timeout_is_longer(cli, google, key, vertex, write):
    spec = write(SPEC + "scheduling: {timeout: 86400s}\n", "spec.yaml")
    result = cli("submit", spec, *VERTEX, "--max-cost", "20")
    assert result.code == 1
    worst = 24 * _price("a2-highgpu-1g")
    assert (f"the job can cost ${worst:,.2f} (${_price('a2-highgpu-1g'):,.2f}/hour on-demand, "
            "if it runs until its timeout of 1 day), over --max-cost $20.00 "
            "[cost.max-cost]") in result.err
    assert google.calls("customJobs.create") == [] and vertex.jobs == {}


def test_max_cost_refuses_to_guess_an_unknown_price(cli, google, key, vertex, write):
    spec = write(SPEC, "spec.yaml")
    result = cli("submit", spec, *VERTEX, "--max-cost", "1000", "--set",
                 "scheduling.strategy=FLEX_START", "--dry-run")
    assert result.code == 1
    assert ("what the job can cost cannot be told (no flex-start price for a2-highgpu-1g in "
            "us-central1), so --max-cost $1,000.00 cannot be held [cost.unknown]") in result.err
    assert result.out == "" and google.requests == []


def test_the_dry_run_says_the_worst_case_within_the_cap(cli, write):
    spec = write(SPEC + "scheduling: {timeout: 7200s}\n", "spec.yaml")
    result = cli("submit", spec, *VERTEX, "--dry-run", "--max-cost", "100")
    assert result.code == 0, result.err
    assert (f"worst case: at most ${2 * _price('a2-highgpu-1g'):,.2f}, if it runs until its "
            "timeout of 2 hours") in result.err.splitlines()
    assert json.loads(result.out)["jobSpec"]["scheduling"]["timeout"] == "7200s"  # unchanged


# -- item 2: Spot and flex-start with nowhere to checkpoint -----------------------------------

def test_spot_without_a_job_dir_is_warned_of_what_a_preemption_costs(cli, write):
    spec = write(SPEC, "spec.yaml")
    result = cli("submit", spec, *VERTEX, "--dry-run", "--set", "scheduling.strategy=SPOT")
    assert result.code == 0, result.err
    spot = _price("a2-highgpu-1g", "spot")
    assert (f"warning: the job has nowhere to save checkpoints (no baseOutputDirectory; an AI "
            "Platform config's jobDir): when its Spot VMs are preempted, Vertex AI restarts it "
            "from scratch, and every hour it ran before is paid again "
            f"(${spot:,.2f} an hour) [cost.no-resume]") in result.err
    resumable = write(SPEC + "baseOutputDirectory: {outputUriPrefix: gs://b/out}\n", "r.yaml")
    assert "cost.no-resume" not in cli("submit", resumable, *VERTEX, "--dry-run", "--set",
                                       "scheduling.strategy=SPOT").err


def test_flex_start_without_a_job_dir_is_warned_of_its_run_limit(cli, write):
    spec = write(SPEC.replace("a2-highgpu-1g", "a3-highgpu-8g")
                 .replace("NVIDIA_TESLA_A100", "NVIDIA_H100_80GB")
                 .replace("acceleratorCount: 1", "acceleratorCount: 8"), "spec.yaml")
    result = cli("submit", spec, *VERTEX, "--dry-run", "--set",
                 "scheduling.strategy=FLEX_START")
    assert result.code == 0, result.err
    flex = _price("a3-highgpu-8g", "flex_start")
    assert ("warning: the job has nowhere to save checkpoints (no baseOutputDirectory; an AI "
            "Platform config's jobDir): a flex-start job runs at most until its timeout of 7 "
            "days (Vertex AI's default: the job sets none; flex-start allows at most 7 days), "
            "and a run that needs longer ends unfinished, to start again from scratch "
            f"(${flex:,.2f} an hour: up to ${flex * 168:,.2f} paid for a run that does not "
            "finish) [cost.no-resume]") in result.err


def _catalog(tmp_path, **scheduling: object) -> str:
    from gpujob.catalog import data_file

    data = json.loads(data_file("vertex").read_text(encoding="utf-8"))
    for path, value in scheduling.items():
        *parents, last = path.split(".")
        node = data["scheduling"]
        for part in parents:
            node = node[part]
        node[last] = value
    catalog = tmp_path / "vertex.json"
    catalog.write_text(json.dumps(data), encoding="utf-8")
    return str(catalog)


def test_the_worst_case_takes_the_default_timeout_of_the_catalog_in_use(cli, write, tmp_path):
    """--catalog: its scheduling.default_timeout_s, not the built-in catalog's 7 days, is the
    run a job without a timeout is priced over, in a native config and an AI Platform one."""
    from jobs import CONTAINER_JOB

    catalog = _catalog(tmp_path, default_timeout_s=3600)
    hourly = _price("a2-highgpu-1g")
    for config, cost in ((write(SPEC, "spec.yaml"), f"${hourly:,.2f}"),
                         (write(CONTAINER_JOB, "config.yaml"), "$2.26")):  # rules.check's
        result = cli("submit", config, *VERTEX, "--dry-run", "--catalog", catalog)
        assert result.code == 0, result.err
        assert (f"worst case: at most {cost}, if it runs until its timeout of 1 hour (Vertex "
                "AI's default: the job sets none)") in result.err.splitlines()


def test_flex_start_s_run_limit_is_the_catalog_in_use_s(cli, write, tmp_path):
    catalog = _catalog(tmp_path, default_timeout_s=3600, **{"flex_start.max_timeout_s": 172800})
    spec = write(SPEC.replace("a2-highgpu-1g", "a3-highgpu-8g")
                 .replace("NVIDIA_TESLA_A100", "NVIDIA_H100_80GB")
                 .replace("acceleratorCount: 1", "acceleratorCount: 8"), "spec.yaml")
    result = cli("submit", spec, *VERTEX, "--dry-run", "--set",
                 "scheduling.strategy=FLEX_START", "--catalog", catalog)
    assert result.code == 0, result.err
    flex = _price("a3-highgpu-8g", "flex_start")
    assert ("a flex-start job runs at most until its timeout of 1 hour (Vertex AI's default: "
            "the job sets none; flex-start allows at most 2 days), and a run that needs longer "
            f"ends unfinished, to start again from scratch (${flex:,.2f} an hour: up to "
            f"${flex:,.2f} paid for a run that does not finish) [cost.no-resume]") in result.err


def test_a_tuning_job_counts_its_trials_own_run_times(cli, google, key, vertex):
    from vertex_jobs import tuning_job

    stored = vertex.add_job(PROJECT, REGION, tuning_job(), state="JOB_STATE_SUCCEEDED")
    stored["startTime"], stored["endTime"] = STARTED, ENDED
    stored["trials"] = [  # 1 hour and 30 minutes: not 2 parallel trials x the job's 2.6 hours
        {"id": "1", "state": "SUCCEEDED", "startTime": "2026-11-26T10:00:00Z",
         "endTime": "2026-11-26T11:00:00Z"},
        {"id": "2", "state": "SUCCEEDED", "startTime": "2026-11-26T10:00:00Z",
         "endTime": "2026-11-26T10:30:00Z"}]
    job_id = stored["name"].rsplit("/", 1)[1]
    cost = json.loads(cli("describe", job_id, *VERTEX, "--format", "json").out)["job"]["cost"]
    per_trial = prices.built_in().machine(REGION, "n1-standard-4").on_demand \
        + prices.built_in().accelerator(REGION, "NVIDIA_TESLA_T4").on_demand
    assert cost["trials"] is True and cost["seconds"] == 5400
    assert cost["amount"] == pytest.approx(1.5 * per_trial, abs=1e-5)
    line = cli("describe", job_id, *VERTEX).err.splitlines()[-1]
    assert line.startswith(f"cost: about ${1.5 * per_trial:,.2f}, an estimate: its trials ran "
                           "1 hour 30 minutes in all × $")
    assert "/hour per trial on-demand in us-central1 (1 × n1-standard-4 with 1 × " \
        "NVIDIA_TESLA_T4)" in line
