"""What users install: the wheel carries the schema (and data) and uses them, not the checkout's."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds the wheel

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_the_schema_and_uses_it(tmp_path: Path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(tmp_path / "dist"), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("gpujob-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = archive.read("gpujob/schemas/job.schema.json")
        assert shipped == (ROOT / "schemas" / "job.schema.json").read_bytes()
        assert not [n for n in archive.namelist() if "tests/" in n or "__pycache__" in n]
        table = ROOT / "gpujob" / "services" / "vertex" / "pricing" / "price-table"
        assert {f"gpujob/services/vertex/pricing/price-table/{f.name}" for f in table.iterdir()
                } <= set(archive.namelist())  # the price table's index and every region's
        archive.extractall(tmp_path / "site")
    config = tmp_path / "c.yaml"
    config.write_text("trainingInput:\n  scaleTier: CUSTOM\n  masterTyp: x\n")
    probe = ("import gpujob, gpujob.resources as r; "
             "print(gpujob.__file__); print(r.schema_path('job.schema.json'))")
    env = {"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path, check=True,
                         capture_output=True, text=True).stdout.split()
    assert all(line.startswith(str(tmp_path / "site")) for line in out), out
    result = subprocess.run([sys.executable, "-m", "gpujob", "validate", str(config)], env=env,
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1
    assert "unknown key 'masterTyp'" in result.stdout
    # `gpujob schema --path` names the wheel's own copy, for editors, from any directory
    files = {"job": "job", "ai-platform-catalog": "catalog.ai-platform",
             "catalog": "catalog.ai-platform", "vertex-catalog": "vertex-catalog",
             **{name: name for name in ("vertex-custom-job-spec", "vertex-custom-job",
                                        "vertex-tuning-job")}}
    for name, file in files.items():
        where = subprocess.run([sys.executable, "-m", "gpujob", "schema", name, "--path"],
                               env=env, cwd=tmp_path, check=True, capture_output=True,
                               text=True).stdout
        assert where == f"{tmp_path / 'site' / 'gpujob' / 'schemas' / file}.schema.json\n"
        printed = subprocess.run([sys.executable, "-m", "gpujob", "schema", name], env=env,
                                 cwd=tmp_path, check=True, capture_output=True).stdout
        assert printed == (ROOT / "schemas" / f"{file}.schema.json").read_bytes()
