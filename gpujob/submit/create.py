"""A submit's create and what follows it, for every service: the create (an interrupted one
said as such), the clean-up after a create refused for room, the job announced, and the job
followed to its end or left running with the commands that follow it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, EXIT_OK, RemoteError
from gpujob.services.base import (
    Commands,
    Created,
    CreateInterrupted,
    JobClient,
    JobRef,
    JobStatus,
    Request,
    Service,
)
from gpujob.services.placement import Placement
from gpujob.submit import follow as following
from gpujob.submit import output

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple


class Follow(NamedTuple):
    """After submitting: return at once, ``wait`` for the end, or ``stream_logs``, polling
    every ``poll_interval`` seconds."""

    wait: bool = False
    stream_logs: bool = False
    poll_interval: float = 10.0


def create_once(client: JobClient, request: Request, service: Service) -> Created | None:
    """The create, or None after Ctrl-C, SIGTERM or SIGHUP (said on stderr: the job may
    exist)."""
    from gpujob import interrupts

    try:
        with interrupts.as_ctrl_c():
            return client.create(request)
    except KeyboardInterrupt as exc:
        CONSOLE.err()
        what = f"job {request.job_id}" if request.job_id else "the job"
        CONSOLE.err(f"Interrupted while submitting {what}: it may or may not have been created.")
        if isinstance(exc, CreateInterrupted):
            CONSOLE.err(exc.look)
        elif request.job_id:
            CONSOLE.err(f"Check with: "
                        f"{service.commands(request.job_id, client.project).describe}")
        return None


def clean_up(placement: Placement, refused: RemoteError, request: Request,
             moving_on: bool = False) -> int | None:
    """After ``refused``, a create refused for quota or capacity, which may have made its job
    all the same: cancel any such job (``Placement.confirm_none``). None when none is left
    alive; exit 130 after Ctrl-C, SIGTERM or SIGHUP, said with what it was doing; else
    ``RemoteError``: the refusal, and the job found alive or how to look for it (``moving_on``:
    another choice was next, and is not tried)."""
    from gpujob import interrupts

    try:
        with interrupts.as_ctrl_c():
            placement.confirm_none(request)
    except CreateInterrupted as exc:
        CONSOLE.err()
        CONSOLE.err("Interrupted while making sure the refused create left no job alive.")
        CONSOLE.err(exc.look)
        return EXIT_INTERRUPTED
    except RemoteError as looked:
        tail = ", so no other region or strategy was tried" if moving_on else ""
        raise RemoteError(f"{refused.message}; {looked.message}{tail}",
                          looked.hint) from refused
    return None


def announce(service: Service, status: JobStatus, request: Request, project: str,
              recovered: bool) -> str:
    """Tell on stderr what was submitted (``status``: the created job's), and where to see it;
    the job's ID."""
    job_id = status.id if status.id != "?" else (request.job_id or "?")
    if recovered:
        CONSOLE.err(f"note: job {job_id} was already created by an earlier attempt of this "
                    "submission whose answer was lost; it was not submitted twice")
    named = f" ({status.display_name})" if status.display_name else ""
    where = f", region [{status.location}]" if status.location else ""
    scope = service.scope(project) or f"project [{project}]"  # GKE: context and namespace
    CONSOLE.err(f"Job [{job_id}]{named} submitted to {scope}{where}; state: {status.state}.")
    links(service, job_id, project, status.location, "  ")
    return job_id


def links(service: Service, job_id: str, project: str, location: str | None,
           indent: str = "") -> None:
    found = service.links(job_id, project, location)
    CONSOLE.err(f"{indent}{found.label + ':':<8} {found.console}")
    CONSOLE.err(f"{indent}logs:    {found.logs}")


def left_running(service: Service, raw: dict[str, Any], commands: Commands,
                 output_format: str, extra: dict[str, Any]) -> int:
    """A submit that does not follow its job: how to follow it, and (json) the job. Exit 0."""
    CONSOLE.err("Follow it with:")
    for command in (commands.describe, commands.wait, commands.follow_logs):
        CONSOLE.err(f"  {command}")
    if output_format == "json":
        CONSOLE.json(output.envelope(service, raw, **extra))
    return EXIT_OK


def follow_to_end(service: Service, client: JobClient, ref: JobRef, raw: dict[str, Any],
                  state: str, commands: Commands, follow: Follow) -> dict[str, Any] | None:
    """Wait for the job, or stream its logs, to its end: the job as it ended; None after
    Ctrl-C, said with how to resume (the job keeps running)."""
    try:
        if follow.stream_logs:
            return following.stream(service, client, ref, raw, follow.poll_interval)
        return following.wait(service, client, ref, follow.poll_interval, None,
                              last_state=state)
    except KeyboardInterrupt:
        if follow.stream_logs:
            following.stopped("streaming the logs of", ref.id, commands.follow_logs)
        else:
            following.stopped("waiting for", ref.id, commands.wait)
        return None


def refused_for_room(service: Service, client: JobClient, refused: RemoteError,
                     request: Request, moving_on: bool) -> str | int | None:
    """Whether ``refused`` is a refusal for room (failover's word on it:
    ``Placement.refused_for_room``): why, once none of what it may have made all the same is
    left alive (``clean_up``, as failover does); 130 when interrupted while making sure; None
    when it is not one (or the service has no placement)."""
    from gpujob.services.capabilities import Capability

    if not service.supports(Capability.PLACEMENT):
        return None
    placement = service.placement(client)
    why = placement.refused_for_room(refused, request)
    if why is None:
        return None
    stopped = clean_up(placement, refused, request, moving_on)
    return why if stopped is None else stopped
