"""``gpujob submit`` and ``gpujob local``: one job, checked, then sent, dry-run or run here.

Both take the options that describe the job (``jobflags.job_options``); ``submit`` adds the
cloud's (where to send it, how to follow it, how to reach Google), ``local`` how to run it here.
"""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli import gcloud, gcloud_jobs, modes
from gpujob.cli.choices import preflight_option, preflight_option_of, take_choices, with_choices
from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.jobflags import job_options, local_options, submit_settings
from gpujob.cli.options import (
    budget_option_of,
    format_option,
    gcp_options_of,
    given_flags,
    poll_option_of,
    stack,
)
from gpujob.cli.params import ExitCodes, Project
from gpujob.submit.output import FORMATS


class UserArgsCommand(GpujobCommand):
    """Keeps everything after the first ``--`` out of option parsing, byte for byte: it is the
    trainer's arguments (``ctx.meta["user_args"]``; None when there is no ``--``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta["user_args"] = args[cut + 1:]
            args = args[:cut]
        else:
            ctx.meta["user_args"] = None
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if exc.possibilities:
                raise
            raise click.NoSuchOption(
                exc.option_name, ctx=ctx,
                message=f"No such option: {exc.option_name}. Arguments for the trainer go "
                        f"after --, as in: gpujob {ctx.info_name} CONFIG [FLAGS] -- "
                        f"{exc.option_name} …") from None


def cloud_options(hidden: bool = False) -> Any:
    """What ``submit`` adds for a job in the cloud (and --local, to run it here instead);
    ``hidden``: accepted, not shown, for ``gpujob local`` (``modes`` answers them)."""
    return stack(
        click.option("--dry-run", is_flag=True, hidden=hidden,
                     help="Check the job and print the exact Job body it would POST, as JSON "
                          "on stdout; send nothing. Needs no credentials."),
        click.option("--local", is_flag=True, hidden=hidden,
                     help="Run the job on this machine instead, one process per replica, as "
                          "gpujob local does."),
        click.option("--project", type=Project(), envvar=["GPUJOB_PROJECT", "GOOGLE_CLOUD_PROJECT",
                                          "CLOUDSDK_CORE_PROJECT"], show_envvar=True,
                     hidden=hidden, help="Google Cloud project to submit to."),
        click.option(
            "--staging-bucket", metavar="gs://BUCKET", envvar="GPUJOB_STAGING_BUCKET",
            show_envvar=True, hidden=hidden,
            help="Where local packages are staged: gs://BUCKET/packages/ (default: the job "
                 "directory's packages/). Each goes to packages/SHA256/NAME, so an unchanged "
                 "package is uploaded once."),
        click.option("--wait", is_flag=True, hidden=hidden,
                     help="After submitting, wait for the job to end (exit 4 if it fails)."),
        click.option("--stream-logs", is_flag=True, hidden=hidden,
                     help="After submitting, print the job's logs until it ends (exit 4 if it "
                          "fails)."),
        click.option("--recover-on-exit-codes", type=ExitCodes(), metavar="CODES",
                     hidden=hidden,
                     help="With --recover: recover a job that ended FAILED with one of these "
                          "exit codes too (comma-separated, e.g. 137,143: SIGKILL, SIGTERM); "
                          "the trainer's other failures are not recovered."),
        click.option("--async", "async_", is_flag=True, hidden=hidden,
                     help=gcloud.async_option_help),
        poll_option_of(hidden),
        format_option(FORMATS, "json prints the JSON envelope of the job (version 1: service, "
                               "job, raw: the API's object, warnings) on stdout, and an "
                               "invalid config's findings as validate --format json does.",
                      hidden=hidden),
        budget_option_of(hidden),
        gcp_options_of(hidden),
    )


@click.command(cls=UserArgsCommand, context_settings=CONTEXT,
               epilog=exit_codes_help(0, 1, 2, 3, 4, 130, c4="the job ended unsuccessfully "
                                      "(--wait, --stream-logs, --local); with --recover: the "
                                      "last attempt, or the cost cap stopped recovery"))
@job_options()
@gcloud_jobs.options
@cloud_options()
@preflight_option
@local_options()
@click.pass_context
def submit(ctx: click.Context, **params: Any) -> int:
    """Check CONFIG, apply the flags, and submit it as a training job.

    CONFIG is a Job resource in YAML or JSON (- reads standard input). Flags override the file
    field by field, as gcloud ai-platform jobs submit training does; arguments after -- are
    passed to the trainer unchanged (they replace the file's args). Settings come from the flag,
    else the environment variable shown, else the file. gcloud's command line works as it is:
    gpujob submit [training] JOB --config CONFIG [FLAGS] [--async] -- ARGS.

    \b
    Examples:
      gpujob submit config.yaml --dry-run
      gpujob submit config.yaml --dry-run --worker-count 2 \\
          --worker-accelerator count=2,type=nvidia-tesla-t4 -- --epochs 10
      gpujob submit configs/a100-single-node.yaml --strategy flex_start \\
          --set trainingInput.scheduling.maxWaitTime=3600s --dry-run
      gpujob submit config.yaml --project my-proj --stream-logs
      gpujob submit config.yaml --strategy spot --region us-central1,us-east4 \\
          --job-dir gs://my-bucket/run1 --recover 3 --recover-on-exit-codes 137
      gpujob submit config.yaml --package-path trainer --module-name trainer.task \\
          --staging-bucket gs://my-bucket
      gpujob submit config.yaml --local --package-path trainer/ --module-name trainer.task \\
          -- --epochs 1
      gpujob submit training my_job_1 --config config.yaml --region us-central1 --async
      gpujob submit --region us-central1 --display-name run1 --dry-run \\
          --worker-pool-spec=machine-type=n1-standard-8,container-image-uri=IMAGE
    """
    from gpujob.commands.submit import execute

    params = gcloud.take_config(ctx, params, word="training")
    mode = modes.mode_of(params["local"], params["dry_run"])
    modes.check(mode, given_flags(ctx))
    gcloud.check_async(params)
    params, regions, strategies = take_choices(params)
    settings = gcloud_jobs.take(submit_settings(ctx, params, local=mode == "local"), params)
    return execute(gcloud.adjust(with_choices(settings, params, regions, strategies), params))


@click.command("local", cls=UserArgsCommand, context_settings=CONTEXT,
               epilog=exit_codes_help(
                   0, 1, 2, 4, 130, c0="the master exited with 0",
                   c1="invalid config; also: standard output could not be written",
                   c4="the master exited with another code, or was killed"))
@job_options(local=True)
@gcloud_jobs.options_of(hidden=True)
@cloud_options(hidden=True)
@preflight_option_of(hidden=True)
@local_options()
@click.pass_context
def local_command(ctx: click.Context, **params: Any) -> int:
    """Run CONFIG's job on this machine: one process per replica, the cluster emulated.

    Each replica (the master, the workers, parameter servers and evaluators of the config) runs
    python -m MODULE ARGS --job-dir DIR from the parent of --package-path, with the TF_CONFIG,
    CLUSTER_SPEC, MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK the service would set, on free
    localhost ports, and its share of this machine's GPUs in CUDA_VISIBLE_DEVICES (set
    GPUJOB_LOCAL_GPUS=0,1 to choose them). Their output is one stream, each line prefixed with
    its replica. The master's exit ends the run: 0, else exit 4; the others are then stopped.
    For Vertex AI (--service vertex) they are what a Vertex replica sees: the translated job's
    pools (CLUSTER_SPEC's workerpool0-3), RANK and WORLD_SIZE over every replica, and
    AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and AIP_TENSORBOARD_LOG_DIR under the job dir.

    The config is checked as for the cloud first, and takes the same flags as submit; the job
    dir may be a local directory (default: a new one).

    \b
    Examples:
      gpujob local config.yaml --package-path trainer/ --module-name trainer.task -- --epochs 1
      gpujob local config.yaml --module-name trainer.task --job-dir out/ --worker-count 3
    """
    from gpujob.commands.submit import execute

    params = gcloud.take_config(ctx, params, word=None)
    modes.check(modes.mode_of(True, params["dry_run"]), given_flags(ctx))
    settings = gcloud_jobs.take(submit_settings(ctx, params, local=True), params)
    return execute(gcloud.adjust(settings, params))

