"""Every example config translated for Vertex AI: the body the bundled aiplatform v1 discovery
document accepts (every field and type, strict encodings), or a clear finding saying why not;
the seed's two GPU clusters pool by pool; and random configs never crash the translator."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jobs import TRAINING_INPUT_KEYS
from vertex_translation import CAT, PYTORCH, TODAY, pools, problems, shown

from gpujob.config.document import Document
from gpujob.config.load import load_file
from gpujob.services.vertex.translate.job import Translation, translate
from gpujob.settings import JobOptions

CONFIGS = sorted((Path(__file__).resolve().parents[5] / "configs").glob("*.yaml"))
SEEDS = Path(__file__).resolve().parents[4] / "seeds"  # package jobs, as AI Platform had them
PREBUILT = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"


def translated(path: Path, today: date = TODAY, **options: str) -> Translation:
    loaded = load_file(str(path))
    assert loaded.document is not None
    return translate(loaded.document, CAT, today, JobOptions(**options))


def test_the_t4_cluster_of_the_seed():
    t = translated(SEEDS / "t4-compute-engine.yaml", executor_image_uri=PYTORCH)
    assert pools(t) == [("n1-highcpu-16", "NVIDIA_TESLA_T4", 4, "1"),
                        ("n1-highcpu-16", "NVIDIA_TESLA_T4", 4, "9"),
                        ("n1-highmem-8", None, None, "3")]
    assert problems(t) == [] and t.errors == []


def test_the_legacy_cluster_of_the_seed_says_what_each_legacy_machine_became():
    t = translated(SEEDS / "legacy-complex-model-m-gpu.yaml",
                   executor_image_uri=PYTORCH)
    assert pools(t) == [("n1-standard-16", "NVIDIA_TESLA_T4", 4, "1"),
                        ("n1-standard-16", "NVIDIA_TESLA_T4", 4, "9"),
                        ("n1-highmem-8", None, None, "3")]
    assert [line for line in shown(t) if "machine-type" in line] == [
        "11:15 note machine-type: complex_model_m_gpu became n1-standard-16 with 4 × "
        "NVIDIA_TESLA_T4 instead of 4 × NVIDIA_TESLA_K80: Vertex no longer offers K80; T4 "
        "replaces it",
        "14:15 note machine-type: complex_model_m_gpu became n1-standard-16 with 4 × "
        "NVIDIA_TESLA_T4 instead of 4 × NVIDIA_TESLA_K80: Vertex no longer offers K80; T4 "
        "replaces it",
        "17:24 note machine-type: large_model became n1-highmem-8"]
    assert "from memory" in t.findings[0].hint
    assert problems(t) == [] and t.errors == []


@pytest.mark.parametrize("path", [*CONFIGS, *sorted(SEEDS.glob("*.yaml"))], ids=lambda p: p.name)
def test_every_config_translates_or_says_why_not(path: Path):
    """As of the image table's dates no prebuilt image is available, so a runtimeVersion job is
    refused at its runtimeVersion, with both fixes; a container job translates as it is."""
    t = translated(path)
    if t.errors:
        assert [(f.rule, f.path) for f in t.errors] == [
            ("vertex-translate.runtime-version", ("trainingInput", "runtimeVersion"))]
        (error,) = t.errors
        assert error.location.line and "--executor-image-uri" in error.hint
        assert "end of availability" in error.message
    else:
        assert problems(t) == []


@pytest.mark.parametrize("image", [PYTORCH, PREBUILT], ids=["any-image", "prebuilt"])
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_config_gives_a_body_the_discovery_document_accepts(path: Path, image: str):
    t = translated(path, today=date(2026, 5, 1), executor_image_uri=image)
    assert t.errors == []
    assert problems(t) == []
    assert t.body["displayName"] == path.stem
    for finding in t.findings:
        assert finding.location.line or finding.location.flag, finding


NAMES = [*CAT.machine_types, *CAT.legacy_machine_types, *CAT.accelerators,
         *CAT.legacy_accelerators, "CUSTOM", "BASIC", "BASIC_GPU", "BASIC_TPU", "STANDARD_1",
         "PREMIUM_1", "2.11", "2.17", "2.10", "3.7", "gs://b/t.tar.gz", "gcr.io/p/i:1",
         "600s", "trainer.task", "DOUBLE", "INTEGER", "CATEGORICAL", "DISCRETE", "NONE", ""]
KEYS = [*TRAINING_INPUT_KEYS, "bootDiskSizeGb", "params", "parameterName", "minValue",
        "maxValue", "discreteValues", "categoricalValues", "scaleType", "goal", "maxTrials",
        "enableTrialEarlyStopping",
        "encryptionConfig", "kmsKeyName", "maxRunningTime", "priority", "resumePreviousJobId"]
scalars = st.one_of(st.sampled_from(NAMES), st.integers(-3, 40), st.booleans(), st.none(),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)),
    max_leaves=30)
documents = st.fixed_dictionaries(
    {"trainingInput": st.dictionaries(st.sampled_from(KEYS), values, max_size=14)},
    optional={"labels": st.dictionaries(st.text(max_size=4), scalars, max_size=3),
              "jobId": scalars})


@pytest.mark.slow  # 300 generated configs
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from([None, PYTORCH, PREBUILT]), st.dates(date(2023, 1, 1),
                                                                      date(2027, 12, 31)))
def test_random_configs_never_crash_the_translator(data, image, today):
    t = translate(Document("r.yaml", data), CAT, today,
                  JobOptions(executor_image_uri=image))
    assert t.kind in ("CustomJob", "HyperparameterTuningJob")
    for finding in t.findings:
        assert finding.rule.startswith("vertex-translate.") and finding.location is not None
        assert finding.severity in ("note", "warning", "error")
