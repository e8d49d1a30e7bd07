"""Rules the schema cannot express, each producing findings with a way to fix them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.config.document import Document
from gpujob.findings import Finding, error

if TYPE_CHECKING:
    from gpujob.check import CheckOptions


def _submit_requirements(doc: Document) -> list[Finding]:
    """What the service needs to create the job, wherever it comes from (file, flag, env)."""
    ti = doc.data.get("trainingInput")
    if not isinstance(ti, dict):
        return []
    found = []
    if "region" not in ti:
        found.append(error("submit.region", "no region for the job", ("trainingInput",),
                           doc.locate(("trainingInput",), key=True),
                           "pass --region (or set GPUJOB_REGION, or trainingInput.region)"))
    return found


def check(doc: Document, options: CheckOptions, schema_findings: list[Finding]) -> list[Finding]:
    """All rule findings for one document. ``schema_findings`` lets a rule stay quiet about a
    value the schema already refused."""
    found: list[Finding] = []
    if options.submit and not options.local:
        found += _submit_requirements(doc)
    return found
