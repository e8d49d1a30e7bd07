"""``gpujob catalog refresh`` against the fake Compute Engine, Artifact Registry and Cloud Billing
on 127.0.0.1: what it reads, what every command then uses, and what happens when a part cannot
be read."""

from __future__ import annotations

import json
import re
import secrets
from datetime import date
from pathlib import Path

import pytest
from conftest import PROJECT
from fakes.errors import error_body, permission_denied
from fakes.faults import Reply
from fakes.google import FakeGoogle

VERTEX = ("--service", "vertex")
VERTEX_AI, COMPUTE_ENGINE = "C7E2-9256-1C43", "6F81-5844-456A"
NEW_IMAGE = "pytorch-gpu.2-7.py312"  # not in the built-in catalog

JOB = """{
  "displayName": "new-image",
  "jobSpec": {"workerPoolSpecs": [{
    "machineSpec": {"machineType": "n1-standard-4"},
    "replicaCount": "1",
    "pythonPackageSpec": {
      "executorImageUri": "us-docker.pkg.dev/vertex-ai/training/IMAGE:latest",
      "packageUris": ["gs://demo-bucket/trainer-0.1.tar.gz"],
      "pythonModule": "trainer.task"}}]}}
"""


@pytest.fixture
def apis(google: FakeGoogle, key, monkeypatch: pytest.MonkeyPatch) -> str:
    """The three APIs in the fake, gpujob pointed at them; returns the Billing API key."""
    for api in ("COMPUTE", "ARTIFACTREGISTRY", "CLOUDBILLING"):
        monkeypatch.setenv(f"GPUJOB_{api}_ENDPOINT", google.url)
    cat = google.catalogs
    cat.add_zone("us-central1-a", {"nvidia-h100-80gb": 8, "nvidia-tesla-t4": 4,
                                   "nvidia-tesla-t4-vws": 4},
                 {"a3-highgpu-8g": ("nvidia-h100-80gb", 8), "n1-standard-4": None},
                 {"a3-highgpu-8g": (208, 1916928), "n1-standard-4": (4, 15360)})  # GiB: 1872, 15
    cat.add_zone("us-central1-b", {"nvidia-tesla-t4": 4})
    cat.add_zone("africa-south1-a")  # nothing in it: a NO_RESULTS_ON_PAGE warning
    cat.add_zone("me-central2-b", {"nvidia-h100-80gb": 8},
                 {"a3-highgpu-8g": ("nvidia-h100-80gb", 8)})
    cat.add_zone("europe-west4-a", {"nvidia-l4": 8}, {"g2-standard-4": ("nvidia-l4", 1)})
    cat.images = {"tf-gpu.2-17.py310": ["latest"], NEW_IMAGE: ["latest", "2.7"],
                  "ray-gpu.2-47.py311": ["latest"], "pytorch-gpu.2-8.py312": []}
    cat.page_size_cap = 2  # every listing takes several pages
    # the billing-observed Vertex SKUs (Aug 2025) and Compute Engine's DWS price
    cat.add_sku(VERTEX_AI, "3F95-001E-B747",
                "Vertex AI: Training/Pipelines on NVIDIA H100 80GB in Iowa", ["us-central1"],
                11.2660332)
    cat.add_sku(VERTEX_AI, "5853-505F-A5C4", "Vertex AI: Training/Pipelines management fee on "
                "NVIDIA H100 80GB in Iowa", ["us-central1"], 1.4694826)
    cat.add_sku(VERTEX_AI, "0000-0000-0001", "Vertex AI: Online prediction on NVIDIA H100 80GB "
                "in Iowa", ["us-central1"], 99.0)
    cat.add_sku(COMPUTE_ENGINE, "341A-49A5-0C07", "Nvidia H100 80GB GPU attached to DWS Defined "
                "Duration VMs running in Americas", ["us-central1", "us-east4"], 4.200761)
    # A3's vCPUs and RAM, billed (Aug 2025): on-demand, management fee, DWS
    for sku_id, what, price in (("2E83-99F1-391A", "on A3 Instance Core", 0.0293227),
                                ("B045-9255-8314", "on A3 Instance RAM", 0.0025534),
                                ("9AC1-7D9B-C47E", "management fee on A3 Instance Core", 0.0038247),
                                ("D30D-69C9-F057", "management fee on A3 Instance RAM", 0.0003331)):
        cat.add_sku(VERTEX_AI, sku_id, f"Vertex AI: Training/Pipelines {what} in Iowa",
                    ["us-central1"], price)
    cat.add_sku(COMPUTE_ENGINE, "9A32-36B2-7FBC", "DWS Defined Duration A3 Core running in "
                "Americas", ["us-central1"], 0.010934)
    cat.add_sku(COMPUTE_ENGINE, "ED19-A584-4A84", "DWS Defined Duration A3 Ram running in "
                "Americas", ["us-central1"], 0.000952)
    # N1 in both wordings seen ("running in", "Ram", "Management fee", no "Predefined");
    # a custom N1 is another SKU
    for sku_id, what, price in (
            ("0000-0000-0011", "on N1 Predefined Instance Core running in", 0.03635265),
            ("0000-0000-0012", "on N1 Predefined Instance Ram running in", 0.00487255),
            ("0000-0000-0013", "Management fee on N1 Instance Core in", 0.00474165),
            ("0000-0000-0014", "Management fee on N1 Instance RAM in", 0.00063555),
            ("0000-0000-0015", "on N1 Custom Instance Core running in", 5.0)):
        cat.add_sku(VERTEX_AI, sku_id, f"Vertex AI: Training/Pipelines {what} Iowa",
                    ["us-central1"], price)
    # Spot: its description holds the on-demand wording; A2's wording is not known: not read
    cat.add_sku(COMPUTE_ENGINE, "0000-0000-0003", "Spot Preemptible A3 Instance Core running in "
                "Americas", ["us-central1"], 0.01)
    cat.add_sku(COMPUTE_ENGINE, "0000-0000-0004", "Spot Preemptible A3 Instance Ram running in "
                "Americas", ["us-central1"], 0.001)
    cat.add_sku(VERTEX_AI, "0000-0000-0005", "Vertex AI: Training/Pipelines on A2 Instance Core "
                "in Iowa", ["us-central1"], 9.0)
    # a Spot SKU whose usageType says OnDemand (as some do): the description decides
    cat.add_sku(COMPUTE_ENGINE, "0000-0000-0002", "Spot Preemptible Nvidia H100 80GB GPU running "
                "in Americas", ["us-central1"], 2.25, usage_type="OnDemand")
    api_key = "AIza" + secrets.token_urlsafe(24)
    cat.api_keys.add(api_key)
    monkeypatch.setenv("GPUJOB_BILLING_API_KEY", api_key)
    return api_key


def overlay(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "gpujob-cache" / "vertex-live.json").read_text())


@pytest.mark.default_service
def test_a_zone_the_api_adds_is_offered_by_gpus(cli, apis):
    before = cli("gpus", "--gpu", "h100", "--region", "me-central2")
    assert before.code == 1
    result = cli("catalog", "refresh", "--project", PROJECT)
    assert result.code == 0, result.err
    after = cli("gpus", "--gpu", "h100", "--region", "me-central2")
    assert after.code == 0, after.err
    assert "a3-highgpu-8g" in after.out and "me-central2" in after.out
    # zones and images read today; prices as old as their SKUs' effective time (2026-11-26)
    assert after.err.startswith("catalog: zones")
    assert f" as of {date.today().isoformat()} (refreshed, 0 days old)" in after.err
    assert "prices" in after.err and "built-in" not in after.err


@pytest.mark.default_service
def test_the_refreshed_catalog_exports_as_a_catalog_file(cli, apis, write, tmp_path):
    assert cli("catalog", "refresh", "--project", PROJECT).code == 0
    exported = tmp_path / "exported.json"
    exported.write_text(cli("gpus", "--export-catalog").out)
    data = json.loads(exported.read_text())
    assert data["refreshed"]["prices"]["from"] == "Cloud Billing's catalog"
    config = write(JOB.replace("IMAGE", NEW_IMAGE), "job.json")
    result = cli("validate", config, "--catalog", str(exported))
    assert (result.code, result.out) == (0, "")
    assert cli("gpus", "--gpu", "h100", "--region", "me-central2", "--catalog",
               str(exported)).code == 0


@pytest.mark.default_service
def test_an_image_the_registry_lists_is_accepted(cli, apis, write):
    config = write(JOB.replace("IMAGE", NEW_IMAGE), "job.json")
    before = cli("validate", config)
    assert f"{NEW_IMAGE}:latest is not among the prebuilt training images gpujob knows" in \
        before.out
    assert cli("catalog", "refresh", "--project", PROJECT).code == 0
    after = cli("validate", config)
    assert after.code == 0
    assert after.out == ""
    assert after.err == "1 file checked: 1 valid, 0 invalid\n"


@pytest.mark.default_service
def test_what_a_refresh_reads_and_writes(cli, apis, google, tmp_path):
    result = cli("catalog", "refresh", "--project", PROJECT)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("zones: 3 GPU types in 4 zones, 2 GPU machine types, from the "
                               f"Compute Engine API (project {PROJECT})")
    assert lines[1] == ("prebuilt images: 3 images listed in us-docker.pkg.dev/vertex-ai/"
                        f"training, 1 new: {NEW_IMAGE}; not prebuilt training images gpujob "
                        "can read: ray-gpu.2-47.py311")
    assert lines[2] == ("prices: 2 GPU prices and 2 machine type prices in 2 regions, from "
                        "Cloud Billing's catalog")
    assert lines[3] == f"wrote {tmp_path / 'gpujob-cache' / 'vertex-live.json'}"
    parts = overlay(tmp_path)["parts"]
    assert parts["zones"]["gpus"]["NVIDIA_TESLA_T4"] == {
        "max_count": 4, "zones": ["us-central1-a", "us-central1-b"]}
    assert parts["zones"]["machine_types"] == {
        "a3-highgpu-8g": ["me-central2-b", "us-central1-a"], "g2-standard-4": ["europe-west4-a"]}
    new = parts["images"]["images"][NEW_IMAGE]
    assert new["framework"] == "pytorch" and new["python"] == "3.12" and new["version"] == "2.7"
    assert "end_of_availability" not in new  # none published yet
    assert parts["images"]["images"]["tf-gpu.2-17.py310"]["end_of_availability"] == "2026-07-11"
    # paging: every page of each listing was read
    assert len(google.calls("acceleratorTypes.aggregatedList")) == 3
    assert len(google.calls("dockerImages.list")) == 4
    assert len(google.calls("skus.list")) == 10  # Vertex's 13 SKUs in 7 pages, Compute's 6 in 3
    filters = google.calls("machineTypes.aggregatedList")[0].query["filter"][0]
    assert filters.startswith("name eq (a2-highgpu-1g|") and "n1-standard-4" not in filters


@pytest.mark.default_service
def test_a_price_is_pinned_to_the_billed_sku(cli, apis, tmp_path):
    assert cli("catalog", "refresh", "--project", PROJECT).code == 0
    table = overlay(tmp_path)["parts"]["prices"]["table"]
    h100 = table["regions"]["us-central1"]["accelerators"]["NVIDIA_H100_80GB"]
    assert h100["on_demand"] == 11.2660332  # the billed Vertex SKU, not 1.15 x anything
    assert h100["management_fee"] == 1.4694826
    assert h100["flex_start"] == 4.200761
    assert h100["spot"] == 2.25
    assert h100["source"]["skus"] == {"on_demand": ["3F95-001E-B747"],
                                      "management_fee": ["5853-505F-A5C4"],
                                      "spot": ["0000-0000-0002"],
                                      "flex_start": ["341A-49A5-0C07"]}
    assert h100["source"]["effective_time"] == "2026-11-26T08:00:00Z"
    assert table["regions"]["us-east4"]["accelerators"]["NVIDIA_H100_80GB"] == {
        "flex_start": 4.200761, "source": {"refs": ["CB-COMPUTE"], "as_of": "2026-11-26",
                                           "skus": {"flex_start": ["341A-49A5-0C07"]},
                                           "effective_time": "2026-11-26T08:00:00Z"}}


@pytest.mark.default_service
def test_one_api_refused_the_others_are_written(cli, apis, google, tmp_path, leaked):
    google.inject("dockerImages.list", Reply(403, permission_denied(
        "artifactregistry.dockerimages.list",
        "projects/vertex-ai/locations/us/repositories/training")))
    result = cli("catalog", "refresh", "--project", PROJECT)
    assert result.code == 3
    assert "prebuilt images: not read; kept gpujob's built-in ones" in result.out
    assert "error: prebuilt images: listing the images of us-docker.pkg.dev/vertex-ai/training " \
           "failed: 403 PERMISSION_DENIED" in result.err
    assert "  hint: the repository is Google's own, readable by any Google account: check the " \
           "credentials" in result.err
    parts = overlay(tmp_path)["parts"]
    assert set(parts) == {"zones", "prices"}
    assert leaked(result.out + result.err) == []
    # read again later: the images now come, the zones read before are replaced
    again = cli("catalog", "refresh", "--project", PROJECT, "--parts", "images")
    assert again.code == 0
    assert set(overlay(tmp_path)["parts"]) == {"zones", "prices", "images"}


@pytest.mark.default_service
def test_without_a_key_prices_keep_what_they_had(cli, apis, monkeypatch, tmp_path):
    assert cli("catalog", "refresh", "--project", PROJECT).code == 0
    read_before = overlay(tmp_path)["parts"]["prices"]["read"]
    monkeypatch.delenv("GPUJOB_BILLING_API_KEY")
    result = cli("catalog", "refresh", "--project", PROJECT)
    assert result.code == 3
    assert f"prices: not read; kept the ones read on {read_before}" in result.out
    assert "error: prices: GPUJOB_BILLING_API_KEY is not set" in result.err
    assert "--parts zones,images" in result.err
    assert cli("catalog", "refresh", "--project", PROJECT, "--parts", "zones,images").code == 0


@pytest.mark.default_service
def test_the_api_key_never_shows(cli, apis, google):
    google.inject("skus.list", Reply(400, error_body(
        400, "INVALID_ARGUMENT", f"API key {apis} expired. Please renew the API key.")))
    result = cli("catalog", "refresh", "--project", PROJECT, "--parts", "prices", "--verbose")
    assert result.code == 3
    assert "expired" in result.err
    assert "  hint: check GPUJOB_BILLING_API_KEY: an API key of a project with the Cloud " \
           "Billing API enabled" in result.err
    assert apis not in result.out + result.err
    assert "key=…" in result.err  # --verbose shows the request, the key masked


A3_JOB = """workerPoolSpecs:
- machineSpec: {machineType: a3-highgpu-8g, acceleratorType: NVIDIA_H100_80GB, acceleratorCount: 8}
  replicaCount: 1
  containerSpec: {imageUri: us-central1-docker.pkg.dev/demo/train/img:1}
"""


@pytest.mark.default_service
def test_a_machine_price_is_pinned_to_the_billed_skus(cli, apis, write, google, tmp_path):
    config = write(A3_JOB, "a3.yaml")
    assert cli("catalog", "refresh", "--project", PROJECT).code == 0
    table = overlay(tmp_path)["parts"]["prices"]["table"]
    a3 = table["regions"]["us-central1"]["machine_types"]["a3-highgpu-8g"]
    # 8 x 11.2660332 (H100) + 208 vCPUs x 0.0293227 + 1872 GiB x 0.0025534 (the A3 bill)
    assert a3["on_demand"] == pytest.approx(101.007352)
    assert a3["management_fee"] == pytest.approx(8 * 1.4694826 + 208 * 0.0038247
                                                 + 1872 * 0.0003331)
    assert a3["spot"] == pytest.approx(8 * 2.25 + 208 * 0.01 + 1872 * 0.001)
    assert a3["flex_start"] == pytest.approx(8 * 4.200761 + 208 * 0.010934 + 1872 * 0.000952)
    assert a3["includes_accelerators"] is True
    assert a3["source"]["skus"]["on_demand"] == ["2E83-99F1-391A", "B045-9255-8314",
                                                 "3F95-001E-B747"]
    assert a3["source"]["skus"]["management_fee"] == ["9AC1-7D9B-C47E", "D30D-69C9-F057",
                                                      "5853-505F-A5C4"]
    # me-central2 has no A3 SKU: its a3-highgpu-8g is not written (the shipped price stands);
    # A2's wording is not known: its SKU is not read, and the table says so
    assert "me-central2" not in table["regions"]
    assert any("a2-*" in o["what"] for o in table["omitted"])
    listed = google.calls("machineTypes.aggregatedList")[-1].query["filter"][0]
    assert "a3-highgpu-" in listed and "a2-" not in listed
    # n1-standard-4: 4 vCPUs, 15 GiB; Google's table says $0.21849885 on-demand in Iowa
    n1 = table["regions"]["us-central1"]["machine_types"]["n1-standard-4"]
    assert n1["on_demand"] == pytest.approx(0.21849885)
    assert n1["management_fee"] == pytest.approx(0.02849985)
    assert n1["spot"] is None and "includes_accelerators" not in n1  # no N1 Spot SKU given
    assert n1["source"]["skus"]["on_demand"] == ["0000-0000-0011", "0000-0000-0012"]
    gpus = cli("gpus", "--region", "us-central1", "--gpu", "h100")
    assert gpus.code == 0, gpus.err
    assert re.search(r"a3-highgpu-8g  8 × H100  \$101\.01 +\$35\.13", gpus.out), gpus.out
    dry = cli("submit", config, "--region", "us-central1", "--dry-run", "--project", PROJECT)
    assert dry.code == 0, dry.err
    assert ("cost: $101.01/hour on-demand in us-central1 (1 × a3-highgpu-8g with 8 × "
            "NVIDIA_H100_80GB); Spot $35.13/hour, flex-start $50.84/hour") in dry.err
    assert "as of 2026-11-26 from built-in, with prices from gpujob catalog refresh" in dry.err


@pytest.mark.default_service
def test_without_credentials_prices_are_still_read(cli, apis, monkeypatch, tmp_path):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS")
    result = cli("catalog", "refresh", "--project", PROJECT)
    assert result.code == 3
    assert "zones: not read; kept gpujob's built-in ones" in result.out
    assert "prebuilt images: not read; kept gpujob's built-in ones" in result.out
    assert "error: prebuilt images: no Google Cloud credentials found" in result.err
    assert result.err.count("  hint: provide them one of these ways") == 1  # said once
    assert set(overlay(tmp_path)["parts"]) == {"prices"}
    # GPU prices need the key alone; machine types need Compute Engine's listing: said why
    assert ("prices: 2 GPU prices in 2 regions, from Cloud Billing's catalog; machine types "
            "not read: no Google Cloud credentials found") in result.out
    table = overlay(tmp_path)["parts"]["prices"]["table"]
    assert not table["regions"]["us-central1"]["machine_types"]
    assert any(o["why"].startswith("Compute Engine's machine types could not be listed: no "
                                   "Google Cloud credentials found") for o in table["omitted"])
    # and what gpujob then prices from says so: who made the table, and why a price is missing
    from gpujob.services.vertex.pricing import prices

    merged = prices.load()
    assert merged.generated["by"] == "gpujob catalog refresh"
    assert table["omitted"][-1] in merged.omitted


@pytest.mark.default_service
def test_no_network_to_one_api_the_others_are_read(cli, apis, monkeypatch, tmp_path):
    monkeypatch.setenv("GPUJOB_COMPUTE_ENDPOINT", "http://127.0.0.1:9/")  # nothing listens
    result = cli("catalog", "refresh", "--project", PROJECT, "--max-attempts", "1")
    assert result.code == 3
    assert "error: zones: listing Compute Engine's acceleratorTypes in project proj-a failed: " \
           "network error" in result.err
    assert set(overlay(tmp_path)["parts"]) == {"images", "prices"}


@pytest.mark.default_service
def test_a_bad_part_name_is_a_usage_error(cli):
    result = cli("catalog", "refresh", "--parts", "zones,gpus")
    assert result.code == 2
    assert result.err.splitlines()[0] == ("error: --parts 'zones,gpus': gpus is not a part of "
                                          "the catalog gpujob refreshes")
