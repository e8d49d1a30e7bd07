"""What a translation tells the user, each at the value it is about, and where each value of
the result came from (for ``convert``'s comments)."""

from __future__ import annotations

from typing import Any

from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, Location, Severity

RULE = "vertex-translate"


class Notes:
    """Findings of one translation: ``note`` (a value was translated into something else),
    ``warn`` (dropped, or may behave differently), ``error`` (cannot be translated).

    Notes are ``Finding`` records with severity ``"note"``: not errors; the reporters print
    them as ``note:`` lines.
    """

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.findings: list[Finding] = []
        self.origins: dict[JsonPath, JsonPath] = {}

    def _add(self, severity: Severity, rule: str, path: JsonPath, message: str,
             hint: str | None, location: Location | None) -> None:
        where = location or self.doc.locate(path)
        self.findings.append(Finding(severity, f"{RULE}.{rule}", message, path, where, hint))

    def note(self, rule: str, path: JsonPath, message: str, hint: str | None = None, *,
             location: Location | None = None) -> None:
        self._add("note", rule, path, message, hint, location)

    def warn(self, rule: str, path: JsonPath, message: str, hint: str | None = None, *,
             location: Location | None = None) -> None:
        self._add("warning", rule, path, message, hint, location)

    def error(self, rule: str, path: JsonPath, message: str, hint: str | None = None, *,
              location: Location | None = None) -> None:
        self._add("error", rule, path, message, hint, location)

    def came_from(self, target: JsonPath, source: JsonPath) -> None:
        """Record that the result's value at ``target`` was made from the config's ``source``."""
        self.origins[target] = source

    def sorted(self) -> list[Finding]:
        def key(f: Finding) -> tuple[int, int]:
            loc = f.location
            return (loc.line or 0, loc.column or 0) if loc else (0, 0)
        return sorted(self.findings, key=key)

    def key(self, path: JsonPath) -> Location:
        """Where the key of ``path`` was written (for a finding about a whole section)."""
        return self.doc.locate(path, key=True)

    def flag(self, name: str) -> Location:
        """Where a command-line option's value came from."""
        return Location(self.doc.source, flag=name)


def text(value: Any) -> str | None:
    """A non-empty string, else None (a value the schema refuses is not translated)."""
    return value if isinstance(value, str) and value else None


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def strings(value: Any) -> list[str] | None:
    """A list of strings, else None."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None
