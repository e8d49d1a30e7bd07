"""A Vertex AI submit over ordered choices of region and strategy, with one job at most.

``--region us-central1,us-east4`` and ``--strategy spot,standard`` make the choices: each region
in order, and in each the strategies in order. gpujob passes over a choice that fails the
offline checks or the quota preflight (``gpujob.preflight``), then creates the job in the first
one left; it moves on when Vertex AI refuses the create for quota or capacity, or (with
``--wait`` or ``--stream-logs``, which watch the job) when the job ends FAILED for capacity
before it ever ran. Before moving on it makes sure nothing of the refused choice is alive: the
jobs carrying that create's submission label in its region are looked up and cancelled. It says
which choice it took and why it passed over the others (stderr; ``failover`` in the JSON).

The trainer's package is staged once, in the staging bucket every choice's job reads it from (a
Cloud Storage bucket is readable from every region; a multi-region bucket keeps the reads near).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import InvalidConfig, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from gpujob.backends.base import Backend, JobClient, Request
    from gpujob.gcp.session import Session
    from gpujob.preflight import Preflight, Verdict
    from gpujob.submit_packages import Prepared
    from gpujob.submit_settings import SubmitSettings

    PrepareJob = Callable[..., Prepared]  # gpujob.submit.prepare_job

_TI = "trainingInput"


@dataclass(frozen=True)
class Choice:
    """Where and how to run: a region and a strategy (None: the job's own, which ``own``
    gives once the request is built)."""

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


def choices(settings: SubmitSettings) -> list[Choice]:
    regions = settings.regions or (None,)
    strategies = settings.strategies or (settings.check.strategy,)
    return [Choice(region, strategy) for region in regions for strategy in strategies]


def applies(settings: SubmitSettings) -> bool:
    """Whether the submit goes through here: Vertex AI, sent, with a quota preflight or more
    than one choice."""
    return (settings.service == "vertex" and not (settings.dry_run or settings.local)
            and (settings.preflight or len(choices(settings)) > 1))


def settings_for(settings: SubmitSettings, choice: Choice) -> SubmitSettings:
    """``settings`` with the choice's region (as --region sets it) and strategy."""
    from gpujob.config.overrides import Override, flag_origin

    overrides = list(settings.overrides)
    if choice.region is not None:
        overrides = [o for o in overrides if o.path != (_TI, "region")]
        overrides.append(Override((_TI, "region"), choice.region, flag_origin("--region")))
    check = settings.check._replace(strategy=choice.strategy) if choice.strategy else \
        settings.check
    return replace(settings, overrides=overrides, check=check)


def offline_errors(settings: SubmitSettings) -> list[str]:
    """The errors the checks find in the job of ``settings`` (nothing is reported: the choice
    that is taken is checked again, and reported, as every submit is). The packages to be
    built are not in the file yet: what they would change is the same for every choice."""
    from gpujob.check import check_document, check_native
    from gpujob.config.load import load_file
    from gpujob.config.merge import apply
    from gpujob.vertex_native.shapes import kind

    loaded = load_file(settings.config)
    if loaded.document is None:
        return []  # the taken choice says why
    if kind(loaded.document.data) is not None:
        from gpujob import vertex_native
        from gpujob.vertex_native.flags import apply_flags

        doc, _ = vertex_native.read(loaded.document)
        job = apply_flags(doc, settings.overrides, settings.user_args, settings.display_name,
                          executor_image_uri=settings.check.executor_image_uri,
                          strategy=settings.check.strategy)
        findings = check_native(job.doc, settings.check_options(), region=job.region,
                                region_origin=job.region_origin, name=job.name)
    else:
        findings = check_document(apply(loaded.document, settings.overrides),
                                  settings.check_options())
    return [f.message for f in findings if f.is_error]


class Failover:
    """One submit over its choices (see the module's docstring)."""

    def __init__(self, settings: SubmitSettings, backend: Backend) -> None:
        self.settings = settings
        self.backend = backend
        self.choices = choices(settings)
        self.passed: list[Passed] = []
        self.left: list[Choice] = []
        self.remote: Opened | None = None
        self.preflight: Preflight | None = None
        self.own = Choice(None, None)  # the job's own region and strategy, once known
        self.warned = False

    # -- before anything is built or uploaded ---------------------------------------------------

    def offline(self) -> SubmitSettings:
        """The settings of the first choice the checks accept (every choice is checked when
        there are several): those they refuse for the choice's own sake are passed over; an
        error of every choice is the config's, which the submit reports (exit 1)."""
        if len(self.choices) == 1:
            self.left = list(self.choices)
            return settings_for(self.settings, self.choices[0])
        errors = {choice: offline_errors(settings_for(self.settings, choice))
                  for choice in self.choices}
        # an error every choice has is the config's, not the choice's: the submit reports it
        common = set.intersection(*(set(found) for found in errors.values()))
        for choice in self.choices:
            own = [error for error in errors[choice] if error not in common]
            if own:
                self.passed.append(Passed(choice, f"the checks refuse it: {own[0]}"))
            else:
                self.left.append(choice)
        return settings_for(self.settings, self.left[0])

    def check_quota(self, doc_data: dict[str, Any], native_region: str | None) -> None:
        """The quota preflight of every choice left: those short are passed over; none left,
        ``InvalidConfig`` (exit 1) with the numbers, the metric and where to ask for more."""
        if not self.settings.preflight:
            return
        keep: list[Choice] = []
        last: Verdict | None = None
        for choice in self.left:
            request = self.request_for(doc_data, choice, native_region)
            verdict = self._preflight().check(request.body, region_of(request.url))
            if verdict.unknown is not None:
                self._warn(verdict.unknown)
            if verdict.short:
                last = verdict
                self.passed.append(Passed(
                    choice, "the project's quota there is short: "
                    + "; ".join(s.line() for s in verdict.shortfalls),
                    [s.as_dict() for s in verdict.shortfalls]))
            else:
                keep.append(choice)
        self.left = keep
        if not keep and last is not None:
            self._refuse(last)

    def _refuse(self, verdict: Verdict) -> None:
        from gpujob.preflight import request_hint

        project = self._project()
        for passed in self.passed[:-1]:
            CONSOLE.err(f"note: passed over {passed.choice.label(self.own)}: "
                        f"{passed.reason}")
        first = verdict.shortfalls[0]
        for shortfall in verdict.shortfalls[1:]:
            CONSOLE.err(f"quota: {shortfall.line()}")
        self._json_refusal()
        raise InvalidConfig(f"not enough quota: {first.line()}; nothing was built, uploaded or "
                            "submitted", request_hint(first, project))

    def _json_refusal(self) -> None:
        if self.settings.output_format == "json":
            CONSOLE.json({"version": 1, "service": "vertex", "job": None,
                          "failover": self.summary(None)})

    def _warn(self, why: str) -> None:
        if not self.warned:
            CONSOLE.err(f"warning: the quota preflight could not read the project's quota or "
                        f"jobs ({why}); submitting without it (--no-preflight skips it)")
            self.warned = True

    def _preflight(self) -> Preflight:
        if self.preflight is None:
            from gpujob.gcp.aiplatform import VertexClient
            from gpujob.gcp.serviceusage import ServiceUsageClient
            from gpujob.preflight import Preflight

            assert self.remote is not None
            self.remote.open()
            session = self.remote.session
            assert session is not None
            self.preflight = Preflight(ServiceUsageClient(session), VertexClient(session))
        return self.preflight

    def _project(self) -> str:
        assert self.remote is not None
        return self.remote.open().project

    def request_for(self, data: dict[str, Any], choice: Choice, native_region: str | None
                 ) -> Request:
        """The request creating ``data`` (the checked or prepared job) for ``choice``."""
        from gpujob.config.document import Document
        from gpujob.vertex_native.shapes import kind

        assert self.remote is not None
        options = self.remote.options
        if kind(data) is not None:  # its strategy is its own (--strategy is refused)
            options = replace(options, region=choice.region or native_region)
        else:
            ti = dict(data.get(_TI) or {})
            if choice.region:
                ti["region"] = choice.region
            data = {**data, _TI: ti}
            options = replace(options, strategy=choice.strategy or options.strategy,
                              document=Document("<job>", data))
        request = self.backend.request(data, self.remote.gcp, self._project(), options)
        self._note_own(choice, request)
        return request

    def _note_own(self, choice: Choice, request: Request) -> None:
        """Learn the job's own region and strategy from a request of a choice naming none."""
        from gpujob.preflight import strategy_of

        self.own = Choice(self.own.region if choice.region else region_of(request.url),
                          self.own.strategy if choice.strategy else strategy_of(request.body))

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
                "passedOver": [p.as_dict(self.own) for p in self.passed_before(taken)]}


def region_of(url: str) -> str:
    return url.split("/locations/", 1)[1].split("/", 1)[0]


class Opened:
    """The session and job client of a submit, opened when first needed (as ``submit``'s own):
    access is proven before anything is built or uploaded."""

    def __init__(self, settings: SubmitSettings, backend: Backend) -> None:
        self.gcp = replace(settings.gcp, project=settings.project)
        self.options = settings.job_options()
        self.backend = backend
        self.session: Session | None = None
        self.client: JobClient | None = None

    def open(self) -> JobClient:
        if self.client is None:
            from gpujob.gcp.session import Session

            self.session = Session(self.gcp)
            self.client = self.backend.client(self.gcp, self.session)
        return self.client

    def check_access(self, doc: Any, region: str | None) -> None:
        client = self.open()
        client.check_access(self.backend.request(
            doc.data, self.gcp, client.project, replace(self.options, region=region)))


class _Checked(Exception):
    """Stops ``prepare_job`` before the build: ``gpujob preflight`` builds nothing."""


def check_only(settings: SubmitSettings, workdir: Path, prepare_job: PrepareJob) -> int:
    """``gpujob preflight``: the checks and the quota preflight of every choice; the choice
    submit would take (stdout), or exit 1 when none would do. ``prepare_job``: submit's."""
    from gpujob import backends

    backend = backends.get("vertex")
    plan = Failover(replace(settings, preflight=True), backend)
    first = plan.offline()
    plan.remote = Opened(first, backend)

    def before_build(doc: Any, region: str | None) -> None:
        plan.check_quota(doc.data, region)
        raise _Checked

    try:
        prepared = prepare_job(first, workdir, before_build)
        plan.check_quota(prepared.doc.data, prepared.region)
    except _Checked:
        pass
    taken = plan.left[0]
    why = plan.why(taken)
    if settings.output_format == "json":
        CONSOLE.json({"version": 1, "service": "vertex", "failover": plan.summary(taken, why),
                      "quotaChecked": not plan.warned})
    else:
        CONSOLE.line(taken.label(plan.own))
    for passed in plan.passed_before(taken):
        CONSOLE.err(f"  passed over {passed.choice.label(plan.own)}: {passed.reason}")
    CONSOLE.err(f"Preflight: submit would take {taken.label(plan.own)} ({why}); nothing was "
                "sent")
    return 0
