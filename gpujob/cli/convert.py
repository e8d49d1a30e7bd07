"""``gpujob convert``: an AI Platform config in another service's own form: a native Vertex AI
config (``--to vertex``, the default), a GKE JobSet (``--to gke``)."""

from __future__ import annotations

from typing import Any

import click

from gpujob.cli import gcloud_jobs
from gpujob.cli.common import CONTEXT, exit_codes_help
from gpujob.cli.files import ExistingFile
from gpujob.cli.jobflags import field_options, override_options, overrides
from gpujob.cli.options import (
    check_options,
    check_options_of,
    gcp_settings,
    given_flags,
    service_flags,
    services_choice,
    stack,
)
from gpujob.cli.params import Project
from gpujob.cli.submit import UserArgsCommand
from gpujob.services.capabilities import Capability

# package_options' flags besides --package-path: how convert reaches Cloud Storage to upload
_UPLOAD_FLAGS = ("--staging-bucket", "--project", "--credentials-file",
                 "--impersonate-service-account", "--verbose")


def vertex_options(func: Any) -> Any:
    """What a Vertex job takes that an AI Platform config cannot say (besides
    --executor-image-uri and --strategy, check_options', which submit takes too)."""
    return stack(
        click.option("--display-name", metavar="NAME",
                     help="The job's display name, which may hold hyphens and spaces "
                          "(default: the config's jobId, else the config file's name, or its "
                          "directory's for a name such as config.yaml)."),
    )(func)


def package_options(func: Any) -> Any:
    """The trainer's package, built and staged as gpujob submit does, and how to reach Cloud
    Storage to stage it."""
    return stack(
        click.option("--package-path", metavar="DIR",
                     help="The trainer's Python package (a directory holding __init__.py): "
                          "built as gpujob submit builds it, uploaded to the staging location "
                          "and named in the config at its gs:// address."),
        click.option("--staging-bucket", metavar="gs://BUCKET", envvar="GPUJOB_STAGING_BUCKET",
                     show_envvar=True,
                     help="Where --package-path and local --packages files are uploaded: "
                          "gs://BUCKET/packages/SHA256/NAME (default: the job directory's "
                          "packages/), the address gpujob submit would use."),
        click.option("--project", type=Project(), envvar=["GPUJOB_PROJECT",
                     "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"], show_envvar=True,
                     help="Google Cloud project of the upload (default: the credentials')."),
        click.option("--credentials-file", metavar="FILE",
                     type=ExistingFile("a credentials file"),
                     help="Service account key or credentials file for the upload instead of "
                          "Application Default Credentials."),
        click.option("--impersonate-service-account", metavar="EMAIL",
                     envvar="GPUJOB_IMPERSONATE_SERVICE_ACCOUNT", show_envvar=True,
                     help="Upload as this service account."),
        click.option("--verbose", is_flag=True,
                     help="Show each HTTP request of the upload (never the tokens)."),
    )(func)


@click.command(cls=UserArgsCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c1="the config cannot be converted (the problems are listed), or the output "
                     "could not be written"))
@click.argument("config", type=ExistingFile(), metavar="[CONFIG]", required=False)
@click.option("--config", "config_file", metavar="CONFIG", type=ExistingFile(),
              help="The config, as gcloud names it: an AI Platform config (the same as "
                   "CONFIG), or gcloud ai custom-jobs/hp-tuning-jobs create's native Vertex "
                   "config, written with the command line applied.")
@field_options()
@override_options()
@vertex_options
@package_options
@click.option("-o", "--output", metavar="FILE",
              help="Write the Vertex config to FILE (default: standard output). Nothing is "
                   "written when the config cannot be converted.")
@click.option("--whole-job", is_flag=True,
              help="Write a whole CustomJob (its name, labels and encryption key in the file) "
                   "rather than the CustomJobSpec that gcloud ai custom-jobs create --config "
                   "reads.")
@gcloud_jobs.options
@check_options
@service_flags
# ai-platform is the form convert reads: there is nothing to convert it to
@click.option("--to", "to", type=services_choice(having=Capability.CONVERT), default="vertex",
              show_default=True,
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
    validate read both. A local trainer package (--package-path, local files in --packages) is
    built and uploaded to the address gpujob submit would stage it at, which the config names:
    the one thing convert sends to Google.

    gcloud's command lines work as they do for submit, with or without a config (CONFIG, or
    gcloud's --config, which may name a native Vertex config): gcloud ai custom-jobs create's
    and hp-tuning-jobs create's flags (--worker-pool-spec, --args, --command,
    --python-package-uris, --display-name, --labels, …) build the job submit would send, which
    is checked and written as the file gcloud's --config reads (--whole-job: the CustomJob);
    gcloud ai-platform jobs submit training's flags alone (--master-image-uri, --module-name,
    --scale-tier, …) build an AI Platform job, converted as a file is.

    \b
    Examples:
      gpujob convert configs/t4-compute-engine.yaml -o t4.vertex.yaml
      gpujob convert package.yaml --executor-image-uri tensorflow/tensorflow:2.17.0-gpu
      gpujob convert config.yaml --whole-job --region europe-west4 -- --epochs 10
      gpujob convert configs/t4-compute-engine.yaml --to gke -o t4.jobset.yaml
      gpujob convert config.yaml --package-path trainer --module-name trainer.task \\
          --executor-image-uri tensorflow/tensorflow:2.17.0-gpu --job-dir gs://my-bucket/run1
      gpujob convert --region us-central1 --display-name run1 -o spec.yaml \\
          --worker-pool-spec=machine-type=n1-standard-8,container-image-uri=IMAGE
    """
    from gpujob.commands.convert import execute
    from gpujob.services.capabilities import check_flags
    from gpujob.submit.settings import SubmitSettings

    gcloud_config = params.pop("config_file")
    if gcloud_config is not None:
        if params["config"] is not None:
            raise click.UsageError(f"Got unexpected extra argument ({params['config']}): "
                                   "--config names the config", ctx)
        params["config"] = gcloud_config
    check = check_options_of({**params, "service": params["to"]})
    # the upload's flags are Cloud Storage's, whatever service the config is converted for
    check_flags(check.service, [f for f in given_flags(ctx) if f not in _UPLOAD_FLAGS],
                switch="--to")
    gcp = gcp_settings({"api_endpoint": None, "request_timeout": 60.0, "max_attempts": 5,
                        "retry_deadline": 120.0, **params})
    line = overrides(ctx, params)
    loaded, package_path = None, params["package_path"]
    if params["config"] is None or gcloud_jobs.given_vertex(params):
        if params["config"] is None and not gcloud_jobs.flag_only(params):
            raise click.MissingParameter(ctx=ctx, param_hint="'CONFIG'", param_type="argument")
        built = gcloud_jobs.for_convert(ctx, params, check, line)
        loaded, package_path, check = built.loaded, built.package_path, built.check
    return execute(SubmitSettings(
        config=params["config"], overrides=line,
        user_args=ctx.meta["user_args"], check=check,
        output=params["output"], whole_job=params["whole_job"],
        package_path=package_path, staging_bucket=params["staging_bucket"], gcp=gcp,
        loaded=loaded), gcloud_config=gcloud_config is not None)

