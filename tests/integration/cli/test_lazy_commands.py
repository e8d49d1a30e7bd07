"""``gpujob --help`` and TAB on a command name import no command's module (issue 20): the root
group lists its commands from a table of summaries (``gpujob.cli.COMMANDS``), and imports a
command's module only when that command runs or its own help is shown. What they print is what
the commands themselves would make of their help."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest

from gpujob.cli import COMMANDS, cli

MODULES = sorted({f"gpujob.cli.{entry.target.partition(':')[0]}" for entry in COMMANDS.values()})
PROBE = ("import json, sys\nfrom gpujob.cli import main\ntry:\n    main({args})\nfinally:\n"
         "    print(json.dumps(sorted(m for m in sys.modules if m in {modules!r})), "
         "file=sys.stderr)\n")


def _run(args: list[str] | None = None, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    """``gpujob ARGS`` in a new Python; its stderr ends with the command modules it imported."""
    probe = PROBE.format(args=args, modules=MODULES)
    return subprocess.run([sys.executable, "-c", probe], env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=60)


def _imported(result: subprocess.CompletedProcess[str]) -> list[str]:
    return json.loads(result.stderr.splitlines()[-1])


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_is_the_first_paragraph_of_the_commands_help(name):
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and not command.hidden and command.short_help is None
    first = (command.help or "").split("\n\n")[0]
    assert COMMANDS[name].summary == " ".join(first.split())


def test_help_lists_every_command_and_imports_none():
    result = _run(["--help"])
    assert _imported(result) == []
    listed = result.stdout.split("Commands:\n")[1].split("\n\n")[0]
    assert [line.split()[0] for line in listed.splitlines() if line.startswith("  ")
            and not line.startswith("   ")] == sorted(COMMANDS)
    assert "  validate    Check configs against the Job schema and the GPU" in result.stdout


def test_a_commands_own_help_imports_its_module_only():
    result = _run(["submit", "--help"])
    assert _imported(result) == ["gpujob.cli.submit"]
    assert "--package-path" in result.stdout


def test_tab_on_a_command_name_imports_none_and_describes_each():
    result = _run(env={"_GPUJOB_COMPLETE": "zsh_complete", "COMP_WORDS": "gpujob ",
                       "COMP_CWORD": "1"})
    assert _imported(result) == []
    lines = result.stdout.splitlines()
    assert lines[1::3] == sorted(COMMANDS)
    # each described as click describes the command itself (its short help, 45 characters)
    assert lines[2::3] == [cli.get_command(click.Context(cli), name).get_short_help_str()
                           for name in sorted(COMMANDS)]
    assert lines[lines.index("wait") + 1] == "Wait for a job to end, telling its state..."
