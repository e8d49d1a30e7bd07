"""What the checks report: one ``Finding`` per problem, pointing at where the user wrote it."""

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from gpujob.terminal import printable

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

Key = str | int
JsonPath = tuple[Key, ...]
Severity = Literal["error", "warning", "note"]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def format_path(path: JsonPath) -> str:
    """``("trainingInput", "args", 2)`` -> ``trainingInput.args[2]``, the syntax ``--set`` takes."""
    out: list[str] = []
    for key in path:
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif _PLAIN_KEY.match(key):
            out.append(f".{key}" if out else key)
        else:
            out.append(f"[{json.dumps(key)}]")
    return "".join(out)


def value_at(data: Any, path: JsonPath) -> Any:
    """The value at ``path`` in ``data``, or None where the path leads nowhere."""
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


class Location(NamedTuple):
    """Where a value came from: a place in a file, or a command-line flag. (A tuple: the loader
    makes one per value, and a tuple is made several times faster than a frozen dataclass.)"""

    source: str
    line: int | None = None
    column: int | None = None
    flag: str | None = None

    def __str__(self) -> str:
        if self.flag:
            return f"{self.source} ({self.flag})"
        if self.line is None:
            return self.source
        return f"{self.source}:{self.line}:{self.column}"


class Finding(NamedTuple):
    """One problem (``error``), piece of advice (``warning``) or word on what gpujob did with a
    value (``note``: a translation for another service) about a config. Only errors make a
    config invalid."""

    severity: Severity
    rule: str
    message: str
    path: JsonPath = ()
    location: Location | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def as_dict(self) -> dict[str, object]:
        """The stable shape of ``--format json`` (``version`` 1); ``flag`` only for a value a
        command-line flag gave (its line and column are null)."""
        loc = self.location
        out: dict[str, object] = {
            "path": format_path(self.path),
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "rule": self.rule,
            "message": self.message,
            "hint": self.hint,
        }
        if loc and loc.flag:
            out["flag"] = loc.flag
        return out


def error(rule: str, message: str, path: JsonPath = (), location: Location | None = None,
          hint: str | None = None) -> Finding:
    return Finding("error", rule, message, path, location, hint)


def warning(rule: str, message: str, path: JsonPath = (), location: Location | None = None,
            hint: str | None = None) -> Finding:
    return Finding("warning", rule, message, path, location, hint)


def finding_line(finding: Finding) -> str:
    """``config.yaml:3:3: trainingInput.masterTyp: unknown key 'masterTyp' [schema.unknown-key]``
    plus an indented ``hint:`` line; a warning's and a note's message start with ``warning:``
    and ``note:``. The file's name and what the message quotes of the file are others' text
    (a config in a pull request): each stays on its line, control characters escaped, so that
    no name can forge a line of the report."""
    parts = [printable(str(finding.location)) if finding.location else "<unknown>"]
    if finding.path:
        parts.append(format_path(finding.path))
    if not finding.is_error:
        parts.append(finding.severity)
    line = ": ".join(parts) + f": {printable(finding.message)} [{finding.rule}]"
    if finding.hint:
        line += f"\n  hint: {printable(finding.hint)}"
    return line


# A report shows at most this many findings of one kind (rule and severity) per file: a 1 MiB file
# with 100,000 unknown keys would otherwise make a 50 MB report.
MAX_OF_A_KIND = 50


def capped(findings: Iterable[Finding], limit: int = MAX_OF_A_KIND,
           every_hint: bool = False) -> list[Finding]:
    """One file's findings with at most ``limit`` of each kind; the others of a kind become one
    finding, at the first of them, that says how many were left out. A note's hint said
    already for the file is not said again (a legacy machine type's "unverified" paragraph,
    once per translated type), unless ``every_hint`` (JSON: each finding whole); errors and
    warnings keep theirs, which say how to fix that value."""
    kept: list[Finding] = []
    seen: dict[tuple[Severity, str], int] = {}
    hints: set[str] = set()
    left_out: dict[tuple[Severity, str], tuple[int, Finding]] = {}
    for finding in findings:
        kind = (finding.severity, finding.rule)
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] <= limit:
            if finding.hint and not every_hint:
                if finding.hint in hints and finding.severity == "note":
                    finding = finding._replace(hint=None)
                hints.add(finding.hint or "")
            kept.append(finding)
        else:
            count, first = left_out.get(kind, (0, finding))
            left_out[kind] = (count + 1, first)
    for (severity, rule), (count, first) in left_out.items():
        kept.append(Finding(severity, rule, f"{count:,} more like the {limit} above, left out",
                            (), first.location,
                            f"a report shows at most {limit} findings of a kind per file"))
    return kept
