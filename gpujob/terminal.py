"""Text that others control, made safe to show on a terminal.

A server's answer, a job's log, another user's display name, a file name in a pull request: any
of them may hold control characters that a terminal obeys (ESC and CSI sequences that move the
cursor or clear the screen, OSC 52 that writes the clipboard, a carriage return or line break
that forges a line of gpujob's). ``printable`` shows them as escapes instead. It imports
nothing, so that every stage (the findings' lines among them) can use it.
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls (ESC, CSI U+009B and OSC U+009D among them); with line breaks
# and tabs allowed, in text of several lines
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with its control characters escaped (``\\x1b``, ``\\n``, ``\\u009b``): for text
    that others control, which must not steer the terminal. ``lines``: line breaks and tabs
    stay (a log message, a server's error of several lines); else the text stays one line."""
    pattern = _CONTROL_IN_LINES if lines else _CONTROL
    return pattern.sub(lambda found: _shown(found.group()), text)


def _shown(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}")
