"""The typed settings of each command: what the user asked for, resolved.

The command line builds them (``gpujob.cli.options`` and ``gpujob.cli.jobflags``: options ->
settings), each value in one order: the flag, else the environment variable its help names, else
the config file's value (flags that set a job field override the file field by field), else the
default. The work is then ``execute(settings)``; nothing past this point reads flags.
"""

# (no ``from __future__ import annotations``: typing.NamedTuple would compile each string
# annotation at start-up.) NamedTuples, not dataclasses: importing dataclasses (and inspect) and
# creating each class cost ~25 ms on validate's start-up. SubmitSettings, which submit and local
# alone need, is a dataclass in gpujob.submit_settings.

from typing import TYPE_CHECKING, NamedTuple

from gpujob.backends import DEFAULT_SERVICE

if TYPE_CHECKING:
    from gpujob.catalog import AnyCatalog
    from gpujob.gcp.settings import GcpSettings
    from gpujob.translate.vertex import VertexOptions
    from gpujob.translate.vertex_extras import VertexExtras


class CheckSettings(NamedTuple):
    """How configs are checked: for which service, against which catalog (loaded from
    ``--catalog`` or the service's built-in one; None: the built-in one, loaded when needed),
    whether region findings are errors, and (Vertex AI) the image that runs a Python package
    job and the scheduling strategy (``--strategy``, upper case)."""

    service: str = DEFAULT_SERVICE
    catalog: "AnyCatalog | None" = None
    region_check: bool = True
    executor_image_uri: str | None = None
    strategy: str | None = None
    extras: "VertexExtras | None" = None  # --reservation, --persistent-resource-id, …

    def vertex_options(self) -> "VertexOptions | None":
        """What the two Vertex flags give the translation of a config (None: neither was
        given, and the translation is not imported for them)."""
        if self.executor_image_uri is None and self.strategy is None and self.extras is None:
            return None
        from gpujob.translate.vertex import VertexOptions

        return VertexOptions(executor_image_uri=self.executor_image_uri, strategy=self.strategy,
                             extras=self.extras)


class ValidateSettings(NamedTuple):
    files: tuple[str, ...]
    output_format: str
    check: CheckSettings


class GpusSettings(NamedTuple):
    gpu: str | None
    machine_type: str | None
    count: int | None
    region: str | None
    zone: str | None
    output_format: str
    check: CheckSettings
    export_catalog: bool = False


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
