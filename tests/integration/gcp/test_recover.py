"""``gpujob submit --recover N`` and ``gpujob wait JOB --recover N`` against the fake Vertex AI:
a job that ends FAILED for the infrastructure's cause (a Spot job preempted after it ran, as
Vertex AI ends one: its stockout error) is created again, one job alive at a time, with the
same baseOutputDirectory; the trainer's own failure is not; --recover-on-exit-codes,
--max-cost and a lost create answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import PROJECT, PROJECT_NUMBER, REGION
from fakes.errors import preempted, replica_failure
from fakes.faults import Drop
from fakes.vertex import Step
from test_preflight import IMAGE

from gpujob.services.vertex.pricing.cost import estimate

VERTEX = ("--service", "vertex")
EAST = "us-east4"
JOB_DIR = "gs://ckpt-bucket/run1"
SPOT_T4 = f"""\
trainingInput:
  region: {REGION}
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {{count: 1, type: NVIDIA_TESLA_T4}}
    imageUri: {IMAGE}
  jobDir: {JOB_DIR}
  scheduling: {{maxRunningTime: 7200s}}
"""
HOUR = 3600.0


def _preempted(region: str = REGION, ran: float = HOUR) -> list:
    """A Spot job that runs, and then ends as Vertex AI ends a preempted one."""
    return ["JOB_STATE_RUNNING", Step("JOB_STATE_FAILED", error=preempted(region), ran=ran)]


def _exits(status: int) -> list:
    return ["JOB_STATE_RUNNING", Step("JOB_STATE_FAILED", error=replica_failure(
        "1", PROJECT_NUMBER, status=status), ran=60.0)]


SUCCEEDS = ["JOB_STATE_RUNNING", Step("JOB_STATE_SUCCEEDED", ran=HOUR)]


def _creates(google) -> list:
    return google.calls("customJobs.create")


def _attempt_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("attempt ")]


def test_a_spot_job_preempted_twice_is_created_three_times_one_alive_at_a_time(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_preempted(), _preempted(), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "3")
    assert result.code == 0, result.err
    creates = _creates(google)
    assert len(creates) == 3 and len(vertex.jobs) == 3
    assert vertex.live_at_create == [0, 0, 0]  # never two jobs alive
    bodies = [c.body for c in creates]
    assert {b["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"] for b in bodies} == {JOB_DIR}
    labels = [b["labels"] for b in bodies]
    assert len({lab["gpujob-submission"] for lab in labels}) == 3  # each attempt its own
    assert {lab["gpujob-lineage"] for lab in labels} == {labels[0]["gpujob-submission"]}
    assert [lab["gpujob-attempt"] for lab in labels] == ["1", "2", "3"]
    lines = _attempt_lines(result.err)
    assert len(lines) == 3
    ids = [job["name"].rsplit("/", 1)[1] for job in vertex.jobs.values()]
    assert lines[0] == (f"attempt 1: job {ids[0]} in {REGION}/SPOT FAILED after 1 h 0 min, "
                        f"{lines[0].split(', ')[1].split(' (')[0]} (an estimate): preemption: "
                        "its Spot VMs were preempted (Vertex AI ends a preempted Spot job with "
                        "a STOCKOUT error, after Compute Engine's restarts)")
    assert lines[2].startswith(f"attempt 3: job {ids[2]} in {REGION}/SPOT SUCCEEDED after "
                               "1 h 0 min, $")
    assert f"  recovering: attempt 2 in {REGION}/SPOT (2 more left after it)" in result.err
    assert "recovery: 3 attempts, $" in result.err
    assert result.out == ids[2] + "\n"  # the result: the job that succeeded


def test_with_two_regions_the_second_attempt_goes_to_the_second_and_the_third_wraps_around(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_preempted(REGION), _preempted(EAST), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--region",
                 f"{REGION},{EAST}", "--recover", "3", "--format", "json")
    assert result.code == 0, result.err
    assert [c.path.split("/")[5] for c in _creates(google)] == [REGION, EAST, REGION]
    assert vertex.live_at_create == [0, 0, 0]
    shown = json.loads(result.out)
    attempts = shown["recovery"]["attempts"]
    assert [a["where"] for a in attempts] == [f"{REGION}/SPOT", f"{EAST}/SPOT", f"{REGION}/SPOT"]
    assert [a["state"] for a in attempts] == ["FAILED", "FAILED", "SUCCEEDED"]
    assert attempts[0]["cause"].startswith("preemption: its Spot VMs were preempted")
    assert attempts[0]["seconds"] == HOUR and attempts[0]["cost"] > 0
    assert shown["recovery"]["spent"] == pytest.approx(sum(a["cost"] for a in attempts))
    assert shown["job"]["state"] == "SUCCEEDED"


def test_each_attempt_is_priced_at_its_own_strategy_and_the_sum_is_theirs(
        cli, google, key, write, vertex, clock):
    """A Spot attempt preempted, then a standard one (``--strategy spot,standard``): each
    attempt's line and JSON cost is its own strategy's price for the hour it ran, and the
    sum (text and ``spent``) is theirs."""
    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot,standard",
                 "--recover", "1", "--format", "json")
    assert result.code == 0, result.err
    bodies = [c.body for c in _creates(google)]
    assert [b["jobSpec"].get("scheduling", {}).get("strategy", "STANDARD") for b in bodies] \
        == ["SPOT", "STANDARD"]
    spot, standard = (estimate(b, REGION).total for b in bodies)
    assert spot is not None and standard is not None and spot < standard
    attempts = json.loads(result.out)["recovery"]["attempts"]
    assert [a["where"] for a in attempts] == [f"{REGION}/SPOT", f"{REGION}/STANDARD"]
    assert [a["cost"] for a in attempts] == [pytest.approx(spot), pytest.approx(standard)]
    assert json.loads(result.out)["recovery"]["spent"] == pytest.approx(spot + standard)
    first, second = _attempt_lines(result.err)
    assert f"in {REGION}/SPOT FAILED after 1 h 0 min, ${spot:,.2f} (an estimate)" in first
    assert f"in {REGION}/STANDARD SUCCEEDED after 1 h 0 min, ${standard:,.2f} (an " \
           "estimate)" in second
    assert f"recovery: 2 attempts, ${spot + standard:,.2f} in all (an estimate)" in result.err


def test_the_trainers_own_failure_is_not_recovered(cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_exits(1), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "3")
    assert result.code == 4, result.err
    assert len(_creates(google)) == 1
    (line,) = _attempt_lines(result.err)
    assert line.endswith("FAILED after 1 min 0 s, $0.0068 (an estimate): the trainer's own "
                         "failure (exit status 1): not recovered")
    assert "non-zero status of 1" in result.err  # the job's own message, as wait says it


def test_a_listed_exit_code_is_recovered_and_an_unlisted_one_is_not(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_exits(137), _exits(143), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--recover", "3",
                 "--recover-on-exit-codes", "137")
    assert result.code == 4, result.err
    assert len(_creates(google)) == 2
    first, second = _attempt_lines(result.err)
    assert first.endswith(": exit status 137 (--recover-on-exit-codes)")
    assert second.endswith("the trainer's own failure (exit status 143, not in "
                           "--recover-on-exit-codes 137): not recovered")


def _hourly(cli, write, config: str = SPOT_T4) -> float:
    """The Spot T4 job's price an hour, as describe prices it."""
    probe = cli("submit", write(config), *VERTEX, "--strategy", "spot", "--dry-run",
                "--format", "json")
    hourly = estimate(json.loads(probe.out), REGION).total
    assert hourly is not None
    return hourly


NO_TIMEOUT = SPOT_T4.replace("  scheduling: {maxRunningTime: 7200s}\n", "")


def test_the_cost_cap_gives_the_next_attempt_a_timeout_that_fits_what_is_left(
        cli, google, key, write, vertex, clock):
    """No timeout of its own: --max-cost (three hours' price) sets attempt 1's; preempted
    after an hour, attempt 2 is given the timeout that the money left pays for (whole
    minutes), said in its line, rather than recovery stopping at once."""
    from gpujob.numbers import span_in_words

    hourly = _hourly(cli, write, NO_TIMEOUT)
    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    cap = round(hourly * 3, 2)
    result = cli("submit", write(NO_TIMEOUT), *VERTEX, "--strategy", "spot", "--recover", "3",
                 "--max-cost", f"{cap:.2f}", "--format", "json")
    assert result.code == 0, result.err
    first, second = (c.body["jobSpec"]["scheduling"]["timeout"] for c in _creates(google))
    spent = json.loads(result.out)["recovery"]["attempts"][0]["cost"]
    seconds = int((cap - spent) / hourly * 3600)
    seconds -= seconds % 60
    assert (first, second) == (f"{int(cap / hourly * 3600) // 60 * 60}s", f"{seconds}s")
    assert (f"  recovering: attempt 2 in {REGION}/SPOT (2 more left after it), with a timeout "
            f"of {span_in_words(seconds)} to keep the attempts within --max-cost "
            f"${cap:,.2f}") in result.err


def test_the_cost_cap_stops_recovery_when_less_than_a_short_run_is_left(
        cli, google, key, write, vertex, clock):
    """After an attempt that ran an hour, a cap of 1.1 hours' price leaves six minutes' worth:
    less than the 10 minutes an attempt needs, so recovery stops (exit 4)."""
    hourly = _hourly(cli, write)
    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    cap = f"{hourly * 1.1:.2f}"
    result = cli("submit", write(NO_TIMEOUT), *VERTEX, "--strategy", "spot", "--recover", "3",
                 "--max-cost", cap)
    assert result.code == 4, result.err
    assert len(_creates(google)) == 1
    left = float(cap) - hourly
    assert (f"recovery stopped before attempt 2: the attempts so far cost ${hourly:,.2f} of "
            f"--max-cost ${float(cap):,.2f}, which leaves ${left:.4f}: for attempt 2, less "
            f"than 10 minutes of it fits at ${hourly:,.2f} an hour") in result.err


def test_wait_recover_counts_the_earlier_attempts_in_the_cap(
        cli, google, key, write, vertex, clock):
    """The submit is stopped (Ctrl-C) while following attempt 2: its resume line carries the
    cap to the cent. A wait --recover of attempt 2 counts attempt 1 (said in its own line)
    with attempt 2 against --max-cost: two hours' price of a cap of 2.1 leave less than an
    attempt needs, so it makes none."""
    hourly = _hourly(cli, write)
    vertex.create_scripts.extend([_preempted(), [
        "JOB_STATE_RUNNING", "JOB_STATE_RUNNING",
        Step("JOB_STATE_FAILED", error=preempted(REGION), ran=HOUR)]])
    clock.interrupt_at = 3  # while following the second attempt
    stopped = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "2",
                  "--max-cost", "1234567.891")
    assert stopped.code == 130, stopped.err
    first, second = (j["name"].rsplit("/", 1)[1] for j in vertex.jobs.values())
    assert (f"Resume with: gpujob wait {second} --service vertex --project {PROJECT} "
            f"--region {REGION} --recover 1 --max-cost 1234567.89\n") in stopped.err
    clock.interrupt_at = None
    cap = f"{hourly * 2.1:.2f}"
    result = cli("wait", second, *VERTEX, "--region", REGION, "--recover", "1",
                 "--max-cost", cap, "--format", "json")
    assert result.code == 4, result.err
    assert len(_creates(google)) == 2
    lines = _attempt_lines(result.err)
    assert lines[0].startswith(f"attempt 1: job {first} in {REGION}/SPOT FAILED after 1 h 0 min")
    assert lines[0].endswith(": an earlier attempt")
    assert lines[1].startswith(f"attempt 2: job {second} ")
    assert (f"recovery stopped before attempt 3: the attempts so far cost ${2 * hourly:,.2f} "
            f"of --max-cost ${float(cap):,.2f}") in result.err
    shown = json.loads(result.out)["recovery"]
    assert [(a["attempt"], a["id"]) for a in shown["attempts"]] == [(1, first), (2, second)]
    assert shown["spent"] == pytest.approx(2 * hourly)


def test_two_followers_of_one_lineage_make_one_job_per_attempt(
        cli, google, key, vertex, vertex_job, clock):
    """Two wait --recover of one job (another shell, as the docs suggest), simulated one
    after the other: the first makes attempt 2 and is stopped while following it; the
    second listed the lineage before that create landed (its listing answers none), and
    finds attempt 2 by its label right before making it: it follows that job, makes none."""
    from fakes.faults import Reply

    job = vertex_job(state="JOB_STATE_RUNNING", labels={"gpujob-submission": "sub-1"})
    job_id = job["name"].rsplit("/", 1)[1]
    vertex.script(job_id, Step("JOB_STATE_FAILED", error=preempted(REGION), ran=HOUR))
    vertex.create_scripts.append(["JOB_STATE_RUNNING", "JOB_STATE_RUNNING",
                                  Step("JOB_STATE_SUCCEEDED", ran=HOUR)])
    clock.interrupt_at = 2  # the first follower, while following attempt 2
    assert cli("wait", job_id, *VERTEX, "--region", REGION, "--recover", "1").code == 130
    (made,) = (j for j in vertex.jobs if j != job_id)
    clock.interrupt_at = None
    google.inject("customJobs.list", Reply(200, {}))  # listed before the first one's create
    result = cli("wait", job_id, *VERTEX, "--region", REGION, "--recover", "1")
    assert result.code == 0, result.err
    assert len(_creates(google)) == 1 and len(vertex.jobs) == 2
    assert f"  attempt 2 was made already: job {made}; following it" in result.err
    assert result.out == made + "\n"


def test_recovery_reads_the_causes_of_the_catalog_in_use(
        cli, google, key, write, vertex, clock, tmp_path):
    """A --catalog whose stockout cause is not the infrastructure's: the preempted Spot job
    is not recovered, as that catalog says."""
    exported = json.loads(cli("gpus", *VERTEX, "--export-catalog").out)
    for cause in exported["recovery"]["causes"]:
        cause["infrastructure"] = False
    custom = tmp_path / "catalog.json"
    custom.write_text(json.dumps(exported), encoding="utf-8")
    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "1",
                 "--catalog", str(custom))
    assert result.code == 4, result.err
    assert len(_creates(google)) == 1
    (line,) = _attempt_lines(result.err)
    assert line.endswith("the trainer's own failure (no cause of the infrastructure's in its "
                         "message): not recovered")


def test_a_lost_create_answer_during_recovery_still_makes_one_job_for_the_attempt(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    google.inject("customJobs.create", None, Drop())  # the second create's answer is lost
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "1")
    assert result.code == 0, result.err
    assert len(vertex.jobs) == 2  # one per attempt: the lost answer's job was found, not remade
    second = [job for job in vertex.jobs.values()
              if job["labels"].get("gpujob-attempt") == "2"]
    assert len(second) == 1
    assert "was already created by an earlier attempt of this submission" in result.err


def _wait_recovers(cli, google, vertex, vertex_job, labels: dict[str, str]) -> tuple[
        dict[str, Any], Any, Any]:
    """A running job with ``labels``, preempted after an hour; ``wait --recover 1`` of it, which
    succeeds: the job, wait's result and its one create."""
    job = vertex_job(state="JOB_STATE_RUNNING", labels=labels)
    job_id = job["name"].rsplit("/", 1)[1]
    vertex.script(job_id, Step("JOB_STATE_FAILED", error=preempted(REGION), ran=HOUR))
    vertex.create_scripts.append(SUCCEEDS)
    result = cli("wait", job_id, *VERTEX, "--region", REGION, "--recover", "1")
    assert result.code == 0, result.err
    (create,) = _creates(google)
    return job, result, create


def test_wait_takes_over_a_running_job_and_recovers_it(cli, google, key, vertex, vertex_job,
                                                      clock):
    job, result, create = _wait_recovers(cli, google, vertex, vertex_job,
                                         {"gpujob-submission": "sub-1"})
    job_id = job["name"].rsplit("/", 1)[1]
    assert create.body["labels"]["gpujob-lineage"] == "sub-1"
    assert create.body["labels"]["gpujob-attempt"] == "2"
    assert create.body["labels"]["gpujob-submission"] != "sub-1"
    assert create.body["jobSpec"] == {k: v for k, v in job["jobSpec"].items()}
    assert vertex.live_at_create == [0]
    new_id = next(j for j in vertex.jobs if j != job_id)
    assert result.out == new_id + "\n"
    assert [line.split(":")[0] for line in _attempt_lines(result.err)] == \
        ["attempt 1", "attempt 2"]


def test_wait_recover_of_a_job_gpujob_did_not_submit_names_the_lineage_by_its_id(
        cli, google, key, vertex, vertex_job, clock):
    """A job without gpujob's labels (made elsewhere) cannot be labelled after its creation
    (customJobs has no patch): its later attempts carry its ID as their lineage, so describe
    of one reads the original by that ID; describe of the original cannot know of them."""
    job, result, create = _wait_recovers(cli, google, vertex, vertex_job, {})
    job_id = job["name"].rsplit("/", 1)[1]
    labels = create.body["labels"]
    assert (labels["gpujob-lineage"], labels["gpujob-attempt"]) == (job_id, "2")
    assert labels["gpujob-regions"] == REGION
    new_id = result.out.strip()
    described = cli("describe", new_id, *VERTEX, "--region", REGION, "--format", "json")
    assert described.code == 0, described.err
    assert f"attempt 2 of a recovered job (lineage {job_id}): 2 attempts" in described.err
    shown = json.loads(described.out)["recovery"]
    assert [(a["attempt"], a["id"], a["state"]) for a in shown["attempts"]] == [
        (1, job_id, "FAILED"), (2, new_id, "SUCCEEDED")]
    original = cli("describe", job_id, *VERTEX, "--region", REGION, "--format", "json")
    assert original.code == 0, original.err
    assert "recovered job" not in original.err
    assert "recovery" not in json.loads(original.out)


def test_ctrl_c_leaves_the_attempt_running_and_says_how_to_resume(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_preempted(), ["JOB_STATE_RUNNING"]])
    clock.interrupt_at = 3  # while following the second attempt
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "2")
    assert result.code == 130, result.err
    second = next(j for j in vertex.jobs.values() if j["labels"]["gpujob-attempt"] == "2")
    assert second["state"] == "JOB_STATE_RUNNING"
    assert google.calls("customJobs.cancel") == []
    second_id = second["name"].rsplit("/", 1)[1]
    assert (f"Resume with: gpujob wait {second_id} --service vertex --project {PROJECT} "
            f"--region {REGION} --recover 1") in result.err


def test_describe_names_the_attempts_of_a_recovered_job(cli, google, key, write, vertex,
                                                        clock):
    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    assert cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot",
               "--recover", "1").code == 0
    first, second = (j["name"].rsplit("/", 1)[1] for j in vertex.jobs.values())
    result = cli("describe", second, *VERTEX, "--region", REGION)
    assert result.code == 0, result.err
    assert "attempt 2 of a recovered job (lineage " in result.err
    lines = [line.strip() for line in result.err.splitlines()
             if line.startswith("  attempt ")]
    assert [line.split(" in ")[0] for line in lines] == [f"attempt 1: job {first}",
                                                        f"attempt 2: job {second}"]
    listed = cli("list", *VERTEX, "--region", REGION)
    header, *rows = listed.out.splitlines()
    assert header.split()[:6] == ["JOB_ID", "STATE", "CREATED", "COST", "ATTEMPT", "LINEAGE"]
    assert sorted(row.split()[4] for row in rows) == ["1", "2"]


def test_describe_finds_the_attempts_in_every_region_of_the_plan_one_list_each(
        cli, google, key, write, vertex, clock):
    """Attempts in two regions (``--region a,b``): describe of the second, in b, lists
    the first, in a, with one filtered list per region, and no command to look elsewhere."""
    vertex.create_scripts.extend([_preempted(REGION), SUCCEEDS])
    assert cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--region",
               f"{REGION},{EAST}", "--recover", "1").code == 0
    first, second = (j["name"].rsplit("/", 1)[1] for j in vertex.jobs.values())
    assert {j["labels"]["gpujob-regions"] for j in vertex.jobs.values()} == \
        {f"{REGION}_{EAST}"}
    before = len(google.calls("customJobs.list"))
    result = cli("describe", second, *VERTEX, "--region", EAST, "--format", "json")
    assert result.code == 0, result.err
    lists = google.calls("customJobs.list")[before:]
    assert sorted(c.path.split("/")[5] for c in lists) == sorted([REGION, EAST])
    assert all(c.query["filter"][0].startswith("labels.gpujob-lineage=") for c in lists)
    lines = [line.strip() for line in result.err.splitlines()
             if line.startswith("  attempt ")]
    assert [line.split(" FAILED")[0].split(" SUCCEEDED")[0] for line in lines] == [
        f"attempt 1: job {first} in {REGION}/SPOT", f"attempt 2: job {second} in {EAST}/SPOT"]
    assert "gpujob list --region" not in result.err
    shown = json.loads(result.out)["recovery"]
    assert [(a["attempt"], a["id"], a["where"]) for a in shown["attempts"]] == [
        (1, first, f"{REGION}/SPOT"), (2, second, f"{EAST}/SPOT")]
    assert shown["spent"] == pytest.approx(sum(a["cost"] for a in shown["attempts"]))


@pytest.mark.parametrize("service", ["ai-platform", "gke"])
def test_recover_is_a_usage_error_naming_the_capability(cli, write, service):
    result = cli("submit", write(SPOT_T4), "--service", service, "--recover", "1")
    assert result.code == 2, result.err
    assert "lacks the capability 'recover'" in result.err


def test_a_spot_job_with_nowhere_to_resume_from_is_warned_that_every_attempt_starts_over(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.append(SUCCEEDS)
    config = SPOT_T4.replace(f"  jobDir: {JOB_DIR}\n", "")
    result = cli("submit", write(config), *VERTEX, "--strategy", "spot", "--recover", "3")
    assert result.code == 0, result.err
    (warned,) = [line for line in result.err.splitlines() if "[cost.no-resume]" in line]
    assert "when its Spot VMs are preempted, Vertex AI restarts it from scratch" in warned
    assert "; with --recover 3, every attempt (up to 4) starts from scratch too" in warned


def test_wait_on_an_attempt_recovered_already_follows_the_later_one_and_makes_none(
        cli, google, key, write, vertex, clock):
    vertex.create_scripts.extend([_preempted(), ["JOB_STATE_RUNNING", "JOB_STATE_RUNNING",
                                                 Step("JOB_STATE_SUCCEEDED", ran=HOUR)]])
    clock.interrupt_at = 3  # the submit stops following attempt 2, which keeps running
    assert cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot",
               "--recover", "2").code == 130
    first, second = (j["name"].rsplit("/", 1)[1] for j in vertex.jobs.values())
    clock.interrupt_at = None
    result = cli("wait", first, *VERTEX, "--region", REGION, "--recover", "2")
    assert result.code == 0, result.err
    assert len(_creates(google)) == 2  # none made by the wait
    assert f"  attempt 2 was made already: job {second}; following it" in result.err
    assert result.out == second + "\n"


def test_the_docs_transcript_is_what_submit_prints(cli, google, key, write, vertex, clock):
    """docs/preflight.md shows this run (against this fake) in a text block: its attempt,
    recovering and state lines are what gpujob prints today, job IDs aside."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "preflight.md").read_text(
        encoding="utf-8")
    block = page.split("## After the job started")[1].split("```text\n")[1].split("```")[0]
    vertex.create_scripts.extend([_preempted(REGION), _preempted(EAST), SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--region",
                 f"{REGION},{EAST}", "--recover", "3")
    assert result.code == 0, result.err

    def kept(text: str) -> list[str]:
        wanted = ("attempt ", "  recovering", "recovery:", "job ", "Chose", "  cost:",
                  "  worst case:", "cost:")
        return [re.sub(r"\b\d{19}\b", "ID", line) for line in text.splitlines()
                if line.startswith(wanted)]

    assert kept(block) == kept(result.err)


def test_a_recovery_create_refused_for_quota_moves_on_to_the_next_choice(
        cli, google, key, write, vertex, clock):
    """With --region a,b, attempt 2's create in b refused for quota (nothing made) moves on
    to a, as failover does before the first run: attempt 2 is made there, and the refused
    create counts no attempt (--recover 1 allows attempt 2)."""
    from fakes.errors import vertex_quota_exceeded
    from test_preflight import T4_SPOT

    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    vertex.refusals[EAST] = (429, vertex_quota_exceeded(T4_SPOT, EAST, 0))
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--region",
                 f"{REGION},{EAST}", "--recover", "1")
    assert result.code == 0, result.err
    assert [c.path.split("/")[5] for c in _creates(google)] == [REGION, EAST, REGION]
    assert len(vertex.jobs) == 2 and vertex.live_at_create == [0, 0]
    assert f"note: {EAST}/SPOT: Vertex AI refused the create for quota: " in result.err
    assert "; trying the next choice" in result.err
    looked = [c for c in google.calls("customJobs.list") if f"/locations/{EAST}/" in c.path]
    assert looked and "gpujob-submission" in looked[-1].query["filter"][0]  # none left alive
    lines = _attempt_lines(result.err)
    assert [line.split(" in ")[1].split()[0] for line in lines] == [f"{REGION}/SPOT",
                                                                    f"{REGION}/SPOT"]
    assert lines[1].startswith("attempt 2: ")


def test_a_recovery_create_refused_at_every_choice_stops_with_the_refusal(
        cli, google, key, write, vertex, clock):
    """Each choice is tried once for an attempt: refused in both regions, recovery stops
    with the last refusal (exit 3), and no job is left but the first."""
    from fakes.errors import vertex_quota_exceeded
    from fakes.faults import Reply
    from test_preflight import T4_SPOT

    vertex.create_scripts.append(_preempted())
    vertex.refusals[EAST] = (429, vertex_quota_exceeded(T4_SPOT, EAST, 0))
    google.inject("customJobs.create", None, None,
                  Reply(429, vertex_quota_exceeded(T4_SPOT, REGION, 0)))
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--region",
                 f"{REGION},{EAST}", "--recover", "3")
    assert result.code == 3, result.err
    assert [c.path.split("/")[5] for c in _creates(google)] == [REGION, EAST, REGION]
    assert len(vertex.jobs) == 1
    first = next(iter(vertex.jobs))
    assert f"recovery stopped: the create of attempt 2 failed (below); the attempts so far: " \
           f"{first} (FAILED)" in result.err


def test_wait_recover_holds_max_cost_too(cli, google, key, vertex, vertex_job, clock):
    job = vertex_job(state="JOB_STATE_RUNNING", labels={"gpujob-submission": "sub-1"})
    job_id = job["name"].rsplit("/", 1)[1]
    vertex.script(job_id, Step("JOB_STATE_FAILED", error=preempted(REGION), ran=HOUR))
    result = cli("wait", job_id, *VERTEX, "--region", REGION, "--recover", "1",
                 "--max-cost", "0.01")
    assert result.code == 4, result.err
    assert _creates(google) == []
    assert "recovery stopped before attempt 2: the attempts so far cost $" in result.err
    assert "over --max-cost $0.01" in result.err


def test_wait_max_cost_without_recover_is_a_usage_error(cli, google, key, vertex):
    result = cli("wait", "123", *VERTEX, "--region", REGION, "--max-cost", "5")
    assert result.code == 2
    assert result.err.startswith("error: --max-cost is for a job followed with --recover N")


def test_wait_timeout_with_recover_is_a_usage_error(cli, google, key, vertex):
    result = cli("wait", "123", *VERTEX, "--region", REGION, "--recover", "1", "--timeout", "60")
    assert result.code == 2
    assert result.err.startswith("error: --timeout and --recover do not go together")


def test_a_failed_job_without_its_error_yet_is_read_again_before_it_is_judged(
        cli, google, key, write, vertex, clock):
    """Vertex AI sets the error about a minute after the job ends: a FAILED job read before
    then has no message, which is not taken for the trainer's own failure."""
    vertex.create_scripts.extend([
        ["JOB_STATE_RUNNING", Step("JOB_STATE_FAILED", error={"code": 0, "message": ""}),
         Step("JOB_STATE_FAILED", error=preempted(REGION), ran=HOUR)],
        SUCCEEDS])
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "1")
    assert result.code == 0, result.err
    assert len(_creates(google)) == 2
    assert "ended FAILED without an error message yet" in result.err
    assert _attempt_lines(result.err)[0].endswith("after Compute Engine's restarts)")


def test_ctrl_c_after_an_attempt_ended_makes_no_other_and_says_how_to_resume(
        cli, google, key, write, vertex, clock):
    """Ctrl-C while the ended attempt is read again for its error (before it is judged):
    nothing more is created, and the command that resumes recovery is said."""
    vertex.create_scripts.extend([
        ["JOB_STATE_RUNNING", Step("JOB_STATE_FAILED", error={"code": 0, "message": ""}),
         Step("JOB_STATE_FAILED", error=preempted(REGION), ran=HOUR)], SUCCEEDS])
    clock.interrupt_at = 2  # the first read again, after the FAILED without its error
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "2")
    assert result.code == 130, result.err
    assert len(_creates(google)) == 1
    (job_id,) = vertex.jobs
    assert f"Stopped recovering job {job_id}, which ended FAILED; no other attempt was " \
           "made." in result.err
    assert (f"Resume with: gpujob wait {job_id} --service vertex --project {PROJECT} "
            f"--region {REGION} --recover 2") in result.err
    assert "Traceback" not in result.err


def test_describe_of_an_attempt_naming_no_regions_looks_in_its_own_and_says_how_to_look_on(
        cli, google, key, vertex, vertex_job, clock):
    """An attempt without the regions label (its plan's regions did not fit a label value):
    describe lists its own region's attempts and prints the command for the others."""
    lineage = {"gpujob-lineage": "sub-1"}
    first = vertex_job(state="JOB_STATE_FAILED", labels={"gpujob-submission": "sub-1"},
                       created="2026-11-29T01:00:00Z")
    second = vertex_job(state="JOB_STATE_RUNNING", labels={
        **lineage, "gpujob-attempt": "2", "gpujob-submission": "sub-2"},
        created="2026-11-29T02:00:00Z")
    ids = [job["name"].rsplit("/", 1)[1] for job in (first, second)]
    result = cli("describe", ids[1], *VERTEX, "--region", REGION)
    assert result.code == 0, result.err
    assert "attempt 2 of a recovered job (lineage sub-1): 2 attempts" in result.err
    assert [line.strip().split(" in ")[0] for line in result.err.splitlines()
            if line.startswith("  attempt ")] == [f"attempt {n}: job {i}"
                                                   for n, i in zip((1, 2), ids, strict=True)]
    assert ("those in other regions are listed by gpujob list --region REGION --filter "
            "'labels.gpujob-lineage=sub-1'") in result.err
    assert {c.path.split("/")[5] for c in google.calls("customJobs.list")} == {REGION}


@pytest.mark.parametrize("listing", [1, 2], ids=["the-lineage", "the-attempts-label"])
def test_ctrl_c_while_looking_for_the_next_attempt_says_how_to_resume(
        cli, google, key, write, vertex, clock, listing):
    """Ctrl-C while the ended attempt's lineage is listed for a later attempt, or while the
    next attempt's label is looked up right before its create (that listing answered 503,
    then waited on before its retry): nothing is created, and the command that resumes
    recovery is said, as anywhere between attempts."""
    from fakes.errors import unavailable
    from fakes.faults import Reply

    vertex.create_scripts.extend([_preempted(), SUCCEEDS])
    google.inject("customJobs.list", *[None] * (listing - 1), Reply(503, unavailable()))
    clock.interrupt_at = 2  # the wait before the listing's retry
    result = cli("submit", write(SPOT_T4), *VERTEX, "--strategy", "spot", "--recover", "2")
    assert result.code == 130, result.err
    assert len(_creates(google)) == 1 and len(google.calls("customJobs.list")) == listing
    (job_id,) = vertex.jobs
    assert f"Stopped recovering job {job_id}, which ended FAILED; no other attempt was " \
           "made." in result.err
    assert (f"Resume with: gpujob wait {job_id} --service vertex --project {PROJECT} "
            f"--region {REGION} --recover 2") in result.err
