"""Where gpujob writes: results on stdout, diagnostics on stderr, through one object.

stdout carries only what a command produces (a report, a request body, a job ID, a JSON
envelope), so that it can be piped; everything said along the way (progress, links, notes,
errors) goes to stderr. The streams are looked up at each write, so that a test's capture (or a
caller's redirection) made after import is honoured.
"""

from __future__ import annotations

import json
import sys
from typing import Any


class Console:
    """Writes results (``out``, ``json``) and diagnostics (``err``), each flushed at once."""

    def out(self, text: str) -> None:
        """A result, written as it is (end it with a newline)."""
        sys.stdout.write(text)
        sys.stdout.flush()

    def line(self, text: str) -> None:
        """A result of one line."""
        self.out(text + "\n")

    def json(self, value: Any) -> None:
        """A result as indented JSON (UTF-8 text as it is, not escaped)."""
        self.out(json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def err(self, text: str = "") -> None:
        """A diagnostic line on stderr."""
        print(text, file=sys.stderr, flush=True)


CONSOLE = Console()
