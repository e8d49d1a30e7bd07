"""``--service``: every command that checks, sends or follows a job takes it, and a service
refuses the flags it cannot honour in one usage error."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest
from jobs import CONTAINER_JOB

from gpujob import services as backends
from gpujob.errors import UsageError
from gpujob.services.capabilities import Capability, check_flags

COMMANDS = ["submit", "local", "describe", "list", "cancel", "wait", "logs", "validate", "gpus"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_the_service(cli, command):
    result = cli(command, "--help")
    assert result.code == 0
    assert f"--service [{'|'.join(sorted(backends.SERVICES))}]" in result.out
    assert "GPUJOB_SERVICE" in result.out


@pytest.mark.parametrize("command", [["validate"], ["gpus"], ["list"], ["wait", "j1"],
                                     ["submit", "--dry-run"], ["local"]])
@pytest.mark.parametrize("how", ["flag", "environment"])
def test_an_unknown_service_is_a_usage_error(cli, write, command, how):
    args = [*command]
    if command[0] in ("validate", "submit", "local"):
        args.insert(1, write(CONTAINER_JOB))
    if how == "flag":
        result = cli(*args, "--service", "nope")
    else:
        result = cli(*args, env={"GPUJOB_SERVICE": "nope"})
    assert result.code == 2
    assert ("Error: Invalid value for '--service' (env var: 'GPUJOB_SERVICE'): 'nope' is not "
            f"one of {', '.join(repr(s) for s in sorted(backends.SERVICES))}.") in result.err
    assert result.out == ""


@pytest.mark.default_service
def test_the_default_service_is_vertex_and_ai_platform_is_one_setting_away(cli, write):
    config = write(CONTAINER_JOB)
    args = ("submit", config, "--dry-run", "--job-id", "j1", "--project", "p")
    default, named = cli(*args), cli(*args, "--service", "vertex")
    label = re.compile(r'"gpujob-submission": "[^"]+"')
    assert default.code == named.code == 0
    assert label.sub("…", default.out) == label.sub("…", named.out)
    assert default.err == named.err
    assert ("would POST this CustomJob to https://us-central1-aiplatform.googleapis.com/v1/"
            "projects/p/locations/us-central1/customJobs") in default.err
    assert backends.DEFAULT_SERVICE == "vertex"
    legacy = cli(*args, "--service", "ai-platform")
    from_env = cli(*args, env={"GPUJOB_SERVICE": "ai-platform"})
    assert legacy.code == from_env.code == 0
    assert (legacy.out, legacy.err) == (from_env.out, from_env.err)
    assert "would POST this Job to https://ml.googleapis.com/v1/projects/p/jobs" in legacy.err


@dataclass(frozen=True)
class _Service:
    """Enough of a backend for ``check_flags``."""

    name: str = "other"
    title: str = "Another Service"
    unsupported_flags: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(
        ("--scale-tier", "--runtime-version"), "no tiers"))
    lacks: Mapping[Capability, str] = field(default_factory=dict)  # has every capability


def test_unsupported_flags_are_refused_together():
    with pytest.raises(UsageError) as refused:
        check_flags(_Service(), ["--region", "--scale-tier", "--job-id", "--runtime-version"])
    assert refused.value.message == ("--scale-tier and --runtime-version are not supported by "
                                     "the other service (Another Service)")
    assert refused.value.hint == "leave them out, or choose another service with --service"
    check_flags(_Service(), ["--region", "--job-id"])  # nothing to refuse


def test_ai_platform_honours_every_submit_flag_but_vertex_ones(cli):
    backend = backends.get("ai-platform")
    assert set(backend.unsupported_flags) == {"--executor-image-uri", "--strategy",
                                              "--display-name"}
    assert Capability.COSTS in backend.lacks  # --max-hourly-cost: refused for want of prices
    assert backend.name == "ai-platform"


@pytest.mark.parametrize("service", ["ai-platform", "gke"])
def test_vertex_flags_are_refused_for_another_service_with_whose_they_are(cli, write, service):
    config = write(CONTAINER_JOB)
    result = cli("submit", config, "--service", service, "--dry-run", "--reservation", "any",
                 "--disable-retries")
    assert result.code == 2
    # --reservation is GKE's too (the pods select the reservation's nodes)
    reservation = "" if service == "gke" else \
        "--reservation (a flag of the gke and vertex services), "
    assert result.err.splitlines() == [
        f"error: {reservation}--disable-retries (a flag of the "
        f"vertex service): not a flag of the {service} service",
        "  hint: leave it out, or choose its service with --service"]
    assert result.out == ""


def test_vertex_flags_belong_to_the_commands_that_make_a_job(cli):
    described = cli("describe", "--help")
    submitted = cli("submit", "--help")
    assert "--reservation" not in described.out and "--disable-retries" not in described.out
    assert "--reservation NAME|any" in submitted.out
    assert "vertex: Do not retry the job after internal" in submitted.out
    assert cli("describe", "j1", "--reservation", "any").code == 2  # no such option
