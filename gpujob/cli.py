"""The ``gpujob`` command line: options become a settings object; one function does the work.

Only click and gpujob's light modules are imported here, so ``--help`` and ``validate`` start
fast; the Google client libraries are imported by the commands that talk to Google.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

from gpujob import __version__
from gpujob.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    GpujobError,
    UsageError,
)

EXIT_CODES_HELP = """\b
Exit codes:
  0    success
  1    invalid config (or a validation that found problems)
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
      gpujob local config.yaml --package-path trainer/    run the job here first

    Set GPUJOB_DEBUG=1 to see a traceback with any error.
    """


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
def validate(files: tuple[str, ...], fmt: str) -> int:
    """Check configs against the Job schema and the GPU compatibility rules.

    Every problem of every file is reported, each as FILE:LINE:COL: PATH: MESSAGE with a hint.
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

    options = CheckOptions()
    results = [check_file(path, options) for path in _expand(files)]
    sys.stdout.write(REPORTERS[fmt](results))
    if fmt == "text":
        click.echo(summary(results), err=True)
    return EXIT_OK if all(r.valid for r in results) else EXIT_INVALID


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
     "Trainer packages, comma-separated gs:// URIs."),
    ("--job-dir", (_TI, "jobDir"), "str", "GPUJOB_JOB_DIR",
     "gs:// path for outputs and checkpoints; also passed to the trainer as --job-dir."),
    ("--service-account", (_TI, "serviceAccount"), "str", "GPUJOB_SERVICE_ACCOUNT",
     "Service account email the trainer runs as."),
    ("--network", (_TI, "network"), "str", "GPUJOB_NETWORK",
     "VPC network to peer with: projects/NUMBER/global/networks/NAME."),
    ("--use-chief-in-tf-config", (_TI, "useChiefInTfConfig"), "bool", None,
     "Name the primary 'chief' in TF_CONFIG (true or false; alone means true)."),
    ("--job-id", ("jobId",), "str", None,
     "The job's ID (default: the file's jobId, else FILE-STEM_YYYYMMDD_HHMMSS in UTC)."),
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


def _local_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """How a job runs on this machine: ``gpujob local`` and ``gpujob submit --local``."""
    for decorate in reversed([
        click.option("--package-path", metavar="DIR",
                     type=click.Path(file_okay=False),
                     help="Local runs: the trainer package (the directory holding "
                          "__init__.py); the module runs from its parent. Default: the module "
                          "runs from the current directory."),
        click.option("--max-local-replicas", type=click.IntRange(min=1), metavar="N",
                     envvar="GPUJOB_MAX_LOCAL_REPLICAS", show_envvar=True,
                     help="Local runs: run at most N replicas, trimming the largest groups "
                          "of workers, parameter servers and evaluators (with a warning). "
                          "Default: 8."),
        click.option("--grace-period", type=click.FloatRange(min=0), metavar="SECONDS",
                     envvar="GPUJOB_GRACE_PERIOD", show_envvar=True,
                     help="Local runs: how long replicas being stopped get after SIGTERM "
                          "before SIGKILL. Default: 10."),
    ]):
        func = decorate(func)
    return func


def _submit_settings(ctx: click.Context, config: str, params: dict[str, Any],
                     local: bool) -> Any:
    from gpujob.submit import SubmitSettings

    return SubmitSettings(
        config=config,
        overrides=_overrides(ctx, params),
        user_args=ctx.meta["user_args"],
        project=params.get("project"),
        dry_run=params.get("dry_run", False),
        local=local,
        package_path=params["package_path"],
        max_local_replicas=params["max_local_replicas"],
        grace_period=params["grace_period"],
    )


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
      gpujob submit config.yaml --local --package-path trainer/ -- --epochs 1
    """
    from gpujob.submit import run

    return run(_submit_settings(ctx, config, params, local=params["local"]))


# -- local ------------------------------------------------------------------------------------

# submit's options that describe the job; ``local`` shares them (declared once, above)
_JOB_PARAMS = {"config", "enable_web_access", "labels", "kms_key", "kms_keyring",
               "kms_location", "kms_project", "set_"} | {_param_name(f) for f, *_ in _FIELD_FLAGS}


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

    return run(_submit_settings(ctx, config, params, local=True))


local_command.params[:0] = [p for p in submit.params if p.name in _JOB_PARAMS]


# -- entry point -----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Run the CLI; map every failure a user can cause to one message and an exit code."""
    debug = os.environ.get("GPUJOB_DEBUG", "") not in ("", "0")
    try:
        result = cli.main(args=argv, prog_name="gpujob", standalone_mode=False)
        sys.stdout.flush()  # a reader that went away shows here, where it is handled
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Abort:
        click.echo("\ninterrupted", err=True)
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
