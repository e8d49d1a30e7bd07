"""Exceptions that carry a fix-it hint and the exit code the command ends with.

Every failure a user can cause is one of these; the top-level handler in ``cli.main`` prints
``error: MESSAGE`` and ``  hint: HINT`` on stderr and exits with ``exit_code``. Anything else is a
bug and is shown with its traceback.
"""

from __future__ import annotations

# Exit codes: documented in docs/exit-codes.md and in ``gpujob --help``.
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_REMOTE = 3
EXIT_JOB_FAILED = 4
EXIT_INTERNAL = 70  # a bug in gpujob
EXIT_BROKEN_PIPE = 1  # stdout's reader went away: quietly, as click and Python's docs do
EXIT_INTERRUPTED = 130


class GpujobError(Exception):
    """A failure the user can act on."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(GpujobError):
    """The command line itself is wrong (a bad flag value, a missing file)."""

    exit_code = EXIT_USAGE


class InvalidConfig(GpujobError):
    """The configuration was checked and refused; the findings were already printed."""

    exit_code = EXIT_INVALID


class BuildFailed(GpujobError):
    """The trainer package did not build (its build's output was already shown). Exit 1, as for
    an invalid config: the job's inputs are wrong and running the command again will not help;
    2 is for the command line itself and 3 for failures of the remote side."""

    exit_code = EXIT_INVALID


class RemoteError(GpujobError):
    """The remote side failed: credentials, network, the API, Cloud Storage."""

    exit_code = EXIT_REMOTE


class OutputError(GpujobError):
    """A result could not be written: standard output is closed, or the disk is full. Exit 1,
    as for a reader that went away (``EXIT_BROKEN_PIPE``): gpujob did its part, the output
    did not arrive, and running it again as it is will not help."""

    exit_code = EXIT_BROKEN_PIPE


class JobFailed(GpujobError):
    """The job ran and ended unsuccessfully (``--wait``, ``--local``)."""

    exit_code = EXIT_JOB_FAILED
