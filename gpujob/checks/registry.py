"""The registry of rules: each rule is a small function with its id, the services it applies
to, its severity, whether it is a region rule, and a one-line doc. ``gpujob rules`` lists them.

Checks run in the order they are registered (``rules.check``). A check either looks at the
whole job (``check(ctx)``) or at one replica (``check(ctx, replica)``, registered with a
``pass_`` name): consecutive replica checks of one pass run replica by replica, so that the
findings about each replica come together.
"""

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from gpujob.findings import Severity

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

Check = Callable[..., None]  # (Context) or (Context, Replica)


class Rule(NamedTuple):
    id: str  # gpu.count: the family, then what it checks
    services: tuple[str, ...]
    severity: Severity
    region: bool  # a region/zone rule: a warning with --no-region-check and for local runs
    submit: bool  # checked only for a job about to be sent to the service
    doc: str

    def applies(self, service: str, submit: bool) -> bool:
        return service in self.services and (submit or not self.submit)

    def as_dict(self) -> dict[str, Any]:
        """The stable shape of ``gpujob rules --format json`` (``version`` 1)."""
        return {"id": self.id, "severity": self.severity, "services": list(self.services),
                "region": self.region, "submit": self.submit, "doc": self.doc}


# one check of a rule, and where it runs: over the job (None), or in the named pass over the
# replicas (a plain tuple: ``gpujob validate`` imports this on every run)
Step = tuple[Rule, Check, "str | None"]

RULES: dict[str, Rule] = {}
STEPS: list[Step] = []


def rule(rule_id: str, doc: str, *, services: tuple[str, ...],
         severity: Severity = "error", region: bool = False, submit: bool = False,
         pass_: str | None = None) -> Callable[[Check], Check]:
    """Register the decorated function as the check of rule ``rule_id`` for ``services`` (each
    service registers its own rules, a check several share under ids of its own)."""
    if rule_id in RULES:
        raise ValueError(f"rule {rule_id} is registered twice")
    RULES[rule_id] = Rule(rule_id, services, severity, region, submit, doc)
    return also(rule_id, pass_=pass_)


def listed(rule_id: str, doc: str, *, services: tuple[str, ...], severity: Severity = "error",
           region: bool = False, submit: bool = False) -> None:
    """Register rule ``rule_id`` for ``gpujob rules`` only: its checks run outside the registry
    (a native Vertex config's, in ``gpujob.services.vertex.native``)."""
    if rule_id in RULES:
        raise ValueError(f"rule {rule_id} is registered twice")
    RULES[rule_id] = Rule(rule_id, services, severity, region, submit, doc)


def also(rule_id: str, *, pass_: str | None = None) -> Callable[[Check], Check]:
    """Register the decorated function as a further check of rule ``rule_id``, run where it
    stands (a GPU a replica attaches is checked with the replica; one its machine type or
    the scale tier brings, with the region)."""
    def register(check: Check) -> Check:
        STEPS.append((RULES[rule_id], check, pass_))
        return check

    return register


ORDER: dict[str, int] = {}  # rule module -> its place, as the services arrange them


def arrange(*modules: ModuleType) -> None:
    """Order the checks by their module in ``modules`` (each module's in the order they are
    defined; modules arranged already keep their places), and the rules as their first checks;
    the rules only ``listed`` come last."""
    for module in modules:
        ORDER.setdefault(module.__name__, len(ORDER))
    # a module another service registered without arranging keeps its place after those that did
    for _, check, _ in STEPS:
        ORDER.setdefault(check.__module__, len(ORDER))
    STEPS.sort(key=lambda step: ORDER[step[1].__module__])
    ordered: dict[str, Rule] = {}
    for rule_, _, _ in STEPS:
        ordered.setdefault(rule_.id, rule_)
    ordered.update({rule_id: r for rule_id, r in RULES.items() if rule_id not in ordered})
    RULES.clear()
    RULES.update(ordered)
