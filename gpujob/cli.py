"""The ``gpujob`` command line: options become a settings object; one function does the work.

Only click and gpujob's light modules are imported here, so ``--help`` and ``validate`` start
fast; the Google client libraries are imported by the commands that talk to Google.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from gpujob import __version__, params
from gpujob.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    GpujobError,
    UsageError,
)

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings

EXIT_CODES_HELP = """\b
Exit codes:
  0    success
  1    invalid config (or a validation that found problems, or a trainer package
       that does not build)
  2    usage error
  3    the remote side failed (credentials, network, API, storage)
  4    the job ended unsuccessfully (--wait, --local)
  70   internal error (a bug in gpujob: please report it)
  130  interrupted
"""

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _UserArgsCommand(click.Command):
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


@click.group(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.version_option(__version__, "--version", prog_name="gpujob",
                      message="%(prog)s %(version)s")
def cli() -> None:
    """Validate and submit GPU training jobs described as AI Platform Training Job configs.

    \b
      gpujob validate configs/*.yaml          check configs (schema, GPUs, regions)
      gpujob submit config.yaml --dry-run     print the exact request, send nothing
      gpujob submit config.yaml --region us-central1 -- --epochs 10
      gpujob wait JOB; gpujob logs JOB --follow   follow a submitted job
      gpujob local config.yaml --package-path trainer/    run the job here first

    Set GPUJOB_DEBUG=1 to see a traceback with any error.
    """


# -- options shared by the commands that check configs ----------------------------------------

def _check_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option(
        "--no-region-check", "no_region_check", is_flag=True,
        help="Report region and zone problems as warnings, for when you know better than "
             "the catalog's availability data.")(func)
    return click.option(
        "--catalog", type=click.Path(exists=True, dir_okay=False), envvar="GPUJOB_CATALOG",
        show_envvar=True, help="A compatibility catalog (JSON or YAML) to use instead of the "
        "built-in one; `gpujob gpus --export-catalog` prints the built-in one to start from.")(
        func)


# -- validate --------------------------------------------------------------------------------

def _expand(paths: tuple[str, ...]) -> list[str]:
    """Files as given; a directory stands for the .yaml/.yml/.json files under it."""
    out: list[str] = []
    missing: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted(
                os.path.join(root, name) for root, _, names in os.walk(path) for name in names
                if name.endswith((".yaml", ".yml", ".json")))
            if not found:
                missing.append(f"{path} (a directory with no .yaml, .yml or .json files)")
            out += found
        elif path == "-" or os.path.exists(path):
            out.append(path)
        else:
            missing.append(path)
    if missing:
        raise UsageError(f"no such file: {', '.join(missing)}",
                         "check the paths (a quoted glob is not expanded by the shell)")
    return out


@cli.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text",
              show_default=True, envvar="GPUJOB_FORMAT", show_envvar=True,
              help="text for people, json for programs (stable shape, version 1), github for "
                   "GitHub Actions annotations.")
@_check_options
def validate(files: tuple[str, ...], fmt: str, catalog: str | None,
             no_region_check: bool) -> int:
    """Check configs against the Job schema and the GPU compatibility rules.

    Every problem of every file is reported, each as FILE:LINE:COL: PATH: MESSAGE with a hint:
    the schema, then the compatibility rules (machine type x GPU type x count x region x zone,
    scale tiers, legacy machines, TPUs, containers). Warnings never fail a file.
    A directory stands for the .yaml, .yml and .json files under it; - reads standard input.

    \b
    Examples:
      gpujob validate config.yaml
      gpujob validate configs/
      gpujob validate --format github configs/*.yaml   # in a GitHub Actions step
      gpujob validate --format json config.yaml | jq '.files[].errors'
    """
    from gpujob.check import CheckOptions, check_file
    from gpujob.report import REPORTERS, summary

    _load_catalog(catalog)
    options = CheckOptions(catalog=catalog, region_check=not no_region_check)
    results = [check_file(path, options) for path in _expand(files)]
    sys.stdout.write(REPORTERS[fmt](results))
    if fmt == "text":
        click.echo(summary(results), err=True)
    return EXIT_OK if all(r.valid for r in results) else EXIT_INVALID


def _load_catalog(path: str | None) -> Any:
    """The catalog, loaded up front so that a bad --catalog is one usage error, not one per
    file."""
    from gpujob import catalog

    return catalog.load(path)


# -- gpus ------------------------------------------------------------------------------------

@cli.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.option("--gpu", help="A GPU type: T4, nvidia-tesla-t4 or NVIDIA_TESLA_T4.")
@click.option("--machine-type", help="A machine type, e.g. n1-highcpu-16.")
@click.option("--count", type=params.Count(min=1), help="GPUs per machine.")
@click.option("--region", help="A training region, e.g. us-central1.")
@click.option("--zone", help="A zone, e.g. us-central1-a.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="A table for people, or JSON (version 1) for programs.")
@click.option("--catalog", type=click.Path(exists=True, dir_okay=False), envvar="GPUJOB_CATALOG",
              show_envvar=True, help="A catalog file to use instead of the built-in one.")
@click.option("--export-catalog", is_flag=True,
              help="Print the catalog in use (JSON, with its sources and dates) and exit: a "
                   "starting point for a newer one to pass with --catalog.")
def gpus(gpu: str | None, machine_type: str | None, count: int | None, region: str | None,
         zone: str | None, fmt: str, catalog: str | None, export_catalog: bool) -> int:
    """Which GPUs can I use, on which machine types, how many, and where?

    Answers from gpujob's catalog (the AI Platform Training GPU table, regions and zones, with
    their sources and dates). Filters combine; when nothing matches, gpujob says which filter
    ruled it out and what matches without it (exit 1).

    \b
    Examples:
      gpujob gpus
      gpujob gpus --gpu t4 --region europe-west4
      gpujob gpus --machine-type n1-standard-32 --gpu v100
      gpujob gpus --gpu a100 --format json | jq '.offerings[].zones'
      gpujob gpus --export-catalog > my-catalog.json   # edit, then --catalog my-catalog.json
    """
    from pathlib import Path

    from gpujob import gpus as command

    cat = _load_catalog(catalog)
    if export_catalog:
        sys.stdout.write(Path(cat.path).read_text(encoding="utf-8"))
        return EXIT_OK
    filters = command.resolve_filters(cat, gpu, machine_type, count, region, zone)
    return command.run(cat, filters, fmt)


# -- submit ----------------------------------------------------------------------------------

# (flag, JSON path, parser, environment variable, help). Every one defaults to "not given": a
# flag that is absent leaves the file's value alone.
_TI = "trainingInput"
_FIELD_FLAGS: list[tuple[str, tuple[str, ...], str, str | None, str]] = [
    ("--region", (_TI, "region"), "str", "GPUJOB_REGION", "Region to run in (us-central1, …)."),
    ("--scale-tier", (_TI, "scaleTier"), "scale_tier", None,
     "basic, basic-gpu, basic-tpu, custom, premium-1 or standard-1 (any case, - or _)."),
    ("--master-machine-type", (_TI, "masterType"), "str", None, "Machine type of the master."),
    ("--master-accelerator", (_TI, "masterConfig", "acceleratorConfig"), "accelerator", None,
     "GPUs per master: count=N,type=TYPE (nvidia-tesla-t4 or NVIDIA_TESLA_T4)."),
    ("--master-image-uri", (_TI, "masterConfig", "imageUri"), "str", None,
     "Custom container image for the master."),
    ("--worker-count", (_TI, "workerCount"), "count", None, "Number of workers."),
    ("--worker-machine-type", (_TI, "workerType"), "str", None, "Machine type of the workers."),
    ("--worker-accelerator", (_TI, "workerConfig", "acceleratorConfig"), "accelerator", None,
     "GPUs per worker: count=N,type=TYPE."),
    ("--worker-image-uri", (_TI, "workerConfig", "imageUri"), "str", None,
     "Custom container image for the workers."),
    ("--parameter-server-count", (_TI, "parameterServerCount"), "count", None,
     "Number of parameter servers."),
    ("--parameter-server-machine-type", (_TI, "parameterServerType"), "str", None,
     "Machine type of the parameter servers."),
    ("--parameter-server-accelerator", (_TI, "parameterServerConfig", "acceleratorConfig"),
     "accelerator", None, "GPUs per parameter server: count=N,type=TYPE."),
    ("--parameter-server-image-uri", (_TI, "parameterServerConfig", "imageUri"), "str", None,
     "Custom container image for the parameter servers."),
    ("--evaluator-count", (_TI, "evaluatorCount"), "count", None, "Number of evaluators."),
    ("--evaluator-machine-type", (_TI, "evaluatorType"), "str", None,
     "Machine type of the evaluators."),
    ("--evaluator-accelerator", (_TI, "evaluatorConfig", "acceleratorConfig"), "accelerator",
     None, "GPUs per evaluator: count=N,type=TYPE."),
    ("--evaluator-image-uri", (_TI, "evaluatorConfig", "imageUri"), "str", None,
     "Custom container image for the evaluators."),
    ("--runtime-version", (_TI, "runtimeVersion"), "str", None,
     "AI Platform runtime version (2.11, …)."),
    ("--python-version", (_TI, "pythonVersion"), "str", None, "Python version (3.7, …)."),
    ("--module-name", (_TI, "pythonModule"), "str", None,
     "The trainer's module, run as python -m MODULE (trainer.task)."),
    ("--packages", (_TI, "packageUris"), "list", None,
     "Trainer packages, comma-separated: gs:// URIs, used as they are, and local files, "
     "uploaded to the staging location; in this order."),
    ("--job-dir", (_TI, "jobDir"), "str", "GPUJOB_JOB_DIR",
     "gs:// path for outputs and checkpoints; also passed to the trainer as --job-dir."),
    ("--service-account", (_TI, "serviceAccount"), "str", "GPUJOB_SERVICE_ACCOUNT",
     "Service account email the trainer runs as."),
    ("--network", (_TI, "network"), "str", "GPUJOB_NETWORK",
     "VPC network to peer with: projects/NUMBER/global/networks/NAME."),
    ("--use-chief-in-tf-config", (_TI, "useChiefInTfConfig"), "bool", None,
     "Name the primary 'chief' in TF_CONFIG (true or false; alone means true)."),
    ("--job-id", ("jobId",), "str", None,
     "The job's ID (default: the file's jobId, else FILE-STEM_YYYYMMDD_HHMMSS_MMM_RANDOM, UTC)."),
]


def _parser(kind: str, flag: str) -> Callable[[Any], Any]:
    from gpujob.config import overrides as ov

    return {
        "str": lambda v: v,
        "scale_tier": ov.parse_scale_tier,
        "accelerator": lambda v: ov.parse_accelerator(v, flag),
        "count": lambda v: ov.parse_count(v, flag),
        "bool": lambda v: ov.parse_bool(v, flag),
        "list": lambda v: [item for item in v.split(",") if item],
    }[kind]


def _param_name(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _field_options(func: Callable[..., Any]) -> Callable[..., Any]:
    for flag, _, kind, env, text in reversed(_FIELD_FLAGS):
        extra: dict[str, Any] = {}
        if kind == "bool":
            extra = {"is_flag": False, "flag_value": "true"}
        func = click.option(flag, _param_name(flag), default=None, envvar=env,
                            show_envvar=bool(env), metavar=_metavar(kind), help=text,
                            **extra)(func)
    return func


def _metavar(kind: str) -> str:
    return {"accelerator": "count=N,type=T", "count": "N", "bool": "BOOL", "list": "URI,…",
            "scale_tier": "TIER"}.get(kind, "TEXT")


def _overrides(ctx: click.Context, params: dict[str, Any]) -> list[Any]:
    """The flags that were given, as overrides: ``--set`` first, then named flags (they win)."""
    from gpujob.config import overrides as ov

    out = [ov.parse_set(text) for text in params["set_"]]
    for flag, path, kind, env, _ in _FIELD_FLAGS:
        name = _param_name(flag)
        value = params[name]
        if value is None:
            continue
        from_env = ctx.get_parameter_source(name) == ParameterSource.ENVIRONMENT
        out.append(ov.Override(path, _parser(kind, flag)(value),
                               ov.flag_origin(flag, env if from_env else None)))
    if params["enable_web_access"] is not None:
        out.append(ov.Override((_TI, "enableWebAccess"), params["enable_web_access"],
                               ov.flag_origin("--enable-web-access")))
    if params["labels"]:
        out.append(ov.Override(("labels",), ov.parse_labels(params["labels"]),
                               ov.flag_origin("--labels")))
    kms = ov.kms_key_name(params["kms_key"], params["kms_keyring"], params["kms_location"],
                          params["kms_project"] or params.get("project"))
    if kms:
        out.append(ov.Override((_TI, "encryptionConfig", "kmsKeyName"), kms,
                               ov.flag_origin("--kms-key")))
    return out


def _gcp_options(with_project: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options of every command that talks to Google Cloud (``submit`` has --project)."""
    options = [
        click.option("--credentials-file", metavar="FILE", type=click.Path(dir_okay=False),
                     help="Service account key or credentials file to use instead of "
                          "Application Default Credentials."),
        click.option("--impersonate-service-account", metavar="EMAIL",
                     envvar="GPUJOB_IMPERSONATE_SERVICE_ACCOUNT", show_envvar=True,
                     help="Act as this service account (needs Service Account Token Creator "
                          "on it)."),
        click.option("--api-endpoint", metavar="URL", envvar="GPUJOB_API_ENDPOINT",
                     show_envvar=True, help="ml v1 API address (default "
                     "https://ml.googleapis.com/), for private endpoints."),
        click.option("--max-attempts", type=params.Count(min=1), default=5,
                     show_default=True, envvar="GPUJOB_MAX_ATTEMPTS", show_envvar=True,
                     help="Tries per API call on 429, 5xx, resets and timeouts."),
        click.option("--retry-deadline", type=params.Seconds(min=0), default=120.0,
                     show_default=True, envvar="GPUJOB_RETRY_DEADLINE", show_envvar=True,
                     metavar="SECONDS", help="No retry starts later than this after the "
                                             "first try."),
        click.option("--request-timeout", type=params.Seconds(min=0, min_open=True),
                     default=60.0, show_default=True, envvar="GPUJOB_REQUEST_TIMEOUT",
                     show_envvar=True, metavar="SECONDS", help="Timeout of one HTTP request."),
        click.option("--verbose", is_flag=True,
                     help="Show each HTTP request and where the credentials came from (never "
                          "the tokens)."),
    ]
    if with_project:
        options.insert(0, click.option(
            "--project", envvar=["GPUJOB_PROJECT", "GOOGLE_CLOUD_PROJECT",
                                 "CLOUDSDK_CORE_PROJECT"], show_envvar=True,
            help="Google Cloud project (default: the credentials' project)."))

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def _gcp_settings(params: dict[str, Any]) -> GcpSettings:
    """The GcpSettings the options describe (GPUJOB_LOGGING_ENDPOINT, GPUJOB_IAM_ENDPOINT and
    GPUJOB_STORAGE_ENDPOINT or STORAGE_EMULATOR_HOST, for private endpoints and tests, have no
    flag)."""
    from gpujob.gcp import settings as gcp

    return gcp.GcpSettings(
        project=params.get("project"),
        credentials_file=params["credentials_file"],
        impersonate_service_account=params["impersonate_service_account"],
        api_endpoint=params["api_endpoint"] or gcp.ML_ENDPOINT,
        logging_endpoint=os.environ.get("GPUJOB_LOGGING_ENDPOINT") or gcp.LOGGING_ENDPOINT,
        iam_endpoint=os.environ.get("GPUJOB_IAM_ENDPOINT") or gcp.IAM_CREDENTIALS_ENDPOINT,
        storage_endpoint=gcp.storage_endpoint(os.environ),
        request_timeout=params["request_timeout"],
        retry=gcp.RetryPolicy(max_attempts=params["max_attempts"],
                              deadline=params["retry_deadline"]),
        verbose=params["verbose"],
    )


def _packaging_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--package-path and --staging-bucket (--packages is among the field flags)."""
    func = click.option(
        "--staging-bucket", metavar="gs://BUCKET", envvar="GPUJOB_STAGING_BUCKET",
        show_envvar=True,
        help="Where local packages are staged: gs://BUCKET/packages/ (default: the job "
             "directory's packages/). Each goes to packages/SHA256/NAME, so an unchanged "
             "package is uploaded once.")(func)
    return click.option(
        "--package-path", metavar="DIR",
        help="The trainer's Python package (a directory holding __init__.py). For the cloud: "
             "built as an sdist from its parent's pyproject.toml or setup.py, else from a "
             "generated config, in an isolated environment, then staged and added to the "
             "packages. Local runs: the module runs from its parent (default: the current "
             "directory).")(func)


_FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                       show_default=True, help="json prints the API's Job on stdout.")
_POLL = click.option("--poll-interval", type=params.Seconds(min=1), default=10.0,
                     show_default=True, metavar="SECONDS", help="Seconds between checks.")


def _local_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """How a job runs on this machine: ``gpujob local`` and ``gpujob submit --local``."""
    for decorate in reversed([
        click.option("--max-local-replicas", type=params.Count(min=1), metavar="N",
                     envvar="GPUJOB_MAX_LOCAL_REPLICAS", show_envvar=True,
                     help="Local runs: run at most N replicas, trimming the largest groups "
                          "of workers, parameter servers and evaluators (with a warning). "
                          "Default: 8."),
        click.option("--grace-period", type=params.Seconds(min=0), metavar="SECONDS",
                     envvar="GPUJOB_GRACE_PERIOD", show_envvar=True,
                     help="Local runs: how long replicas being stopped get after SIGTERM "
                          "before SIGKILL. Default: 10."),
    ]):
        func = decorate(func)
    return func


def _submit_settings(ctx: click.Context, config: str, params: dict[str, Any], *, local: bool,
                     cloud: bool) -> Any:
    """The SubmitSettings of ``submit`` (``cloud``: with its API options) and ``local``."""
    from gpujob.backends.aiplatform import Follow
    from gpujob.submit import SubmitSettings

    api: dict[str, Any] = {}
    if cloud:
        api = {"gcp": _gcp_settings(params), "output_format": params["fmt"],
               "follow": Follow(wait=params["wait"], stream_logs=params["stream_logs"],
                                poll_interval=params["poll_interval"])}
    settings = SubmitSettings(
        config=config,
        overrides=_overrides(ctx, params),
        user_args=ctx.meta["user_args"],
        project=params.get("project"),
        dry_run=params.get("dry_run", False),
        local=local,
        catalog=params["catalog"],
        region_check=not params["no_region_check"],
        package_path=params["package_path"],
        staging_bucket=params.get("staging_bucket"),
        max_local_replicas=params["max_local_replicas"],
        grace_period=params["grace_period"],
        **api,
    )
    _load_catalog(settings.catalog)
    return settings


@cli.command(cls=_UserArgsCommand, context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.argument("config", metavar="CONFIG",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--dry-run", is_flag=True,
              help="Check the job and print the exact Job body it would POST, as JSON on "
                   "stdout; send nothing. Needs no credentials.")
@click.option("--local", is_flag=True,
              help="Run the job on this machine instead, one process per replica, as "
                   "gpujob local does.")
@click.option("--project", envvar=["GPUJOB_PROJECT", "GOOGLE_CLOUD_PROJECT",
                                   "CLOUDSDK_CORE_PROJECT"], show_envvar=True,
              help="Google Cloud project to submit to.")
@_field_options
@_packaging_options
@click.option("--enable-web-access/--no-enable-web-access", default=None,
              help="Interactive shell access to the training containers (absent: as the file "
                   "says).")
@click.option("--labels", multiple=True, metavar="KEY=VALUE,…",
              help="Labels for the job; replace the file's labels. Repeatable.")
@click.option("--kms-key", envvar="GPUJOB_KMS_KEY", show_envvar=True,
              help="Cloud KMS key to encrypt the job's resources: a full name, or a short one "
                   "with --kms-keyring, --kms-location (and --kms-project).")
@click.option("--kms-keyring", help="Key ring of a short --kms-key.")
@click.option("--kms-location", help="Location of a short --kms-key.")
@click.option("--kms-project", help="Project of a short --kms-key (default: --project).")
@click.option("--set", "set_", multiple=True, metavar="PATH=VALUE",
              help="Set any field, e.g. --set trainingInput.scheduling.maxRunningTime=7200s. "
                   "VALUE is YAML ('4' a string, 4 a number). Repeatable; named flags win.")
@_check_options
@click.option("--wait", is_flag=True,
              help="After submitting, wait for the job to end (exit 4 if it fails).")
@click.option("--stream-logs", is_flag=True,
              help="After submitting, print the job's logs until it ends (exit 4 if it fails).")
@_POLL
@_FORMAT
@_gcp_options(with_project=False)
@_local_options
@click.pass_context
def submit(ctx: click.Context, config: str, **params: Any) -> int:
    """Check CONFIG, apply the flags, and submit it as a training job.

    CONFIG is a Job resource in YAML or JSON (- reads standard input). Flags override the file
    field by field, as gcloud ai-platform jobs submit training does; arguments after -- are
    passed to the trainer unchanged (they replace the file's args). Settings come from the flag,
    else the environment variable shown, else the file.

    \b
    Examples:
      gpujob submit config.yaml --dry-run
      gpujob submit config.yaml --dry-run --worker-count 2 \\
          --worker-accelerator count=2,type=nvidia-tesla-t4 -- --epochs 10
      gpujob submit config.yaml --set trainingInput.scheduling.maxWaitTime=3600s --dry-run
      gpujob submit config.yaml --project my-proj --stream-logs
      gpujob submit config.yaml --package-path trainer --module-name trainer.task \\
          --staging-bucket gs://my-bucket
      gpujob submit config.yaml --local --package-path trainer/ -- --epochs 1
    """
    from gpujob.submit import run

    if params["local"]:
        cloud_only = [flag for flag, name in (("--wait", "wait"), ("--stream-logs", "stream_logs"),
                                              ("--format", "fmt"),
                                              ("--poll-interval", "poll_interval"),
                                              ("--staging-bucket", "staging_bucket"))
                      if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
        if cloud_only:
            verb = "are" if len(cloud_only) > 1 else "is"
            raise UsageError(f"{' and '.join(cloud_only)} {verb} for jobs in the cloud, not "
                             "with --local", "a local run uses the package where it is, streams "
                             "its replicas' output and exits with the master's status")
    return run(_submit_settings(ctx, config, params, local=params["local"], cloud=True))


# -- local ------------------------------------------------------------------------------------

# submit's options that describe the job; ``local`` shares them (declared once, above)
_JOB_PARAMS = {"config", "enable_web_access", "labels", "kms_key", "kms_keyring",
               "kms_location", "kms_project", "set_", "catalog", "no_region_check",
               "package_path"} | {
                   _param_name(f) for f, *_ in _FIELD_FLAGS}


@cli.command("local", cls=_UserArgsCommand, context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@_local_options
@click.pass_context
def local_command(ctx: click.Context, config: str, **params: Any) -> int:
    """Run CONFIG's job on this machine: one process per replica, the cluster emulated.

    Each replica (the master, the workers, parameter servers and evaluators of the config) runs
    python -m MODULE ARGS --job-dir DIR from the parent of --package-path, with the TF_CONFIG,
    CLUSTER_SPEC, MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK the service would set, on free
    localhost ports, and its share of this machine's GPUs in CUDA_VISIBLE_DEVICES (set
    GPUJOB_LOCAL_GPUS=0,1 to choose them). Their output is one stream, each line prefixed with
    its replica. The master's exit ends the run: 0, else exit 4; the others are then stopped.

    The config is checked as for the cloud first, and takes the same flags as submit; the job
    dir may be a local directory (default: a new one).

    \b
    Examples:
      gpujob local config.yaml --package-path trainer/ -- --epochs 1
      gpujob local config.yaml --module-name trainer.task --job-dir out/ --worker-count 3
    """
    from gpujob.submit import run

    return run(_submit_settings(ctx, config, params, local=True, cloud=False))


local_command.params[:0] = [p for p in submit.params if p.name in _JOB_PARAMS]


# -- following and managing jobs -------------------------------------------------------------

_JOB = click.argument("job", metavar="JOB")


@cli.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@_JOB
@_FORMAT
@_gcp_options(with_project=True)
def describe(job: str, fmt: str, **params: Any) -> int:
    """Show a job: its state, its trainingInput, and links to it in the Cloud console.

    JOB is a job ID, or projects/PROJECT/jobs/ID.

    \b
    Examples:
      gpujob describe my_job_20250101_120000 --project my-proj
      gpujob describe my_job --format json | jq -r .state
    """
    from gpujob.backends import aiplatform

    return aiplatform.describe(job, _gcp_settings(params), fmt)


@cli.command("list", context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@click.option("--filter", "filter_", metavar="EXPR",
              help="The API's filter, e.g. 'state=RUNNING' or 'labels.team=vision'.")
@click.option("--limit", type=params.Count(min=1), help="Show at most this many jobs.")
@_FORMAT
@_gcp_options(with_project=True)
def list_(filter_: str | None, limit: int | None, fmt: str, **params: Any) -> int:
    """List the project's training jobs.

    \b
    Examples:
      gpujob list --project my-proj --limit 10
      gpujob list --filter state=RUNNING --format json
    """
    from gpujob.backends import aiplatform

    return aiplatform.list_jobs(_gcp_settings(params), filter_, limit, fmt)


@cli.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@_JOB
@_gcp_options(with_project=True)
def cancel(job: str, **params: Any) -> int:
    """Cancel a job: it stops and ends CANCELLED.

    \b
    Examples:
      gpujob cancel my_job --project my-proj
    """
    from gpujob.backends import aiplatform

    return aiplatform.cancel(job, _gcp_settings(params))


@cli.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@_JOB
@_POLL
@click.option("--timeout", type=params.Seconds(min=0), metavar="SECONDS",
              help="Stop waiting after this long (exit 3; the job keeps running).")
@_FORMAT
@_gcp_options(with_project=True)
def wait(job: str, poll_interval: float, timeout: float | None, fmt: str, **params: Any) -> int:
    """Wait for a job to end, telling its state changes on stderr.

    Exits 0 when the job SUCCEEDED, 4 when it FAILED or was CANCELLED (with its error
    message). Ctrl-C stops waiting; the job keeps running.

    \b
    Examples:
      gpujob wait my_job --project my-proj && echo trained
      gpujob wait my_job --poll-interval 60 --timeout 7200
    """
    from gpujob.backends import aiplatform

    return aiplatform.wait(job, _gcp_settings(params), poll_interval, timeout, fmt)


@cli.command(context_settings=CONTEXT, epilog=EXIT_CODES_HELP)
@_JOB
@click.option("--follow", "-f", is_flag=True, help="Keep printing new lines until the job ends.")
@_POLL
@_gcp_options(with_project=True)
def logs(job: str, follow: bool, poll_interval: float, **params: Any) -> int:
    """Print a job's logs from Cloud Logging (TIMESTAMP SEVERITY TASK: MESSAGE).

    Ctrl-C stops following; the job keeps running. GPUJOB_LOGGING_ENDPOINT replaces the
    Cloud Logging address (https://logging.googleapis.com/).

    \b
    Examples:
      gpujob logs my_job --project my-proj
      gpujob logs my_job --follow
    """
    from gpujob.backends import aiplatform

    return aiplatform.logs(job, _gcp_settings(params), follow, poll_interval)


# -- entry point -----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Run the CLI; map every failure a user can cause to one message and an exit code."""
    debug = os.environ.get("GPUJOB_DEBUG", "") not in ("", "0")
    try:
        result = cli.main(args=argv, prog_name="gpujob", standalone_mode=False)
        sys.stdout.flush()  # a reader that went away shows here, where it is handled
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Abort:  # click has already ended the line
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        click.echo("\ninterrupted", err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except GpujobError as exc:
        if debug:
            raise
        click.echo(f"error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"  hint: {exc.hint}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (gpujob … | head): stop quietly, as click does when this happens
        # inside a command, and keep Python's final flush of stdout from failing again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # a bug: say so in one line unless debugging
        if debug:
            raise
        click.echo(f"gpujob: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo("  hint: this is a bug in gpujob; run again with GPUJOB_DEBUG=1 for the "
                   "traceback and report it", err=True)
        return EXIT_INTERNAL
