"""What a Vertex AI submit loads (benchmarks/submit.py measures its CPU beside gcloud's): a
container job has nothing to stage, so the packaging modules stay unloaded, and with
--no-preflight the quota preflight's module does too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from jobs import CONTAINER_JOB

# the shared container job, less its args (what this test always sent)
CONFIG = CONTAINER_JOB.replace("  args: [--from-file]\n", "")
NOT_NEEDED = ("gpujob.services.vertex.quota.preflight", "gpujob.packages.staging",
              "gpujob.packages.build")


def test_a_container_submit_without_the_preflight_loads_neither_it_nor_packaging(
        google, key, vertex, tmp_path: Path):
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    args = ["submit", str(config), "--service", "vertex", "--no-preflight"]
    probe = (f"import sys; from gpujob.cli import main; code = main({args!r}); "
             f"print(sorted(m for m in sys.modules if m in {NOT_NEEDED!r}), file=sys.stderr); "
             "sys.exit(code)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "[]"
    assert len(google.calls("customJobs.create")) == 1
