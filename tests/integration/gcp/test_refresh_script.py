"""``scripts/refresh_catalog.py``: the built-in catalog's live parts regenerated from the fake
APIs with the refresh's own code, the rest of the file untouched (a diff of the facts only)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT
from fakes.errors import permission_denied
from fakes.faults import Reply
from test_catalog_refresh import NEW_IMAGE, apis  # noqa: F401  (the fixture)

from gpujob.catalog.services import data_file

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "refresh_catalog.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=120)


def test_the_script_rewrites_only_the_live_parts(apis, tmp_path):  # noqa: F811
    copy = tmp_path / "vertex.json"
    shutil.copy(data_file("vertex"), copy)
    before = json.loads(copy.read_text())
    result = _run("--project", PROJECT, "--catalog-file", str(copy))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"wrote {copy}"
    after = json.loads(copy.read_text())
    assert after["zones"]["gpus"]["NVIDIA_H100_80GB"]["zones"] == ["me-central2-b",
                                                                  "us-central1-a"]
    assert after["zones"]["source"]["refs"] == ["CE-API", "D-GPU"]
    assert after["prebuilt_images"]["images"][NEW_IMAGE]["python"] == "3.12"
    assert after["prebuilt_images"]["images"]["tf-gpu.2-17.py310"] == \
        before["prebuilt_images"]["images"]["tf-gpu.2-17.py310"]
    for key in before:  # nothing else moved
        if key not in ("zones", "prebuilt_images"):
            assert after[key] == before[key], key
    assert {k: v for k, v in after["zones"].items() if k not in ("source", "gpus",
                                                                  "machine_types")} == \
        {k: v for k, v in before["zones"].items() if k not in ("source", "gpus",
                                                                "machine_types")}


def test_a_part_that_cannot_be_read_leaves_its_section_as_it_was(apis, google, tmp_path):  # noqa: F811
    copy = tmp_path / "vertex.json"
    shutil.copy(data_file("vertex"), copy)
    google.inject("acceleratorTypes.aggregatedList", Reply(403, permission_denied(
        "compute.acceleratorTypes.list", f"projects/{PROJECT}")))
    result = _run("--project", PROJECT, "--catalog-file", str(copy))
    assert result.returncode == 3
    assert "zones: not read; vertex.json keeps its own" in result.stdout
    text = copy.read_text()
    original = data_file("vertex").read_text()
    start = original.index('\n  "zones": {')
    end = original.index('\n  "prebuilt_images": {')
    assert text[start:end] == original[start:end]  # byte for byte
    assert NEW_IMAGE in text


def test_the_file_laid_out_again_is_the_same_file():
    """The layout is the file's own: replacing the live sections with what they hold changes
    not a byte (so a refresh's diff shows facts only)."""
    from gpujob.services.vertex.refresh import snapshot

    text = data_file("vertex").read_text()
    data = json.loads(text)
    parts = {"zones": data["zones"], "images": {**data["prebuilt_images"]}}
    assert snapshot.replace(text, parts) == text
