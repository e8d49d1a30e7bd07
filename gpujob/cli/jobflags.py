"""The options that describe a job (``submit`` and ``local`` share them), and the settings they
build: the flags that set a job field, ``--set``, the trainer's package, labels, encryption; how a
local run goes; and what ``submit`` adds for the cloud.

A flag that sets a field overrides the file's value of that field only, as gcloud's flags do; a
flag left out leaves the file alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from gpujob.cli import candidates
from gpujob.cli.options import (
    check_options,
    check_options_of,
    gcp_settings,
    given_flags,
    service_flags,
    service_option,
    stack,
)
from gpujob.cli.params import Count, Seconds

if TYPE_CHECKING:  # (validate takes some of these flags: nothing of submit's at its start-up)
    from gpujob.submit.settings import SubmitSettings

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
     "The job's ID (default: the file's jobId, else FILE-STEM_YYYYMMDD_HHMMSS_MMM_RANDOM, UTC; "
     "the directory's name for a FILE-STEM such as config)."),
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


def field_options(local: bool = False, only: Collection[str] | None = None,
                  envvar: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The flags that set a job field (``local``: worded for ``gpujob local --help``;
    ``only``: those flags alone; ``envvar`` False: none reads its environment variable)."""
    options = []
    for flag, _, kind, env, text in _FIELD_FLAGS:
        if only is not None and flag not in only:
            continue
        extra: dict[str, Any] = {"is_flag": False, "flag_value": "true"} if kind == "bool" else {}
        env = env if envvar else None
        options.append(click.option(flag, _param_name(flag), default=None, envvar=env,
                                    show_envvar=bool(env), metavar=_metavar(kind),
                                    help=_help(flag, text, local),
                                    shell_complete=candidates.JOB_FLAGS.get(flag), **extra))
    return stack(*options)


def _help(flag: str, text: str, local: bool) -> str:
    if not local:
        return text
    from gpujob.cli.modes import LOCAL_HELP

    return LOCAL_HELP.get(flag, text)


def _metavar(kind: str) -> str:
    return {"accelerator": "count=N,type=T", "count": "N", "bool": "BOOL", "list": "URI,…",
            "scale_tier": "TIER"}.get(kind, "TEXT")


def overrides(ctx: click.Context, params: dict[str, Any]) -> list[Any]:
    """The flags that were given, as overrides: ``--unset`` first, then ``--set``, then named
    flags (they win)."""
    from gpujob.config import overrides as ov

    out = [parse_unset(text) for text in params.get("unset", ())]
    out += [ov.parse_set(text) for text in params["set_"]]
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


def only_given(ctx: click.Context, params: dict[str, Any]) -> list[Any]:
    """``overrides`` of a command that declares only some of the job flags (``validate``):
    the others count as not given."""
    every = {_param_name(flag): None for flag, *_ in _FIELD_FLAGS}
    return overrides(ctx, {**every, "set_": (), **params})


def parse_unset(text: str) -> Any:
    """``--unset PATH``: an override that removes PATH (``merge.REMOVE``); PATH is written as
    for ``--set``."""
    from gpujob.config import overrides as ov
    from gpujob.config.merge import REMOVE
    from gpujob.errors import UsageError
    from gpujob.findings import Location

    try:
        path = ov.parse_path(text.strip())
    except UsageError as exc:  # its message names --set, whose PATH syntax this is
        raise UsageError(f"--unset{exc.message.removeprefix('--set')}", exc.hint) from None
    return ov.Override(path, REMOVE, Location("command line", flag=f"--unset {text.strip()}"))


def job_options(local: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """CONFIG and every option that describes the job: ``submit``'s and ``local``'s (``local``:
    worded for ``gpujob local --help``)."""
    from gpujob.cli import gcloud

    return stack(
        gcloud.config_arguments,  # CONFIG, or gcloud's JOB --config CONFIG
        service_option,
        field_options(local),
        click.option(
            "--package-path", metavar="DIR",
            help=_help("--package-path",
                       "The trainer's Python package (a directory holding __init__.py). For the "
                       "cloud: built as an sdist from its parent's pyproject.toml or setup.py, "
                       "else from a generated config, in an isolated environment, then staged "
                       "and added to the packages. Local runs: the module runs from its parent "
                       "(default: the current directory).", local)),
        override_options(local),
        display_name_option,
        check_options,
        service_flags,
    )


display_name_option = click.option(
    "--display-name", metavar="NAME",
    help="Vertex AI: the job's name, which may hold hyphens and spaces (default: an AI Platform "
         "config's jobId; a native config's displayName, else the file's name). AI Platform "
         "names a job by its jobId alone (--job-id).")


def override_options(local: bool = False, only: Collection[str] | None = None,
                     envvar: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options besides the field flags that change the job: web access, labels, the
    encryption key, ``--set`` and ``--unset`` (``overrides`` reads them); ``only`` and
    ``envvar`` as for ``field_options``."""
    kms_env = "GPUJOB_KMS_KEY" if envvar else None
    options = {
        "--enable-web-access": click.option(
            "--enable-web-access/--no-enable-web-access", default=None,
            help=_help("--enable-web-access", "Interactive shell access to the training "
                       "containers (absent: as the file says).", local)),
        "--labels": click.option(
            "--labels", multiple=True, metavar="KEY=VALUE,…",
            help=_help("--labels", "Labels for the job; replace the file's labels. "
                       "Repeatable.", local)),
        "--kms-key": click.option(
            "--kms-key", envvar=kms_env, show_envvar=bool(kms_env),
            help=_help("--kms-key", "Cloud KMS key to encrypt the job's resources: a full "
                       "name, or a short one with --kms-keyring, --kms-location (and "
                       "--kms-project).", local)),
        "--kms-keyring": click.option("--kms-keyring", help="Key ring of a short --kms-key."),
        "--kms-location": click.option("--kms-location",
                                       help="Location of a short --kms-key."),
        "--kms-project": click.option("--kms-project", help="Project of a short --kms-key "
                                      "(default: --project, where the command takes it)."),
        "--set": click.option(
            "--set", "set_", multiple=True, metavar="PATH=VALUE",
            help="Set any field, e.g. --set trainingInput.scheduling.maxRunningTime=7200s. "
                 "VALUE is YAML ('4' a string, 4 a number). Repeatable; named flags win."),
        "--unset": click.option(
            "--unset", "unset", multiple=True, metavar="PATH",
            help="Remove a field of the file, e.g. --unset trainingInput.args. Repeatable; "
                 "applied before --set and the named flags."),
    }
    return stack(*[option for flag, option in options.items()
                   if only is None or flag in only])


def local_options(hidden: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """How a job runs on this machine: ``gpujob local`` and ``gpujob submit --local``
    (``hidden``: accepted, not shown, for submit's --help without --local)."""
    return stack(
        click.option("--max-local-replicas", type=Count(min=1), metavar="N",
                     envvar="GPUJOB_MAX_LOCAL_REPLICAS", show_envvar=True, hidden=hidden,
                     help="Local runs: run at most N replicas, trimming the largest groups "
                          "of workers, parameter servers and evaluators (with a warning). "
                          "Default: 8."),
        click.option("--grace-period", type=Seconds(min=0), metavar="SECONDS",
                     envvar="GPUJOB_GRACE_PERIOD", show_envvar=True, hidden=hidden,
                     help="Local runs: how long replicas being stopped get after SIGTERM "
                          "before SIGKILL. Default: 10 (30, a Spot VM's, when preempted by "
                          "--preempt-after)."),
        click.option("--preempt-after", metavar="SECONDS|FILE", hidden=hidden,
                     help="Local runs: a preemption drill: SIGTERM to every replica, as a "
                          "preempted VM's processes get, SECONDS after the job starts, or once "
                          "FILE (a path or glob pattern under the job dir, e.g. "
                          "'checkpoints/*.pt') is written; the job then ends as preempted."),
        click.option("--recover", type=Count(min=0), metavar="N", hidden=hidden,
                     help="Follow the job and, when it ends FAILED for the infrastructure's "
                          "cause (a preemption, a stockout, quota, an internal error), create "
                          "it again with the same output directory, at most N times (vertex; "
                          "with --region A,B or --strategy X,Y at the next choice). Local runs, "
                          "with --preempt-after: start the job again after the drill's "
                          "preemption with the same job dir. Default: 0."),
    )


def submit_settings(ctx: click.Context, params: dict[str, Any], *, local: bool) -> SubmitSettings:
    """The SubmitSettings of ``submit`` (its cloud options are in ``params``) and ``local``."""
    from gpujob.cli import modes
    from gpujob.submit.settings import SubmitSettings

    cloud: dict[str, Any] = {}
    if "wait" in params:
        cloud = {"gcp": gcp_settings(params), "output_format": params["fmt"],
                 "wait": params["wait"], "stream_logs": params["stream_logs"],
                 "poll_interval": params["poll_interval"]}
    if local:  # a local run has no price (``modes`` noted the flag as unused)
        params = {**params, "max_hourly_cost": None, "max_cost": None}
    check = check_options_of(params)
    return SubmitSettings(
        config=params["config"],
        overrides=overrides(ctx, params),
        user_args=ctx.meta["user_args"],
        project=params.get("project"),
        dry_run=params.get("dry_run", False),
        local=local,
        check=check,
        package_path=params["package_path"],
        staging_bucket=params.get("staging_bucket"),
        max_local_replicas=params["max_local_replicas"],
        grace_period=params["grace_period"],
        # the drill's flags: local's and submit's (refused there), not preflight's
        preempt_after=params.get("preempt_after"),
        recover_exit_codes=params.get("recover_on_exit_codes") or (),
        # the flags the mode uses (``modes`` noted the others): the service judges those alone
        given_flags=tuple(f for f in given_flags(ctx)
                          if modes.use(f, "local" if local else "submit") != "unused"),
        **cloud,
    )
