"""Converting a config and then sending the converted file gives the body the original gives:
for every config in configs/ (a CustomJobSpec, a whole CustomJob, a tuning job), read back
by gpujob with the flags the converted file's header names; the submission label aside."""

from __future__ import annotations

import shlex
from datetime import date
from pathlib import Path

import pytest
from vertex_translation import CAT, PYTORCH

from gpujob import vertex_native
from gpujob.config.load import load_file
from gpujob.config.overrides import parse_labels
from gpujob.translate.vertex import VertexOptions, translate

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def original_body(path: Path, **options: str) -> dict:
    loaded = load_file(str(path))
    assert loaded.document is not None
    t = translate(loaded.document, CAT, date.today(), VertexOptions(**options))
    assert t.errors == []
    return t.body


def header_command(text: str) -> list[str]:
    """The gpujob command the converted file's header gives, as arguments."""
    line = next(line for line in text.splitlines() if line.startswith("#   gpujob submit "))
    return shlex.split(line.removeprefix("#   "))


def sent_body(path: Path) -> dict:
    """The body gpujob sends for a converted file, with the flags its header names."""
    text = path.read_text(encoding="utf-8")
    args = header_command(text)
    assert args[:6] == ["gpujob", "submit", str(path), "--service", "vertex", "--region"]
    flags = dict(zip(args[7::2], args[8::2], strict=True))
    assert set(flags) <= {"--display-name", "--labels", "--kms-key"}
    loaded = load_file(str(path))
    assert loaded.document is not None and loaded.findings == []
    errors = [f for f in vertex_native.check(loaded.document, CAT, date.today(),
                                             name=flags.get("--display-name")) if f.is_error]
    assert errors == []
    labels = parse_labels((flags["--labels"],)) if "--labels" in flags else None
    _, body = vertex_native.body(loaded.document, name=flags.get("--display-name"),
                                 labels=labels, kms_key=flags.get("--kms-key"))
    return body


@pytest.mark.parametrize("whole", [False, True], ids=["spec", "whole-job"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_every_config_converts_and_sends_the_same_body(cli, tmp_path, config, whole):
    out = tmp_path / "vertex.yaml"
    args = ["convert", config, "--executor-image-uri", PYTORCH, "-o", out]
    result = cli(*args, *(["--whole-job"] if whole else []))
    assert result.code == 0, result.err
    assert sent_body(out) == original_body(config, executor_image_uri=PYTORCH)


def test_the_command_line_s_changes_survive_the_round_trip(cli, tmp_path):
    config = ROOT / "configs" / "basic-gpu-quickstart.yaml"
    out = tmp_path / "quick.yaml"
    flags = ["--labels", "team=ml", "--set", "trainingInput.scheduling.maxRunningTime=600s",
             "--job-id", "quick_1", "--region", "us-west1"]
    result = cli("convert", config, "--executor-image-uri", PYTORCH, *flags, "-o", out,
                 "--", "--epochs", "1")
    assert result.code == 0, result.err
    body = sent_body(out)
    assert header_command(out.read_text())[6] == "us-west1"
    assert body["displayName"] == "quick_1" and body["labels"] == {"team": "ml"}
    assert body["jobSpec"]["scheduling"] == {"timeout": "600s"}
    assert body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == ["--epochs", "1"]
