"""A submit over ordered choices of region and strategy, with one job at most.

``--region us-central1,us-east4`` and ``--strategy spot,standard`` make the choices: each region
in order, and in each the strategies in order (for a service with ``Capability.PLACEMENT``:
Vertex AI).
gpujob passes over a choice that fails the offline checks or the quota preflight, then creates
the job in the first one left; it moves on when the service refuses the create for quota or
capacity, or (with ``--wait`` or ``--stream-logs``, which watch the job) when the job ends
FAILED for capacity before it ever ran. After every refusal for room, the last choice's too,
it makes sure nothing of the refused create is alive (``create.clean_up``), and stops where it
cannot. It says which choice it took and why it passed over the others (stderr;
``failover`` in the JSON). What is quota, capacity or a stockout is the service's to say
(``placement.Placement``); the order and the checks are here, the creates in ``send``.

Every submit is a ``Plan``: a plain one (any service, ``--no-preflight``, one region and
strategy) has one choice. Each choice is its own job: it is checked, and its request built,
once; the plan keeps them and the built packages, so that it can create the job again at any
choice after the first job ended (``Plan.create``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gpujob.config.job import TI
from gpujob.console import CONSOLE
from gpujob.errors import InvalidConfig, UsageError
from gpujob.services.capabilities import Capability

if TYPE_CHECKING:
    from gpujob.services.base import Created, Request, Service
    from gpujob.services.placement import Placement, Room
    from gpujob.submit.packages import Prepared
    from gpujob.submit.prepare import JobCheck, Remote
    from gpujob.submit.settings import SubmitSettings


@dataclass(frozen=True)
class Choice:
    """Where and how to run: a region and a strategy (None: the job's own, which ``own``
    gives once a request is built)."""

    region: str | None
    strategy: str | None

    def label(self, own: Choice | None = None) -> str:
        found = self.as_dict(own)
        return f"{found['region'] or 'the config region'}/{found['strategy']}"

    def as_dict(self, own: Choice | None = None) -> dict[str, Any]:
        own = own or Choice(None, None)
        return {"region": self.region or own.region,
                "strategy": self.strategy or own.strategy or "STANDARD"}


@dataclass
class Passed:
    """A choice passed over, and why; ``quota``: the preflight's shortfalls."""

    choice: Choice
    reason: str
    quota: list[dict[str, Any]] | None = None

    def as_dict(self, own: Choice | None = None) -> dict[str, Any]:
        found = {**self.choice.as_dict(own), "reason": self.reason}
        if self.quota:
            found["quota"] = self.quota
        return found


def split(text: str | None, flag: str) -> tuple[str, ...]:
    """A comma-separated list of ``flag`` (empty entries refused)."""
    if not text:
        return ()
    items = tuple(item.strip() for item in text.split(","))
    if any(not item for item in items):
        raise UsageError(f"{flag} '{text}' has an empty entry",
                         f"give {flag} A,B,C: the choices in order, comma-separated")
    twice = sorted({item for item in items if items.count(item) > 1})
    if twice:
        raise UsageError(f"{flag} '{text}' names {', '.join(twice)} twice",
                         "name each choice once, in the order to try them")
    return items


AUTO = ("auto",)  # --region auto: every region that offers the job's machines


def choices(settings: SubmitSettings) -> list[Choice]:
    regions = (None,) if settings.regions == AUTO else settings.regions or (None,)
    strategies = settings.strategies or (settings.check.job.strategy,)
    return [Choice(region, strategy) for region in regions for strategy in strategies]


def settings_for(settings: SubmitSettings, choice: Choice) -> SubmitSettings:
    """``settings`` with the choice's region (as --region sets it) and strategy."""
    from gpujob.config.overrides import Override, flag_origin

    overrides = list(settings.overrides)
    if choice.region is not None:
        overrides = [o for o in overrides if o.path != (TI, "region")]
        overrides.append(Override((TI, "region"), choice.region, flag_origin("--region")))
    check = settings.check._replace(job=settings.check.job._replace(
        strategy=choice.strategy)) if choice.strategy else settings.check
    return replace(settings, overrides=overrides, check=check)


class Plan:
    """One submit over its choices (see the module's docstring): each choice's check and
    request, made once, the packages built for them (``built``), and the choices passed
    over."""

    def __init__(self, settings: SubmitSettings, service: Service, remote: Remote) -> None:
        self.settings = settings
        self.service = service
        self.remote = remote
        self.choices = choices(settings)
        self.placed = service.supports(Capability.PLACEMENT)  # quota, refusals for room
        # whether the submit says what it chose and why (the JSON's ``failover``): one with a
        # quota preflight or a choice to make
        self.says_choice = self.placed and (settings.preflight or len(self.choices) > 1)
        self.built: Prepared | None = None  # the packages every choice's job reads
        self.passed: list[Passed] = []
        self.left: list[Choice] = []
        self.checks: dict[Choice, JobCheck] = {}
        self.requests: dict[Choice, Request] = {}  # before the packages are staged
        self.rooms: dict[Choice, Room] = {}  # the quota preflight's verdicts
        self.own = Choice(None, None)  # the job's own region and strategy, once known
        self.warned = False
        self.ordered: dict[str, Any] | None = None  # --order's order and why, once made
        self.loaded: Any = None  # the config as read (offline), for --region auto's checks
        self.job_id: str | None = None
        self._placement: Placement | None = None

    # -- before anything is built or uploaded ---------------------------------------------------

    def offline(self) -> SubmitSettings:
        """Check every choice (nothing reported) and return the settings of the first the
        checks accept: those they refuse for the choice's own sake are passed over; an error
        of every choice is the config's, which the submit reports (exit 1) as usual."""
        from gpujob.config.merge import generate_job_id
        from gpujob.submit.prepare import check_config

        job_id = self.job_id = generate_job_id(self.settings.name)  # one, whatever the choice
        loaded = self.loaded = self.settings.load()  # once: standard input is read once
        for index, choice in enumerate(self.choices):  # the command line's notes said once
            self.checks[choice] = check_config(settings_for(self.settings, choice),
                                               self.service, job_id, notes=index == 0,
                                               loaded=loaded)
        errors = {choice: [f.message for f in self.checks[choice].errors]
                  for choice in self.choices}
        # an error every choice has is the config's, not the choice's: the submit reports it
        common = set.intersection(*(set(found) for found in errors.values()))
        for choice in self.choices:
            own = [error for error in errors[choice] if error not in common]
            if own:
                self.passed.append(Passed(choice, f"the checks refuse it: {own[0]}"))
            else:
                self.left.append(choice)
        if not self.left:  # each refused for its own sake: the first one's errors are reported
            first = self._checked_region(self.checks[self.choices[0]])
            for passed in self.passed[1:]:
                CONSOLE.err(f"note: passed over {passed.choice.label(first)}: {passed.reason}")
            self.left = [self.choices[0]]
        return settings_for(self.settings, self.left[0])

    def reorder(self) -> SubmitSettings:
        """``--order obtainable|cheapest``: the choices left sorted by the service's ranking
        (unknown last, ties as given), the order and why said on stderr before anything is
        created; a ranking that cannot be had leaves the order as given, with its warning.
        Returns the settings of the new first choice."""
        placement = self.placement()
        if placement is None:  # a service without choices (gke, ai-platform)
            return settings_for(self.settings, self.left[0])
        if self.settings.regions == AUTO:
            self._auto(placement)
        by = self.settings.order
        if by == "as-given" or len(self.left) < 2:
            return settings_for(self.settings, self.left[0])
        ranked = placement.rank([self.request(c) for c in self.left], by)
        self.requests.clear()  # made again as the submit makes them (the first one its own)
        self.own = Choice(None, None)
        if ranked.warning is not None:
            CONSOLE.err(f"{ranked.warning}; the order is as given")
            return settings_for(self.settings, self.left[0])
        sign = -1.0 if by == "obtainable" else 1.0
        keyed = sorted(zip(self.left, ranked.keys, ranked.reasons, strict=True),
                       key=lambda t: (t[1] is None, sign * (t[1] or 0.0)))
        self.left = [c for c, _, _ in keyed]
        self.choices = [*self.left, *(c for c in self.choices if c not in self.left)]
        self.ordered = {"by": by, "choices": [{**c.as_dict(), "why": why}
                                              for c, _, why in keyed]}
        CONSOLE.err(f"order (--order {by}): " + ", ".join(
            f"{c.label()} ({why})" for c, _, why in keyed))
        return settings_for(self.settings, self.left[0])

    def _auto(self, placement: Placement) -> None:
        """``--region auto``: the choices become every region the service offers the first
        choice's machines in (said on stderr), each checked as ``offline`` checks them."""
        from gpujob.submit.prepare import check_config

        first = self.left[0]
        regions = placement.regions(self.request(first))
        self.requests.clear()
        self.own = Choice(None, None)
        if not regions:
            CONSOLE.err("note: --region auto: the catalog places the job's machines in no "
                        "region; the config's region is the only choice")
            return
        strategies = self.settings.strategies or (self.settings.check.job.strategy,)
        self.choices = [Choice(r, s) for r in regions for s in strategies]
        self.left = []
        for choice in self.choices:
            self.checks[choice] = check_config(settings_for(self.settings, choice),
                                               self.service, self.job_id, notes=False,
                                               loaded=self.loaded)
            found = [f.message for f in self.checks[choice].errors]
            if found:
                self.passed.append(Passed(choice, f"the checks refuse it: {found[0]}"))
            else:
                self.left.append(choice)
        if not self.left:
            self.left = [first]
        CONSOLE.err(f"--region auto: {len(regions)} regions offer the job's machines: "
                    f"{', '.join(regions)}")

    @staticmethod
    def _checked_region(checked: JobCheck) -> Choice:
        """The region the checked config names (with the command line applied: --region,
        GPUJOB_REGION), before any request is built; None where it cannot be read there."""
        data = checked.doc.data if checked.doc is not None else {}
        section = data.get(TI)
        region = section.get("region") if isinstance(section, dict) else None
        return Choice(region if isinstance(region, str) and region else None, None)

    def check(self) -> tuple[SubmitSettings, JobCheck]:
        """The choices checked (``offline``) and ordered (``reorder``), the first one left's
        findings reported (any error: ``InvalidConfig``, exit 1): its settings and its
        check."""
        from gpujob.submit.prepare import report_or_fail

        first = self.offline()
        checked = self.checks[self.left[0]]
        if checked.errors:  # the config's own: said before --order or --region auto reads Google
            report_or_fail(first, checked.findings)
        first = self.reorder()  # --order: the order and why, before anything is built or sent
        checked = self.checks[self.left[0]]
        report_or_fail(first, checked.findings)
        return first, checked

    def placement(self) -> Placement | None:
        """The service's word on quota and room (None: a service without placement)."""
        if self._placement is None and self.placed:
            self._placement = self.service.placement(self.remote.open())
        return self._placement

    def request(self, choice: Choice, built: Request | None = None) -> Request:
        """The request of ``choice``'s checked job (``built``: the one ``send.run`` made for
        it), made once; the job's own region and strategy are learnt from it."""
        if choice not in self.requests:
            if built is None:
                from gpujob.submit.prepare import make_request

                built = make_request(settings_for(self.settings, choice), self.service,
                                     self.checks[choice].job, self.remote)
            self.requests[choice] = built
            placement = self.placement()
            if placement is not None:
                region, strategy = placement.where(built)
                self.own = Choice(self.own.region if choice.region else region,
                                  self.own.strategy if choice.strategy else strategy)
        return self.requests[choice]

    def staged(self, choice: Choice) -> Request:
        """``choice``'s request with the packages the plan built at their staged addresses."""
        request = self.request(choice)
        return request.staged(self.built.uris) if self.built is not None else request

    def create(self, choice: Choice) -> Created | None:
        """Create ``choice``'s job (``staged``): the created job, or None after Ctrl-C (said
        on stderr). Every submit creates here, whatever its service and choices; any choice,
        any number of times: a job that ended can be made again from the same plan."""
        from gpujob.submit.create import create_once

        return create_once(self.remote.open(), self.staged(choice), self.service)

    def check_quota(self) -> None:
        """The quota preflight of every choice left: those short are passed over; none left,
        ``InvalidConfig`` (exit 1) with the numbers, the metric and where to ask for more."""
        placement = self.placement()
        if not self.settings.preflight or placement is None:
            return
        from gpujob import interrupts

        keep: list[Choice] = []
        shorts: list[Room] = []
        for choice in self.left:
            with interrupts.as_ctrl_c():  # SIGTERM, SIGHUP: "interrupted" (130), as Ctrl-C
                room = self.rooms[choice] = placement.room(self.request(choice))
            if room.unknown is not None:
                self._warn(room.unknown)
            if room.short:
                shorts.append(room)
                self.passed.append(Passed(
                    choice, "the project's quota there is short: " + "; ".join(room.lines),
                    list(room.details)))
            else:
                keep.append(choice)
        self.left = keep
        if not keep and shorts:
            self._refuse(shorts)

    def _refuse(self, shorts: list[Room]) -> None:
        """No choice left, each short of quota (``shorts``, in order): every shortfall is
        said, the first in the error (one choice) or all of them (several)."""
        for passed in self.passed[:-len(shorts)]:  # those the checks refused
            CONSOLE.err(f"note: passed over {passed.choice.label(self.own)}: {passed.reason}")
        if len(shorts) == 1:
            for line in shorts[0].lines[1:]:
                CONSOLE.err(f"quota: {line}")
            what = shorts[0].lines[0]
        else:
            what = (f"none of the {len(shorts)} choices has enough: "
                    + "; ".join(line for room in shorts for line in room.lines))
        if self.settings.output_format == "json":
            CONSOLE.json({"version": 1, "service": self.service.name, "job": None,
                          "failover": self.summary(None)})
        hint = "; or ".join(dict.fromkeys(room.hint for room in shorts if room.hint))
        raise InvalidConfig(f"not enough quota: {what}; nothing was built, uploaded or "
                            "submitted", hint)

    def _warn(self, why: str) -> None:
        if not self.warned:
            CONSOLE.err(f"warning: the quota preflight could not read the project's quota or "
                        f"jobs ({why}); submitting without it (--no-preflight skips it)")
            self.warned = True

    # -- what was chosen, and why ---------------------------------------------------------------

    def passed_before(self, taken: Choice | None) -> list[Passed]:
        """The choices passed over that come before ``taken`` in order (None: all): those
        after it were not needed, whatever their preflight said."""
        if taken is None:
            return list(self.passed)
        cut = self.choices.index(taken)
        return sorted((p for p in self.passed if self.choices.index(p.choice) < cut),
                      key=lambda p: self.choices.index(p.choice))

    def why(self, taken: Choice) -> str:
        """Why ``taken`` was taken, in words."""
        if len(self.choices) == 1:
            return "the only choice"
        if self.choices.index(taken) == 0:
            return "the first choice"
        count = len(self.passed_before(taken))
        return (f"choice {self.choices.index(taken) + 1} of {len(self.choices)}, the "
                f"{'one' if count == 1 else str(count)} before it passed over")

    def summary(self, taken: Choice | None, why: str = "") -> dict[str, Any]:
        return {"chosen": taken.as_dict(self.own) if taken else None, "why": why,
                "passedOver": [p.as_dict(self.own) for p in self.passed_before(taken)],
                **({"order": self.ordered} if self.ordered else {})}


def check_only(settings: SubmitSettings, service: Service, remote: Remote,
               availability: bool = False) -> int:
    """``gpujob preflight``: the checks and the quota preflight of every choice; the choice
    submit would take (stdout), or exit 1 when none would do. Nothing is built or sent."""
    from gpujob.submit.prepare import locate

    plan = Plan(replace(settings, preflight=True), service, remote)
    first, checked = plan.check()
    locate(checked, first)  # where submit would stage the packages (exit 2)
    plan.check_quota()
    taken = plan.left[0]
    why = plan.why(taken)
    room = plan.rooms.get(taken)
    held = room.held if room is not None else ()
    if settings.output_format == "json":
        summary = plan.summary(taken, why)
        if room is not None and room.held_details:  # the preflight's numbers for the choice
            summary["chosen"]["quota"] = list(room.held_details)
        CONSOLE.json({"version": 1, "service": service.name, "failover": summary,
                      "quotaChecked": not plan.warned})
    else:
        CONSOLE.line(taken.label(plan.own))
    for passed in plan.passed_before(taken):
        CONSOLE.err(f"  passed over {passed.choice.label(plan.own)}: {passed.reason}")
    CONSOLE.err(f"Preflight: submit would take {taken.label(plan.own)} ({why}); nothing was "
                "sent")
    for line in held:
        CONSOLE.err(f"  quota: {line}")
    placement = plan.placement()
    if availability and placement is not None:  # --availability: Compute Engine's advice
        for line in placement.advice([plan.requests[c] for c in plan.left]):
            CONSOLE.err(line)
    return 0
