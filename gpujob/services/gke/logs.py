"""The logs of a JobSet's pods as log entries: each line of each pod's ``trainer`` container
with its replica (``worker-3``), oldest first.

A pod's log comes as kubelet writes it with ``--timestamps``: ``TIMESTAMP MESSAGE`` lines ended by
``\\n``. Only ``\\n`` ends a line: a progress bar's ``\\r`` stays inside its line, with the line's
time. Lines of one time keep the order they were written in (their number in the log, compared
as a number). A line whose time cannot be read takes the time of the line before it, so that
``Tail`` (``--follow``) remembers it like any other and prints it once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, ClassVar

from gpujob.services.gke import answers, translate
from gpujob.services.gke.translate import JOBSET_LABEL

if TYPE_CHECKING:
    from gpujob.services.base import JobRef
    from gpujob.services.gke.api import Api

_EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)


def entries(pod: dict[str, Any], text: str, since: str | None) -> Iterator[dict[str, Any]]:
    """A pod's log lines (``TIMESTAMP MESSAGE``) as log entries named by the replica; those
    stamped before ``since`` are left out. Each carries ``order`` (its time, then its line
    number) for sorting."""
    from gpujob.gcp.proto3 import parse_time

    labels = pod.get("labels") or {}
    replica = (f"{labels.get(JOBSET_LABEL + 'replicatedjob-name', '?')}-"
               f"{labels.get(JOBSET_LABEL + 'job-index', '?')}")
    start = parse_time(since)
    last: tuple[str, datetime] | None = None
    for n, line in enumerate(text.split("\n")):
        if not line:
            continue
        stamp, _, message = line.partition(" ")
        when = parse_time(stamp) if stamp else None
        if when is None:  # no time of its own: the line before's, and the whole line
            stamp, when = last if last is not None else ("", _EARLIEST)
            message = line
        last = (stamp, when)
        if start is not None and when < start:
            continue
        yield {"insertId": f"{pod['name']}/{n}", "timestamp": stamp, "severity": "DEFAULT",
               "labels": {"task_name": replica}, "textPayload": message,
               "order": (when, pod["name"], n)}


def read(api: Api, ns: str, ref: JobRef, since: str | None) -> list[dict[str, Any]]:
    """Each pod's log in namespace ``ns``, oldest line first. Pods not started yet have none;
    pods deleted with their JobSet none left."""
    from kubernetes.client.exceptions import ApiException

    what = f"listing the pods of JobSet {ref.id}"
    found = answers.pods(answers.json_object(api.read(what, lambda: api.core.list_namespaced_pod(
        ns, label_selector=f"{JOBSET_LABEL}jobset-name={ref.id}", _preload_content=False,
        _request_timeout=api.timeout)), what), what)
    out: list[dict[str, Any]] = []
    for pod in found:
        meta = pod.get("metadata") or {}
        name = str(meta["name"])

        def log(name: str = name) -> Any:
            try:
                return api.core.read_namespaced_pod_log(
                    name, ns, container=translate.CONTAINER, timestamps=True,
                    _preload_content=False, _request_timeout=api.timeout)
            except ApiException as exc:
                if exc.status in (400, 404):  # not started yet, or gone
                    return _Nothing()
                raise

        text = api.read(f"reading the logs of JobSet {ref.id}", log)
        out += entries({"name": name, "labels": meta.get("labels") or {}}, text, since)
    out.sort(key=lambda e: e["order"])
    for entry in out:
        del entry["order"]
    return out


class _Nothing:
    """The answer of a pod that has no log (yet, or any more)."""

    headers: ClassVar[dict[str, str]] = {}
    data = b""
