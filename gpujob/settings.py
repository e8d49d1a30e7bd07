"""The typed settings of each command: what the user asked for, resolved.

The command line builds them (``gpujob.cli.options`` and ``gpujob.cli.jobflags``: options ->
settings), each value in one order: the flag, else the environment variable its help names, else
the config file's value (flags that set a job field override the file field by field), else the
default. The work is then ``execute(settings)``; nothing past this point reads flags.
"""

# NamedTuples (``gpujob.tuples``'s, which check no annotation), not dataclasses: importing
# dataclasses (and inspect) and creating each class cost ~25 ms on validate's start-up.
# SubmitSettings, which submit, local, preflight and convert alone need, is a dataclass in
# gpujob.submit.settings.

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NamedTuple

    from gpujob.config.overrides import Override
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.base import Service
else:
    from gpujob.tuples import NamedTuple


class JobOptions(NamedTuple):
    """What a service reads from the command line besides the config, one type for every
    service (each reads the fields it supports; ``unsupported_flags`` refuses the rest):
    ``--display-name`` (over the jobId), ``--executor-image-uri`` (the image a Python package
    job runs in), ``--strategy`` (upper case: STANDARD, SPOT, FLEX_START), the values of a
    service's own flags (``extra``: name, value), ``--max-hourly-cost`` and ``--max-cost``.
    (The flags that set a field of the config, --region and --job-dir among them, are
    overrides of the config.)"""

    display_name: str | None = None
    executor_image_uri: str | None = None
    strategy: str | None = None
    extra: tuple[tuple[str, str], ...] = ()
    max_hourly_cost: float | None = None  # --max-hourly-cost: USD an hour, else refused
    max_cost: float | None = None  # --max-cost: USD for the whole job (a timeout, else refused)
    recover: int = 0  # submit --recover N: the job may be created again N times


class CommandLine(NamedTuple):
    """What ``submit`` and ``convert`` apply to a config: the overrides in order, the trainer's
    arguments after ``--``, and ``--package-path``. An AI Platform config has them merged
    before the check (``config.merge``); a config in a service's own form, by the service."""

    overrides: tuple[Override, ...] = ()
    user_args: list[str] | None = None
    package_path: str | None = None


class CheckOptions(NamedTuple):
    """How configs are checked, and what to check beyond the file itself.

    ``service``: the service the job is for (``--service``). ``submit``: the job is about to be
    sent, so what the service needs at creation (a region, the trainer's packages) must be
    there. ``local``: it runs on this machine instead (region checks become warnings).
    ``catalog``: the catalog to check against (None: the service's built-in one), loaded by the
    command (``loaded``) from ``catalog_file`` (``--catalog``) or the built-in one.
    ``region_check``: False turns region and zone findings into warnings. ``job``: what the
    command line gives the service besides the config (``--executor-image-uri``,
    ``--strategy``, …). ``command_line``: what a submit applies to the config.
    """

    service: Service
    submit: bool = False
    local: bool = False
    catalog: Any = None  # the service's catalog record (its type is the service's)
    region_check: bool = True
    job: JobOptions = JobOptions()
    command_line: CommandLine = CommandLine()
    catalog_file: str | None = None  # --catalog: a file to use instead of the built-in one

    def loaded(self) -> CheckOptions:
        """These options with their catalog: ``catalog_file``, else the service's built-in
        one (with the parts ``gpujob catalog refresh`` wrote, and a warning when its facts
        are old). The command loads it once, first, so that a bad --catalog is one usage
        error, not one per config."""
        if self.catalog is not None:
            return self
        from gpujob import catalog
        from gpujob.catalog import freshness
        from gpujob.console import CONSOLE

        found = catalog.load(self.service.name, self.catalog_file)
        if self.catalog_file is None:
            for warning in freshness.warnings(found):
                CONSOLE.err(warning)
        return self._replace(catalog=found)

    def catalog_in_use(self) -> Any:
        from gpujob.catalog import files

        assert self.catalog is not None or self.catalog_file is None, "not loaded (``loaded``)"

        return self.catalog if self.catalog is not None else files.built_in(
            self.service.catalog)


class ValidateSettings(NamedTuple):
    files: Sequence[str]  # the configs, directories expanded (``cli.files.expand``)
    output_format: str
    check: CheckOptions
    unreadable: Sequence[tuple[str, str]] = ()  # directories under them not read, and why


class GpusSettings(NamedTuple):
    gpu: str | None
    machine_type: str | None
    count: int | None  # type: ignore[assignment]  # the field hides tuple.count
    region: str | None
    zone: str | None
    output_format: str
    check: CheckOptions
    export_catalog: bool = False
    sort: str | None = None  # the price table's order (--sort); None: cheapest first
    availability: bool = False  # --availability: Compute Engine's capacity advice per row
    gcp: GcpSettings | None = None  # how to ask it (with --availability)


class ReserveSettings(NamedTuple):
    """``gpujob reserve``: GPUs in all, for how many days, where (None: where the catalog
    lists the machine type), and the reservation's name in the command; ``check``: Vertex AI
    and its catalog (loaded by the command)."""

    gpu: str
    count: int  # type: ignore[assignment]  # the field hides tuple.count
    days: int
    region: str | None
    machine_type: str | None
    name: str | None
    gcp: GcpSettings
    check: CheckOptions
    create: bool = False  # --create: submit the first window's request once confirmed


class RemoteSettings(NamedTuple):
    """The commands over jobs already sent: ``describe``, ``list``, ``cancel``, ``wait`` and
    ``logs`` (which job, where, and how), and ``cost`` (its jobs, and the Cloud Billing export
    table, PROJECT.DATASET.TABLE)."""

    service: str
    gcp: GcpSettings
    job: str | None = None
    output_format: str = "text"
    poll_interval: float = 10.0
    timeout: float | None = None  # wait
    follow: bool = False  # logs
    filter_: str | None = None  # list
    limit: int | None = None  # list
    extra: tuple[tuple[str, str], ...] = ()  # the service's own flags given (name, value)
    recover: int | None = None  # wait --recover N
    recover_exit_codes: tuple[int, ...] = ()  # wait --recover-on-exit-codes
    max_cost: float | None = None  # wait --recover --max-cost: USD for the attempts
    jobs: tuple[str, ...] = ()  # cost
    table: str = ""  # cost
