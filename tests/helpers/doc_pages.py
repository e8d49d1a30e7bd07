"""The user documentation: the README (the front page) and the user guide's pages (docs/*.md,
built by mkdocs). Tests that check what the docs show read them through here, so that a
passage may move between the README and a page without the test losing sight of it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def page_name(path: Path) -> str:
    """The page as the repository names it: README.md, docs/validate.md."""
    return path.relative_to(ROOT).as_posix()


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def all_text() -> str:
    """Every page, one after another (for a passage that may live on any of them)."""
    return "\n".join(text(path) for path in PAGES)


def the_page_with(needle: str) -> Path:
    """The one page that holds ``needle``."""
    found = [path for path in PAGES if needle in text(path)]
    assert len(found) == 1, f"{needle!r} should be on one page of the docs, found on " \
                            f"{[page_name(p) for p in found] or 'none'}"
    return found[0]
