"""Log entries from Cloud Logging (``logging v2 entries.list``), read once or followed.

Which entries belong to a job is the training API's to say: each API client module gives the
filter (``gpujob.gcp.ml.log_filter``); this module reads the entries it selects, page by page,
and tails them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gpujob.gcp.session import Session
from gpujob.gcp.settings import base_url
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
        from googleapiclient.discovery import build

        self.session = session
        service = build("logging", "v2", http=session.http, static_discovery=True,
                        cache_discovery=False, client_options={
                            "api_endpoint": base_url(session.settings.logging_endpoint)})
        self._entries = service.entries()

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


class Tail:
    """The entries of a log not seen before, poll after poll.

    ``read(since)`` gives the entries stamped at or after ``since`` (an RFC 3339 time; None: all),
    oldest first. Each poll asks from the newest timestamp seen, so only entries at that very
    timestamp can come again: those are the only ones remembered, and following a long job's log
    takes no more memory as it grows."""

    def __init__(self, read: Callable[[str | None], Iterable[dict[str, Any]]],
                 since: str | None) -> None:
        self.read = read
        self.since = since
        self._seen: set[str] = set()  # keys of the entries stamped ``since``

    def poll(self) -> list[dict[str, Any]]:
        new = []
        for entry in self.read(self.since):
            key = _key(entry)
            if key not in self._seen:
                self._seen.add(key)
                new.append(entry)
        newest = new[-1].get("timestamp") if new else None
        if newest and newest != self.since:
            self.since = newest
            self._seen = {_key(entry) for entry in new if entry.get("timestamp") == newest}
        return new


def _key(entry: dict[str, Any]) -> str:
    return entry.get("insertId") or json.dumps(entry, sort_keys=True)
