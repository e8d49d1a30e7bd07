"""``submit`` and ``local``'s settings (see ``gpujob.settings`` for the order values come in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpujob.errors import UsageError
from gpujob.settings import CheckSettings
from gpujob.vertex_api import MAX_DISPLAY_NAME

if TYPE_CHECKING:
    from gpujob.backends.base import JobOptions
    from gpujob.catalog import AnyCatalog
    from gpujob.check import CheckOptions
    from gpujob.config.overrides import Override
    from gpujob.gcp.settings import GcpSettings


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
    given_flags: tuple[str, ...] = ()  # the options given on the command line
    display_name: str | None = None  # --display-name: the Vertex AI job's name

    @property
    def service(self) -> str:
        return self.check.service

    @property
    def catalog(self) -> AnyCatalog | None:
        return self.check.catalog

    def check_options(self) -> CheckOptions:
        from gpujob.check import CheckOptions

        return CheckOptions(submit=True, local=self.local, catalog=self.catalog,
                            region_check=self.check.region_check, service=self.service,
                            vertex=self.check.vertex_options())

    def job_options(self) -> JobOptions:
        """What the service's request needs besides the checked config."""
        from gpujob.backends.base import JobOptions

        return JobOptions(catalog=self.catalog,
                          executor_image_uri=self.check.executor_image_uri,
                          strategy=self.check.strategy, display_name=self.display_name,
                          extras=self.check.extras)


def check_display_name(service: str, name: str) -> None:
    """--display-name names a Vertex AI job, whatever the config's form; an AI Platform job
    has its jobId alone (letters, digits, underscores), which the display name leaves as it is."""
    if service != "vertex":
        raise UsageError("--display-name names a Vertex AI job; an AI Platform job is named by "
                         "its jobId alone", "use --job-id (letters, digits and underscores), or "
                         "submit to Vertex AI (--service vertex)")
    if not name.strip():
        raise UsageError("--display-name is empty", "give a name, or leave --display-name out "
                         "(the job is then named by its jobId)")
    if len(name) > MAX_DISPLAY_NAME:
        raise UsageError(f"--display-name is {len(name)} characters long; a Vertex AI job's "
                         f"display name has at most {MAX_DISPLAY_NAME}", "give a shorter name")
