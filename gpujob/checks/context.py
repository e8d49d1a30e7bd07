"""What a rule sees: the typed job view, and the helpers that turn what it finds into findings
at the place the user wrote. ``Checking`` is what every service's rules share; each service's
context adds its catalog (AI Platform's ``rules.context``, Vertex AI's ``VertexContext``)."""

from __future__ import annotations

from collections.abc import Callable

from gpujob.checks.registry import Rule
from gpujob.config.job import TI, JobView
from gpujob.findings import Finding, JsonPath, Location
from gpujob.suggest import did_you_mean

REGION_CHECKS_OFF = "(a warning: region checks are off)"


class Checking:
    """What the rules of every service see: the job (its typed view), and how a rule adds a
    finding at the place the user wrote. ``refused``: the paths the schema refused; the rules
    stay quiet about those values (and what they hold), so one mistake gives one message.
    ``relax_region``: region rules report warnings (--no-region-check, local runs)."""

    def __init__(self, job: JobView, locate: Callable[..., Location], refused: set[JsonPath],
                 *, relax_region: bool) -> None:
        self.job = job
        self.ti = job.training_input
        self.replicas = job.replicas
        self.refused = refused
        self.relax_region = relax_region
        self.findings: list[Finding] = []
        self.rule: Rule | None = None  # the rule running, whose id and severity emit uses
        self._locate = locate
        self._warned: set[str] = set()

    def broken(self, path: JsonPath) -> bool:
        """The schema refused this value (or what holds it)."""
        refused = self.refused
        return bool(refused) and any(path[:n] in refused for n in range(1, len(path) + 1))

    def region(self) -> str | None:
        """The job's region, unless the schema refused it."""
        region = self.job.region
        return None if region is None or self.broken((TI, "region")) else region

    def misspelt(self, field: str) -> bool:
        """trainingInput holds an unknown key that may be a misspelling of ``field`` (the schema
        reports it with a did-you-mean; saying ``field`` is missing would repeat it). A clear
        misspelling stands in for its key (``gpujob.checks.typos``): this is about the others."""
        return any(did_you_mean(key, [field]) == field
                   for key in self.ti if (TI, key) in self.refused)

    def where(self, path: JsonPath) -> Location:
        """Where the user wrote ``path`` (to name another place in a message)."""
        return self._locate(path)

    # -- findings ------------------------------------------------------------------------------

    def emit(self, path: JsonPath, message: str, hint: str | None = None, *,
             key: bool = False) -> None:
        """A finding of the running rule at ``path`` (its key with ``key=True``), unless the
        schema refused that value already."""
        rule = self.rule
        assert rule is not None, "emit runs inside a rule"
        if self.broken(path):
            return
        severity = rule.severity
        if rule.region and self.relax_region:
            severity = "warning"
            hint = (hint + "; " if hint else "") + REGION_CHECKS_OFF
        self.findings.append(Finding(severity, rule.id, message, path,
                                     self._locate(path, key=key), hint))

    def once(self, token: str, path: JsonPath, message: str, hint: str | None = None) -> None:
        """``emit``, the first time ``token`` comes up in this job (a warning about K80s is
        given once, however many replicas use them)."""
        assert self.rule is not None, "once runs inside a rule"
        token = f"{self.rule.id}:{token}"
        if token not in self._warned:
            self._warned.add(token)
            self.emit(path, message, hint)
