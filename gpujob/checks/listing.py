"""``gpujob rules``: the registry as a table for people or JSON for programs."""

from __future__ import annotations

import json
from collections.abc import Sequence

from gpujob.checks.registry import Rule

REPORT_VERSION = 1
NOTES = {
    "region": "a warning with --no-region-check and for local runs",
    "submit": "checked only when a job is submitted, not by validate or local runs",
}


def _note(rule: Rule) -> str:
    return "region" if rule.region else "submit" if rule.submit else ""


def render_json(rules: Sequence[Rule]) -> str:
    return json.dumps({"version": REPORT_VERSION, "rules": [r.as_dict() for r in rules]},
                      indent=2, allow_nan=False) + "\n"


def render_text(rules: Sequence[Rule]) -> str:
    rows = [("ID", "SEVERITY", "SERVICES", "NOTE", "CHECKS")] + [
        (r.id, r.severity, ",".join(r.services), _note(r), r.doc) for r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True))
             + "  " + row[4] for row in rows]
    used = sorted({_note(r) for r in rules} - {""})
    return "\n".join(lines) + "\n\n" + "".join(f"{n}: {NOTES[n]}\n" for n in used)


REPORTERS = {"text": render_text, "json": render_json}
