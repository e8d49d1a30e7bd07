"""A job as the user meant it: where an unknown key is clearly a misspelling (one key spelt
close, and not set beside it: ``schema.check_job``), its value stands in for the key it means
while the checks run again, so that a typo does not hide the job's other problems.

What those checks find is reported at what the user wrote: the misspelt key's path, line and
column. One mistake still gives one message: the typo's own finding says it, a missing key
that the misspelt one supplies is not reported, and neither is a rule's finding about the
misspelt key itself (that it has no effect, or should not be set: the typo's finding is about
that key already).
"""

from __future__ import annotations

from typing import Any, TypeVar

from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath

UNKNOWN_KEY = "schema.unknown-key"
T = TypeVar("T")


class Meant:
    """``written`` with each misspelt key renamed to the key it means (``stand_ins``: the
    misspelt key's path -> that key), as ``doc``: its positions are those the user wrote, under
    the meant paths. (A misspelt key is never under another: the schema does not look into an
    unknown key's value.)"""

    def __init__(self, written: Document, stand_ins: dict[JsonPath, str]) -> None:
        self.written = written
        self.renames = {path: (*path[:-1], key) for path, key in stand_ins.items()}
        self.back = {meant: path for path, meant in self.renames.items()}
        self.depths = {len(path) for path in stand_ins}  # a meant path is as long
        data: Any = written.data
        for path, key in stand_ins.items():
            data = _renamed(data, path, key)
        self.doc = Document(written.source, data, self._meant(written.values),
                            self._meant(written.keys), self._meant(written.texts))

    def _meant(self, table: dict[JsonPath, T]) -> dict[JsonPath, T]:
        return {_moved(path, self.renames, self.depths): value for path, value in table.items()}

    def as_written(self, path: JsonPath) -> JsonPath:
        """A meant path as the user wrote it."""
        return _moved(path, self.back, self.depths)

    def report(self, first: list[Finding], again: list[Finding],
               rules: list[Finding]) -> list[Finding]:
        """The findings of the file: ``first``, the schema's on the file as written (its unknown
        keys, the misspelt ones among them); ``again``, the schema's on the renamed document
        (where the misspelt key supplies a required one, it is no longer missing); ``rules``,
        the rules' on the renamed document."""
        unknown = [f for f in first if f.rule == UNKNOWN_KEY]
        reported = {f.path for f in unknown}
        out = unknown + [f for f in map(self._written, again)
                         if not (f.rule == UNKNOWN_KEY and f.path in reported)]
        misspelt = {path: self.written.keys.get(path) for path in self.renames}
        for finding in map(self._written, rules):
            if finding.path not in misspelt or finding.location != misspelt[finding.path]:
                out.append(finding)
        return out

    def _written(self, finding: Finding) -> Finding:
        path = self.as_written(finding.path)
        return finding if path == finding.path else finding._replace(path=path)


def _moved(path: JsonPath, moves: dict[JsonPath, JsonPath], depths: set[int]) -> JsonPath:
    """``path``, moved if it is at or under one of ``moves`` (a path -> where it goes; they
    are ``depths`` long, and none is under another)."""
    for n in depths:
        to = moves.get(path[:n]) if len(path) >= n else None
        if to is not None:
            return (*to, *path[n:])
    return path


def _renamed(node: Any, path: JsonPath, key: str) -> Any:
    """A copy of ``node`` with the entry at ``path`` renamed to ``key``, in its place; what is
    not on the way to it is shared."""
    head, rest = path[0], path[1:]
    if not rest:
        return {(key if k == head else k): v for k, v in node.items()}
    if isinstance(node, list):
        copy = list(node)
        copy[head] = _renamed(node[head], rest, key)  # type: ignore[index]
        return copy
    return {**node, head: _renamed(node[head], rest, key)}
