"""A job's worst case before it runs, and what it risks: ``--max-cost``, a cap on the whole job
(its $/hour × its timeout, Vertex AI's default timeout when it sets none), which gives the job
a timeout that keeps it under the cap, or refuses it (an error finding, before anything is
built, uploaded or sent) when its own timeout is longer or its cost cannot be told; and the
warnings of a Spot or flex-start job that has nowhere to checkpoint to (no
``baseOutputDirectory``, an AI Platform config's ``jobDir``), which then starts from scratch
after a preemption, or when its run outlasts its timeout.

Only Vertex AI jobs are priced: gpujob's table holds Vertex AI's prices."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from gpujob.findings import Finding, Location, error, warning
from gpujob.numbers import span_in_words as span

if TYPE_CHECKING:
    from gpujob.services.vertex.pricing.cost import Estimate
    from gpujob.services.vertex.records import Scheduling
    from gpujob.services.vertex.request import Job

CAP_FLAG = "--max-cost"
CAP_ENV = "GPUJOB_MAX_COST"
TIMEOUT_FIELDS = ("trainingInput.scheduling.maxRunningTime in an AI Platform config, "
                  "scheduling.timeout in a Vertex one")


def _spec(body: dict[str, Any]) -> dict[str, Any] | None:
    """The job's own CustomJobSpec (not a copy): the one its timeout is written in."""
    spec = body.get("trialJobSpec" if "trialJobSpec" in body else "jobSpec")
    return spec if isinstance(spec, dict) else None


def fitting(est: Estimate, max_cost: float) -> int:
    """The longest timeout (seconds; whole minutes from a minute up) that holds the job of
    ``est`` (priced: ``est.total``) to ``max_cost`` US dollars."""
    assert est.total is not None
    if max_cost <= 0 or est.total * est.runs <= 0:
        return 0 if max_cost <= 0 else 2**31
    seconds = math.floor(max_cost / (est.total * est.runs) * 3600)
    return seconds - (seconds % 60 if seconds >= 60 else 0)


def set_timeout(body: dict[str, Any], seconds: int) -> bool:
    """Write ``seconds`` as the timeout of the job ``body`` (its spec's
    ``scheduling.timeout``); False when it has no spec to write it in."""
    spec = _spec(body)
    if spec is None:
        return False
    spec.setdefault("scheduling", {})["timeout"] = f"{seconds}s"
    return True


def _timeout_words(est: Estimate, more: str = "") -> str:
    """``timeout of 7 days (Vertex AI's default: the job sets none; MORE)``."""
    assert est.timeout_s is not None
    said = [s for s in ("Vertex AI's default: the job sets none" if est.timeout_default
                        else "", more) if s]
    return f"timeout of {span(est.timeout_s)}" + (f" ({'; '.join(said)})" if said else "")


def _runs_to_timeout(est: Estimate) -> str:
    if est.runs != 1:
        return f"all {est.trials} trials run until their {_timeout_words(est)}"
    return f"it runs until its {_timeout_words(est)}"


def worst_line(est: Estimate) -> str | None:
    """``at most $2,838.77, if it runs until its timeout of 7 days (…)``; None without a
    figure."""
    from gpujob.services.vertex.pricing.cost import dollars

    if est.worst is None:
        return None
    return f"at most {dollars(est.worst)}, if {_runs_to_timeout(est)}"


def cap(job: Job, est: Estimate, max_cost: float | None, location: Location
        ) -> tuple[Estimate, list[Finding]]:
    """Hold ``job`` to ``max_cost`` US dollars in all: a job that could cost more gets a timeout
    that keeps it under (a note; its request's ``scheduling.timeout``), or an error when its
    own timeout is longer, or when its worst case cannot be told. The estimate with the
    timeout the job ends up with."""
    from gpujob.services.vertex.pricing.cost import NAMES, dollars, unpriced

    if max_cost is None:
        return est, []
    flag = f"{CAP_FLAG} {dollars(max_cost)}"
    if est.total is None or est.timeout_s is None or est.strategy is None:
        why = "; ".join(est.unknown or unpriced(est)) or (
            "no price for its strategy" if est.total is None else "its timeout is not known")
        return est, [error("cost.unknown", f"what the job can cost cannot be told ({why}), so "
                           f"{flag} cannot be held", (), location,
                           f"leave out {CAP_FLAG} (and {CAP_ENV}) to send it unpriced, or choose "
                           "a machine type and region that gpujob has prices for (gpujob gpus "
                           "--region REGION shows them)")]
    worst = est.worst
    assert worst is not None
    if worst <= max_cost:
        return est, []
    per_hour = f"{dollars(est.total)}/hour {NAMES[est.strategy]}"
    seconds = fitting(est, max_cost)  # whole minutes, under the cap
    if not est.timeout_default or seconds < 1 or _spec(job.body) is None:
        most = f"a timeout of at most {seconds}s" if seconds >= 1 else "no timeout at all"
        return est, [error("cost.max-cost", f"the job can cost {dollars(worst)} ({per_hour}, if "
                           f"{_runs_to_timeout(est)}), over {flag}", (), location,
                           f"{flag} allows it {most}: shorten its timeout ({TIMEOUT_FIELDS}), "
                           f"or leave the timeout out and {CAP_FLAG} sets it; or raise "
                           f"{CAP_FLAG} ({CAP_ENV})")]
    set_timeout(job.body, seconds)
    capped = est._replace(timeout_s=float(seconds), timeout_from=CAP_FLAG)
    assert capped.worst is not None
    return capped, [Finding(
        "note", "cost.max-cost", f"{flag}: the job's timeout is set to {seconds}s "
        f"({span(seconds)}), so that it costs at most {dollars(capped.worst)} at "
        f"{per_hour}; Vertex AI's default timeout of {span(est.timeout_s or 0)} "
        f"would allow {dollars(worst)}. Vertex AI stops the job then", (), location,
        "save checkpoints to resume from (baseOutputDirectory, an AI Platform config's jobDir)"
        f", or raise {CAP_FLAG} ({CAP_ENV})")]


def resumable(body: dict[str, Any]) -> bool:
    """Whether the job has somewhere to checkpoint to: a ``baseOutputDirectory`` (Vertex AI
    then sets ``AIP_CHECKPOINT_DIR`` under it, the same in a restarted job)."""
    spec = _spec(body) or {}
    out = spec.get("baseOutputDirectory")
    return isinstance(out, dict) and bool(out.get("outputUriPrefix"))


def risks(job: Job, est: Estimate, location: Location, facts: Scheduling | None,
          recover: int = 0) -> list[Finding]:
    """A warning for a Spot job with nowhere to checkpoint to (a preemption restarts it from
    scratch: what it ran is paid again; so does every attempt of ``--recover``), and one for a
    flex-start job likewise (a run longer
    than its timeout, at most 7 days under flex-start, ends unfinished; ``facts``: the
    scheduling section of the catalog in use)."""
    from gpujob.services.vertex.pricing.cost import dollars

    if est.strategy not in ("spot", "flex_start") or resumable(job.body):
        return []
    hourly = f"{dollars(est.total)} an hour" if est.total is not None else "an unknown price"
    nowhere = ("the job has nowhere to save checkpoints (no baseOutputDirectory; an AI "
               "Platform config's jobDir)")
    hint = ("give it a job dir (--job-dir gs://BUCKET/PATH, or baseOutputDirectory in a Vertex "
            "config) and have the trainer save to AIP_CHECKPOINT_DIR and resume from it")
    again = (f"; with --recover {recover}, every attempt (up to {recover + 1}) starts from "
             "scratch too" if recover else "")
    if est.strategy == "spot":
        return [warning("cost.no-resume", f"{nowhere}: when its Spot VMs are preempted, Vertex "
                        "AI restarts it from scratch, and every hour it ran before is paid "
                        f"again ({hourly}){again}", (), location, hint)]
    from gpujob.numbers import seconds_in_words

    most = (f"flex-start allows at most {seconds_in_words(facts.flex_max_timeout_s)}"
            if facts is not None else "")
    limit = (_timeout_words(est, most) if est.timeout_s is not None
             else "timeout" + (f" ({most})" if most else ""))
    lost = (f": up to {dollars(est.worst)} paid for a run that does not finish"
            if est.worst is not None else "")
    return [warning("cost.no-resume", f"{nowhere}: a flex-start job runs at most until its "
                    f"{limit}, and a run that needs longer "
                    f"ends unfinished, to start again from scratch ({hourly}{lost}){again}", (),
                    location, hint)]
