"""The files named on the command line: each one there and readable, or one clear message.

Every command says the same about the same path: ``no such file: X`` for a path that does not
exist (``validate``, ``submit``, ``local``, ``--catalog``), ``file name too long`` for one the
system refuses to look up, and, for ``-``, whether standard input is there at all. These are
usage errors (exit 2): the command line names something that cannot be read.

``validate DIR`` checks the configs under DIR. A directory under it that cannot be read is not
skipped in silence: it is reported in the same report as a finding (``load.io``) of its own, as
an unreadable file is, so that the run ends 1, whatever the readable files say: nothing is
called valid that was not read. An existing directory with no configs in it is a usage error of
its own, not "no such file".
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import Any

import click

from gpujob.console import safe
from gpujob.errors import UsageError

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
PATH_HINT = "check the paths (a quoted glob is not expanded by the shell)"


def _shown(path: str) -> str:
    text = safe(path)
    return text if len(text) <= 100 else f"{text[:60]}…{text[-20:]} ({len(path)} characters)"


def path_problem(path: str, *, directory: bool = False, what: str = "a config file"
                 ) -> str | None:
    """What is wrong with naming ``path`` (``directory``: a directory will do; ``what``: the
    kind of file wanted, for the message), or None."""
    if path == "-":
        return ("- reads standard input, and standard input is closed"
                if sys.stdin is None else None)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return f"no such file: {_shown(path)}"
        if exc.errno == errno.ENAMETOOLONG:
            return f"file name too long: {_shown(path)}"
        if exc.errno == errno.ENOTDIR:
            return f"no such file: {_shown(path)} (a part of it is not a directory)"
        return f"cannot read {_shown(path)}: {exc.strerror}"
    except ValueError:  # a NUL byte
        return f"no such file: {_shown(path)}"
    if stat.S_ISDIR(mode) and not directory:
        return f"{_shown(path)} is a directory, not {what}"
    return None


def require(path: str, *, directory: bool = False, what: str = "a config file") -> str:
    """``path``, or ``UsageError`` saying what is wrong with it."""
    problem = path_problem(path, directory=directory, what=what)
    if problem:
        raise UsageError(problem, PATH_HINT if problem.startswith("no such") else None)
    return path


class ExistingFile(click.ParamType):
    """A click type for a file argument or option: checked as ``require`` checks it, so that
    a missing file is ``no such file`` here as from ``validate``. ``what``: the kind of file
    (``a credentials file``), for the message about a directory."""

    name = "file"

    def __init__(self, what: str = "a config file") -> None:
        self.what = what

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> str:
        """The path; a problem with a flag's file names the flag (``--credentials-file: no
        such file: key.json``), as a command's own argument needs not."""
        try:
            return require(str(value), what=self.what)
        except UsageError as exc:
            if isinstance(param, click.Option) and param.opts:
                exc.message = f"{param.opts[0]}: {exc.message}"
            raise

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str
                       ) -> list[Any]:
        """The shell completes file names, as for click's own ``Path``."""
        from click.shell_completion import CompletionItem

        return [CompletionItem(incomplete, type="file")]


def expand(paths: tuple[str, ...]) -> tuple[list[str], list[tuple[str, str]]]:
    """The files to check (a directory stands for the configs under it, in sorted order) and
    the directories under those that could not be read, as (path, why). ``UsageError`` for
    paths that cannot be used at all, all of them in one message."""
    files: list[str] = []
    unreadable: list[tuple[str, str]] = []
    problems: list[str] = []
    for path in paths:
        problem = path_problem(path, directory=True)
        if problem:
            problems.append(problem)
        elif path != "-" and os.path.isdir(path):
            found, failed = _walk(path)
            if not found and not failed:
                problems.append(f"no configs in {_shown(path)}: the directory has no .yaml, "
                                ".yml or .json files")
            files += found
            unreadable += failed
        else:
            files.append(path)
    if problems:
        missing = all(p.startswith("no such file: ") for p in problems)
        message = ("no such file: " + ", ".join(p[len("no such file: "):] for p in problems)
                   if missing else "; ".join(problems))
        raise UsageError(message, PATH_HINT if missing else None)
    return files, unreadable


def _walk(top: str) -> tuple[list[str], list[tuple[str, str]]]:
    failed: list[tuple[str, str]] = []

    def note(exc: OSError) -> None:
        failed.append((exc.filename or top, exc.strerror or str(exc)))

    found = sorted(os.path.join(root, name) for root, _, names in os.walk(top, onerror=note)
                   for name in names if name.endswith(CONFIG_SUFFIXES))
    return found, failed
