"""Notes: what a translation did with a value. Not errors (the file stays valid); every reporter
shows them as notes, at the value they are about."""

from __future__ import annotations

import json

from gpujob.checks.engine import FileResult
from gpujob.checks.report import render_github, render_json, render_text, summary
from gpujob.findings import Finding, Location, error, warning

PATH = ("trainingInput", "masterType")
NOTE = Finding("note", "vertex-translate.machine-type", "complex_model_m_gpu became n1-standard-16",
               PATH, Location("job.yaml", 4, 15), "a hint")
WARNING = warning("vertex-translate.dropped", "priority is not sent",
                  ("trainingInput", "scheduling", "priority"), Location("job.yaml", 9, 15))


def test_a_note_is_a_line_like_a_warning_and_not_an_error():
    result = FileResult("job.yaml", [NOTE, WARNING])
    assert result.valid
    assert (result.errors, result.warnings, result.notes) == ([], [WARNING], [NOTE])
    assert render_text([result]) == (
        "job.yaml:4:15: trainingInput.masterType: note: complex_model_m_gpu became "
        "n1-standard-16 [vertex-translate.machine-type]\n  hint: a hint\n"
        "job.yaml:9:15: trainingInput.scheduling.priority: warning: priority is not sent "
        "[vertex-translate.dropped]\n")


def test_the_summary_counts_notes_when_there_are_some():
    assert summary([FileResult("job.yaml", [NOTE, WARNING])]) == (
        "1 file checked: 1 valid, 0 invalid (0 errors, 1 warning, 1 note)")
    bad = error("schema.type", "must be a string", PATH, Location("job.yaml", 4, 15))
    assert summary([FileResult("job.yaml", [bad])]) == (
        "1 file checked: 0 valid, 1 invalid (1 error, 0 warnings)")


def test_json_lists_notes_apart_and_only_when_there_are_some():
    report = json.loads(render_json([FileResult("a.yaml", [NOTE]), FileResult("b.yaml", [])]))
    assert report["files"] == [
        {"path": "a.yaml", "valid": True, "errors": [], "warnings": [], "notes": [{
            "path": "trainingInput.masterType", "line": 4, "column": 15,
            "rule": "vertex-translate.machine-type",
            "message": "complex_model_m_gpu became n1-standard-16", "hint": "a hint"}]},
        {"path": "b.yaml", "valid": True, "errors": [], "warnings": []}]


def test_github_shows_a_note_as_a_notice():
    assert render_github([FileResult("job.yaml", [NOTE])]) == (
        "::notice file=job.yaml,line=4,col=15,title=gpujob vertex-translate.machine-type::"
        "trainingInput.masterType: complex_model_m_gpu became n1-standard-16%0Ahint: a hint\n")
