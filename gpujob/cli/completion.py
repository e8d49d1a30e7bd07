"""``gpujob completion SHELL``: the shell completion script, click's own.

It is the script click prints for ``_GPUJOB_COMPLETE=SHELL_source gpujob``: the shell then asks
``gpujob`` itself for the candidates (``SHELL_complete``), so they are always this version's
commands and options, and the GPU types, machine types, regions and zones of the catalog in use
(``gpujob.cli.candidates``).
"""

from __future__ import annotations

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_GPUJOB_COMPLETE"  # click's name for it: _{PROG_NAME}_COMPLETE


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c1="standard output could not be written (closed, or a full disk)"))
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> int:
    """Print the shell completion script for bash, zsh or fish.

    TAB then completes commands, options and file names, and from the catalog in use (the
    built-in one, or --service and --catalog when they are on the command line) GPU types,
    machine types, regions, zones and --*-accelerator values.

    \b
    Install it once:
      bash (4.4 or newer), in ~/.bashrc:   eval "$(gpujob completion bash)"
      zsh, in ~/.zshrc (after compinit):   eval "$(gpujob completion zsh)"
      fish:   gpujob completion fish > ~/.config/fish/completions/gpujob.fish
    To start shells faster, save the script to a file and source that instead.
    """
    from click.shell_completion import get_completion_class

    complete = get_completion_class(shell)
    assert complete is not None  # click has each of SHELLS
    root = ctx.find_root()
    CONSOLE.out(complete(root.command, {}, root.info_name or "gpujob", COMPLETE_VAR).source())
    return EXIT_OK
