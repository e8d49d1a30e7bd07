"""Which of ``submit``'s flags apply where: one table, consulted by ``submit`` and ``local``.

A job is handled in one of three modes: sent to the cloud (``submit``), printed (``submit
--dry-run``), or run here (``gpujob local``, ``submit --local``: the same mode, so the same
answers). Both commands accept every flag, so that each misuse gets the table's message rather
than "No such option" from one command and a clear error from the other; ``local --help`` hides
the flags that do not apply to it.

Every flag belongs to one group, and each group either applies in a mode, is unused there (it is
accepted and a note says it is not used: a setting the mode does not need, such as credentials
for a dry run that sends nothing), or is refused (a usage error: the flag asks for something the
mode cannot do, such as waiting for a job that a dry run never sends). Flags not in the table
describe the job (its fields, ``--set``, ``--unset``, labels, packages, the checks) and apply
everywhere. Only flags given on the command line count; environment variables are settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from gpujob.console import CONSOLE
from gpujob.errors import UsageError

Mode = Literal["submit", "dry-run", "local"]
Use = Literal["applies", "unused", "refused"]
MODES: tuple[Mode, ...] = ("submit", "dry-run", "local")

# group: its flags, and how it is used in each mode (submit, dry-run, local)
GROUPS: dict[str, tuple[tuple[str, ...], dict[Mode, Use]]] = {
    "following": (("--wait", "--stream-logs", "--poll-interval"),
                  {"submit": "applies", "dry-run": "refused", "local": "refused"}),
    # --async: gcloud's, for its command lines to work unchanged; gpujob does not follow a
    # job unless asked, so it changes nothing (and is said nothing about) in the cloud modes
    "cloud output": (("--staging-bucket", "--format", "--async"),
                     {"submit": "applies", "dry-run": "applies", "local": "refused"}),
    "budget": (("--max-hourly-cost", "--max-cost"),
               {"submit": "applies", "dry-run": "applies", "local": "unused"}),
    "address": (("--project", "--api-endpoint", "--verbose"),
                {"submit": "applies", "dry-run": "applies", "local": "unused"}),
    "connection": (("--credentials-file", "--impersonate-service-account", "--max-attempts",
                    "--retry-deadline", "--request-timeout"),
                   {"submit": "applies", "dry-run": "unused", "local": "unused"}),
    # Vertex AI's quota preflight, and --order's advice, run before a submit only: a dry run
    # reads no quota and no advice
    "preflight": (("--no-preflight", "--order"),
                  {"submit": "applies", "dry-run": "unused", "local": "unused"}),
    "local run": (("--max-local-replicas", "--grace-period", "--preempt-after"),
                  {"submit": "refused", "dry-run": "refused", "local": "applies"}),
    # a job created again after the infrastructure ended it (submit), or after the drill's
    # preemption (local)
    "recovery": (("--recover",), {"submit": "applies", "dry-run": "refused", "local": "applies"}),
    "recovery of exit codes": (("--recover-on-exit-codes",),
                               {"submit": "applies", "dry-run": "refused", "local": "refused"}),
}

# (group, mode) -> why a refused flag is refused, and the way forward
REFUSALS: dict[tuple[str, Mode], tuple[str, str]] = {
    ("following", "dry-run"): (
        "for following a submitted job, and --dry-run submits nothing",
        "leave out --dry-run to submit the job and follow it"),
    ("following", "local"): (
        "for jobs in the cloud, not for local runs",
        "a local run uses the package where it is, streams its replicas' output and exits "
        "with the master's status"),
    ("cloud output", "local"): (
        "for jobs in the cloud, not for local runs",
        "a local run uses the package where it is, streams its replicas' output and exits "
        "with the master's status"),
    ("local run", "submit"): (
        "for local runs (gpujob local, or submit --local)",
        "add --local to run the job on this machine"),
    ("recovery", "dry-run"): (
        "for following a submitted job and creating it again, and --dry-run submits nothing",
        "leave out --dry-run to submit the job"),
    ("recovery of exit codes", "dry-run"): (
        "for following a submitted job and creating it again, and --dry-run submits nothing",
        "leave out --dry-run to submit the job"),
    ("recovery of exit codes", "local"): (
        "for jobs in the cloud, not for local runs",
        "a local run uses the package where it is, streams its replicas' output and exits "
        "with the master's status"),
    ("local run", "dry-run"): (
        "for local runs (gpujob local, or submit --local)",
        "a dry run prints the request for the cloud; gpujob local runs the job here"),
}
UNUSED: dict[Mode, str] = {
    "dry-run": "not used by a dry run, which sends nothing",
    "local": "not used by a local run, which talks to no service",
}

# --help of gpujob local: the wording of job flags whose cloud wording would mislead there
LOCAL_HELP: dict[str, str] = {
    "--job-dir": "Where the replicas write (passed to each as --job-dir): a local directory or "
                 "a gs:// path (default: a new local directory).",
    "--packages": "Local wheels and sdists the trainer needs, comma-separated: installed for "
                  "the run with pip (--no-deps) onto the replicas' PYTHONPATH (gs:// ones "
                  "cannot be fetched here).",
    "--package-path": "The trainer's Python package (a directory holding __init__.py): the "
                      "module runs from its parent (default: the current directory).",
    "--region": "The region the config is checked for; a local run does not use it.",
    "--service-account": "Checked as for the cloud; a local run runs as you.",
    "--network": "Checked as for the cloud; a local run uses this machine's network.",
    "--kms-key": "Checked as for the cloud; a local run encrypts nothing.",
    "--labels": "Labels of the job (KEY=VALUE,…), checked as for the cloud.",
    "--enable-web-access": "Checked as for the cloud; a local run has no web access to give.",
}


def group_of(flag: str) -> str | None:
    return next((name for name, (flags, _) in GROUPS.items() if flag in flags), None)


def use(flag: str, mode: Mode) -> Use:
    """How ``flag`` is used in ``mode`` (a flag outside the table applies everywhere)."""
    group = group_of(flag)
    return "applies" if group is None else GROUPS[group][1][mode]


def _named(flags: list[str]) -> str:
    verb = "are" if len(flags) > 1 else "is"
    return f"{' and '.join(flags)} {verb}"


def check(mode: Mode, given: Iterable[str]) -> None:
    """Refuse, in one usage error, the flags of ``given`` that ``mode`` cannot honour; say in a
    note which are not used."""
    given = list(dict.fromkeys(given))
    refused: dict[str, list[str]] = {}  # why -> the flags refused for it
    hints: list[str] = []
    for flag in given:
        group = group_of(flag)
        if group is not None and use(flag, mode) == "refused":
            why, hint = REFUSALS[(group, mode)]
            refused.setdefault(why, []).append(flag)
            hints += [hint] if hint not in hints else []
    if refused:
        raise UsageError("; ".join(f"{_named(flags)} {why}" for why, flags in refused.items()),
                         "; ".join(hints))
    unused = [flag for flag in given if use(flag, mode) == "unused"]
    if unused:
        CONSOLE.err(f"note: {_named(unused)} {UNUSED[mode]}")


def mode_of(local: bool, dry_run: bool) -> Mode:
    """The mode ``--local`` (or ``gpujob local``) and ``--dry-run`` ask for."""
    if local and dry_run:
        raise UsageError("--dry-run and --local do not go together",
                         "--dry-run prints the request for the cloud; --local runs the job here")
    return "local" if local else "dry-run" if dry_run else "submit"


def table() -> list[tuple[str, dict[Mode, Use]]]:
    """The table, flag by flag in the order above (for docs/local.md and the tests)."""
    return [(flag, uses) for flags, uses in GROUPS.values() for flag in flags]


def markdown() -> str:
    """The table as docs/local.md shows it."""
    mark = {"applies": "yes", "unused": "not used (a note)", "refused": "refused"}
    rows = ["| flag | `submit` | `submit --dry-run` | `local`, `submit --local` |",
            "|---|---|---|---|"]
    for flags, uses in GROUPS.values():
        names = ", ".join(f"`{flag}`" for flag in flags)
        rows.append(f"| {names} | " + " | ".join(mark[uses[mode]] for mode in MODES) + " |")
    return "\n".join(rows) + "\n"
