"""What users get cites public documentation only: the project's reference notes (the files named
below) are not shipped, so no hint, message, catalog note, schema, doc or example may send a user
to them."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# spelt in pieces, so that a search of the repository for the names does not find this file
NOTES = [f"{name}.md" for name in ("VERTEX", "DESIGN", "FACTS", "GPU-ZONES", "LIVE-FACTS",
                                   "GKE")]
SHIPPED = ["gpujob", "schemas", "configs", "docs", "examples", "scripts", "benchmarks",
           "README.md", "pyproject.toml", "mkdocs.yml"]


def shipped_files() -> list[Path]:
    found = []
    for name in SHIPPED:
        path = ROOT / name
        found += [path] if path.is_file() else sorted(
            p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and ".egg-info" not in str(p))
    return found


def test_the_scan_sees_the_shipped_files():
    names = {p.relative_to(ROOT).as_posix() for p in shipped_files()}
    assert {"README.md", "gpujob/services/vertex/catalog.json",
            "schemas/vertex-catalog.schema.json",
            "configs/t4-compute-engine.yaml", "docs/examples/cluster.yaml",
            "docs/getting-started.md", "docs/architecture.md", "mkdocs.yml"} <= names


@pytest.mark.parametrize("path", shipped_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_shipped_file_cites_the_project_s_reference_notes(path: Path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    cited = [(text.count("\n", 0, text.index(name)) + 1, name) for name in NOTES if name in text]
    assert not cited, f"{path.relative_to(ROOT)}: line {cited[0][0]} cites {cited[0][1]}: " \
                      "cite the public page it names instead"


# ids of a private code search, not addresses a user can open (spelt in pieces, as above)
PRIVATE_IDS = ["code-" + "index", "copy " + "id "]


@pytest.mark.parametrize("path", shipped_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_shipped_file_cites_a_search_index_id_for_a_source(path: Path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    cited = [(text.count("\n", 0, text.index(name)) + 1, name) for name in PRIVATE_IDS
             if name in text]
    assert not cited, f"{path.relative_to(ROOT)}: line {cited[0][0]} cites a {cited[0][1]!r}: " \
                      "name the public page (a URL) instead"
