"""The user guide (docs/, mkdocs.yml) builds with `mkdocs build --strict`, as CI builds it: a
link to a page or an anchor that does not exist, or a page left out of the navigation, fails
the test suite, not only CI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = [sys.executable, "-m", "mkdocs"]


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MKDOCS, "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], cwd=config.parent, text=True,
                          capture_output=True, timeout=300)


def test_the_user_guide_builds_strictly(tmp_path: Path):
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "validate" / "index.html").is_file()
    assert (tmp_path / "site" / "examples" / "cluster.yaml").is_file()
    assert not (ROOT / "site").exists()


def test_a_broken_link_fails_the_build(tmp_path: Path):
    """The same configuration over a copy of the pages, one of them linking to a page that is
    not there: the strict build refuses it, so the test above would catch one."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", copy / "docs")
    (copy / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    with (copy / "docs" / "validate.md").open("a", encoding="utf-8") as page:
        page.write("\nSee [the missing page](no-such-page.md).\n")
    done = build(copy / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 1
    warnings = [line for line in (done.stdout + done.stderr).splitlines()
                if line.startswith("WARNING")]
    assert len(warnings) == 1 and "no-such-page.md" in warnings[0], warnings
