"""The peer test (issue 32 item 6): each command line of cases.json, given to gcloud 578 once
(scripts/record_gcloud_bodies.py, against a recorder on 127.0.0.1; the bodies are in recorded/),
is given to ``gpujob submit --dry-run`` unchanged (gcloud's words ``ai custom-jobs create`` left
out): gpujob must POST the same body to the same address, or differ only as DIFFERENCES names
and explains. gcloud is not needed here: the recorded bodies are data."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.default_service  # gpujob's default service: Vertex AI, as gcloud ai

HERE = Path(__file__).resolve().parents[2] / "cases" / "gcloud"  # its command lines and bodies
CASES = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))["cases"]
NAMES = [case["name"] for case in CASES]
SUBMISSION = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9]{6}-[0-9a-f]{8}")
# the words of gcloud's command before its flags, and what gpujob's dry run says it would POST
COMMANDS = {("ai", "custom-jobs", "create"): "CustomJob",
            ("ai", "hp-tuning-jobs", "create"): "HyperparameterTuningJob"}
POSTS = re.compile(r"^Dry run: would POST this (\w+) to https://us-central1-aiplatform"
                   r"\.googleapis\.com(/v1/\S+) \(nothing sent\)", re.M)

# Every difference between gcloud's body and gpujob's, with why. A case not named here sends
# the same body but for SUBMISSION_LABEL, which gpujob adds to every Vertex job.
SUBMISSION_LABEL = (
    "gpujob adds the label gpujob-submission=YYYYMMDD-HHMMSS-UUUUUU-RANDOM to each job it "
    "creates, so that a create whose answer was lost (a timeout, a dropped connection) is found "
    "by that label rather than created twice; gcloud sends no label of its own.")
DIFFERENCES: dict[str, tuple[str, str]] = {
    # case: (what gpujob says on stderr, instead of POSTing, and why)
    "executor-image-python-module": (
        "the prebuilt image pytorch-gpu.2-4.py310 reached its end of availability on "
        "2026-07-24 [vertex.executor-image]",
        "gcloud sends any executorImageUri as it is; gpujob refuses a prebuilt image past the "
        "end of availability its catalog records (Vertex AI's prebuilt containers page): "
        "Vertex AI no longer starts it. The job gpujob builds from the flags is gcloud's."),
    "executor-image-of-your-own": (
        "us-central1-docker.pkg.dev/my-project/train/exec:1 is not a Vertex prebuilt training "
        "image: a pythonPackageSpec runs only on those [vertex.executor-image]",
        "gcloud sends any executorImageUri; Vertex AI's pythonPackageSpec runs a package only "
        "on a prebuilt training image (an image of your own runs as a containerSpec), which "
        "gpujob checks before sending. The job gpujob builds from the flags is gcloud's."),
}


def _recorded(name: str) -> dict[str, Any]:
    return json.loads((HERE / "recorded" / f"{name}.json").read_text(encoding="utf-8"))


def _gpujob_args(recorded: dict[str, Any]) -> tuple[str, list[str]]:
    """The kind of job gcloud's command creates, and its flags (gcloud ai … create left out)."""
    words = tuple(recorded["gcloud"][1:4])
    assert words in COMMANDS, recorded["gcloud"]
    return COMMANDS[words], recorded["gcloud"][4:]


def test_every_case_was_recorded_with_a_real_gcloud() -> None:
    """cases.json and recorded/ agree: each command line has the body gcloud sent for it, and
    the gcloud version that sent it."""
    assert sorted(p.stem for p in (HERE / "recorded").glob("*.json")) == sorted(NAMES)
    for case in CASES:
        recorded = _recorded(case["name"])
        assert recorded["gcloud"] == ["gcloud", *case["gcloud"]]
        assert re.fullmatch(r"5[0-9]{2}\.[0-9]+\.[0-9]+", recorded["gcloud_version"])
        assert recorded["method"] == "POST" and recorded["other_requests"] == []
    assert set(DIFFERENCES) <= set(NAMES)


def _sent(result: Any, recorded: dict[str, Any], kind: str) -> dict[str, Any]:
    """The body gpujob's dry run would POST, where gcloud POSTed it, less SUBMISSION_LABEL."""
    assert result.code == 0, result.err
    posted = POSTS.search(result.err)
    assert posted, result.err
    assert posted.group(1) == kind
    assert posted.group(2) == recorded["path"].removesuffix("?alt=json")
    body = json.loads(result.out)
    # SUBMISSION_LABEL: the one key gpujob adds
    assert SUBMISSION.fullmatch(body["labels"].pop("gpujob-submission"))
    if not body["labels"]:
        del body["labels"]
    return body


@pytest.mark.parametrize("name", NAMES)
def test_gpujob_sends_what_gcloud_sent(name: str, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = _recorded(name)
    kind, flags = _gpujob_args(recorded)
    monkeypatch.chdir(HERE)  # --config names a file here, as it did for gcloud
    result = cli("submit", *flags, "--project", "my-project", "--dry-run")
    if name in DIFFERENCES:
        said, _ = DIFFERENCES[name]
        assert result.code == 1, result.out
        assert said in result.err
        assert result.out == ""
        return
    assert _sent(result, recorded, kind) == recorded["body"]


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
def test_a_refused_job_is_built_as_gcloud_built_it(name: str, cli,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Where gpujob's checks refuse what gcloud sent, the job its command line builds is still
    gcloud's: with the refusing check (the executor image's) off, submit's dry run POSTs the
    body gcloud sent, through the same steps."""
    from gpujob.services.vertex.native import rules

    recorded = _recorded(name)
    kind, flags = _gpujob_args(recorded)
    monkeypatch.setattr(rules, "_executor", lambda *args: None)
    result = cli("submit", *flags, "--project", "my-project", "--dry-run")
    assert _sent(result, recorded, kind) == recorded["body"]
