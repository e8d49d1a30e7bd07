"""``gpujob convert``: an AI Platform config in another service's own form: a native Vertex AI
config (``--to vertex``, the default), a GKE JobSet (``--to gke``)."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli.common import CONTEXT, exit_codes_help
from gpujob.cli.files import ExistingFile
from gpujob.cli.jobflags import field_options, override_options, overrides
from gpujob.cli.options import (
    check_options,
    check_settings,
    service_flags,
    services_choice,
    stack,
)
from gpujob.cli.submit import UserArgsCommand


def vertex_options(func: Any) -> Any:
    """What a Vertex job takes that an AI Platform config cannot say (besides
    --executor-image-uri and --strategy, check_options', which submit takes too)."""
    return stack(
        click.option("--display-name", metavar="NAME",
                     help="The job's display name, which may hold hyphens and spaces "
                          "(default: the config's jobId, else the config file's name)."),
    )(func)


@click.command(cls=UserArgsCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c1="the config cannot be converted (the problems are listed), or the output "
                     "could not be written"))
@click.argument("config", type=ExistingFile(), metavar="CONFIG")
@field_options()
@override_options()
@vertex_options
@click.option("-o", "--output", metavar="FILE",
              help="Write the Vertex config to FILE (default: standard output). Nothing is "
                   "written when the config cannot be converted.")
@click.option("--whole-job", is_flag=True,
              help="Write a whole CustomJob (its name, labels and encryption key in the file) "
                   "rather than the CustomJobSpec that gcloud ai custom-jobs create --config "
                   "reads.")
@check_options
@service_flags
@click.option("--to", "to", type=services_choice(), default="vertex", show_default=True,
              help="The service whose form to write: vertex (a native Vertex config), gke (a "
                   "JobSet that kubectl apply -f takes).")
@click.pass_context
def convert(ctx: click.Context, **params: Any) -> int:
    """Translate an AI Platform config into a native Vertex AI config.

    CONFIG is read, and the flags applied, as gpujob submit does; the job is translated for
    Vertex AI custom training and written as YAML with a comment at each translated value
    saying what it came from. Every value the translation changes or drops is reported on
    stderr at its file:line:col. A CustomJob is written as its CustomJobSpec, the file
    gcloud ai custom-jobs create --config reads (the header gives the job's name, labels and
    key as flags); a job with hyperparameters as a HyperparameterTuningJob, the file
    gcloud ai hp-tuning-jobs create --config reads. gpujob submit --service vertex and gpujob
    validate read both.

    \b
    Examples:
      gpujob convert configs/t4-compute-engine.yaml -o t4.vertex.yaml
      gpujob convert package.yaml --executor-image-uri tensorflow/tensorflow:2.17.0-gpu
      gpujob convert config.yaml --whole-job --region europe-west4 -- --epochs 10
      gpujob convert configs/t4-compute-engine.yaml --to gke -o t4.jobset.yaml
    """
    from gpujob.commands.convert import ConvertSettings, execute

    check = check_settings({**params, "service": params["to"]})
    options = check.job_options()._replace(display_name=params["display_name"])
    tiers = list(check.catalog.scale_tiers)  # check_settings loads it
    return execute(ConvertSettings(
        config=params["config"], overrides=overrides(ctx, params, tiers),
        user_args=ctx.meta["user_args"], options=options, check=check,
        output=params["output"], whole_job=params["whole_job"]))
