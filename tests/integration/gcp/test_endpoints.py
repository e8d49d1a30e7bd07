"""``GPUJOB_<API>_ENDPOINT``: every Google API gpujob calls can be pointed elsewhere, the API named
by its discovery name in capitals; ``--api-endpoint`` (GPUJOB_API_ENDPOINT) still names the
training service's own API first."""

from __future__ import annotations

import pytest
from conftest import PROJECT, REGION

from gpujob.gcp.settings import ENDPOINTS, GcpSettings, api_endpoint, environment_endpoints


def test_each_api_is_named_by_its_discovery_name_in_capitals():
    environ = {f"GPUJOB_{api.upper()}_ENDPOINT": f"http://127.0.0.1:1/{api}" for api in ENDPOINTS}
    settings = GcpSettings(endpoints=environment_endpoints(environ))
    assert {api: api_endpoint(settings, api, REGION) for api in ENDPOINTS} == {
        api: f"http://127.0.0.1:1/{api}/" for api in ENDPOINTS}


def test_without_a_variable_each_api_is_at_googles_address():
    settings = GcpSettings(endpoints=environment_endpoints({}))
    assert api_endpoint(settings, "compute") == "https://compute.googleapis.com/"
    assert api_endpoint(settings, "cloudbilling") == "https://cloudbilling.googleapis.com/"
    assert api_endpoint(settings, "aiplatform", "europe-west4") == \
        "https://europe-west4-aiplatform.googleapis.com/"


def test_api_endpoint_wins_for_the_service_api_only():
    settings = GcpSettings(api_endpoint="http://127.0.0.1:2", endpoints=environment_endpoints({
        "GPUJOB_AIPLATFORM_ENDPOINT": "http://127.0.0.1:3/", "GPUJOB_COMPUTE_ENDPOINT": ""}))
    assert api_endpoint(settings, "aiplatform", REGION) == "http://127.0.0.1:2/"
    assert api_endpoint(settings, "ml") == "http://127.0.0.1:2/"
    assert api_endpoint(settings, "compute") == "https://compute.googleapis.com/"


def test_a_given_address_may_name_the_region():
    settings = GcpSettings(endpoints={"aiplatform": "https://{region}-vertex.example/"})
    assert api_endpoint(settings, "aiplatform", "asia-east1") == "https://asia-east1-vertex.example/"


def test_the_older_names_still_work():
    found = environment_endpoints({"GPUJOB_IAM_ENDPOINT": "http://127.0.0.1:4/",
                                   "STORAGE_EMULATOR_HOST": "127.0.0.1:5"})
    assert found == {"iamcredentials": "http://127.0.0.1:4/", "storage": "http://127.0.0.1:5"}


@pytest.mark.default_service
def test_vertex_is_reached_through_its_own_variable(cli, google, key, vertex_job, monkeypatch):
    vertex_job("train-a")
    monkeypatch.delenv("GPUJOB_API_ENDPOINT")
    monkeypatch.setenv("GPUJOB_AIPLATFORM_ENDPOINT", google.url)
    result = cli("list", "--region", REGION, "--project", PROJECT)
    assert result.code == 0, result.err
    assert "train-a" in result.out
    assert [r.route for r in google.requests if r.route != "token"] == ["customJobs.list",
                                                                          "hyperparameterTuningJobs.list"]


def test_ai_platform_is_reached_through_its_own_variable(cli, google, key, submitted,
                                                          monkeypatch):
    submitted("j7")
    monkeypatch.delenv("GPUJOB_API_ENDPOINT")
    monkeypatch.setenv("GPUJOB_ML_ENDPOINT", google.url)
    result = cli("describe", "j7", "--project", PROJECT)
    assert result.code == 0, result.err
    assert "j7" in result.out
