"""What a service that can create a job again after the infrastructure ended it
(``Capability.RECOVER``: ``submit --recover N``, ``wait JOB --recover N``) tells the submit:
how a job that ended FAILED ended (``Ended``: the infrastructure's cause, in words, or the
trainer's exit code), the request of the next attempt (its own submission label, the labels
that link the attempts), and the attempts of a lineage (``describe``, ``list``).

The attempts of one recovered job carry ``LINEAGE_LABEL``: the first attempt's lineage label
where it has one, else its submission label, else (a job gpujob did not submit, taken over by
``wait --recover``) its ID; ``ATTEMPT_LABEL`` (1, 2, …) and ``REGIONS_LABEL``: the regions its
attempts may be in (a submit's ``--region a,b``), so that ``describe`` of any attempt lists
each of those regions once for the others. Attempt N's submission label (N > 1) is made of
the lineage and N, the same in every process that follows the lineage, so that one finds the
attempt another made before making it again (``Recovery.made``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpujob.services.base import Request

LINEAGE_LABEL = "gpujob-lineage"
ATTEMPT_LABEL = "gpujob-attempt"
REGIONS_LABEL = "gpujob-regions"  # the regions joined by "_": us-central1_europe-west4


@dataclass(frozen=True)
class Ended:
    """How a job ended, as recovery reads it: ``cause``, the infrastructure's reason in words
    (a preemption, a stockout, …; None: not the infrastructure's); ``exit_code``: the code the
    trainer exited with, where the service's message says it; ``ran``: it ran before it
    ended; ``failed``: it ended FAILED (not SUCCEEDED, CANCELLED, EXPIRED); ``where``: its
    region and strategy; ``seconds``: how long it ran."""

    failed: bool
    cause: str | None = None
    exit_code: int | None = None
    ran: bool = False
    where: str = ""  # REGION/STRATEGY
    seconds: float | None = None  # how long it ran (None: it never ran)


@dataclass(frozen=True)
class Lineage:
    """The attempts a job belongs to: the lineage's ID, the job's attempt number, and the
    regions its regions label names (none: it names none)."""

    id: str
    attempt: int
    regions: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        """For ``--format json`` (the envelope's ``job.lineage``)."""
        return {"id": self.id, "attempt": self.attempt,
                **({"regions": list(self.regions)} if self.regions else {})}


@dataclass(frozen=True)
class Fitted:
    """An attempt's request held to what is left of ``--max-cost``: ``request`` (None: no
    attempt fits, ``why``), with ``timeout_s`` when it was given a shorter timeout to fit."""

    request: Request | None
    timeout_s: float | None = None
    why: str = ""


class Recovery(Protocol):
    """A service's side of recovering a job (``Capability.RECOVER``)."""

    def ended(self, raw: dict[str, Any]) -> Ended:
        """How the job ``raw`` ended (its causes and messages are the service's data)."""
        ...

    def attempt(self, request: Request, lineage: str | None, number: int,
                regions: Sequence[str] = ()) -> Request:
        """``request`` as attempt ``number`` of ``lineage`` (None: the lineage its own
        submission label starts): after the first, a submission label of its own, made of the
        lineage and ``number`` (so that a lost answer's look-up finds this attempt's job, never
        an earlier one's, and another process following the lineage finds it too); the lineage
        labels, with ``regions``, where the lineage's attempts may be (none given: those the
        request names already, else its own region); nothing else changes (the same output
        directory)."""
        ...

    def again(self, raw: dict[str, Any]) -> Request:
        """The request that creates the job ``raw`` (one gpujob did not submit in this run:
        ``wait --recover``) again, as it was, with the lineage labels: its own, else its
        submission label's, else (a job gpujob did not submit) its ID's, which its later
        attempts carry (it cannot be labelled after its creation)."""
        ...

    def lineage(self, raw: dict[str, Any]) -> Lineage | None:
        """The lineage the job ``raw`` is an attempt of (None: none)."""
        ...

    def attempts(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        """The jobs of ``raw``'s lineage (``raw`` too), in every region its label names, oldest
        first; [] for a job of no lineage."""
        ...

    def made(self, request: Request) -> dict[str, Any] | None:
        """The job ``request``'s submission label names, where it goes, if one was made
        already (another process following the lineage made this attempt); None."""
        ...

    def within(self, request: Request, most: float) -> Fitted:
        """``request`` held to ``most`` US dollars: as it is when its worst case fits; else
        with the longest timeout that fits; none (``Fitted.why``) when less than a minimum
        run fits, or when its cost cannot be told."""
        ...
