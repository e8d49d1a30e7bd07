"""Replica output: read from each replica's pipe, cut into whole prefixed lines, in bounded memory.

One reader thread per replica reads its pipe and puts whole lines, prefixed with the replica's
name, in an ``Outbox``; gpujob's main thread takes them out and writes them. The outbox holds at
most about ``LIMIT`` bytes: a reader waits for room, so a replica that writes faster than stdout
is read waits on its pipe, as it would on a terminal, and gpujob's memory does not grow with the
output. A line longer than ``MAX_LINE`` bytes is shown in pieces, each with the prefix, each but
the last ending with ``CONTINUES``.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from typing import Generic, TypeVar

MAX_LINE = 64 * 1024
LIMIT = 1024 * 1024
CONTINUES = b" [line continues]"
_READ = 64 * 1024

Key = TypeVar("Key")


class Outbox(Generic[Key]):
    """Output on its way from the readers to the writer: ``(key, bytes)``, or ``(key, None)``
    when that key's output has ended."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._items: deque[tuple[Key, bytes | None]] = deque()
        self._size = 0
        self._limit = limit
        self._discard = False
        self._changed = threading.Condition()

    def put(self, key: Key, data: bytes | None) -> None:
        """Add output (waiting for room), or the end of it (never waits)."""
        with self._changed:
            while data is not None and self._size >= self._limit and not self._discard:
                self._changed.wait()
            if data is not None and self._discard:
                return
            self._items.append((key, data))
            self._size += len(data or b"")
            self._changed.notify_all()

    def get(self, timeout: float) -> tuple[Key, bytes | None] | None:
        """The oldest item, waiting up to ``timeout`` seconds for one; None if there is none."""
        with self._changed:
            if not self._items:
                self._changed.wait(timeout)
            if not self._items:
                return None
            key, data = self._items.popleft()
            self._size -= len(data or b"")
            self._changed.notify_all()
            return key, data

    def discard(self) -> None:
        """From now on drop output instead of waiting for room (nobody will write it)."""
        with self._changed:
            self._discard = True
            self._items = deque((k, d) for k, d in self._items if d is None)
            self._size = 0
            self._changed.notify_all()


def read_lines(fd: int, key: Key, prefix: bytes, box: Outbox[Key]) -> None:
    """Read ``fd`` to its end, putting whole prefixed lines into ``box``, then ``None``; a last
    line without a newline gets one. Closes ``fd``."""
    pending = b""
    try:
        while chunk := os.read(fd, _READ):
            lines, pending = cut(pending + chunk)
            if lines:
                box.put(key, prefixed(prefix, lines))
    except OSError:  # EIO and the like: the output ends here
        pass
    finally:
        if pending:
            box.put(key, prefixed(prefix, [pending]))
        box.put(key, None)
        os.close(fd)


def cut(data: bytes) -> tuple[list[bytes], bytes]:
    """The whole lines of ``data`` (without their newlines; a line longer than ``MAX_LINE`` as
    pieces, each but the last ending with ``CONTINUES``) and the rest, at most ``MAX_LINE``
    bytes."""
    end = data.rfind(b"\n") + 1
    lines = data[:end - 1].split(b"\n") if end else []
    rest = data[end:]
    if max(map(len, lines), default=0) > MAX_LINE:
        lines = [piece for line in lines for piece in _pieces(line)]
    while len(rest) > MAX_LINE:
        at = _boundary(rest)
        lines.append(rest[:at] + CONTINUES)
        rest = rest[at:]
    return lines, rest


def _pieces(line: bytes) -> list[bytes]:
    pieces = []
    while len(line) > MAX_LINE:
        at = _boundary(line)
        pieces.append(line[:at] + CONTINUES)
        line = line[at:]
    return [*pieces, line]


def _boundary(data: bytes) -> int:
    """Where to cut ``data`` near ``MAX_LINE`` bytes without splitting a UTF-8 character."""
    at = MAX_LINE
    while at > MAX_LINE - 3 and data[at] & 0xC0 == 0x80:  # a continuation byte
        at -= 1
    return at if data[at] & 0xC0 != 0x80 else MAX_LINE


def prefixed(prefix: bytes, lines: list[bytes]) -> bytes:
    return b"".join(prefix + line + b"\n" for line in lines)
