"""``gpujob reserve`` (issue 33 item 4) against the fake's ``advice.calendarMode`` on 127.0.0.1:
the windows it recommends, their price from gpujob's table, and the gcloud command."""

from __future__ import annotations

import pytest
from conftest import PROJECT
from fakes.errors import permission_denied
from fakes.faults import Reply

from gpujob.services.vertex.pricing import prices

B200 = ("reserve", "--gpu", "b200", "--count", "16", "--days", "3", "--project", PROJECT)
START, END = "2026-12-05T00:00:00Z", "2026-12-08T00:00:00Z"


@pytest.fixture
def compute(google, key, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUJOB_COMPUTE_ENDPOINT", google.url)
    return google


def test_reserve_prints_the_windows_and_the_gcloud_command(cli, compute):
    compute.advice.window("us-central1", "us-central1-b", START, END,
                          others={"us-central1-a": "NO_CAPACITY"})
    compute.advice.window("us-central1", "us-central1-c", "2026-12-10T00:00:00Z",
                          "2026-12-13T00:00:00Z")
    result = cli(*B200, "--region", "us-central1")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("16 × B200 (2 × a4-highgpu-8g) for 3 days")
    first = next(line for line in lines if line.startswith("us-central1-b"))
    assert START in first and END in first and "2 × a4-highgpu-8g" in first
    b200 = prices.built_in().machine("us-central1", "a4-highgpu-8g")
    assert b200 is not None and b200.on_demand is not None
    # the window's price: 2 machines for its 72 hours at gpujob's on-demand list price
    assert first.endswith(f"${2 * 72 * b200.on_demand:,.2f}")
    assert any(line.startswith("us-central1-c") for line in lines)
    command = result.out[result.out.index("gcloud compute"):]
    for part in ("future-reservations create b200-x16-3d", f"--project={PROJECT}",
                 "--zone=us-central1-b", "--machine-type=a4-highgpu-8g", "--total-count=2",
                 f"--start-time={START}", f"--end-time={END}", "--reservation-mode=CALENDAR",
                 "--reservation-name=b200-x16-3d"):
        assert part in command
    assert (f"--reservation \\\n    projects/{PROJECT}/zones/us-central1-b/reservations/"
            "b200-x16-3d" in result.out)
    assert "the advice carries no price" in result.err
    (call,) = compute.calls("advice.calendarMode")
    assert compute.rejected == []
    spec = call.body["futureResourcesSpecs"]["spec"]
    assert spec["targetResources"]["specificSkuResources"] == {
        "machineType": "a4-highgpu-8g", "instanceCount": "2"}
    assert spec["timeRangeSpec"]["minDuration"] == "259200s"


def test_a_window_is_priced_where_the_table_knows_the_machine(cli, compute):
    compute.advice.window("us-central1", "us-central1-a", START, END)
    result = cli("reserve", "--gpu", "h100", "--count", "8", "--days", "3", "--project",
                 PROJECT, "--region", "us-central1")
    assert result.code == 0, result.err
    row = next(line for line in result.out.splitlines() if line.startswith("us-central1-a"))
    # Vertex AI's on-demand $101.76/hour (rounded) for a3-highgpu-8g in us-central1, for 72 hours
    assert row.endswith("$7,326.97"), row


def test_a_gpu_is_named_by_the_catalogs_alias(cli, compute):
    """issue 32 item 4: H100-80GB is the catalog's alias of NVIDIA_H100_80GB."""
    compute.advice.window("us-central1", "us-central1-a", START, END)
    result = cli("reserve", "--gpu", "H100-80GB", "--count", "8", "--days", "3", "--project",
                 PROJECT, "--region", "us-central1")
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].startswith("8 × H100 (1 × a3-highgpu-8g) for 3 days")


def test_no_window_is_said_and_exit_0(cli, compute):
    result = cli(*B200, "--region", "us-central1")
    assert result.code == 0, result.err
    assert "recommends no window" in result.out
    assert "gcloud" not in result.out


def test_a_refusal_is_exit_3_after_one_request(cli, compute):
    compute.inject("advice.calendarMode", Reply(403, permission_denied(
        "compute.advice.calendarMode", f"projects/{PROJECT}")))
    result = cli(*B200, "--region", "us-central1,europe-west4")
    assert result.code == 3
    assert len(compute.calls("advice.calendarMode")) == 1
    assert "compute.advice.calendarMode" in result.err
    assert "Traceback" not in result.err


def test_a_count_no_machine_carries_is_exit_1(cli, compute):
    result = cli("reserve", "--gpu", "b200", "--count", "12", "--days", "3",
                 "--project", PROJECT)
    assert result.code == 1
    assert "multiple of 8" in result.err
    assert compute.calls("advice.calendarMode") == []


def test_create_submits_the_first_window_once_its_name_is_typed_back(cli, compute):
    compute.advice.window("us-central1", "us-central1-b", START, END)
    result = cli(*B200, "--region", "us-central1", "--create", stdin=b"b200-x16-3d\n")
    assert result.code == 0, result.err
    (call,) = compute.calls("futureReservations.insert")
    assert compute.rejected == []
    assert "/zones/us-central1-b/futureReservations" in call.path
    assert call.query["requestId"][0]  # a resend cannot make a second request
    assert call.body["specificSkuProperties"] == {
        "instanceProperties": {"machineType": "a4-highgpu-8g"}, "totalCount": "2"}
    assert call.body["timeWindow"] == {"startTime": START, "endTime": END}
    assert call.body["reservationMode"] == "CALENDAR"
    assert "submitted: future reservation b200-x16-3d in us-central1-b" in result.out
    assert "cannot be cancelled" in result.err


def test_create_without_the_name_typed_back_creates_nothing(cli, compute):
    compute.advice.window("us-central1", "us-central1-b", START, END)
    result = cli(*B200, "--region", "us-central1", "--create", stdin=b"y\n")
    assert result.code == 1
    assert "not confirmed: nothing was created" in result.err
    assert compute.calls("futureReservations.insert") == []


def test_create_refused_is_exit_3_naming_the_permission(cli, compute):
    compute.advice.window("us-central1", "us-central1-b", START, END)
    compute.inject("futureReservations.insert", Reply(403, permission_denied(
        "compute.futureReservations.create", f"projects/{PROJECT}")))
    result = cli(*B200, "--region", "us-central1", "--create", stdin=b"b200-x16-3d\n")
    assert result.code == 3
    assert "compute.futureReservations.create" in result.err
    assert "Traceback" not in result.err
