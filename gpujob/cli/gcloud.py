"""gcloud's command line, taken unchanged where gpujob can:

    gcloud ai-platform jobs submit training JOB --config config.yaml [FLAGS] --async -- ARGS
    gpujob                  submit training JOB --config config.yaml [FLAGS] --async -- ARGS

- with ``--config FILE`` the positional argument is the job's ID, as in gcloud; without it, it
  is the config file (gpujob's own form, ``gpujob submit config.yaml``);
- ``training`` before JOB (gcloud's command is ``jobs submit training``) is skipped;
- ``--async`` is accepted: gpujob returns once the job is created unless --wait or
  --stream-logs asks it to follow the job (with which --async, as in gcloud, does not go);
- a bucket-only ``--job-dir gs://BUCKET`` is sent as ``gs://BUCKET/``, as gcloud sends it
  (gcloud parses it as a Cloud Storage object with an empty name and sends its URL), with a note.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import click
from click.shell_completion import CompletionItem

from gpujob.cli.files import PATH_HINT, ExistingFile, path_problem
from gpujob.cli.options import stack
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import UsageError
from gpujob.findings import Location
from gpujob.submit.settings import SubmitSettings

JOB_DIR = ("trainingInput", "jobDir")
_JOB_DIR_FLAGS = ("--job-dir", "GPUJOB_JOB_DIR")  # the flag, or its environment variable


def _files(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(incomplete, type="file")]


def config_arguments(func: Any) -> Any:
    """CONFIG, or gcloud's JOB with --config CONFIG."""
    return stack(
        click.argument("positional", nargs=-1, metavar="CONFIG | JOB --config CONFIG",
                       shell_complete=_files),
        click.option("--config", "config_file", metavar="CONFIG", type=ExistingFile(),
                     help="The config file, as gcloud takes it: the positional argument is "
                          "then the job's ID (gpujob submit JOB --config config.yaml)."),
    )(func)


def _a_file(arg: str) -> bool:
    """Whether ``arg`` names a config (a file, or - for standard input) rather than a job ID."""
    from pathlib import Path

    return arg == "-" or "." in arg or "/" in arg or Path(arg).exists()


async_option_help = (
    "Return once the job is submitted, as gpujob does unless --wait or --stream-logs is given "
    "(gcloud's flag, accepted so that its command lines work unchanged).")


def take_config(ctx: click.Context, params: dict[str, Any], word: str | None) -> dict[str, Any]:
    """``params`` with ``config`` (the file) and ``job`` (a positional job ID, or None) in
    place of the positional arguments and --config. ``word``: gcloud's name of the command
    (``training``), skipped before a job ID."""
    params = dict(params)
    args = list(params.pop("positional"))
    config = params.pop("config_file")
    gcloud_word = bool(word) and len(args) >= 2 and args[0] == word
    if gcloud_word:
        args = args[1:]
    if len(args) > 1:
        raise click.UsageError(
            f"Got unexpected extra argument ({args[1]}): give one config file, or a job ID "
            f"and the file as gcloud does: gpujob {ctx.info_name} JOB --config CONFIG", ctx)
    if config is not None:
        params["config"], params["job"] = config, (args[0] if args else None)
        return params
    from gpujob.cli.gcloud_jobs import flag_only

    if flag_only(params) and (gcloud_word or not args or not _a_file(args[0])):
        # the job from the flags alone, as gcloud builds it: JOB is its ID
        params["config"], params["job"] = None, (args[0] if args else None)
        return params
    if not args:
        raise click.MissingParameter(ctx=ctx, param_hint="'CONFIG'", param_type="argument")
    problem = path_problem(args[0])
    if problem:  # said as every command says it (cli.files)
        hint = (f"gcloud's form names the file with --config: gpujob {ctx.info_name} {word} "
                f"{args[0]} --config CONFIG" if gcloud_word else
                PATH_HINT if problem.startswith("no such") else None)
        raise UsageError(problem, hint)
    params["config"] = args[0]
    params["job"] = None
    return params


def check_async(params: dict[str, Any]) -> None:
    """--async says not to follow the job: not with --wait or --stream-logs (gcloud refuses
    --async with --stream-logs too)."""
    if params["async_"] and (params["wait"] or params["stream_logs"]):
        given = "--wait" if params["wait"] else "--stream-logs"
        raise UsageError(f"--async and {given} do not go together",
                         f"--async returns once the job is submitted; {given} follows it")


def adjust(settings: SubmitSettings, params: dict[str, Any]) -> SubmitSettings:
    """``settings`` with gcloud's spellings applied: the positional job ID (it must agree with
    --job-id), and a bucket-only --job-dir as gcloud sends it."""
    overrides = [_job_dir(o) for o in settings.overrides]
    job = params.get("job")
    if job is not None:
        if params.get("job_id") not in (None, job):
            raise UsageError(f"the job ID is given twice: {job} and --job-id {params['job_id']}",
                             "give it once: as JOB before --config, or with --job-id")
        overrides.append(Override(("jobId",), job, Location("command line", flag="JOB")))
    return dataclasses.replace(settings, overrides=overrides)


def _job_dir(override: Override) -> Override:
    value = override.value
    if (override.path != JOB_DIR or override.origin.flag not in _JOB_DIR_FLAGS
            or not isinstance(value, str) or not value.startswith("gs://")
            or "/" in value[len("gs://"):] or value == "gs://"):
        return override
    CONSOLE.err(f"note: {override.origin.flag} {value} is sent as {value}/ (the bucket's root), "
                "as gcloud sends it")
    return dataclasses.replace(override, value=value + "/")
