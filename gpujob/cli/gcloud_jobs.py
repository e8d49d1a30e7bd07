"""gcloud's other job command lines, taken as gpujob's: ``gcloud ai custom-jobs create``'s and
``gcloud ai hp-tuning-jobs create``'s flags (``gpujob.config.gcloud_vertex`` builds the job),
and a job from flags alone, as gcloud takes it with no ``--config``: a CustomJob from
``--worker-pool-spec``, or an AI Platform job from ``--master-image-uri``, ``--module-name``, …
(``gcloud ai-platform jobs submit training JOB --region R --master-image-uri IMAGE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gpujob.cli.options import stack
from gpujob.cli.params import Count
from gpujob.errors import UsageError

if TYPE_CHECKING:  # (validate imports this module: no dataclass of submit's at its start-up)
    from gpujob.settings import CheckOptions
    from gpujob.submit.settings import SubmitSettings

# the flags that describe an AI Platform job's code or machines: one of them makes a job
# without a config file (as gcloud ai-platform jobs submit training takes it)
_AI_PLATFORM_JOB = ("master_image_uri", "module_name", "packages", "scale_tier",
                    "master_machine_type")


def options(func: Any) -> Any:
    """``gcloud ai custom-jobs create``'s and ``hp-tuning-jobs create``'s own flags."""
    return options_of(False)(func)


def options_of(hidden: bool) -> Any:
    """The same flags (``hidden``: accepted, not shown: ``gpujob local``, where a native
    Vertex config does not run)."""
    return stack(
        click.option("--worker-pool-spec", "worker_pool_spec", multiple=True,
                     metavar="KEY=VALUE,…", hidden=hidden,
                     help="Vertex AI, as gcloud ai custom-jobs create: one worker pool "
                          "(machine-type, replica-count, accelerator-type, accelerator-count, "
                          "container-image-uri or executor-image-uri and python-module). "
                          "Repeatable, one per pool; replaces the file's pools."),
        click.option("--args", "gcloud_args", metavar="ARG,…", hidden=hidden,
                     help="Vertex AI: every pool's arguments, comma-separated (gcloud's "
                          "--args; -- ARGS takes arguments that hold commas)."),
        click.option("--command", "gcloud_command", metavar="CMD,…", hidden=hidden,
                     help="Vertex AI: every container pool's command, comma-separated."),
        click.option("--python-package-uris", metavar="URI,…", hidden=hidden,
                     help="Vertex AI: the packages of --worker-pool-spec's Python pools "
                          "(with --config, gcloud sends the file's packageUris instead)."),
        click.option("--enable-dashboard-access", is_flag=True, default=None, hidden=hidden,
                     help="Vertex AI: access to the training's dashboard."),
        click.option("--max-trial-count", type=Count(min=1), metavar="N", hidden=hidden,
                     help="Vertex AI tuning job: trials in all (a file without it: 1)."),
        click.option("--parallel-trial-count", type=Count(min=1), metavar="N", hidden=hidden,
                     help="Vertex AI tuning job: trials at once (a file without it: 1)."),
        click.option("--algorithm", metavar="ALGORITHM", hidden=hidden,
                     help="Vertex AI tuning job: the search algorithm (grid-search, "
                          "random-search, algorithm-unspecified)."),
    )


def _flags(params: dict[str, Any]) -> Any:
    from gpujob.config.gcloud_vertex import VertexFlags

    return VertexFlags(tuple(params.get("worker_pool_spec") or ()), params.get("gcloud_args"),
                       params.get("gcloud_command"), params.get("python_package_uris"),
                       params.get("enable_dashboard_access"), params.get("max_trial_count"),
                       params.get("parallel_trial_count"), params.get("algorithm"))


def flag_only(params: dict[str, Any]) -> bool:
    """Whether the flags alone describe a job (no config file is needed)."""
    return bool(params.get("worker_pool_spec")) or any(
        params.get(name) for name in _AI_PLATFORM_JOB)


def take(settings: SubmitSettings, params: dict[str, Any]) -> SubmitSettings:
    """``settings`` with the job the command line builds: from the flags alone (no config
    file), or the config file with gcloud's custom-jobs/hp-tuning-jobs flags applied."""
    flags = _flags(params)
    if settings.config is not None and not flags.given:
        return settings
    import dataclasses

    from gpujob.config import gcloud_vertex as gv
    from gpujob.config.document import Document
    from gpujob.config.load import Loaded, load_file

    if flags.given and settings.user_args is not None and flags.args is not None:
        raise UsageError("--args and -- ARGS both give the trainer's arguments",
                         "give them once: -- ARGS keeps arguments that hold commas")
    if settings.config is None:
        if flags.pool_specs and not settings.display_name:
            raise UsageError("--worker-pool-spec needs --display-name, as in gcloud ai "
                             "custom-jobs create", "add --display-name NAME")
        specs = [gv.parse_pool_spec(text, i) for i, text in enumerate(flags.pool_specs, 1)]
        if specs:
            gv.check_specs(specs)
        from gpujob.config import gcloud_autopackage as auto

        if auto.wanted(specs):
            return _autopackaged(settings, flags, specs)
        # else an AI Platform job from its flags, as gcloud builds it
        doc = gv.flag_only(flags) if flags.given else Document(gv.SOURCE, {"trainingInput": {}})
        loaded = Loaded(gv.SOURCE, doc, [])
        return dataclasses.replace(settings, config=gv.SOURCE, loaded=loaded)
    loaded = load_file(settings.config)
    if loaded.document is None:  # reported by the checks, as for any config
        return dataclasses.replace(settings, loaded=loaded)
    doc = gv.apply_flags(loaded.document, flags)
    return dataclasses.replace(settings, loaded=loaded._replace(document=doc))


def _autopackaged(settings: SubmitSettings, flags: Any, specs: list[dict[str, Any]]
                  ) -> SubmitSettings:
    """Pool 0's local-package-path built and staged by gpujob (``gcloud_autopackage``)."""
    import dataclasses

    from gpujob.config import gcloud_autopackage as auto
    from gpujob.config.gcloud_vertex import SOURCE, split_list
    from gpujob.config.load import Loaded
    from gpujob.console import CONSOLE

    given = [name for name, value in (("--command", flags.command),
                                      ("--python-package-uris", flags.package_uris),
                                      ("--package-path", settings.package_path),
                                      ("--executor-image-uri",
                                       settings.check.job.executor_image_uri)) if value]
    if given:
        raise UsageError(f"{', '.join(given)}: not with local-package-path, which names the "
                         "package, its module and its image in --worker-pool-spec",
                         "leave them out, or give the job as a config file")
    job = auto.autopackaged(specs, split_list(flags.args), SOURCE)
    CONSOLE.err(job.note)
    check = settings.check
    check = check._replace(job=check.job._replace(executor_image_uri=job.executor))
    return dataclasses.replace(settings, config=SOURCE, loaded=Loaded(SOURCE, job.doc, []),
                               package_path=job.package_path, check=check)


# -- the same command line for validate and convert ---------------------------------------------

# gcloud ai custom-jobs create's flags that are submit's too (``jobflags``), which validate
# takes (``cli.validate``)
FIELDS = ("--region", "--service-account", "--network")
OVERRIDES = ("--enable-web-access", "--labels", "--kms-key", "--kms-keyring", "--kms-location",
              "--kms-project")
# every parameter of validate's job command line, and whether one of them was given
JOB_PARAMS = ("worker_pool_spec", "gcloud_args", "gcloud_command", "python_package_uris",
              "enable_dashboard_access", "max_trial_count", "parallel_trial_count", "algorithm",
              "display_name", *(flag[2:].replace("-", "_") for flag in (*FIELDS, *OVERRIDES)))


def given(params: dict[str, Any]) -> bool:
    """Whether validate was given a job command line (else it checks the files as they are)."""
    return any(params.get(name) not in (None, ()) for name in JOB_PARAMS)


def job_settings(params: dict[str, Any], check: CheckOptions, configs: list[str],
                 line: list[Any]) -> list[SubmitSettings]:
    """The job of each config (none: the job from the flags alone) with the command line
    (``line``, its overrides) applied, as ``submit`` builds it (``take``), for the checks."""
    from gpujob.submit.settings import SubmitSettings

    out = []
    every_config: list[str | None] = list(configs) or [None]
    for config in every_config:
        settings = SubmitSettings(config=config, overrides=list(line),
                                  check=check, dry_run=True)
        out.append(take(settings, params))
    return out


def given_vertex(params: dict[str, Any]) -> bool:
    """Whether one of gcloud ai custom-jobs/hp-tuning-jobs create's own flags was given."""
    return _flags(params).given


def for_convert(ctx: click.Context, params: dict[str, Any], check: CheckOptions,
                line: list[Any]) -> SubmitSettings:
    """``convert``'s job as ``submit`` builds it (``take``): from the flags alone, or the
    file with gcloud's custom-jobs flags applied."""
    from gpujob.submit.settings import SubmitSettings

    settings = SubmitSettings(config=params["config"], overrides=line, check=check,
                              user_args=ctx.meta["user_args"], dry_run=True,
                              package_path=params.get("package_path"))
    return take(settings, params)
