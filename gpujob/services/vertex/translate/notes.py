"""What a translation tells the user, each at the value it is about, and where each value of
the result came from (for ``convert``'s comments)."""

from __future__ import annotations

from typing import Any

from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, Location, Severity

RULE = "vertex-translate"

# The rules a translation's findings name (``RULE.name``): for each, the most severe finding it
# gives and what it reports. ``gpujob.services.vertex.rules`` registers one rule per name, which
# puts the
# findings in the report; ``Notes`` takes no other name, so none can go unreported.
RULES: dict[str, tuple[Severity, str]] = {
    "scale-tier": ("error", "A scale tier becomes its worker pools (a note says which); one "
                   "with no Vertex AI equivalent (PREMIUM_1) is refused."),
    "pool": ("error", "The cluster translates into worker pools: CUSTOM needs masterType, and a "
             "replica count its machine type."),
    "machine-type": ("note", "A legacy machine type becomes a Compute Engine machine type with "
                     "its GPUs (which, and why a GPU was replaced; a warning when there are "
                     "fewer)."),
    "accelerator": ("error", "GPUs and TPUs Vertex AI no longer has (K80, TPU Pods) are refused "
                    "with the type to use; one past its end of support draws a warning."),
    "tpu-cluster": ("error", "A master plus Cloud TPU workers cannot run on Vertex AI: a TPU "
                    "machine is a job's single pool."),
    "runtime-version": ("error", "runtimeVersion becomes the same-numbered prebuilt image while "
                        "that image is available, else --executor-image-uri or a newer "
                        "runtimeVersion is needed."),
    "executor-image": ("error", "--executor-image-uri: a prebuilt image runs the package, any "
                       "other image installs it and runs the module."),
    "package": ("error", "A job without a container image runs a Python package: it needs "
                "packageUris and pythonModule."),
    "job-dir": ("note", "jobDir becomes baseOutputDirectory, and --job-dir is added to the "
                "trainer's arguments (Vertex AI does not pass it)."),
    "scheduling": ("error", "maxWaitTime needs the FLEX_START scheduling strategy "
                   "(--strategy FLEX_START; it then becomes maxWaitDuration)."),
    "hyperparameters": ("error", "hyperparameters become a HyperparameterTuningJob; "
                        "resumePreviousJobId cannot be translated."),
    "dropped": ("warning", "A value Vertex AI has no field for is not sent (a warning at it)."),
}


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
        if rule not in RULES:  # a finding no rule adopts would never be reported
            raise ValueError(f"{RULE}.{rule} is not a translation rule (notes.RULES)")
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
