"""``submit --recover N`` and ``wait JOB --recover N``: follow the job; when it ends FAILED
for a cause that is the infrastructure's (a preemption, a stockout, the project's quota, an
internal error: the service's data says which, ``recovery.Recovery.ended``), or with an exit
code of ``--recover-on-exit-codes``, create it again, at most N times.

- Every attempt is created through the one create that never makes two jobs (``Plan.create``
  for a submit; the same ``create_once`` for ``wait``), with a submission label of its own, so
  that the look-up after a lost answer finds this attempt's job, never an earlier one's; and
  with the labels that link the attempts (``recovery.LINEAGE_LABEL``, ``ATTEMPT_LABEL``).
- The body is the same (the same ``baseOutputDirectory``: the trainer resumes from its
  checkpoints); a submit with choices (``--region a,b``, ``--strategy spot,standard``) takes
  the next choice in order for each attempt, after the last the first again (wrapping
  around); ``wait --recover`` creates the job where it was. A create refused for room
  (failover's ``Placement.refused_for_room``, cleaned up as failover does) moves on to the
  next choice, each once per attempt; the last one's refusal stops recovery (exit 3).
- Never two live jobs: an attempt is created only once the one before has ended (FAILED).
- A failure that is the trainer's own (an exit code not listed, no cause of the
  infrastructure's) is not recovered; exit 4.
- ``--max-cost``: before an attempt, what the attempts cost so far (the estimate ``describe``
  shows) and the next one's worst case are added; over the cap, recovery stops (exit 4).
- Ctrl-C stops following and leaves the running attempt alone (exit 130), with the command
  that resumes following with the attempts left; once an attempt ended, it makes no other.

One line on stderr per attempt: how it ended, where, how long it ran, what it cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, JobFailed, RemoteError
from gpujob.submit.attempts import attempt_dict, attempt_line, money, summed, total
from gpujob.terminal import printable

if TYPE_CHECKING:
    from gpujob.services.base import Commands, Created, JobClient, Request, Service
    from gpujob.services.recovery import Ended, Recovery
    from gpujob.submit.failover import Choice, Plan
    from gpujob.submit.settings import SubmitSettings

# attempt N's request, made when it is needed, and where it goes (REGION/STRATEGY)
NextRequest = Callable[[int], "tuple[Request, str]"]
# how long a job that ended FAILED is read again while it has no error message yet: Vertex AI
# sets the error about a minute after the job ends ("Understand the serverless training
# service")
SETTLE_SECONDS = 180.0
_REFUSED = "refused"  # a create refused for room, nothing of it alive: the next choice


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
    # wait --recover: look for a later attempt someone else made before making one
    look_later: bool = False
    # how an attempt's request is created (submit: Plan.create of its choice); None:
    # create.create_once through the client, the same create
    creator: Callable[[Request], Created | None] | None = None
    choices: int = 1  # the choices an attempt may be made at (--region a,b, --strategy …)
    attempts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spent(self) -> float | None:
        return total(self.attempts)

    def left(self, number: int) -> int:
        return self.most - (number - self.first)

    def resume(self, commands: Commands, number: int) -> Commands:
        """The commands of attempt ``number``'s job, its wait one resuming recovery."""
        more = f" --recover-on-exit-codes {','.join(map(str, self.codes))}" if self.codes else ""
        more += f" --max-cost {self.max_cost:g}" if self.max_cost is not None else ""
        wait = f"{commands.wait} --recover {self.left(number)}{more}"
        return replace(commands, wait=wait, follow_logs=wait)  # both resume the recovery

    def follow(self, raw: dict[str, Any], number: int, next_request: NextRequest
               ) -> tuple[int | None, dict[str, Any]]:
        """Follow attempt ``number`` (``raw``) and the attempts after it: the exit code (None:
        the last attempt's end, which ``finish`` turns into one) and the last job."""
        from gpujob.services.base import JobRef
        from gpujob.submit.create import Follow, follow_to_end

        while True:
            status = self.service.status(raw)
            commands = self.resume(self.service.commands(status.id, self.client.project,
                                                         status.location), number)
            if not status.done:
                final = follow_to_end(self.service, self.client,
                                      self.client.resolve(JobRef(status.id)), raw, status.state,
                                      commands, Follow(True, self.stream_logs,
                                                       self.poll_interval))
                if final is None:
                    return EXIT_INTERRUPTED, raw
                raw = final
            try:  # between attempts: Ctrl-C says how to resume, as while following
                raw = self._settled(raw)
                stop = self._judge(raw, number, self.recovery.ended(raw))
                if stop is not None:
                    return None, raw
                later = self._later(raw, number) if self.look_later else None
            except KeyboardInterrupt:
                return self._stopped(raw, commands), raw
            if later is not None:  # recovered already (another wait --recover): follow that
                raw, number = later
                CONSOLE.err(f"  attempt {number} was made already: job "
                            f"{printable(self.service.status(raw).id)}; following it")
                continue
            made = self._next(number, next_request)
            if not isinstance(made, dict):
                return made, raw
            raw, number = made, number + 1

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
        """Create attempt ``number + 1``: its job as made; else None when the cap stops
        recovery, 130 after Ctrl-C. A create refused for room (quota, a stockout) moves on to
        the next choice, as failover does before the first run, each choice once at most;
        the last one's refusal is raised (``RemoteError``, exit 3)."""
        for tried in range(self.choices):
            request, where = next_request(number + 1)
            if self._over_cap(self.recovery.worst_case(request), number):
                return None
            CONSOLE.err(f"  recovering: attempt {number + 1} in {where} "
                        f"({self.left(number + 1)} more left after it)")
            made = self._create(request, where, tried + 1 < self.choices)
            if made is None:
                return EXIT_INTERRUPTED
            if isinstance(made, dict):
                return made
        raise AssertionError("the last choice's create returns or raises")

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
        """The newest attempt of the lineage after ``number``, if one was made already."""
        found = []
        for job in self.recovery.attempts(raw):
            lineage = self.recovery.lineage(job)
            if lineage is not None and lineage.attempt > number:
                found.append((lineage.attempt, job))
        if not found:
            return None
        attempt, job = max(found, key=lambda pair: pair[0])
        return job, attempt

    def _record(self, raw: dict[str, Any], number: int, ended: Ended, words: str) -> None:
        status = self.service.status(raw)
        self.attempts.append({**attempt_dict(number, status, ended), "cause": ended.cause,
                              "exitCode": ended.exit_code, "outcome": words})
        CONSOLE.err(f"{attempt_line(number, status, ended)}: {words}")

    def _judge(self, raw: dict[str, Any], number: int, ended: Ended) -> str | None:
        """Say how attempt ``number`` ended; None when it is to be recovered, else why not."""
        status = self.service.status(raw)
        if status.succeeded:
            self._record(raw, number, ended, "done")
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
            self._record(raw, number, ended, ended.cause or
                         f"exit status {ended.exit_code} (--recover-on-exit-codes)")
            return None
        self._record(raw, number, ended, why)
        return why

    def _over_cap(self, worst: float | None, number: int) -> bool:
        """Whether the next attempt could take the attempts past ``--max-cost`` (said)."""
        if self.max_cost is None:
            return False
        spent = self.spent
        if spent is not None and worst is not None and spent + worst <= self.max_cost:
            return False
        told = (f"the attempts so far cost {money(spent)} and attempt {number + 1} could cost "
                f"{money(worst)} (its worst case)")
        CONSOLE.err(f"recovery stopped before attempt {number + 1}: {told}, over --max-cost "
                    f"{money(self.max_cost)}")
        return True

    def _create(self, request: Request, where: str, more: bool
                ) -> dict[str, Any] | str | None:
        """Create the next attempt (the previous one has ended) at ``where``: its job as
        made; ``_REFUSED`` when refused for room with nothing of it alive and ``more``
        choices left (said); None after Ctrl-C during the create (said)."""
        from gpujob.submit.create import announce, create_once

        try:
            created = self.creator(request) if self.creator is not None else \
                create_once(self.client, request, self.service)
        except RemoteError as exc:
            why = self._refused_for_room(exc, request, more)
            if why == EXIT_INTERRUPTED:
                return None
            if isinstance(why, str) and more:
                CONSOLE.err(f"note: {where}: {why}; trying the next choice")
                return _REFUSED
            CONSOLE.err(f"recovery stopped: the create of attempt {len(self.attempts) + 1} "
                        "failed (below); the attempts so far: "
                        + ", ".join(f"{a['id']} ({a['state']})" for a in self.attempts))
            raise
        if created is None:
            return None
        status = self.service.status(created.raw)
        announce(self.service, status, request, self.client.project, created.recovered)
        return created.raw

    def _refused_for_room(self, refused: RemoteError, request: Request,
                          moving_on: bool) -> str | int | None:
        """Whether ``refused`` is a refusal for room (failover's word on it:
        ``Placement.refused_for_room``): why, once none of what it may have made all the
        same is left alive (``create.clean_up``, as failover does); 130 when interrupted
        while making sure; None when it is not one."""
        from gpujob.services.capabilities import Capability
        from gpujob.submit.create import clean_up

        if not self.service.supports(Capability.PLACEMENT):
            return None
        placement = self.service.placement(self.client)
        why = placement.refused_for_room(refused, request)
        if why is None:
            return None
        stopped = clean_up(placement, refused, request, moving_on)
        return why if stopped is None else stopped

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
    recovery = plan.service.recovery(plan.remote.open())
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
    """``submit --recover``: follow the job made at ``choice`` and its attempts."""
    client = plan.remote.open()
    recovery = plan.service.recovery(client)
    found = recovery.lineage(plan.requests[choice].body)
    order = list(plan.left)
    at = {"index": order.index(choice)}

    def next_request(number: int) -> tuple[Request, str]:
        at["index"] = (at["index"] + 1) % len(order)
        taken = order[at["index"]]
        made = recovery.attempt(plan.request(taken), found.id if found else None, number)
        plan.requests[taken] = made  # Plan.create sends the choice's request: this attempt's
        return plan.staged(taken), taken.label(plan.own)

    state = Recovering(plan.service, client, recovery, settings.recover or 0,
                       settings.recover_exit_codes, settings.check.job.max_cost,
                       settings.poll_interval, settings.stream_logs,
                       found.id if found else "",
                       choices=len(order),
                       creator=lambda _staged: plan.create(order[at["index"]]))
    code, last = state.follow(raw, 1, next_request)
    return state.finish(code, last, settings.output_format, extra)


def take_over(service: Service, client: JobClient, raw: dict[str, Any], most: int,
              codes: tuple[int, ...], poll_interval: float, output_format: str,
              max_cost: float | None = None) -> int:
    """``wait JOB --recover N``: follow ``raw`` (running or ended) and create it again where
    it was, as a submit's attempts are."""
    recovery = service.recovery(client)
    found = recovery.lineage(raw)
    again = recovery.again(raw)  # with its labels: its lineage's, else its submission label
    lineage = found.id if found is not None else \
        getattr(recovery.lineage(recovery.attempt(again, None, 1).body), "id", "")

    def next_request(number: int) -> tuple[Request, str]:
        return recovery.attempt(again, lineage, number), state.attempts[-1]["where"]

    state = Recovering(service, client, recovery, most, codes, max_cost, poll_interval, False,
                       lineage, first=found.attempt if found is not None else 1,
                       look_later=True)
    code, last = state.follow(raw, state.first, next_request)
    return state.finish(code, last, output_format, {})
