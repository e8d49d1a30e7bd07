"""What every command module shares: click's settings, the exit codes' help, the catalog."""

from __future__ import annotations

from typing import Any

import click

_EXIT_CODES = {
    0: "success",
    1: "invalid config (or a validation that found problems, or a trainer package that does "
       "not build); also: standard output could not be written",
    2: "usage error (a bad flag, a missing file)",
    3: "the remote side failed (credentials, network, API, storage)",
    4: "the job ended unsuccessfully",
    70: "internal error (a bug in gpujob: please report it)",
    130: "interrupted",
}


def exit_codes_help(*codes: int, **meanings: str) -> str:
    """The exit codes one command can return, for its --help (70, a bug, is always added);
    ``meanings``: what a code means for this command, as ``c1="…"``, when it is not the
    general meaning."""
    lines = ["\b", "Exit codes:"]
    for code in sorted({*codes, 70}):
        text = meanings.get(f"c{code}", _EXIT_CODES[code])
        wrapped = _wrap(text, 80)
        lines.append(f"  {code:<4} {wrapped[0]}")
        lines += [f"       {more}" for more in wrapped[1:]]
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int) -> list[str]:
    """``text``'s words in lines of at most ``width`` characters (a word longer stays whole):
    what ``textwrap.wrap`` makes of these texts, without its import and regexes, which every
    command's start-up would pay for (the help is built at import)."""
    lines = [""]
    for word in text.split():
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}" if lines[-1] else word
    return lines


# the root command's: every code
EXIT_CODES_HELP = exit_codes_help(0, 1, 2, 3, 4, 130)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# parameters that name files: any bytes the system allows are fine there (they are shown with
# the bytes that are not UTF-8 escaped); every other value may reach the API, which takes UTF-8
PATH_PARAMETERS = frozenset({"config", "config_file", "positional", "files", "catalog",
                             "credentials_file", "package_path"})


def _not_utf8(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(ctx: click.Context) -> None:
    """``UsageError`` for the first value given that is not valid UTF-8 (Python holds the bytes
    that are not as lone surrogates), naming its flag (or its environment variable)."""
    from click.core import ParameterSource

    from gpujob.console import safe
    from gpujob.errors import UsageError

    for param in ctx.command.params:
        if param.name is None or param.name in PATH_PARAMETERS:
            continue
        value = ctx.params.get(param.name)
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if not _not_utf8(item):
                continue
            flag = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
            if ctx.get_parameter_source(param.name) == ParameterSource.ENVIRONMENT:
                flag = f"{flag} (from the environment)"
            shown = f"{item[:60]}…" if len(item) > 60 else item
            if param.name == "set_":
                flag, shown = f"--set {shown.partition('=')[0]}", shown.partition("=")[2]
            raise UsageError(f"{flag}: '{safe(shown)}' is not valid UTF-8",
                             "the API takes text as UTF-8; fix the value's encoding "
                             "(iconv converts files, and a shell's $'…' writes bytes)")


class GpujobCommand(click.Command):
    """A command whose option values are checked before it runs (``check_text``)."""

    def invoke(self, ctx: click.Context) -> Any:
        check_text(ctx)
        return super().invoke(ctx)
