"""The typed settings of each command: what the user asked for, resolved.

The command line builds them (``gpujob.cli.options`` and ``gpujob.cli.jobflags``: options ->
settings), each value in one order: the flag, else the environment variable its help names, else
the config file's value (flags that set a job field override the file field by field), else the
default. The work is then ``execute(settings)``; nothing past this point reads flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpujob.backends import DEFAULT_SERVICE

if TYPE_CHECKING:
    from gpujob.catalog import Catalog
    from gpujob.check import CheckOptions
    from gpujob.config.overrides import Override
    from gpujob.gcp.settings import GcpSettings


def _gcp() -> GcpSettings:
    from gpujob.gcp.settings import GcpSettings  # imported by the commands that talk to Google

    return GcpSettings()


@dataclass(frozen=True)
class CheckSettings:
    """How configs are checked: for which service, against which catalog (loaded from
    ``--catalog`` or the service's built-in one; None: the built-in one, loaded when needed),
    and whether region findings are errors."""

    service: str = DEFAULT_SERVICE
    catalog: Catalog | None = None
    region_check: bool = True


@dataclass(frozen=True)
class ValidateSettings:
    files: tuple[str, ...]
    output_format: str
    check: CheckSettings


@dataclass(frozen=True)
class GpusSettings:
    gpu: str | None
    machine_type: str | None
    count: int | None
    region: str | None
    zone: str | None
    output_format: str
    check: CheckSettings
    export_catalog: bool = False


@dataclass(frozen=True)
class JobSettings:
    """``describe``, ``list``, ``cancel``, ``wait`` and ``logs``: which job, where, and how."""

    service: str
    gcp: GcpSettings
    job: str | None = None
    output_format: str = "text"
    poll_interval: float = 10.0
    timeout: float | None = None  # wait
    follow: bool = False  # logs
    filter_: str | None = None  # list
    limit: int | None = None  # list


@dataclass
class SubmitSettings:
    """Everything ``submit`` (and ``local``) was asked to do."""

    config: str
    overrides: list[Override] = field(default_factory=list)
    user_args: list[str] | None = None
    project: str | None = None
    dry_run: bool = False
    local: bool = False
    check: CheckSettings = field(default_factory=CheckSettings)
    gcp: GcpSettings = field(default_factory=_gcp)  # its project: ``project`` above
    output_format: str = "text"
    wait: bool = False  # after submitting: wait for the job's end,
    stream_logs: bool = False  # or print its logs until then,
    poll_interval: float = 10.0  # looking every this many seconds
    package_path: str | None = None  # --package-path: built and staged, or run from (local)
    staging_bucket: str | None = None  # --staging-bucket gs://BUCKET
    # local runs (--local, gpujob local); None: the local backend's default
    max_local_replicas: int | None = None
    grace_period: float | None = None
    given_flags: tuple[str, ...] = ()  # the options given on the command line

    @property
    def service(self) -> str:
        return self.check.service

    @property
    def catalog(self) -> Catalog | None:
        return self.check.catalog

    def check_options(self) -> CheckOptions:
        from gpujob.check import CheckOptions

        return CheckOptions(submit=True, local=self.local, catalog=self.catalog,
                            region_check=self.check.region_check, service=self.service)
