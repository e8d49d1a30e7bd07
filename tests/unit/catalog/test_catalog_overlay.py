"""The refreshed catalog as every command reads it: the overlay ``gpujob catalog refresh`` writes
in the cache directory, merged over the built-in Vertex catalog; how old its facts are; and what
stays as it was (``--catalog`` wins, validate imports no Google library and opens no socket)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpujob.catalog import freshness, overlay
from gpujob.catalog.services import data_file

NEW_IMAGE = "tf-gpu.2-19.py312"
JOB = """{"displayName": "x", "jobSpec": {"workerPoolSpecs": [{
  "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
  "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/IMAGE:latest",
    "packageUris": ["gs://b/t-0.1.tar.gz"], "pythonModule": "trainer.task"}}]}}
"""
pytestmark = pytest.mark.default_service


def _overlay_file() -> Path:
    return Path(os.environ["GPUJOB_CACHE_DIR"]) / "vertex-live.json"


@pytest.fixture
def refreshed() -> Path:
    """An overlay as a refresh on 2026-11-26 writes it: H100 in one new zone only, one new image."""
    built = json.loads(data_file("vertex").read_text())
    images = dict(built["prebuilt_images"]["images"])
    images[NEW_IMAGE] = {"framework": "tensorflow", "version": "2.19", "python": "3.12",
                         "accelerators": ["gpu"], "listed": "2026-11-26"}
    source = {"as_of": "2026-11-26", "refs": ["CE-API"], "notes": "read by a test"}
    file = _overlay_file()
    overlay.write(file, {"format": 1, "service": "vertex", "written": "2026-11-26T10:00:00Z",
                         "parts": {
        "zones": {"read": "2026-11-26T10:00:00Z", "from": "the Compute Engine API",
                  "source": source,
                  "gpus": {"NVIDIA_H100_80GB": {"max_count": 8, "zones": ["me-central2-b"]}},
                  "machine_types": {"a3-highgpu-8g": ["me-central2-b"]}},
        "images": {"read": "2026-11-26T10:00:00Z", "from": "us-docker.pkg.dev",
                   "source": {**source, "refs": ["AR-API", "D-PBC"]}, "images": images}}})
    return file


def test_validate_reads_the_overlay_without_google_or_the_network(refreshed, write):
    config = write(JOB.replace("IMAGE", NEW_IMAGE), "job.json")
    probe = ("import socket, sys\n"
             "def refuse(*a, **k): raise AssertionError('a socket was opened')\n"
             "socket.socket.connect = refuse; socket.create_connection = refuse\n"
             "from gpujob.cli import main\n"
             f"code = main(['validate', {config!r}])\n"
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('googleapiclient', "
             "'google', 'httplib2', 'google_auth_httplib2', 'requests'))\n"
             "print(code, heavy, file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env=os.environ, timeout=60)
    assert result.stdout == ""  # the new image is known: nothing to say about it
    assert result.stderr.splitlines()[-1] == "0 []"


def test_validate_json_says_how_old_the_live_facts_are(cli, refreshed, write):
    config = write(JOB.replace("IMAGE", NEW_IMAGE), "job.json")
    report = json.loads(cli("validate", "--format", "json", config).out)
    live = report["catalog"]["live"]
    assert live["zones"]["as_of"] == "2026-11-26" and live["zones"]["origin"] == "refresh"
    assert live["zones"]["file"] == str(refreshed)
    assert live["prebuilt_images"]["read"] == "2026-11-26T10:00:00Z"
    assert report["catalog"]["as_of"]["machine_types"] == "2026-11-23"  # not a live part


def test_without_an_overlay_the_built_in_facts_say_so(cli, write):
    report = json.loads(cli("validate", "--format", "json", write(JOB.replace(
        "IMAGE", "tf-gpu.2-17.py310"), "job.json")).out)
    assert {k: v["origin"] for k, v in report["catalog"]["live"].items()} == {
        "zones": "built-in", "prebuilt_images": "built-in"}
    assert report["catalog"]["path"] == str(data_file("vertex"))


def test_export_prints_the_merged_catalog_and_it_reads_back(cli, refreshed, tmp_path, write):
    exported = cli("gpus", "--export-catalog")
    assert exported.code == 0
    data = json.loads(exported.out)
    assert data["zones"]["gpus"]["NVIDIA_H100_80GB"]["zones"] == ["me-central2-b"]
    assert data["refreshed"]["zones"]["as_of"] == "2026-11-26"
    mine = tmp_path / "mine.json"
    mine.write_text(exported.out)
    result = cli("gpus", "--gpu", "h100", "--region", "me-central2", "--catalog", str(mine))
    assert result.code == 0, result.err
    assert f"as of 2026-11-26 ({mine}" in result.err


def test_catalog_file_wins_over_the_overlay(cli, refreshed, write):
    config = write(JOB.replace("IMAGE", NEW_IMAGE), "job.json")
    result = cli("validate", config, "--catalog", str(data_file("vertex")))
    assert f"{NEW_IMAGE}:latest is not among the prebuilt training images gpujob knows" in \
        result.out
    assert cli("gpus", "--gpu", "h100", "--region", "me-central2", "--catalog",
               str(data_file("vertex"))).code == 1


def test_an_unreadable_overlay_is_said_once_and_the_built_in_catalog_used(cli, write):
    _overlay_file().parent.mkdir(parents=True, exist_ok=True)
    _overlay_file().write_text('{"format": 1, "parts": {"zones": {"gpus": 3}}}')
    result = cli("validate", write(JOB.replace("IMAGE", "tf-gpu.2-17.py310"), "job.json"))
    assert result.code == 1  # tf 2.17 is past its end of availability: the built-in dates
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "is not a refreshed catalog gpujob can read" in warnings[0]
    assert "using the built-in catalog" in warnings[0]


def test_old_built_in_facts_draw_one_warning_per_run(cli, write, monkeypatch):
    monkeypatch.setenv("GPUJOB_CATALOG_MAX_AGE_DAYS", "2")  # the built-in facts: 3+ days old
    monkeypatch.setattr(freshness, "_warned", set())
    a, b = (write(JOB.replace("IMAGE", "tf-gpu.2-17.py310"), f"{n}.json") for n in "ab")
    result = cli("validate", a, b)
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: gpujob's built-in zones ({_as_of()}, {_age()}), prebuilt "
                        f"images ({_as_of()}, {_age()}) are older than 2 days"]
    assert "gpujob catalog refresh" in result.err
    assert result.code == 1  # a warning, never an error: the code is the configs' (tf 2.17)


def test_a_refreshed_part_is_not_warned_about(cli, refreshed, write, monkeypatch):
    monkeypatch.setattr(freshness, "_warned", set())
    monkeypatch.setenv("GPUJOB_CATALOG_MAX_AGE_DAYS", "0")
    result = cli("validate", write(JOB.replace("IMAGE", NEW_IMAGE), "job.json"))
    assert "warning:" not in result.err


def test_the_documented_age_is_ninety_days():
    guide = (Path(__file__).resolve().parents[3] / "docs" / "gpus.md").read_text(encoding="utf-8")
    assert f"older than {freshness.MAX_AGE_DAYS} days" in guide
    assert freshness.max_age_days({}) == 90 == freshness.MAX_AGE_DAYS
    assert freshness.max_age_days({"GPUJOB_CATALOG_MAX_AGE_DAYS": "7"}) == 7
    assert freshness.max_age_days({"GPUJOB_CATALOG_MAX_AGE_DAYS": "soon"}) == 90


def _as_of() -> str:
    return json.loads(data_file("vertex").read_text())["zones"]["source"]["as_of"]


def _age() -> str:
    from datetime import date

    days = (date.today() - date.fromisoformat(_as_of())).days
    return "1 day" if days == 1 else f"{days} days"


def test_an_overlay_is_written_whole_or_not_at_all(refreshed, monkeypatch):
    before = refreshed.read_text()

    def full(fd):  # the new text written, not yet on the disk: the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(overlay.os, "fsync", full)
    with pytest.raises(OSError):
        overlay.write(refreshed, {"format": 1, "parts": {}})
    assert refreshed.read_text() == before
    assert [p.name for p in refreshed.parent.iterdir()] == [refreshed.name]


@pytest.mark.parametrize("zones", [
    {"gpus": {"NVIDIA_H100_80GB": {"max_count": "8", "zones": ["us-central1-a"]}}},
    {"gpus": {"NVIDIA_H100_80GB": {"max_count": 8, "zones": [3]}}},
    {"machine_types": {"a3-highgpu-8g": "us-central1-a"}},
    {"source": {"as_of": "yesterday", "refs": ["CE-API"]}},
])
def test_an_overlay_edited_by_hand_is_refused_in_one_line(cli, refreshed, write, zones,
                                                           monkeypatch):
    monkeypatch.setattr(freshness, "_warned", set())
    data = json.loads(refreshed.read_text())
    data["parts"]["zones"].update(zones)
    refreshed.write_text(json.dumps(data))
    result = cli("gpus", "--gpu", "h100")
    assert result.code == 0  # the built-in catalog answers
    warning = result.err.splitlines()[0]
    assert warning.startswith(f"warning: {refreshed} is not a refreshed catalog gpujob can "
                              "read: zones.")
    assert warning.endswith("; using the built-in catalog")
    assert "(built-in, " in result.err


def test_a_price_table_edited_by_hand_is_refused_and_the_built_in_prices_used(
        cli, refreshed, write, monkeypatch):
    monkeypatch.setattr(freshness, "_warned", set())
    data = json.loads(refreshed.read_text())
    data["parts"]["prices"] = {"read": "2026-11-26T10:00:00Z", "from": "Cloud Billing",
                               "source": {"as_of": "2026-11-26", "refs": ["CB-API"]},
                               "table": {"regions": {"us-central1": []}}}
    refreshed.write_text(json.dumps(data))
    t4 = Path(__file__).resolve().parents[3] / "configs" / "t4-compute-engine.yaml"
    result = cli("validate", str(t4))
    assert result.code == 0, result.err  # priced from the built-in table: no crash
    assert "cost: $24.25/hour on-demand in us-central1" in result.err
    assert "prices: Vertex AI list prices in USD as of 2026-05-20" in result.err
    warning = result.err.splitlines()[0]
    assert warning.startswith(f"warning: {refreshed} is not a refreshed catalog gpujob can "
                              "read: prices.table: each region needs")


def test_the_cache_directory_follows_xdg():
    home = str(Path.home())
    assert overlay.cache_dir({}) == f"{home}/.cache/gpujob"
    assert overlay.cache_dir({"XDG_CACHE_HOME": "/var/c"}) == "/var/c/gpujob"
    assert overlay.cache_dir({"XDG_CACHE_HOME": "rel"}) == f"{home}/.cache/gpujob"
    assert overlay.cache_dir({"XDG_CACHE_HOME": "/var/c", "GPUJOB_CACHE_DIR": "/t"}) == "/t"
    # one spelling wherever the directory is shown: a refresh's "wrote" line, a catalog warning
    assert overlay.cache_dir({"GPUJOB_CACHE_DIR": "./c/"}) == "c"


@pytest.mark.parametrize("figure, said", [
    (-195.63, "-195.63"), (0, "0"), (float("-inf"), "-Infinity"), (float("nan"), "NaN"),
    ("5", '"5"'), (True, "true")])
def test_a_price_edited_by_hand_below_or_at_zero_refuses_the_overlay(cli, refreshed,
                                                                     monkeypatch, figure, said):
    monkeypatch.setattr(freshness, "_warned", set())
    data = json.loads(refreshed.read_text())
    data["parts"]["prices"] = {"read": "2026-11-26T10:00:00Z", "from": "Cloud Billing",
                               "source": {"as_of": "2026-11-26", "refs": ["CB-VERTEX"]},
                               "table": {"regions": {"us-central1": {"accelerators": {
                                   "NVIDIA_TESLA_T4": {"on_demand": figure, "source": {
                                       "refs": ["CB-VERTEX"], "as_of": "2026-11-26"}}}}}}}
    refreshed.write_text(json.dumps(data))  # NaN and the infinities as Python writes them
    t4 = Path(__file__).resolve().parents[3] / "configs" / "t4-compute-engine.yaml"
    result = cli("submit", str(t4), "--dry-run", "--max-hourly-cost", "5")
    assert result.code == 1  # priced from the built-in table: over the budget
    assert "the job costs $24.25/hour on-demand in us-central1, over --max-hourly-cost " \
           "$5.00" in result.err
    warning = result.err.splitlines()[0]
    assert warning == (
        f"warning: {refreshed} is not a refreshed catalog gpujob can read: prices.table.regions."
        f"us-central1.accelerators.NVIDIA_TESLA_T4.on_demand is {said}, not a price (a number "
        "above 0, USD per hour, or null); using the built-in catalog")
