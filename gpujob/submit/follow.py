"""Following a remote job, for every service: wait for its end, stream its log, turn how it
ended into an exit code, and say what Ctrl-C left behind.

Written once over ``base.Service`` and ``base.JobClient``: state changes and notes go to stderr,
log lines to stdout.
"""

from __future__ import annotations

from typing import Any

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INTERRUPTED, EXIT_OK, JobFailed, RemoteError
from gpujob.services.base import JobClient, JobRef, Service

DRAIN_READS = 6  # reads of the log after the job ended, at most (a minute at the default poll)


def outcome(service: Service, raw: dict[str, Any], project: str) -> int:
    """Exit 0 for a job that succeeded; ``JobFailed`` (exit 4) for one that failed or was
    cancelled, with the service's message."""
    status = service.status(raw)
    for line in status.summary:
        CONSOLE.err(line)
    if status.succeeded:
        return EXIT_OK
    reason = status.message or "no error message"
    logs = service.commands(status.id, project, status.location).logs
    raise JobFailed(f"job {status.id} ended {status.state}: {reason}",
                    f"{status.hint}; {logs} shows what it wrote" if status.hint
                    else f"{logs} shows what it wrote")


def stopped(what: str, job_id: str, resume: str) -> int:
    """After Ctrl-C: the job is left as it is; say so, and how to resume. Exit 130."""
    CONSOLE.err()
    CONSOLE.err(f"Stopped {what} job {job_id}; the job keeps running (nothing was cancelled).")
    CONSOLE.err(f"Resume with: {resume}")
    return EXIT_INTERRUPTED


def wait(service: Service, client: JobClient, ref: JobRef, poll_interval: float,
         timeout: float | None, last_state: str | None = None) -> dict[str, Any]:
    """Poll the job until it ends, telling each state change on stderr; the job as it ended.
    ``RemoteError`` (exit 3) when ``timeout`` seconds pass first."""
    clock = client.clock
    start = clock.monotonic()
    waiting = ""
    while True:
        raw = client.get(ref)
        status = service.status(raw)
        if status.state != last_state:
            CONSOLE.err(f"job {ref.id}: {status.state}")
            last_state = status.state
        if status.waiting and status.waiting != waiting:
            CONSOLE.err(f"  {status.waiting}")
        waiting = status.waiting
        if status.done:
            return raw
        left = None if timeout is None else timeout - (clock.monotonic() - start)
        if left is not None and left <= 0:
            commands = service.commands(ref.id, client.project, ref.location)
            raise RemoteError(f"job {ref.id} is still {status.state} after waiting "
                              f"{timeout:g} s (--timeout); it keeps running"
                              + (f" ({status.waiting})" if status.waiting else ""),
                              f"{commands.wait} waits again; {commands.cancel} stops it")
        clock.sleep(poll_interval if left is None else min(poll_interval, left))


def stream(service: Service, client: JobClient, ref: JobRef, raw: dict[str, Any],
           poll_interval: float) -> dict[str, Any]:
    """Print the job's log as it grows, from its creation on; the job as it ended. Once the job
    has ended, keep reading until a read brings nothing new (lines reach the log with a
    delay), at most ``DRAIN_READS`` times (a log that keeps giving lines, as one that ignores
    the time filter does, is not read forever); a job that had ended before is read once."""
    from gpujob.gcp.logs import Tail, format_entry

    status = service.status(raw)
    tail = Tail(lambda since: client.log_entries(ref, since), status.created)
    ended = raw if status.done else None
    read_once = ended is not None
    state = status.state
    drained = 0  # reads since the job ended
    while True:
        new = tail.poll()
        for entry in new:
            CONSOLE.line(format_entry(entry))
        if ended is not None and (read_once or not new):
            return ended
        if ended is not None:
            drained += 1
            if drained >= DRAIN_READS:
                CONSOLE.err(f"note: job {ref.id} ended {DRAIN_READS} reads ago and its log "
                            "still gives new lines; stopped reading it (gpujob logs "
                            f"{ref.id} prints the whole log)")
                return ended
        client.clock.sleep(poll_interval)
        if ended is None:
            raw = client.get(ref)
            status = service.status(raw)
            if status.state != state:
                state = status.state
                CONSOLE.err(f"job {ref.id}: {state}")
                if status.waiting:
                    CONSOLE.err(f"  {status.waiting}")
            if status.done:
                ended = raw
