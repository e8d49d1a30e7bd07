"""Option groups shared by the commands, and the settings they build (``gpujob.settings``).

Each group is a decorator; each ``*_settings`` function turns what click parsed into typed
settings. Only click and gpujob's light modules are imported here.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from gpujob.cli.files import ExistingFile
from gpujob.cli.params import Count, Project, Region, Seconds
from gpujob.services import DEFAULT_SERVICE, SERVICES
from gpujob.services.capabilities import Capability
from gpujob.settings import CheckOptions, JobOptions, RemoteSettings

if TYPE_CHECKING:
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.flags import ServiceFlag

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def stack(*options: Decorator) -> Decorator:
    """Several options as one decorator, shown in ``--help`` in the order given."""
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def given_flags(ctx: click.Context) -> tuple[str, ...]:
    """The options given on the command line (not from the environment or defaults), by their
    first flag, in the command's order."""
    return tuple(param.opts[0] for param in ctx.command.params
                 if isinstance(param, click.Option) and param.name is not None
                 and ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE)


# -- options shared by several commands --------------------------------------------------------

class _Services(click.Choice):
    """--service's choices: the registry's names as they are when the command line is read;
    with ``having``, those offered are the services that have it, and another service's name
    is left to the command, which says what it lacks (``ServiceBase.require``)."""

    def __init__(self, having: Capability | None = None) -> None:
        self.having = having
        super().__init__([])

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        if self.having is None:
            return sorted(SERVICES)
        from gpujob import services

        having = self.having
        return sorted(name for name in SERVICES if services.get(name).supports(having))

    @choices.setter
    def choices(self, value: Any) -> None:
        pass  # click.Choice sets them; they are the registry's

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if self.having is not None and value in SERVICES:
            return value
        return super().convert(value, param, ctx)


def services_choice(having: Capability | None = None) -> click.Choice:
    """The registry's service names, as they are when the command line is read; with
    ``having``, those of the services that have it are offered."""
    return _Services(having)


def service_option_of(text: str) -> Decorator:
    return click.option("--service", type=_Services(), default=DEFAULT_SERVICE,
                        show_default=True, envvar="GPUJOB_SERVICE", show_envvar=True, help=text)


# the flags of the services' own that a command of this run takes: parameter name -> {service:
# flag} (two services may each have a flag of one name: --reservation); filled as
# ``service_flags_of`` decorates the commands
SERVICE_FLAGS: dict[str, dict[str, ServiceFlag]] = {}


def service_flags_of(commands: str) -> Decorator:
    """The flags of each service's own (``Service.flags``) that ``commands`` take (``job``,
    ``validate`` or ``place``: ``services.flags.TAKEN_BY``), named after the service in their
    help. ``extra`` collects the values given."""

    def add(func: Callable[..., Any]) -> Callable[..., Any]:
        from gpujob import services
        from gpujob.services.flags import TAKEN_BY

        taken = [(name, flag) for name in sorted(SERVICES) for flag in services.get(name).flags
                 if flag.scope in TAKEN_BY[commands]]
        owners: dict[str, dict[str, ServiceFlag]] = {}
        for name, flag in taken:  # in --help's order
            owners.setdefault(flag.name.lstrip("-").replace("-", "_"), {})[name] = flag
        for param, by_service in owners.items():
            SERVICE_FLAGS.setdefault(param, {}).update(by_service)
        for by_service in reversed(owners.values()):  # click lists the last decorator first
            flag = next(iter(by_service.values()))
            func = click.option(flag.name, metavar=None if flag.switch else flag.metavar,
                                is_flag=flag.switch, default=None, envvar=flag.envvar,
                                show_envvar=flag.envvar is not None,
                                help=" ".join(f"{name}: {f.help}"
                                              for name, f in by_service.items()))(func)
        return func

    return add


service_flags = service_flags_of("job")  # submit, local, convert
place_flags = service_flags_of("place")  # describe, list, cancel, wait, logs


def extra(params: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The values of the chosen service's own flags (name, value: "true" for a switch); a flag
    of another service, or a value its service cannot take, is refused (exit 2)."""
    from gpujob.errors import UsageError

    chosen = params["service"]
    out, refused = [], []
    for key, by_service in SERVICE_FLAGS.items():
        value = params.get(key)
        if value is None or value is False:
            continue
        if chosen not in by_service:
            flag = next(iter(by_service.values()))
            owners = " and ".join(by_service)
            refused.append(f"{flag.name} (a flag of the {owners} "
                           f"service{'s' if len(by_service) > 1 else ''})")
            continue
        flag = by_service[chosen]
        text = "true" if value is True else str(value)
        problem = flag.check(text) if flag.check is not None else None
        if problem:
            shown = text or "''"  # an empty value (an unset variable) said as such
            raise UsageError(f"{flag.name} {shown}: {problem[0]}", problem[1])
        out.append((flag.name, text))
    if refused:
        raise UsageError(f"{', '.join(refused)}: not a flag of the {chosen} service",
                         "leave it out, or choose its service with --service")
    return tuple(out)


service_option = service_option_of(
    "The training service the job is for: its catalog and rules check the config, and its "
    "API receives the job.")
jobs_service_option = service_option_of("The training service whose jobs these are.")


STRATEGIES = ("STANDARD", "SPOT", "FLEX_START")
VERTEX_FLAGS = ("--executor-image-uri", "--strategy")  # what AI Platform has no field for


class _Strategies(click.ParamType):
    """--strategy: one of STRATEGIES (any case), or (submit, preflight) a comma-separated list
    of them, tried in order; upper case, comma-joined."""

    name = "strategy"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        items = [item.strip().upper() for item in str(value).split(",")]
        bad = [item for item in items if item not in STRATEGIES]
        if bad:
            self.fail(f"'{bad[0]}' is not one of {', '.join(STRATEGIES)} (a list: "
                      "spot,standard)", param, ctx)
        return ",".join(items)


def check_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--catalog, --no-region-check, --executor-image-uri and --strategy, of the commands that
    check configs (the last two: Vertex AI's, which the translation of a config uses)."""
    return stack(
        click.option(
            "--catalog", type=ExistingFile("a catalog file"), envvar="GPUJOB_CATALOG",
            show_envvar=True, help="A compatibility catalog (JSON or YAML) to use instead of "
            "the built-in one; `gpujob gpus --export-catalog` prints the built-in one to start "
            "from."),
        click.option(
            "--no-region-check", "no_region_check", is_flag=True,
            help="Report region and zone problems as warnings, for when you know better than "
                 "the catalog's availability data."),
        click.option(
            "--executor-image-uri", metavar="URI",
            help="Vertex AI: the image that runs a Python package job, instead of the prebuilt "
                 "image of its runtimeVersion. A Vertex prebuilt training image runs the "
                 "package; any other image with Python installs it from /gcs/ and runs the "
                 "module."),
        click.option(
            "--strategy", type=_Strategies(), metavar="[STANDARD|SPOT|FLEX_START]",
            help="Vertex AI: scheduling.strategy: STANDARD, SPOT (Spot VMs), or FLEX_START "
                 "(Dynamic Workload Scheduler, which makes maxWaitTime maxWaitDuration). "
                 "submit: an ordered list, as spot,standard, is tried in order."),
    )(func)


def check_options_of(params: dict[str, Any]) -> CheckOptions:
    """The service, its catalog file (``--catalog``; the command loads it, or the built-in
    one), whether region findings are errors, and what the service reads from the flags."""
    from gpujob import services

    service = params["service"]
    executor = params.get("executor_image_uri")
    strategy = params["strategy"].upper() if params.get("strategy") else None
    if strategy and "," in strategy:
        from gpujob.errors import UsageError

        raise UsageError(f"--strategy {strategy} is a list: this command takes one strategy",
                         "gpujob submit and gpujob preflight try a list in order")
    given = [flag for flag, value in zip(VERTEX_FLAGS, (executor, strategy), strict=True)
             if value is not None]
    budget, max_cost = params.get("max_hourly_cost"), params.get("max_cost")
    given += ["--max-hourly-cost"] if budget is not None else []
    given += ["--max-cost"] if max_cost is not None else []
    if given:
        from gpujob.services.capabilities import check_flags

        check_flags(services.get(service), given)
    job = JobOptions(executor_image_uri=executor, strategy=strategy, extra=extra(params),
                     max_hourly_cost=budget, max_cost=max_cost,
                     recover=params.get("recover") or 0,
                     display_name=params.get("display_name"))
    return CheckOptions(services.get(service), catalog_file=params["catalog"],
                        region_check=not params.get("no_region_check", False), job=job)


def _usd(ctx: click.Context, param: click.Parameter, value: Any) -> float | None:
    import math

    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not an amount of US dollars", ctx, param)
    return value


def budget_option_of(hidden: bool = False) -> Decorator:
    """--max-hourly-cost and --max-cost."""
    hourly = click.option(
        "--max-hourly-cost", "max_hourly_cost", type=click.FloatRange(min=0), metavar="USD",
        envvar="GPUJOB_MAX_HOURLY_COST", show_envvar=True, callback=_usd, hidden=hidden,
        help="Vertex AI: refuse (exit 1) a job whose list price is over USD an hour, or "
             "cannot be told from gpujob's prices; checked before anything is uploaded or "
             "sent.")
    whole = click.option(
        "--max-cost", "max_cost", type=click.FloatRange(min=0), metavar="USD",
        envvar="GPUJOB_MAX_COST", show_envvar=True, callback=_usd, hidden=hidden,
        help="Vertex AI: cap the whole job at USD (its list price an hour x its timeout, "
             "Vertex AI's default of 7 days when it sets none): a job that could cost more "
             "gets a shorter timeout (a note), or is refused (exit 1) when its own timeout is "
             "longer or its price is not known; before anything is uploaded or sent.")

    return stack(hourly, whole)


budget_option = budget_option_of()


def format_option(choices: tuple[str, ...] | list[str], text: str,
                  envvar: str | None = None, hidden: bool = False) -> Decorator:
    """--format, its choices from a reporter registry."""
    return click.option("--format", "fmt", type=click.Choice(list(choices)), default="text",
                        show_default=True, envvar=envvar, show_envvar=bool(envvar), help=text,
                        hidden=hidden)


def poll_option_of(hidden: bool = False) -> Decorator:
    return click.option("--poll-interval", type=Seconds(min=1), default=10.0,
                        show_default=True, metavar="SECONDS", help="Seconds between checks.",
                        hidden=hidden)


poll_option = poll_option_of()

project_option = click.option(
    "--project", type=Project(),
    envvar=["GPUJOB_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"], show_envvar=True,
    help="Google Cloud project (default: the credentials' project).")

region_option = click.option(
    "--region", type=Region(), envvar="GPUJOB_REGION", show_envvar=True, metavar="REGION",
    help="vertex: the region of the jobs (us-central1, …); a job's full resource name gives "
         "its own. ai-platform: not used (its jobs are global).")


def gcp_options_of(hidden: bool = False) -> Decorator:
    """How to reach Google Cloud: the options of every command that talks to it (``hidden``:
    accepted, not shown, for ``gpujob local``, which refuses them with ``modes``' message)."""
    return stack(
        click.option("--credentials-file", metavar="FILE",
                     type=ExistingFile("a credentials file"),
                     hidden=hidden,
                     help="Service account key or credentials file to use instead of "
                          "Application Default Credentials."),
        click.option("--impersonate-service-account", metavar="EMAIL",
                     envvar="GPUJOB_IMPERSONATE_SERVICE_ACCOUNT", show_envvar=True,
                     hidden=hidden,
                     help="Act as this service account (needs Service Account Token Creator "
                          "on it)."),
        click.option("--api-endpoint", metavar="URL", envvar="GPUJOB_API_ENDPOINT",
                     show_envvar=True, hidden=hidden,
                     help="The service API's address, for private endpoints (default: the "
                          "service's own; vertex: https://REGION-aiplatform.googleapis.com/, "
                          "ai-platform: https://ml.googleapis.com/)."),
        click.option("--max-attempts", type=Count(min=1), default=5,
                     show_default=True, envvar="GPUJOB_MAX_ATTEMPTS", show_envvar=True,
                     hidden=hidden, help="Tries per API call on 429, 5xx, resets and timeouts."),
        click.option("--retry-deadline", type=Seconds(min=0), default=120.0,
                     show_default=True, envvar="GPUJOB_RETRY_DEADLINE", show_envvar=True,
                     hidden=hidden, metavar="SECONDS",
                     help="No retry starts later than this after the first try."),
        click.option("--request-timeout", type=Seconds(min=0, min_open=True),
                     default=60.0, show_default=True, envvar="GPUJOB_REQUEST_TIMEOUT",
                     show_envvar=True, hidden=hidden, metavar="SECONDS",
                     help="Time one HTTP request may take, from sending it to the last byte "
                          "of the answer."),
        click.option("--verbose", is_flag=True, hidden=hidden,
                     help="Show each HTTP request and where the credentials came from (never "
                          "the tokens)."),
    )


gcp_options = gcp_options_of()


def gcp_settings(params: dict[str, Any]) -> GcpSettings:
    """The GcpSettings the options describe (GPUJOB_<API>_ENDPOINT, for private endpoints and
    tests, have no flag: ``gcp.environment_endpoints``)."""
    from gpujob.gcp import settings as gcp

    return gcp.GcpSettings(
        project=params.get("project"),
        region=params.get("region") or None,
        credentials_file=params["credentials_file"],
        impersonate_service_account=params["impersonate_service_account"],
        api_endpoint=params["api_endpoint"] or None,
        endpoints=gcp.environment_endpoints(os.environ),
        request_timeout=params["request_timeout"],
        retry=gcp.RetryPolicy(max_attempts=params["max_attempts"],
                          deadline=params["retry_deadline"]),
        verbose=params["verbose"],
    )


def job_settings(params: dict[str, Any], job: str | None = None) -> RemoteSettings:
    """The settings of the commands that follow and manage jobs; a flag the service cannot
    honour (GKE's --project) is refused, as a submit refuses it."""
    from gpujob import services
    from gpujob.services.capabilities import check_flags

    check_flags(services.get(params["service"]), given_flags(click.get_current_context()))
    return RemoteSettings(
        service=params["service"], gcp=gcp_settings(params), job=job, extra=extra(params),
        output_format=params.get("fmt", "text"),
        poll_interval=params.get("poll_interval", 10.0), timeout=params.get("timeout"),
        follow=params.get("follow", False), filter_=params.get("filter_"),
        limit=params.get("limit"), recover=params.get("recover"),
        recover_exit_codes=params.get("recover_on_exit_codes") or (),
        max_cost=params.get("max_cost"))
