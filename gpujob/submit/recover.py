"""``submit --recover N`` and ``wait JOB --recover N``: follow the job; when it ends FAILED
for a cause that is the infrastructure's (a preemption, a stockout, the project's quota, an
internal error: the service's data says which, ``recovery.Recovery.ended``), or with an exit
code of ``--recover-on-exit-codes``, create it again, at most N times.

- Every attempt is created through the one create that never makes two jobs (``create_once``),
  with a submission label of its own, made of the lineage and the attempt's number, so that
  the look-up after a lost answer finds this attempt's job, never an earlier one's; and with
  the labels that link the attempts (``recovery.LINEAGE_LABEL``, ``ATTEMPT_LABEL``).
- The body is the same (the same ``baseOutputDirectory``: the trainer resumes from its
  checkpoints); a submit with choices (``--region a,b``, ``--strategy spot,standard``) takes
  the next choice in order for each attempt, after the last the first again (wrapping
  around); ``wait --recover`` creates the job where it was. A create refused for room
  (failover's ``Placement.refused_for_room``, cleaned up as failover does) moves on to the
  next choice, each once per attempt; the last one's refusal stops recovery (exit 3).
- Never two live jobs: an attempt is created only once the one before has ended (FAILED), and
  only when no process following the lineage made it already: the lineage's attempts are
  listed (``Recovery.attempts``; a later one is followed instead), and right before the create
  the attempt's own label is looked up (``Recovery.made``; a job found is followed).
- A failure that is the trainer's own (an exit code not listed, no cause of the
  infrastructure's) is not recovered; exit 4.
- ``--max-cost``, a cap on the whole job: what the attempts cost so far (the estimate
  ``describe`` shows; ``wait --recover`` counts the lineage's earlier attempts too) leaves
  what the next attempt may cost; one whose worst case passes it gets a timeout that fits
  (``Recovery.within``, said in its line); when less than a minimum run fits, or the cost
  cannot be told, recovery stops (exit 4).
- Ctrl-C stops following and leaves the running attempt alone (exit 130), with the command
  that resumes following with the attempts left; once an attempt ended, it makes no other.

One line on stderr per attempt: how it ended, where, how long it ran, what it cost.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, JobFailed, RemoteError
from gpujob.numbers import span_in_words
from gpujob.submit.attempts import attempt_dict, attempt_line, money, summed, total
from gpujob.terminal import printable

if TYPE_CHECKING:
    from gpujob.services.base import Commands, JobClient, JobStatus, Request, Service
    from gpujob.services.recovery import Ended, Fitted, Recovery
    from gpujob.submit.failover import Choice, Plan
    from gpujob.submit.settings import SubmitSettings

# attempt N's request, made when it is needed, and where it goes (REGION/STRATEGY)
NextRequest = Callable[[int], "tuple[Request, str]"]
# how long a job that ended FAILED is read again while it has no error message yet: Vertex AI
# sets the error about a minute after the job ends ("Understand the serverless training
# service")
SETTLE_SECONDS = 180.0
EARLIER = "an earlier attempt"  # the outcome of one this process did not follow


@dataclass
class Recovering:
    """One job's attempts, followed one at a time (see the module's docstring)."""

    service: Service
    client: JobClient
    recovery: Recovery
    most: int  # --recover N: attempts after the first, at most
    codes: tuple[int, ...]  # --recover-on-exit-codes
    max_cost: float | None
    poll_interval: float
    stream_logs: bool
    lineage: str
    first: int = 1  # the first attempt's number (wait --recover: the followed job's)
    choices: int = 1  # the choices an attempt may be made at (--region a,b, --strategy …)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    current: dict[str, Any] = field(default_factory=dict)  # the attempt followed last
    interrupted: bool = False  # Ctrl-C once an attempt was made, before it was followed

    @property
    def spent(self) -> float | None:
        return total(self.attempts)

    def left(self, number: int) -> int:
        return self.most - (number - self.first)

    def resume(self, commands: Commands, number: int) -> Commands:
        """The commands of attempt ``number``'s job, its wait one resuming recovery."""
        more = f" --recover-on-exit-codes {','.join(map(str, self.codes))}" if self.codes else ""
        more += f" --max-cost {self.max_cost:.2f}" if self.max_cost is not None else ""
        wait = f"{commands.wait} --recover {self.left(number)}{more}"
        return replace(commands, wait=wait, follow_logs=wait)  # both resume the recovery

    def _commands(self, raw: dict[str, Any], number: int) -> Commands:
        status = self.service.status(raw)
        return self.resume(self.service.commands(status.id, self.client.project,
                                                 status.location), number)

    def follow(self, raw: dict[str, Any], number: int, next_request: NextRequest
               ) -> tuple[int | None, dict[str, Any]]:
        """Follow attempt ``number`` (``raw``) and the attempts after it: the exit code (None:
        the last attempt's end, which ``finish`` turns into one) and the last job."""
        from gpujob.services.base import JobRef
        from gpujob.submit.create import Follow, follow_to_end

        while True:
            self.current = raw
            status = self.service.status(raw)
            commands = self._commands(raw, number)
            try:  # anywhere in it, Ctrl-C says how to resume
                if not status.done:
                    final = follow_to_end(self.service, self.client,
                                          self.client.resolve(JobRef(status.id)), raw,
                                          status.state, commands,
                                          Follow(True, self.stream_logs, self.poll_interval))
                    if final is None:
                        return EXIT_INTERRUPTED, raw
                    raw = self.current = final
                raw = self.current = self._settled(raw)
                if self._judge(raw, number, self.recovery.ended(raw)) is not None:
                    return None, raw
                later = self._later(raw, number)
                if later is not None:  # recovered already (another follower): follow that
                    raw, number = later
                    self._following(raw, number)
                    continue
                made = self._next(number, next_request)
            except KeyboardInterrupt:
                return self._stopped(raw, commands), raw
            if not isinstance(made, dict):
                return made, raw
            raw, number = made, number + 1
            if self.interrupted:
                return EXIT_INTERRUPTED, raw

    def _following(self, raw: dict[str, Any], number: int) -> None:
        CONSOLE.err(f"  attempt {number} was made already: job "
                    f"{printable(self.service.status(raw).id)}; following it")

    def _stopped(self, raw: dict[str, Any], commands: Commands) -> int:
        """After Ctrl-C once an attempt ended, before the next was made: nothing more is
        made; say so, and how to resume. Exit 130."""
        status = self.service.status(raw)
        CONSOLE.err()
        CONSOLE.err(f"Stopped recovering job {printable(status.id)}, which ended "
                    f"{status.state}; no other attempt was made.")
        CONSOLE.err(f"Resume with: {commands.wait}")
        return EXIT_INTERRUPTED

    def _next(self, number: int, next_request: NextRequest) -> dict[str, Any] | int | None:
        """Create attempt ``number + 1``: its job as made (or found made); else None when the
        cap stops recovery, 130 after Ctrl-C. A create refused for room (quota, a stockout)
        moves on to the next choice, as failover does before the first run, each choice once
        at most; the last one's refusal is raised (``RemoteError``, exit 3)."""
        for tried in range(self.choices):
            request, where = next_request(number + 1)
            fitted = self._fit(request, number + 1)
            if fitted is None or fitted.request is None:
                return None
            shorter = "" if fitted.timeout_s is None else (
                f", with a timeout of {span_in_words(fitted.timeout_s)} to keep the attempts "
                f"within --max-cost {money(self.max_cost)}")
            CONSOLE.err(f"  recovering: attempt {number + 1} in {where} "
                        f"({self.left(number + 1)} more left after it){shorter}")
            made = self._create(fitted.request, tried + 1 < self.choices, number + 1)
            if made is None:
                return EXIT_INTERRUPTED
            if isinstance(made, dict):
                return made
            CONSOLE.err(f"note: {where}: {made}; trying the next choice")
        raise AssertionError("the last choice's create returns or raises")

    def _fit(self, request: Request, number: int) -> Fitted | None:
        """``request`` held to what is left of ``--max-cost`` (``Recovery.within``); None
        when nothing fits (said)."""
        from gpujob.services.recovery import Fitted

        if self.max_cost is None:
            return Fitted(request)
        spent, cap = self.spent, money(self.max_cost)
        if spent is None:
            told = f"what the attempts so far cost is not known, so --max-cost {cap} cannot " \
                   "be held"
        elif spent >= self.max_cost:
            told = f"the attempts so far cost {money(spent)}, over --max-cost {cap}"
        else:
            fitted = self.recovery.within(request, self.max_cost - spent)
            if fitted.request is not None:
                return fitted
            told = (f"the attempts so far cost {money(spent)} of --max-cost {cap}, which "
                    f"leaves {money(self.max_cost - spent)}: for attempt {number}, "
                    f"{fitted.why}")
        CONSOLE.err(f"recovery stopped before attempt {number}: {told}")
        return None

    def _settled(self, raw: dict[str, Any]) -> dict[str, Any]:
        """``raw``, read again while it ended FAILED without an error message yet (at most
        ``SETTLE_SECONDS``): why it failed decides whether it is recovered."""
        from gpujob.services.base import JobRef

        status = self.service.status(raw)
        waited = 0.0
        while status.state == "FAILED" and not status.message and waited < SETTLE_SECONDS:
            if not waited:
                CONSOLE.err(f"  job {printable(status.id)} ended FAILED without an error message "
                            "yet (Vertex AI sets it about a minute after the end); reading it "
                            "again")
            self.client.clock.sleep(self.poll_interval)
            waited += self.poll_interval
            raw = self.client.get(self.client.resolve(JobRef(status.id)))
            status = self.service.status(raw)
        return raw

    def _later(self, raw: dict[str, Any], number: int) -> tuple[dict[str, Any], int] | None:
        """The newest attempt of the lineage after ``number``, if one was made already (by
        another follower); the attempts before it that this one did not follow are counted
        (``count_earlier``)."""
        jobs = self.recovery.attempts(raw)
        found = [(lineage.attempt, job) for job in jobs
                 if (lineage := self.recovery.lineage(job)) is not None
                 and lineage.attempt > number]
        if not found:
            return None
        attempt, job = max(found, key=lambda pair: pair[0])
        self.count_earlier(jobs, attempt)
        return job, attempt

    def count_earlier(self, jobs: list[dict[str, Any]], below: int) -> None:
        """Count the lineage's ``jobs`` of an attempt before ``below`` that are not counted
        yet (made before this follower took over, or by another one): what they cost is the
        job's too (``--max-cost``, the sum). One line each."""
        counted = {a["id"] for a in self.attempts}
        for job in jobs:
            lineage = self.recovery.lineage(job)
            number = lineage.attempt if lineage is not None else 1
            status = self.service.status(job)
            if number < below and status.id not in counted:
                self._record(number, status, self.recovery.ended(job), EARLIER)

    def _record(self, number: int, status: JobStatus, ended: Ended, words: str) -> None:
        self.attempts.append({**attempt_dict(number, status, ended), "cause": ended.cause,
                              "exitCode": ended.exit_code, "outcome": words})
        CONSOLE.err(f"{attempt_line(number, status, ended)}: {words}")

    def _judge(self, raw: dict[str, Any], number: int, ended: Ended) -> str | None:
        """Say how attempt ``number`` ended; None when it is to be recovered, else why not."""
        status = self.service.status(raw)
        if status.succeeded:
            self._record(number, status, ended, "done")
            return "succeeded"
        listed = ended.exit_code is not None and ended.exit_code in self.codes
        if not ended.failed:
            why = f"it ended {status.state}, which is not recovered"
        elif ended.cause is None and not listed:
            code = (f"exit status {ended.exit_code}" if ended.exit_code is not None
                    else "no cause of the infrastructure's in its message")
            why = (f"the trainer's own failure ({code}"
                   + (f", not in --recover-on-exit-codes {','.join(map(str, self.codes))})"
                      if self.codes and ended.exit_code is not None else ")")
                   + ": not recovered")
        elif self.left(number) <= 0:
            why = (f"{ended.cause or f'exit status {ended.exit_code}'}; --recover "
                   f"{self.most} used up: not recovered")
        else:
            self._record(number, status, ended, ended.cause or
                         f"exit status {ended.exit_code} (--recover-on-exit-codes)")
            return None
        self._record(number, status, ended, why)
        return why

    def _create(self, request: Request, more: bool, number: int
                ) -> dict[str, Any] | str | None:
        """Create attempt ``number`` (the one before has ended): its job as made, or as
        another follower made it (its label looked up first, ``Recovery.made``); why, when
        refused for room with nothing of it alive and ``more`` choices left; None after
        Ctrl-C during the create (said)."""
        from gpujob.submit.create import announce, create_once, refused_for_room

        found = self.recovery.made(request)
        if found is not None:
            self._following(found, number)
            return found
        try:
            created = create_once(self.client, request, self.service)
        except RemoteError as exc:
            why = refused_for_room(self.service, self.client, exc, request, more)
            if why == EXIT_INTERRUPTED:
                return None
            if isinstance(why, str) and more:
                return why
            CONSOLE.err(f"recovery stopped: the create of attempt {number} failed (below); "
                        "the attempts so far: "
                        + ", ".join(f"{a['id']} ({a['state']})" for a in self.attempts))
            raise
        if created is None:
            return None
        status = self.service.status(created.raw)
        try:
            announce(self.service, status, request, self.client.project, created.recovered)
        except KeyboardInterrupt:  # made: it runs on, and is followed again by the command
            CONSOLE.err()
            CONSOLE.err(f"Stopped following job {printable(status.id)} (attempt {number}); it "
                        "keeps running.")
            CONSOLE.err(f"Resume with: {self._commands(created.raw, number).wait}")
            self.interrupted = True
        return created.raw

    def finish(self, code: int | None, raw: dict[str, Any], output_format: str,
               extra: dict[str, Any]) -> int:
        """The result: the last job's ID (text) or envelope with the attempts (json), and the
        exit code: 0 when the last attempt succeeded, 4 (``JobFailed``) when it did not, 130
        when interrupted."""
        from gpujob.submit import follow as following
        from gpujob.submit import output

        status = self.service.status(raw)
        if len(self.attempts) > 1:
            CONSOLE.err(f"recovery: {summed(self.attempts)}")
        if output_format == "text":
            CONSOLE.line(printable(status.id))
        else:
            CONSOLE.json(output.envelope(self.service, raw, **extra,
                                         recovery=self.summary()))
        if code is not None:
            return code
        try:
            return following.outcome(self.service, raw, self.client.project)
        except JobFailed as exc:
            raise JobFailed(f"{exc.message} (attempt {self.attempts[-1]['attempt']}: "
                            f"{self.attempts[-1]['outcome']})", exc.hint) from exc

    def summary(self) -> dict[str, Any]:
        return {"lineage": self.lineage, "most": self.most, "exitCodes": list(self.codes),
                "maxCost": self.max_cost, "attempts": self.attempts, "spent": self.spent}


def label_first(plan: Plan) -> str:
    """Make every choice's request attempt 1 of one lineage (the first one's submission
    label): the lineage's ID. Each names the regions of every choice, where ``describe``
    looks for the lineage's attempts."""
    recovery = plan.service.recovery(plan.remote.open(), plan.settings.check.catalog_in_use())
    built = [plan.request(choice) for choice in plan.left]  # each choice's region, once known
    regions = [r for c in plan.left if (r := c.as_dict(plan.own)["region"])]
    lineage = ""
    for choice, request in zip(plan.left, built, strict=True):
        made = recovery.attempt(request, lineage or None, 1, regions)
        plan.requests[choice] = made
        found = recovery.lineage(made.body)
        lineage = lineage or (found.id if found is not None else "")
    return lineage


def after_submit(plan: Plan, settings: SubmitSettings, choice: Choice, raw: dict[str, Any],
                 extra: dict[str, Any]) -> int:
    """``submit --recover``: follow the job made at ``choice`` and its attempts, each at the
    next choice in turn (after the last, the first again)."""
    client = plan.remote.open()
    recovery = plan.service.recovery(client, settings.check.catalog_in_use())
    found = recovery.lineage(plan.requests[choice].body)
    lineage = found.id if found is not None else ""
    order = list(plan.left)
    at = order.index(choice)
    turns = itertools.cycle(order[at + 1:] + order[:at + 1])

    def next_request(number: int) -> tuple[Request, str]:
        taken = next(turns)
        return (recovery.attempt(plan.staged(taken), lineage or None, number),
                taken.label(plan.own))

    state = Recovering(plan.service, client, recovery, settings.recover or 0,
                       settings.recover_exit_codes, settings.check.job.max_cost,
                       settings.poll_interval, settings.stream_logs, lineage,
                       choices=len(order))
    code, last = state.follow(raw, 1, next_request)
    return state.finish(code, last, settings.output_format, extra)


def take_over(service: Service, client: JobClient, catalog: Any, raw: dict[str, Any],
              most: int, codes: tuple[int, ...], poll_interval: float, output_format: str,
              max_cost: float | None = None) -> int:
    """``wait JOB --recover N``: follow ``raw`` (running or ended) and create it again where
    the attempt followed last was, as a submit's attempts are; the lineage's attempts before
    ``raw`` are counted (``--max-cost``, the sum)."""
    recovery = service.recovery(client, catalog)
    found = recovery.lineage(recovery.again(raw).body)  # its own, else its label's or ID's
    lineage, first = (found.id, found.attempt) if found is not None else ("", 1)

    def next_request(number: int) -> tuple[Request, str]:
        request = recovery.attempt(recovery.again(state.current), lineage, number)
        return request, recovery.ended(state.current).where

    state = Recovering(service, client, recovery, most, codes, max_cost, poll_interval, False,
                       lineage, first=first)
    if first > 1:
        state.count_earlier(recovery.attempts(raw), first)
    code, last = state.follow(raw, first, next_request)
    return state.finish(code, last, output_format, {})
