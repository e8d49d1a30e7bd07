"""Log entries from Cloud Logging (``logging v2 entries.list``), read once or followed.

Which entries belong to a job is the training API's to say: each API client module gives the
filter (the AI Platform service's ``api.log_filter``); this module reads the entries it selects,
page by page,
and tails them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

from gpujob.gcp.proto3 import parse_time
from gpujob.gcp.session import Session
from gpujob.gcp.settings import api_endpoint
from gpujob.terminal import printable


def format_entry(entry: dict[str, Any]) -> str:
    """``TIMESTAMP SEVERITY TASK: MESSAGE``, as one prints a training job's log. Everything in
    it is the log's, which the trainer (and whoever can write to the project's logs) controls:
    control characters are shown escaped (``console.printable``), a message keeps its lines."""
    payload = entry.get("jsonPayload")
    if "textPayload" in entry:
        message = str(entry["textPayload"])
    elif isinstance(payload, dict):
        message = str(payload["message"]) if "message" in payload else json.dumps(payload)
    else:
        message = json.dumps(entry.get("protoPayload", ""))
    labels = entry.get("labels") or {}
    task = ((entry.get("resource") or {}).get("labels") or {}).get("task_name") \
        or labels.get("task_name") or "-"
    trial = labels.get("ml.googleapis.com/trial_id")  # a tuning job's trial (Vertex AI)
    if trial:
        task = f"{task} (trial {trial})"
    head = f"{entry.get('timestamp', '-')} {entry.get('severity', 'DEFAULT')} {task}"
    return f"{printable(head)}: {printable(message.rstrip(), lines=True)}"


class LogsClient:
    """Log entries of one project."""

    def __init__(self, session: Session) -> None:
        from gpujob.gcp.discovery import service

        self.session = session
        self._entries = service("logging", "v2", session.http,
                                api_endpoint(session.settings, "logging")).entries()

    def entries(self, filter_: str, what: str) -> Iterator[dict[str, Any]]:
        """The entries ``filter_`` selects, oldest first; ``what`` names them in errors ("the
        logs of job j1")."""
        action = self.session.action(
            f"reading {what}", "logging.logEntries.list", role="roles/logging.viewer",
            service="logging.googleapis.com", retry_safe=True,
            not_found_hint=f"check --project (now {self.session.project})")
        body: dict[str, Any] = {"resourceNames": [f"projects/{self.session.project}"],
                                "filter": filter_, "orderBy": "timestamp asc", "pageSize": 1000}

        def fetch(token: str | None) -> dict[str, Any]:
            page_body = {**body, "pageToken": token} if token else dict(body)
            return self.session.execute(action, lambda: self._entries.list(body=page_body))

        for page in self.session.pages(action, fetch, "entries"):
            yield from page.get("entries", [])


# How far behind the newest entry seen each poll reads again. Cloud Logging does not index
# entries in timestamp order (another replica's line, stamped earlier, can arrive after a later
# one was read); gcloud's own tail holds back the newest 5 s of the log for the same reason
# (googlecloudsdk/command_lib/logs/stream.py). An entry indexed later than this behind the
# newest one is still missed by a follow; ``gpujob logs`` (one read of the whole log) shows it.
OVERLAP = timedelta(seconds=30)


class Tail:
    """The entries of a log not seen before, poll after poll.

    ``read(since)`` gives the entries stamped at or after ``since`` (an RFC 3339 time; None: all),
    oldest first. Each poll reads again from ``OVERLAP`` before the newest timestamp seen (never
    before ``since``, the first poll's start), so that an entry indexed late still comes; what
    was printed is told by its ``insertId``. Only the entries of that window are remembered:
    following a long job's log takes no more memory as it grows."""

    def __init__(self, read: Callable[[str | None], Iterable[dict[str, Any]]],
                 since: str | None, overlap: timedelta = OVERLAP) -> None:
        self.read = read
        self.since = since
        self.overlap = overlap
        self._start = parse_time(since)
        self._newest: datetime | None = None
        self._seen: dict[str, datetime | None] = {}  # key -> time, of the window's entries

    def poll(self) -> list[dict[str, Any]]:
        new = []
        for entry in self.read(self.since):
            key = _key(entry)
            if key in self._seen:
                continue
            stamp = parse_time(entry.get("timestamp"))
            self._seen[key] = stamp
            new.append(entry)
            if stamp is not None and (self._newest is None or stamp > self._newest):
                self._newest = stamp
        if self._newest is not None:
            start = self._newest - self.overlap
            if self._start is not None:
                start = max(start, self._start)
            self.since = start.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            # what the next read cannot bring again is forgotten (and an entry whose time
            # cannot be read, which no read can be told to leave out)
            self._seen = {key: stamp for key, stamp in self._seen.items()
                          if stamp is not None and stamp >= start}
        return new


def _key(entry: dict[str, Any]) -> str:
    return entry.get("insertId") or json.dumps(entry, sort_keys=True)
