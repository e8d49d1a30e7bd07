"""The typed settings of each command: what the user asked for, resolved.

The command line builds them (``gpujob.cli.options`` and ``gpujob.cli.jobflags``: options ->
settings), each value in one order: the flag, else the environment variable its help names, else
the config file's value (flags that set a job field override the file field by field), else the
default. The work is then ``execute(settings)``; nothing past this point reads flags.
"""

# (no ``from __future__ import annotations``: typing.NamedTuple would compile each string
# annotation at start-up.) NamedTuples, not dataclasses: importing dataclasses (and inspect) and
# creating each class cost ~25 ms on validate's start-up. SubmitSettings, which submit and local
# alone need, is a dataclass in gpujob.submit.settings.

from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob.services import DEFAULT_SERVICE

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpujob.gcp.settings import GcpSettings


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


class CheckSettings(NamedTuple):
    """How configs are checked: for which service, against which catalog (loaded from
    ``--catalog`` or the service's built-in one; None: the built-in one, loaded when needed),
    whether region findings are errors, and (Vertex AI) the image that runs a Python package
    job and the scheduling strategy (``--strategy``, upper case)."""

    service: str = DEFAULT_SERVICE
    catalog: Any = None  # the service's catalog record (its type is the service's)
    region_check: bool = True
    executor_image_uri: str | None = None
    strategy: str | None = None
    extra: tuple[tuple[str, str], ...] = ()  # the service's own flags given (name, value)
    max_hourly_cost: float | None = None  # --max-hourly-cost (validate, submit): USD
    max_cost: float | None = None  # --max-cost (validate, submit): USD for the whole job

    def job_options(self) -> JobOptions:
        return JobOptions(executor_image_uri=self.executor_image_uri, strategy=self.strategy,
                          extra=self.extra,
                          max_hourly_cost=self.max_hourly_cost, max_cost=self.max_cost)


class ValidateSettings(NamedTuple):
    files: "Sequence[str]"  # the configs, directories expanded (``cli.files.expand``)
    output_format: str
    check: CheckSettings
    unreadable: "Sequence[tuple[str, str]]" = ()  # directories under them not read, and why


class GpusSettings(NamedTuple):
    gpu: str | None
    machine_type: str | None
    count: int | None  # type: ignore[assignment]  # the field hides tuple.count
    region: str | None
    zone: str | None
    output_format: str
    check: CheckSettings
    export_catalog: bool = False
    sort: str | None = None  # the price table's order (--sort); None: cheapest first
    availability: bool = False  # --availability: Compute Engine's capacity advice per row
    gcp: "GcpSettings | None" = None  # how to ask it (with --availability)


class ReserveSettings(NamedTuple):
    """``gpujob reserve``: GPUs in all, for how many days, where (None: where the catalog
    lists the machine type), and the reservation's name in the command."""

    gpu: str
    count: int  # type: ignore[assignment]  # the field hides tuple.count
    days: int
    region: str | None
    machine_type: str | None
    name: str | None
    gcp: "GcpSettings"
    catalog: Any = None  # the Vertex AI catalog
    create: bool = False  # --create: submit the first window's request once confirmed


class CostSettings(NamedTuple):
    """``cost``: the jobs, where, and the Cloud Billing export table (PROJECT.DATASET.TABLE)."""

    gcp: "GcpSettings"
    jobs: tuple[str, ...]
    table: str
    output_format: str = "text"


class JobSettings(NamedTuple):
    """``describe``, ``list``, ``cancel``, ``wait`` and ``logs``: which job, where, and how."""

    service: str
    gcp: "GcpSettings"
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
