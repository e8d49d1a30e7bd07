"""``submit`` and ``local``'s settings (see ``gpujob.settings`` for the order values come in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpujob.settings import CheckSettings

if TYPE_CHECKING:
    from gpujob.checks.engine import CheckOptions
    from gpujob.config.load import Loaded
    from gpujob.config.overrides import Override
    from gpujob.gcp.settings import GcpSettings
    from gpujob.services.base import Service
    from gpujob.settings import JobOptions


def _gcp() -> GcpSettings:
    from gpujob.gcp.settings import GcpSettings  # imported by the commands that talk to Google

    return GcpSettings()


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
    preempt_after: str | None = None  # the drill's --preempt-after SECONDS|FILE
    recover: int | None = None  # the drill's; submit's: attempts after the infrastructure's end
    recover_exit_codes: tuple[int, ...] = ()  # --recover-on-exit-codes: recovered too
    given_flags: tuple[str, ...] = ()  # the options given on the command line
    display_name: str | None = None  # --display-name: the Vertex AI job's name
    # Vertex AI: the choices tried in order (gpujob.failover; empty: the config's region, the
    # one --strategy), and whether the quota preflight runs (--no-preflight)
    regions: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    order: str = "as-given"  # --order: as-given, obtainable (capacity advice) or cheapest
    preflight: bool = True
    # the config as the command line built it (gcloud's flag-only jobs, custom-jobs flags);
    # None: read from ``config``
    loaded: Loaded | None = None

    def load(self) -> Loaded:
        """The config: as the command line built it, else read from its file."""
        from gpujob.config.load import load_file

        return self.loaded if self.loaded is not None else load_file(self.config)

    @property
    def service(self) -> str:
        return self.check.service

    @property
    def catalog(self) -> Any:
        return self.check.catalog

    def check_options(self, service: Service) -> CheckOptions:
        from gpujob.checks.engine import CheckOptions, CommandLine

        return CheckOptions(service, submit=True, local=self.local, catalog=self.catalog,
                            region_check=self.check.region_check, job=self.job_options(),
                            command_line=CommandLine(tuple(self.overrides), self.user_args,
                                                     self.package_path))

    def job_options(self) -> JobOptions:
        """What the service reads from the command line besides the config."""
        return self.check.job_options()._replace(display_name=self.display_name,
                                                 recover=self.recover or 0)
