"""``gpujob submit --service vertex --region A,B --strategy X,Y``: the choices tried in order
against the fake Vertex AI with per-region quota, refusals and stockouts; one submit never
leaves two live jobs."""

from __future__ import annotations

import json

import pytest
from conftest import REGION
from fakes.errors import field_violations, unavailable, vertex_quota_exceeded
from fakes.faults import Drop, Reply
from test_preflight import FORTY_T4, T4, T4_SPOT

VERTEX = ("--service", "vertex")
EAST = "us-east4"
LIVE = {"JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING"}


def _regions(vertex) -> list[str]:
    return [job["name"].split("/")[3] for job in vertex.jobs.values()]


def _live(vertex) -> list[dict]:
    return [job for job in vertex.jobs.values() if job["state"] in LIVE]


def test_no_quota_in_the_first_region_makes_exactly_one_job_in_the_second(
        cli, google, key, write, vertex, preflight):
    google.quota.set(T4, {REGION: 0, EAST: 64})
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--format", "json")
    assert result.code == 0, result.err
    assert _regions(vertex) == [EAST]
    (create,) = google.calls("customJobs.create")
    assert f"/locations/{EAST}/customJobs" in create.path
    shown = json.loads(result.out)
    assert shown["failover"]["chosen"] == {"region": EAST, "strategy": "STANDARD"}
    (passed,) = shown["failover"]["passedOver"]
    assert passed["region"] == REGION and passed["quota"][0]["limit"] == 0
    assert f"Chose {EAST}/STANDARD: choice 2 of 2, the one before it passed over." \
        in result.err
    assert (f"  passed over {REGION}/STANDARD: the project's quota there is short: {REGION}: "
            f"the job needs 40 NVIDIA_TESLA_T4 GPUs ({T4}); the project's limit there is 0"
            ) in result.err.splitlines()
    assert google.rejected == []


def test_a_quota_refusal_at_create_moves_on_to_the_next_region(cli, google, key, write, vertex):
    # no preflight: Vertex AI's own refusal (429 RESOURCE_EXHAUSTED) is what moves it on
    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 16))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 0, result.err
    assert [c.path.split("/")[5] for c in google.calls("customJobs.create")] == [REGION, EAST]
    assert _regions(vertex) == [EAST]
    (job,) = vertex.jobs.values()
    assert result.out == job["name"].rsplit("/", 1)[1] + "\n"
    assert f"note: {REGION}/STANDARD: Vertex AI refused the create for quota: " in result.err
    # it looked for a job of the refused create before moving on
    (looked,) = google.calls("customJobs.list")
    assert f"/locations/{REGION}/" in looked.path and "gpujob-submission" in \
        looked.query["filter"][0]


def test_a_config_on_standard_input_is_read_once_for_every_choice(
        cli, google, key, vertex, preflight):
    """Each choice is checked from the one reading: standard input cannot be read twice (the
    second choice once saw an empty file)."""
    google.quota.set(T4, {REGION: 0, EAST: 64})
    result = cli("submit", "-", *VERTEX, "--region", f"{REGION},{EAST}",
                 stdin=FORTY_T4.encode("utf-8"))
    assert result.code == 0, result.err
    assert _regions(vertex) == [EAST]


def test_a_stockout_in_the_first_region_remakes_the_job_in_the_second_one_running(
        cli, google, key, write, vertex, clock, preflight):
    google.quota.set(T4, {REGION: 64, EAST: 64})
    vertex.stockouts.add(REGION)
    vertex.region_scripts[EAST] = ["JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"]
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}", "--wait",
                 "--format", "json")
    assert result.code == 0, result.err
    assert sorted(_regions(vertex)) == sorted([REGION, EAST])
    states = {job["name"].split("/")[3]: job["state"] for job in vertex.jobs.values()}
    assert states == {REGION: "JOB_STATE_FAILED", EAST: "JOB_STATE_SUCCEEDED"}
    first = next(j for j in vertex.jobs.values() if f"/{REGION}/" in j["name"])
    assert "startTime" not in first  # it never ran
    shown = json.loads(result.out)
    assert shown["job"]["state"] == "SUCCEEDED"
    assert shown["failover"]["chosen"]["region"] == EAST
    (passed,) = shown["failover"]["passedOver"]
    assert passed["reason"].startswith(f"job {first['name'].rsplit('/', 1)[1]} ended FAILED "
                                       "before it ran: Resources are insufficient in region")


def test_spot_then_standard_reads_each_strategys_metric(cli, google, key, write, vertex,
                                                        preflight):
    google.quota.set(T4, {REGION: 64})
    google.quota.set(T4_SPOT, {REGION: 0})
    result = cli("submit", write(FORTY_T4), *VERTEX, "--strategy", "spot,standard",
                 "--format", "json")
    assert result.code == 0, result.err
    (create,) = google.calls("customJobs.create")
    assert create.body["jobSpec"]["scheduling"]["strategy"] == "STANDARD"
    envelope = json.loads(result.out)
    shown = envelope["failover"]
    assert shown["chosen"] == {"region": REGION, "strategy": "STANDARD"}
    assert shown["passedOver"][0]["strategy"] == "SPOT"
    assert shown["passedOver"][0]["quota"][0]["metric"] == T4_SPOT
    assert envelope["cost"]["strategy"] == "on_demand"  # the chosen choice's price


def test_the_json_cost_is_the_region_the_job_was_made_in(cli, google, key, write, vertex):
    """The first choice refused at create: the envelope's cost is the second's, where the job
    runs, not the first's, which the build was made for."""
    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 0))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--format", "json")
    assert result.code == 0, result.err
    envelope = json.loads(result.out)
    assert envelope["failover"]["chosen"]["region"] == EAST
    assert envelope["cost"]["region"] == EAST, envelope["cost"]


def test_a_refusal_in_the_last_choice_is_the_error_and_no_job_is_left(cli, google, key, write,
                                                                      vertex):
    for region in (REGION, EAST):
        vertex.refusals[region] = (429, vertex_quota_exceeded(T4, region, 0))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 3
    assert vertex.jobs == {}
    assert f"  passed over {REGION}/STANDARD: Vertex AI refused the create for quota" \
        in result.err


def test_a_job_made_by_a_refused_create_is_cancelled_before_moving_on(cli, google, key, write,
                                                                       vertex):
    # a quota refusal that comes after the job was made after all: it must not live on
    google.inject("customJobs.create",
                  Reply(429, vertex_quota_exceeded(T4, REGION, 16), handled=True))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 0, result.err
    assert len(vertex.jobs) == 2
    assert [j["name"].split("/")[3] for j in _live(vertex)] == [EAST]
    assert "of the refused create was made after all; cancelled it" in result.err


@pytest.mark.parametrize("flags", [("--region", f"{REGION},,{EAST}"),
                                   ("--region", f"{REGION},{EAST},{REGION}"),
                                   ("--strategy", "spot,cheap")])
def test_a_bad_list_is_a_usage_error(cli, google, key, write, flags):
    result = cli("submit", write(FORTY_T4), *VERTEX, *flags)
    assert result.code == 2
    assert google.calls("customJobs.create") == []


def test_a_list_of_strategies_is_refused_by_validate(cli, write):
    result = cli("validate", write(FORTY_T4), *VERTEX, "--strategy", "spot,standard")
    assert result.code == 2
    assert "this command takes one strategy" in result.err


def test_a_region_the_checks_refuse_is_passed_over_with_their_reason(cli, google, key, write,
                                                                     vertex):
    # us-central2 has an endpoint but no training: the checks refuse it, us-east4 is taken
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"us-central2,{EAST}")
    assert result.code == 0, result.err
    assert _regions(vertex) == [EAST]
    assert ("  passed over us-central2/STANDARD: the checks refuse it: 'us-central2' is not a "
            "region Vertex AI custom training runs in (it has an API endpoint, but it is not "
            "among the training regions)") in result.err.splitlines()
    assert "vertex.region" not in result.err  # the refused choice's findings are not shown


def test_a_native_config_fails_over_too(cli, google, key, write, vertex, preflight):
    from vertex_jobs import custom_job

    google.quota.set(T4, {REGION: 0, EAST: 8})
    config = write(json.dumps(custom_job()), "job.json")
    result = cli("submit", config, *VERTEX, "--region", f"{REGION},{EAST}", "--format", "json")
    assert result.code == 0, result.err
    (create,) = google.calls("customJobs.create")
    assert f"/locations/{EAST}/" in create.path
    shown = json.loads(result.out)["failover"]
    assert [(p["region"], p["strategy"]) for p in shown["passedOver"]] == [
        (REGION, "STANDARD")]


@pytest.mark.slow
def test_a_package_is_staged_once_where_every_choice_reads_it(cli, google, key, gcs, write,
                                                               trainer, vertex, offline_builds,
                                                               clock):
    from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 0))
    image = "us-docker.pkg.dev/proj-a/images/python:3.11"
    result = cli("submit", write(RUNTIME_JOB_WITHOUT_PACKAGES), *VERTEX, "--package-path",
                 trainer(), "--executor-image-uri", image, "--staging-bucket",
                 f"gs://{gcs.bucket}", "--region", f"{REGION},{EAST}")
    assert result.code == 0, result.err
    (staged,) = gcs.emulator.objects(gcs.bucket)  # built and uploaded once
    first, second = google.calls("customJobs.create")
    assert first.body["jobSpec"] == second.body["jobSpec"]  # the same package, from the bucket
    assert f"/gcs/{gcs.bucket}/{staged} " in \
        second.body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["command"][2]
    assert _regions(vertex) == [EAST]
    assert (f"note: every choice's job reads the package from gs://{gcs.bucket}/packages/ (a "
            "bucket is readable from every region; a multi-region bucket keeps the reads near)"
            ) in result.err.splitlines()


def test_an_error_of_every_choice_is_the_configs_and_reported_as_usual(cli, google, key, write,
                                                                        vertex):
    config = write(FORTY_T4.replace("n1-standard-8", "n1-standard-800"))
    result = cli("submit", config, *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 1
    assert "n1-standard-800" in result.err and "passed over" not in result.err
    assert vertex.jobs == {}


def test_a_dry_run_says_it_takes_the_first_choice(cli, write):
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--strategy", "spot,standard", "--dry-run")
    assert result.code == 0, result.err
    assert result.err.splitlines()[0] == (
        f"note: a dry run takes the first choice (--region {REGION} and --strategy SPOT); "
        "submit tries the others in turn")
    body = json.loads(result.out)
    assert body["jobSpec"]["scheduling"]["strategy"] == "SPOT"


@pytest.mark.parametrize("fault", [
    Drop(), Reply(503, unavailable(), handled=True), Reply(503, unavailable()),
    Reply(429, vertex_quota_exceeded(T4, REGION, 0)),
    Reply(429, vertex_quota_exceeded(T4, REGION, 0), handled=True),
    Reply(400, field_violations([("job_spec", "Something is wrong.")]))],
    ids=["lost answer", "503 after the job was made", "503", "quota", "quota after the job "
         "was made", "400"])
def test_one_submit_never_leaves_two_live_jobs(cli, google, key, write, vertex, clock, fault):
    google.inject("customJobs.create", fault)
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert len(_live(vertex)) <= 1, result.err
    if result.code == 0:
        assert len(_live(vertex)) == 1
    else:  # a refusal another region would meet too: the submit stops there
        assert result.code == 3 and vertex.jobs == {}


def test_a_refused_create_whose_job_cannot_be_looked_for_stops_there(cli, google, key, write,
                                                                     vertex, clock):
    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 0))
    vertex.deny("aiplatform.customJobs.list")
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}")
    assert result.code == 3
    assert "whether that create made a job after all could not be checked" in result.err
    assert "so no other region or strategy was tried" in result.err
    assert [c.path.split("/")[5] for c in google.calls("customJobs.create")] == [REGION]


def test_json_says_why_no_choice_would_do(cli, google, key, write, vertex, preflight):
    google.quota.set(T4, {REGION: 16, EAST: 8})
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--format", "json")
    assert result.code == 1
    shown = json.loads(result.out)
    assert shown["job"] is None and shown["failover"]["chosen"] is None
    assert [(p["region"], p["quota"][0]["limit"]) for p in shown["failover"]["passedOver"]] \
        == [(REGION, 16), (EAST, 8)]
    # every choice's shortfall is the error's, and where to ask for more in each (newcomer L12)
    error, hint = result.err.splitlines()[-2:]
    assert error == (
        f"error: not enough quota: none of the 2 choices has enough: {REGION}: the job needs 40 "
        f"NVIDIA_TESLA_T4 GPUs ({T4}); the project's limit there is 16; {EAST}: the job needs "
        f"40 NVIDIA_TESLA_T4 GPUs ({T4}); the project's limit there is 8; nothing was built, "
        "uploaded or submitted")
    assert f"region {REGION})" in hint and f"region {EAST})" in hint
    assert "passed over" not in result.err  # said once, in the error


def test_after_a_stockout_stdout_names_only_the_job_that_ran(cli, google, key, write, vertex,
                                                             clock):
    vertex.stockouts.add(REGION)
    vertex.region_scripts[EAST] = ["JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"]
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}", "--wait")
    assert result.code == 0, result.err
    (ran,) = [job for job in vertex.jobs.values() if f"/{EAST}/" in job["name"]]
    assert result.out == ran["name"].rsplit("/", 1)[1] + "\n"
    assert "ended FAILED before it ran: Resources are insufficient in region: us-central1" \
        in result.err


def test_a_job_failed_on_quota_before_it_ran_is_made_again_in_the_next_region(
        cli, google, key, write, vertex, clock):
    from fakes.errors import quota_failure
    from fakes.vertex import Step

    vertex.region_scripts[REGION] = ["JOB_STATE_PENDING",
                                     Step("JOB_STATE_FAILED", error=quota_failure(T4))]
    vertex.region_scripts[EAST] = ["JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"]
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}", "--wait")
    assert result.code == 0, result.err
    assert sorted(job["state"] for job in vertex.jobs.values()) == [
        "JOB_STATE_FAILED", "JOB_STATE_SUCCEEDED"]


def test_a_job_that_ran_and_failed_is_not_made_again(cli, google, key, write, vertex, clock):
    from fakes.errors import insufficient_resources
    from fakes.vertex import Step

    # it ran first: a failure then is the job's, whatever the message says
    vertex.region_scripts[REGION] = ["JOB_STATE_RUNNING", Step(
        "JOB_STATE_FAILED", error=insufficient_resources(REGION))]
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}", "--wait")
    assert result.code == 4
    assert _regions(vertex) == [REGION]


def test_each_choices_notes_are_said_once_and_its_jobs_carry_one_name(
        cli, google, key, write, vertex):
    # two choices: the command line's notes are said once, and both jobs carry one name
    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 16))
    config = write(FORTY_T4 + "  scheduling: {maxRunningTime: 3600s}\n")
    result = cli("submit", config, *VERTEX, "--region", f"{REGION},{EAST}",
                 "--unset", "trainingInput.scheduling")
    assert result.code == 0, result.err
    removed = [line for line in result.err.splitlines()
               if line.startswith("note: --unset trainingInput.scheduling removed")]
    assert len(removed) == 1, result.err
    first, second = google.calls("customJobs.create")
    assert first.body["displayName"] == second.body["displayName"]
    assert "scheduling" not in second.body["jobSpec"]


def test_each_choice_is_translated_once(cli, google, key, write, vertex, preflight,
                                        translations):
    google.quota.set(T4, {REGION: 64, EAST: 64})
    vertex.refusals[REGION] = (429, vertex_quota_exceeded(T4, REGION, 16))
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", f"{REGION},{EAST}",
                 "--strategy", "spot,standard")
    assert result.code == 0, result.err
    assert len(translations) == 4  # two regions × two strategies: checked, preflighted and sent
    assert len(google.calls("customJobs.create")) == 3  # us-central1 twice, then us-east4


@pytest.mark.parametrize("service", ["ai-platform", "gke"])
def test_a_service_that_takes_one_region_refuses_a_list(cli, google, key, write, service):
    result = cli("submit", write(FORTY_T4), "--service", service, "--region",
                 f"{REGION},{EAST}")
    assert result.code == 2, result.err
    assert (f"error: --region or --strategy with a list of choices: the {service} service (") \
        in result.err
    assert "lacks the capability 'placement'" in result.err
    assert google.requests == []


def test_a_choice_the_checks_refuse_names_the_region_the_command_line_gave(cli, google, key,
                                                                          write, vertex):
    """One --region and a list of strategies: the note named "the config region" (newcomer
    L13)."""
    result = cli("submit", write(FORTY_T4), *VERTEX, "--region", "europe-west4", "--strategy",
                 "spot,standard", "--max-hourly-cost", "0.5")
    assert result.code == 1
    assert "the config region" not in result.err
    assert any(line.startswith("note: passed over europe-west4/STANDARD: the checks refuse it: "
                               "the job costs $") for line in result.err.splitlines()), result.err
    assert vertex.jobs == {}
