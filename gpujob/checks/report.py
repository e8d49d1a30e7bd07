"""Reporters: findings of all files rendered as text, JSON or GitHub Actions annotations.

Every reporter takes the complete list of results (all files checked) and returns one string, so
nothing is printed until every file has been checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpujob.checks.engine import FileResult
from gpujob.console import dumps
from gpujob.findings import capped, finding_line, format_path
from gpujob.terminal import printable

REPORT_VERSION = 1


def render_text(results: Sequence[FileResult]) -> str:
    return "".join(finding_line(f) + "\n" for r in results for f in capped(r.findings))


def summary(results: Sequence[FileResult]) -> str:
    """One line for stderr: ``3 files checked: 2 valid, 1 invalid (4 errors, 1 warning)``, with
    ``, 2 notes`` when a translation left notes."""
    def n(count: int, word: str) -> str:
        return f"{count} {word}{'' if count == 1 else 's'}"

    invalid = sum(not r.valid for r in results)
    errors = sum(len(r.errors) for r in results)
    warnings = sum(len(r.warnings) for r in results)
    notes = sum(len(r.notes) for r in results)
    line = f"{n(len(results), 'file')} checked: {len(results) - invalid} valid, {invalid} invalid"
    if errors or warnings or notes:
        line += f" ({n(errors, 'error')}, {n(warnings, 'warning')}"
        line += f", {n(notes, 'note')})" if notes else ")"
    return line


def _file_json(r: FileResult) -> dict[str, object]:
    """One file of ``--format json``: ``notes`` only when it has some (a translation's, for
    another service), so that a report without them keeps its shape."""
    entry: dict[str, object] = {
        "path": r.path,
        "valid": r.valid,
        "errors": [f.as_dict() for f in capped(r.errors, every_hint=True)],
        "warnings": [f.as_dict() for f in capped(r.warnings, every_hint=True)],
    }
    if r.notes:
        entry["notes"] = [f.as_dict() for f in capped(r.notes, every_hint=True)]
    if r.cost is not None:  # the job's $/hour, where its service knows it
        entry["cost"] = r.cost.as_dict()
    return entry


def render_json(results: Sequence[FileResult], catalog: Mapping[str, Any] | None = None
                ) -> str:
    """``catalog``: the catalog the files were checked with and how old its live facts are
    (``freshness.describe``), when known."""
    report: dict[str, Any] = {"version": REPORT_VERSION, "files": [_file_json(r) for r in results]}
    if catalog is not None:
        report["catalog"] = catalog
    return dumps(report) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(results: Sequence[FileResult]) -> str:
    """GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` annotation
    per finding. Line breaks are the commands' own escapes; other control characters of the
    file's name and of what a message quotes are shown as escapes, as in the text report."""
    out = []
    for r in results:
        for f in capped(r.findings):
            props = [f"file={_escape_property(printable(r.path, lines=True))}"]
            if f.location and f.location.line is not None:
                props += [f"line={f.location.line}", f"col={f.location.column}"]
            props.append(f"title={_escape_property('gpujob ' + f.rule)}")
            message = printable(f.message)
            text = f"{format_path(f.path)}: {message}" if f.path else message
            if f.hint:
                text += f"\nhint: {printable(f.hint)}"
            kind = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
            out.append(f"::{kind} {','.join(props)}::{_escape_data(text)}\n")
    return "".join(out)


REPORTERS: dict[str, Callable[[Sequence[FileResult]], str]] = {
    "text": render_text,
    "json": render_json,
    "github": render_github,
}
