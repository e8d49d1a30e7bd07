"""``submit``, ``local``, ``preflight`` and ``convert``'s settings (see ``gpujob.settings`` for
the order values come in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpujob.settings import CheckOptions, CommandLine

if TYPE_CHECKING:
    from gpujob.config.load import Loaded
    from gpujob.config.overrides import Override
    from gpujob.gcp.settings import GcpSettings


def _gcp() -> GcpSettings:
    from gpujob.gcp.settings import GcpSettings  # imported by the commands that talk to Google

    return GcpSettings()


def _check() -> CheckOptions:
    from gpujob import services

    return CheckOptions(services.get(services.DEFAULT_SERVICE))


@dataclass
class SubmitSettings:
    """Everything ``submit`` (and ``local``, ``preflight``, ``convert``) was asked to do.
    ``check``: the service, its catalog, and what it reads from the flags (``job``)."""

    config: str | None  # None: the job comes from the command line alone (``loaded``)
    overrides: list[Override] = field(default_factory=list)
    user_args: list[str] | None = None
    project: str | None = None
    dry_run: bool = False
    local: bool = False
    check: CheckOptions = field(default_factory=_check)
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
    recover_exit_codes: tuple[int, ...] = ()  # --recover-on-exit-codes: recovered too
    given_flags: tuple[str, ...] = ()  # the options given on the command line
    # Vertex AI: the choices tried in order (gpujob.failover; empty: the config's region, the
    # one --strategy), and whether the quota preflight runs (--no-preflight)
    regions: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    order: str = "as-given"  # --order: as-given, obtainable (capacity advice) or cheapest
    preflight: bool = True
    # the config as the command line built it (gcloud's flag-only jobs, custom-jobs flags);
    # None: read from ``config``
    loaded: Loaded | None = None
    output: str | None = None  # convert's -o FILE; None: standard output
    whole_job: bool = False  # convert: a whole CustomJob rather than the CustomJobSpec

    def load(self) -> Loaded:
        """The config: as the command line built it, else read from its file."""
        from gpujob.config.load import load_file

        return self.loaded if self.loaded is not None else load_file(self.name)

    @property
    def name(self) -> str:
        """What reports call the config: its file, or the command line that built the job."""
        from gpujob.config.gcloud_vertex import SOURCE

        return self.config if self.config is not None else SOURCE

    @property
    def service(self) -> str:
        return self.check.service.name

    @property
    def catalog(self) -> Any:
        return self.check.catalog

    def with_catalog(self) -> SubmitSettings:
        """These settings with their catalog loaded (``CheckOptions.loaded``), and the command
        line's --scale-tier checked against its tiers."""
        from dataclasses import replace

        from gpujob.config.overrides import check_scale_tiers

        check = self.check.loaded()
        check_scale_tiers(self.overrides, check.catalog.scale_tiers)
        return replace(self, check=check)

    @property
    def recover(self) -> int | None:
        """--recover N: the drill's restarts; submit's attempts after the infrastructure's end."""
        return self.check.job.recover or None

    @property
    def display_name(self) -> str | None:
        """--display-name: the Vertex AI job's name."""
        return self.check.job.display_name

    def check_options(self, submit: bool = True) -> CheckOptions:
        """The check of a submit: ``check`` with what the command line applies to the config.
        ``submit`` False: checked as validate and convert check (what only sending needs, a
        region, staged packages, is not asked for)."""
        return self.check._replace(submit=submit, local=self.local, command_line=CommandLine(
            tuple(self.overrides), self.user_args, self.package_path))
