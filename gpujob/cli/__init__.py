"""The ``gpujob`` command line: one module per command group, each options -> settings ->
execute(settings).

The root group knows its commands by name and imports a command's module only when that command
runs (all of them for ``gpujob --help``), so ``validate`` loads nothing it does not use; the Google
client libraries are imported only by the commands that talk to Google.
"""

from __future__ import annotations

import contextlib
import os
import sys
from importlib import import_module

import click

from gpujob import __version__
from gpujob.cli.common import CONTEXT, EXIT_CODES_HELP
from gpujob.console import CONSOLE, setup_streams
from gpujob.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    GpujobError,
    OutputError,
)

# command -> "module:attribute" under gpujob.cli
COMMANDS = {
    "validate": "validate:validate",
    "gpus": "gpus:gpus",
    "rules": "rules:rules",
    "submit": "submit:submit",
    "local": "submit:local_command",
    "convert": "convert:convert",
    "describe": "lifecycle:describe",
    "list": "lifecycle:list_",
    "cancel": "lifecycle:cancel",
    "wait": "lifecycle:wait",
    "logs": "lifecycle:logs",
    "schema": "schemas:schema",
    "completion": "completion:completion",
}


class _Commands(click.Group):
    """A group whose commands are imported when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, _, name = COMMANDS[cmd_name].partition(":")
        command: click.Command = getattr(import_module(f"gpujob.cli.{module}"), name)
        return command


@click.group(cls=_Commands, context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.version_option(__version__, "--version", prog_name="gpujob",
                      message="%(prog)s %(version)s")
def cli() -> None:
    """Validate and submit GPU training jobs described as AI Platform Training Job configs.

    \b
      gpujob validate configs/*.yaml          check configs (schema, GPUs, regions)
      gpujob submit config.yaml --dry-run     print the exact request, send nothing
      gpujob submit config.yaml --region us-central1 -- --epochs 10
      gpujob wait JOB --region us-central1    follow a submitted job (also: logs --follow)
      gpujob local config.yaml --package-path trainer/ --module-name trainer.task
                                              run the job here first

    Set GPUJOB_DEBUG=1 to see a traceback with any error.
    """


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; map every failure a user can cause to one message and an exit code.

    ``GPUJOB_DEBUG=1`` adds the traceback (secrets masked, see ``_show_traceback``) and changes
    nothing else: the messages and the exit code are the same."""
    setup_streams()
    debug = os.environ.get("GPUJOB_DEBUG", "") not in ("", "0")
    if sys.stdout is None:
        CONSOLE.err("error: standard output is closed: gpujob writes its results there")
        CONSOLE.err("  hint: run it with standard output open (> /dev/null discards them)")
        return OutputError.exit_code
    try:
        result = cli.main(args=argv, prog_name="gpujob", standalone_mode=False)
        _flush_stdout()  # a reader that went away, or a full disk, shows here
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Abort:  # click has already ended the line
        CONSOLE.err("interrupted")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        CONSOLE.err("\ninterrupted")
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (gpujob … | head): stop quietly, as click does when this happens
        # inside a command
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except GpujobError as exc:
        if debug:
            _show_traceback(exc)
        CONSOLE.err(f"error: {exc.message}")
        if exc.hint:
            CONSOLE.err(f"  hint: {exc.hint}")
        if isinstance(exc, OutputError):
            _silence_stdout()
        return exc.exit_code
    except Exception as exc:  # a bug: say so in one line (and show where, when debugging)
        if debug:
            _show_traceback(exc)
        CONSOLE.err(f"gpujob: internal error: {type(exc).__name__}: {exc}")
        CONSOLE.err("  hint: this is a bug in gpujob; run again with GPUJOB_DEBUG=1 for the "
                    "traceback and report it")
        return EXIT_INTERNAL


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") from None


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush of what is still buffered does
    not fail again (and turn the exit code into 120)."""
    with contextlib.suppress(OSError, ValueError):  # ValueError: a test's capture has no fd
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _show_traceback(exc: BaseException) -> None:
    """The traceback of ``exc`` (its causes included) on stderr, every line through the
    console's secret masking (``gpujob.redact.scrub``): exception texts may quote a server's
    answer, and an answer may hold a token. Local variables are not shown (they hold the
    credentials objects and key data); the text of the exceptions is."""
    import traceback

    lines = traceback.TracebackException.from_exception(exc).format()
    CONSOLE.err("".join(lines).rstrip("\n"))
