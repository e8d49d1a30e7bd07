"""A project or region that cannot be part of a resource name is a usage error naming its flag
and the rule, before any credentials are read or anything is sent (E12): googleapiclient
refuses such a name with a TypeError, which was an internal error (exit 70)."""

from __future__ import annotations

import pytest
from conftest import PROJECT_NUMBER, REGION
from fakes.keys import service_account_key

PROJECT_RULE = ("a project ID holds only lowercase letters, digits and hyphens (a "
                "domain-scoped one: example.com:my-project), or is a project number; see "
                "https://cloud.google.com/resource-manager/docs/creating-managing-projects")
VERTEX = ("--service", "vertex", "--region", REGION)


@pytest.mark.parametrize("command", [
    ["describe", "123", *VERTEX], ["list", *VERTEX], ["cancel", "123", *VERTEX],
    ["wait", "123", *VERTEX], ["logs", "123", *VERTEX],
    ["describe", "j1", "--service", "ai-platform"], ["list", "--service", "ai-platform"],
    ["cancel", "j1", "--service", "ai-platform"], ["wait", "j1", "--service", "ai-platform"],
    ["logs", "j1", "--service", "ai-platform"],
    ["submit", "{config}", "--service", "ai-platform"], ["submit", "{config}", *VERTEX],
    ["submit", "{config}", "--dry-run", "--service", "vertex"],
], ids=lambda c: " ".join(c[:3]))
def test_a_project_with_a_slash_is_a_usage_error(cli, google, key, config, command):
    result = cli(*[config if a == "{config}" else a for a in command], "--project", "proj-a/x")
    assert result.code == 2, result.err
    assert result.err.splitlines()[-1] == (
        "Error: Invalid value for '--project' (env var: 'GPUJOB_PROJECT', "
        "'GOOGLE_CLOUD_PROJECT', 'CLOUDSDK_CORE_PROJECT'): 'proj-a/x' is not a project ID: "
        + PROJECT_RULE)
    assert google.requests == []


@pytest.mark.parametrize("project", ["Proj-A", "proj a", "", "proj-a\n"])
def test_a_project_from_the_environment_is_checked_too(cli, google, key, project):
    result = cli("list", "--service", "ai-platform", env={"GPUJOB_PROJECT": project})
    if project == "":
        assert result.code == 0, result.err  # not given: the credentials' project
        return
    assert result.code == 2, result.err
    assert f"(GPUJOB_PROJECT, GOOGLE_CLOUD_PROJECT or CLOUDSDK_CORE_PROJECT) is not a project " \
        f"ID: {PROJECT_RULE}" in result.err
    assert google.requests == []


@pytest.mark.default_service
def test_a_bad_project_or_region_in_the_environment_stops_no_command_that_does_not_use_it(
        cli, write):
    """A stray GOOGLE_CLOUD_PROJECT or GPUJOB_REGION is set for every command: a dry-run and
    validate, which send nothing to the project, are not refused for it (the variable is checked
    where it is used)."""
    config = write("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-4}\n"
                   "  replicaCount: 1\n  containerSpec: {imageUri: gcr.io/p/t:1}\n")
    stray = {"GOOGLE_CLOUD_PROJECT": "My_Proj", "GPUJOB_REGION": "us-central1/x"}
    result = cli("submit", config, "--dry-run", "--region", "us-central1", env=stray)
    assert result.code == 0, result.err
    assert cli("validate", config, env=stray).code == 0


@pytest.mark.default_service
def test_a_region_from_the_environment_is_checked_where_it_is_used(cli, google, key):
    result = cli("list", env={"GPUJOB_REGION": "us-central1/x"})
    assert result.code == 2, result.err
    assert "'us-central1/x' is not a region" in result.err
    assert google.requests == []


@pytest.mark.default_service
def test_a_project_number_and_a_domain_scoped_id_are_project_ids(cli, google, key):
    assert cli("list", "--region", REGION, "--project", PROJECT_NUMBER).code == 0
    result = cli("list", "--region", REGION, "--project", "example.com:my-project")
    assert result.code == 3  # the fake does not know it: the service's answer, not a usage error
    assert [c.path for c in google.calls("customJobs.list")][-1] == (
        "/v1/projects/example.com:my-project/locations/us-central1/customJobs")


@pytest.mark.default_service
@pytest.mark.parametrize("command", [["describe", "123"], ["list"], ["logs", "123"]])
def test_a_region_with_a_slash_is_a_usage_error(cli, google, key, command):
    """With an --api-endpoint (here GPUJOB_API_ENDPOINT, the fake's), nothing else checks the
    region before it becomes part of the job's name."""
    result = cli(*command, "--region", "us-central1/x")
    assert result.code == 2, result.err
    assert result.err.splitlines()[-1] == (
        "Error: Invalid value for '--region' (env var: 'GPUJOB_REGION'): 'us-central1/x' is "
        "not a region: a region name holds only lowercase letters, digits and hyphens, as "
        "us-central1")
    assert google.requests == []


def test_the_credentials_project_is_checked_too(cli, google, tmp_path):
    made = service_account_key("ci@proj-c.iam.gserviceaccount.com", "proj-c/x",
                               google.token_uri)
    google.trust(made)
    path = made.write(tmp_path / "ci.json")
    result = cli("list", "--credentials-file", path)
    assert result.code == 2, result.err
    assert result.err.splitlines() == [
        f"error: the credentials (--credentials-file {path} "
        "(ci@proj-c.iam.gserviceaccount.com)) name the project 'proj-c/x', which is not a "
        f"project ID: {PROJECT_RULE}",
        "  hint: pass --project PROJECT"]
    assert google.calls("jobs.list") == []
