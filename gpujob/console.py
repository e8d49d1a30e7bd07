"""Where gpujob writes: results on stdout, diagnostics on stderr, through one object.

stdout carries only what a command produces (a report, a request body, a job ID, a JSON
envelope), so that it can be piped; everything said along the way (progress, links, notes,
errors) goes to stderr. The streams are looked up at each write, so that a test's capture (or a
caller's redirection) made after import is honoured.

Everything written is valid UTF-8, whatever the locale: ``setup_streams`` makes both streams
UTF-8 with an error handler that shows what cannot be encoded instead of failing (a file name
holding the byte 0xFF, which Python reads as the lone surrogate U+DCFF, is shown as ``\\xff``).
Secrets are masked on both streams (``gpujob.redact``): registered ones everywhere, anything
shaped like one on stderr too. A result that cannot be written (stdout closed, a full disk) is
an ``OutputError``, not a bug.

Text that others control (a server's answer, a job's log, another user's display name, a file
name) reaches the terminal through ``gpujob.terminal.printable``: its control characters are
shown as escapes, so that it cannot move the cursor, retitle the window, write the clipboard
(OSC 52) or forge gpujob's own lines. Every diagnostic on stderr goes through it; results on
stdout where they quote such text (log lines, the job table, a report's lines). JSON is
written by ``dumps``: strict JSON, with no raw control character at all.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import re
import sys
from typing import Any

from gpujob import redact
from gpujob.errors import OutputError
from gpujob.terminal import printable

ESCAPE = "gpujob-escape"
_SURROGATE = re.compile("[\ud800-\udfff]")
# JSON escapes C0 itself; DEL and C1 it writes raw
_JSON_CONTROL = re.compile("[\x7f-\x9f]")
# how the protocol buffers' JSON mapping writes the floats JSON has no number for
_NOT_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _escape(exc: UnicodeError) -> tuple[str, int]:
    """A codec error handler: an undecodable byte (a lone surrogate U+DC80..U+DCFF, as Python
    reads bytes that are not UTF-8 in arguments and file names) as ``\\xNN``, any other
    character that cannot be encoded as ``\\uNNNN``."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for char in exc.object[exc.start:exc.end]:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "".join(out), exc.end


codecs.register_error(ESCAPE, _escape)


def setup_streams() -> None:
    """stdout and stderr as UTF-8 that never fails on what it cannot encode (see above)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream already closed
                reconfigure(encoding="utf-8", errors=ESCAPE)


def safe(text: str) -> str:
    """``text`` with what UTF-8 cannot carry escaped, for messages built before writing."""
    return text.encode("utf-8", ESCAPE).decode("utf-8")


def _finite(value: Any) -> Any:
    """``value`` with NaN and the infinities as the strings ``"NaN"``, ``"Infinity"`` and
    ``"-Infinity"``, as the protocol buffers' JSON mapping writes them
    (https://protobuf.dev/programming-guides/proto3/#json): JSON has no number for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else _NOT_FINITE[value]
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def dumps(value: Any, *, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """``value`` as strict JSON text (UTF-8 as it is, unless ``ensure_ascii``): a float JSON
    has no number for becomes a string (``_finite``), and DEL and the C1 controls, which JSON
    lets through, are written as escapes, so that no control character reaches a terminal."""
    text = json.dumps(_finite(value), indent=indent, ensure_ascii=ensure_ascii, allow_nan=False)
    return _JSON_CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


class Console:
    """Writes results (``out``, ``json``) and diagnostics (``err``), each flushed at once."""

    def out(self, text: str) -> None:
        """A result, written as it is (end it with a newline)."""
        stream = sys.stdout
        if stream is None:
            raise OutputError("cannot write to standard output: it is closed")
        try:
            stream.write(redact.mask(text))
            stream.flush()
        except BrokenPipeError:
            raise  # the reader went away: quietly, in cli.main
        except OSError as exc:
            raise OutputError(f"cannot write to standard output: {exc.strerror or exc}"
                              ) from None

    def line(self, text: str) -> None:
        """A result of one line."""
        self.out(text + "\n")

    def json(self, value: Any) -> None:
        """A result as indented, strict JSON (``dumps``)."""
        self.json_text(dumps(value) + "\n")

    def json_text(self, text: str) -> None:
        """A result that is JSON text: a lone surrogate in it (a byte that was not UTF-8, in a
        file name) is written as its JSON escape, so that the document stays valid."""
        self.out(_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text))

    def err(self, text: str = "") -> None:
        """A diagnostic line on stderr, its control characters but line breaks and tabs shown
        as escapes (``printable``: a diagnostic may quote a server's words); dropped when
        stderr is closed or broken: there is nowhere else to say it."""
        stream = sys.stderr
        if stream is None:
            return
        try:
            stream.write(printable(redact.scrub(text), lines=True) + "\n")
            stream.flush()
        except OSError:
            pass


CONSOLE = Console()
