"""``gpujob describe``, ``list``, ``cancel``, ``wait`` and ``logs``: following and managing jobs
in the chosen service."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.cli.options import (
    format_option,
    gcp_options,
    job_settings,
    jobs_service_option,
    place_flags,
    poll_option,
    project_option,
    region_option,
    stack,
)
from gpujob.cli.params import Count, ExitCodes, Seconds
from gpujob.submit.output import FORMATS


def remote_options(func: Any) -> Any:
    """The service, the project (and region) and how to reach Google: every command here has
    them."""
    return stack(jobs_service_option, project_option, region_option, gcp_options,
                 place_flags)(func)


# what a command that reads or changes a job can end with
_EXITS = exit_codes_help(0, 1, 2, 3, 130, c1="standard output could not be written (closed, or "
                                              "a full disk)")
_WAIT_EXITS = exit_codes_help(
    0, 1, 2, 3, 4, 130, c0="the job SUCCEEDED", c3="the remote side failed (credentials, "
    "network, API), or --timeout passed first", c4="the job ended FAILED, CANCELLED or "
    "EXPIRED",
    c1="standard output could not be written (closed, or a full disk)")

_JOB = click.argument("job", metavar="JOB")
_FORMAT = format_option(FORMATS, "json prints the job's JSON envelope (version 1: service, "
                                 "job, raw: the API's object) on stdout.")


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=_EXITS)
@_JOB
@_FORMAT
@remote_options
def describe(job: str, **params: Any) -> int:
    """Show a job: its state, its spec, and links to it in the Cloud console (a tuning job's
    trials and the best one too; a recovered job's attempts, with what each cost).

    An attempt of a job recovered with --recover shows every attempt, in each region it was
    submitted to, and the sum of their costs.

    JOB is a job ID, or projects/PROJECT/jobs/ID (ai-platform). For vertex: the job's numeric
    ID (with --region), its resource name projects/PROJECT/locations/REGION/customJobs/ID (or
    hyperparameterTuningJobs/ID), or its display name: the newest job of that name (the
    others are listed).

    \b
    Examples:
      gpujob describe my_job --region us-central1 --project my-proj
      gpujob describe my_job --region us-central1 --format json | jq -r .job.state
      gpujob describe my_job_20250101_120000 --service ai-platform --project my-proj
      gpujob describe 4126800986851246080 --service vertex --region us-central1
    """
    from gpujob.commands.jobs import execute_describe

    return execute_describe(job_settings(params, job))


@click.command("list", cls=GpujobCommand, context_settings=CONTEXT, epilog=_EXITS)
@click.option("--filter", "filter_", metavar="EXPR",
              help="The API's filter, e.g. 'state=RUNNING' or 'labels.team=vision' (vertex "
                   "also: 'display_name=\"NAME\"'; state names may leave out JOB_STATE_).")
@click.option("--limit", type=Count(min=1), help="Show at most this many jobs.")
@format_option(FORMATS, 'json prints {"version": 1, "service", "project", "jobs": [ENVELOPE, '
                        '…]} on stdout, each ENVELOPE as describe --format json prints it.')
@remote_options
def list_(**params: Any) -> int:
    """List the project's training jobs, newest first (vertex: those of --region, custom and
    tuning jobs, with their display names).

    \b
    Examples:
      gpujob list --region us-central1 --project my-proj --limit 10
      gpujob list --region us-central1 --filter state=RUNNING --format json
      gpujob list --service vertex --region us-central1 --filter 'display_name="nightly"'
    """
    from gpujob.commands.jobs import execute_list

    return execute_list(job_settings(params))


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=_EXITS)
@_JOB
@remote_options
def cancel(job: str, **params: Any) -> int:
    """Cancel a job: it stops and ends CANCELLED. JOB as for describe.

    \b
    Examples:
      gpujob cancel my_job --region us-central1 --project my-proj
      gpujob cancel nightly --service vertex --region us-central1
    """
    from gpujob.commands.jobs import execute_cancel

    return execute_cancel(job_settings(params, job))


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=_WAIT_EXITS)
@_JOB
@poll_option
@click.option("--timeout", type=Seconds(min=0), metavar="SECONDS",
              help="Stop waiting after this long (exit 3; the job keeps running).")
@click.option("--recover", type=Count(min=0), metavar="N",
              help="When the job ends FAILED for the infrastructure's cause (a preemption, a "
                   "stockout, quota, an internal error), create it again where it was, with "
                   "the same output directory, at most N times, following each (vertex).")
@click.option("--recover-on-exit-codes", type=ExitCodes(), metavar="CODES",
              help="With --recover: recover a job that ended FAILED with one of these exit "
                   "codes too (comma-separated, e.g. 137,143).")
@click.option("--max-cost", "max_cost", type=click.FloatRange(min=0), metavar="USD",
              help="With --recover: a cap on the whole job, its earlier attempts included: an "
                   "attempt gets a timeout that fits what is left; recovery stops (exit 4) "
                   "when less than 10 minutes fit.")
@_FORMAT
@remote_options
def wait(job: str, **params: Any) -> int:
    """Wait for a job to end, telling its state changes on stderr.

    Exits 0 when the job SUCCEEDED, 4 when it FAILED, was CANCELLED or EXPIRED (with its
    error message). Ctrl-C stops waiting; the job keeps running. JOB as for describe. With
    --recover N it takes over a job another shell or CI step submitted: each attempt is one
    line on stderr, and the exit code is the last attempt's.

    \b
    Examples:
      gpujob wait my_job --region us-central1 --project my-proj && echo trained
      gpujob wait my_job --region us-central1 --poll-interval 60 --timeout 7200
      gpujob wait 4126800986851246080 --service vertex --region us-central1 --recover 3
    """
    from gpujob.commands.jobs import execute_wait

    return execute_wait(job_settings(params, job))


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=_EXITS)
@_JOB
@click.option("--follow", "-f", is_flag=True, help="Keep printing new lines until the job ends.")
@poll_option
@remote_options
def logs(job: str, **params: Any) -> int:
    """Print a job's logs from Cloud Logging (TIMESTAMP SEVERITY TASK: MESSAGE; vertex tasks
    are workerpool0-0, …, and service). JOB as for describe.

    Ctrl-C stops following; the job keeps running. GPUJOB_LOGGING_ENDPOINT replaces the
    Cloud Logging address (https://logging.googleapis.com/).

    \b
    Examples:
      gpujob logs my_job --region us-central1 --project my-proj
      gpujob logs my_job --region us-central1 --follow
    """
    from gpujob.commands.jobs import execute_logs

    return execute_logs(job_settings(params, job))
