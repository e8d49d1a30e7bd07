"""The settings the command line builds carry what they share instead of copying it (issue 29):
few settings/options types, no two whose names differ only by a suffix, the flags a service
reads in one JobOptions, and the catalog loaded by the command, not while flags become
settings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gpujob import services
from gpujob.settings import CheckOptions, JobOptions

PACKAGE = Path(__file__).resolve().parents[2] / "gpujob"
KIND = re.compile(r"^(\w+?)(Settings|Options)$")


def _types() -> dict[str, str]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and KIND.match(node.name):
                found[node.name] = str(path.relative_to(PACKAGE.parent))
    return found


def test_few_settings_types_and_none_two_differ_by_a_suffix():
    found = _types()
    assert len(found) <= 9, sorted(found)
    stems = [KIND.match(name).group(1) for name in found]  # type: ignore[union-attr]
    assert sorted(s for s in stems if stems.count(s) > 1) == [], sorted(found)


def test_the_check_carries_the_job_options():
    assert CheckOptions._field_defaults["job"] == JobOptions()
    assert not set(JobOptions._fields) & set(CheckOptions._fields) - {"job"}


def test_flags_become_settings_without_reading_the_catalog(tmp_path):
    from gpujob.cli.options import check_options_of

    bad = tmp_path / "catalog.json"
    bad.write_text("{not json", encoding="utf-8")
    check = check_options_of({"service": "vertex", "catalog": str(bad), "strategy": "spot",
                              "executor_image_uri": None})
    assert (check.catalog, check.catalog_file) == (None, str(bad))
    assert check.service is services.get("vertex") and check.job.strategy == "SPOT"


def test_a_bad_catalog_is_one_usage_error_from_the_command(cli, write, tmp_path):
    bad = tmp_path / "catalog.json"
    bad.write_text("{not json", encoding="utf-8")
    first, second = write("trainingInput: {}\n", "a.yaml"), write("trainingInput: {}\n", "b.yaml")
    result = cli("validate", "--catalog", str(bad), first, second)
    assert result.code == 2
    assert result.out == ""
    assert [line for line in result.err.splitlines() if line.startswith("error:")] == [
        f"error: --catalog {bad} is not a valid catalog:"]


def test_a_scale_tier_flag_becomes_an_override_without_reading_the_catalog():
    """--scale-tier is named as the catalog names tiers while the flags become settings; the
    command checks it against the catalog it loads (``SubmitSettings.with_catalog``)."""
    import click

    from gpujob.cli.jobflags import only_given
    from gpujob.config.overrides import check_scale_tiers
    from gpujob.errors import UsageError

    ctx = click.Context(click.Command("validate"))
    line = only_given(ctx, {"scale_tier": "basic-gpu", "enable_web_access": None, "labels": None,
                            "kms_key": None, "kms_keyring": None, "kms_location": None,
                            "kms_project": None})
    assert [(o.path, o.value) for o in line] == [(("trainingInput", "scaleTier"), "BASIC_GPU")]
    check_scale_tiers(line, ["BASIC", "BASIC_GPU"])
    with pytest.raises(UsageError, match="'basic-gpu' is not a scale tier"):
        check_scale_tiers(line, ["BASIC"])
