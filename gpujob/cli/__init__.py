"""The ``gpujob`` command line: one module per command group, each options -> settings ->
execute(settings).

The root group knows its commands by name, with a summary of each, and imports a command's module
only when that command runs or its own help is shown: ``gpujob --help`` and TAB on a command
name import none, ``validate`` loads nothing it does not use, and the Google client libraries are
imported only by the commands that talk to Google.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from importlib import import_module
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from typing import NamedTuple

    from click.shell_completion import CompletionItem
else:
    from gpujob.tuples import NamedTuple

class Entry(NamedTuple):
    """A command in the table: where it is, and what ``gpujob --help`` and TAB say of it."""

    target: str  # "module:attribute" under gpujob.cli
    summary: str  # the first paragraph of its help (test_lazy_commands.py checks it)


COMMANDS: dict[str, Entry] = {
    "validate": Entry("validate:validate", "Check configs against the Job schema and the GPU "
                      "compatibility rules."),
    "gpus": Entry("gpus:gpus", "Which GPUs can I use, on which machine types, how many, and "
                  "where?"),
    "rules": Entry("rules:rules", "List the compatibility rules: id, severity, services and "
                   "what each checks."),
    "submit": Entry("submit:submit", "Check CONFIG, apply the flags, and submit it as a "
                    "training job."),
    "local": Entry("submit:local_command", "Run CONFIG's job on this machine: one process per "
                   "replica, the cluster emulated."),
    "convert": Entry("convert:convert", "Translate an AI Platform config into a native Vertex "
                     "AI config."),
    "describe": Entry("lifecycle:describe", "Show a job: its state, its spec, and links to it "
                      "in the Cloud console (a tuning job's trials and the best one too; a "
                      "recovered job's attempts, with what each cost)."),
    "list": Entry("lifecycle:list_", "List the project's training jobs, newest first (vertex: "
                  "those of --region, custom and tuning jobs, with their display names)."),
    "cancel": Entry("lifecycle:cancel", "Cancel a job: it stops and ends CANCELLED. JOB as for "
                    "describe."),
    "cost": Entry("cost:cost", "What Vertex AI jobs were billed, from your Cloud Billing "
                  "export to BigQuery."),
    "wait": Entry("lifecycle:wait", "Wait for a job to end, telling its state changes on "
                  "stderr."),
    "logs": Entry("lifecycle:logs", "Print a job's logs from Cloud Logging (TIMESTAMP SEVERITY "
                  "TASK: MESSAGE; vertex tasks are workerpool0-0, …, and service). JOB as for "
                  "describe."),
    "schema": Entry("schemas:schema", "Print a JSON Schema gpujob checks files against, for "
                    "editors and other tools."),
    "preflight": Entry("preflight:preflight", "Check CONFIG as submit would, and the "
                       "project's Vertex AI quota for it (gke: the cluster): send nothing."),
    "reserve": Entry("reserve:reserve", "Which calendar-mode windows does Compute Engine "
                     "offer for these GPUs, and how to ask?"),
    "completion": Entry("completion:completion", "Print the shell completion script for bash, "
                        "zsh or fish."),
    "catalog": Entry("catalog:catalog", "The catalog gpujob checks jobs against: refresh its "
                     "live parts from Google's APIs."),
}


def summary(name: str) -> click.Command:
    """A stand-in for command ``name`` that has only its summary: enough for the lists of
    commands, which click shortens from the help's first paragraph
    (``Command.get_short_help_str``)."""
    return click.Command(name, help=COMMANDS[name].summary)


class _Commands(click.Group):
    """A group whose commands are imported only when one runs or its own help is shown (click's
    lazy group, documented under "Lazily Loading Subcommands"): the lists of commands, in
    ``gpujob --help`` and on TAB, are made from the table's summaries."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, _, name = COMMANDS[cmd_name].target.partition(":")
        command: click.Command = getattr(import_module(f"gpujob.cli.{module}"), name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's ``Group.format_commands``, over the summaries."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary(name).get_short_help_str(limit))
                                for name in names])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """click's ``Group.shell_complete``, over the summaries: the command names (and their
        help, which zsh and fish show), then the group's options."""
        from click.shell_completion import CompletionItem

        return [CompletionItem(name, help=summary(name).get_short_help_str())
                for name in self.list_commands(ctx) if name.startswith(incomplete)
                ] + click.Command.shell_complete(self, ctx, incomplete)


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


# A command imports some 500 modules and builds a few hundred thousand objects it keeps to the
# end; at Python's default threshold (700) the cyclic collector scans them some 160 times, and
# once more at exit: a tenth of a submit's CPU. Rarer collections still bound what a long
# ``--wait`` leaves for the collector.
_GC_THRESHOLD = 100_000


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; map every failure a user can cause to one message and an exit code.

    ``GPUJOB_DEBUG=1`` adds the traceback (secrets masked, see ``_show_traceback``) and changes
    nothing else: the messages and the exit code are the same. The collector runs rarely while
    the command does (``_GC_THRESHOLD``); run as the process (``argv`` None: the console
    script, ``python -m gpujob``), what is left is frozen at the end, so that the collection
    at exit has nothing to scan. Called with ``argv``, the caller's settings are restored."""
    threshold = gc.get_threshold()
    gc.set_threshold(_GC_THRESHOLD, *threshold[1:])
    try:
        return _run(argv)
    finally:
        gc.set_threshold(*threshold)
        if argv is None:
            gc.freeze()


def _run(argv: list[str] | None) -> int:
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
