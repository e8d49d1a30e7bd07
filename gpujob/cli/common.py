"""What every command module shares: click's settings, the exit codes' help, the catalog."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.catalog import Catalog

EXIT_CODES_HELP = """\b
Exit codes:
  0    success
  1    invalid config (or a validation that found problems, or a trainer package
       that does not build)
  2    usage error
  3    the remote side failed (credentials, network, API, storage)
  4    the job ended unsuccessfully (--wait, --local)
  70   internal error (a bug in gpujob: please report it)
  130  interrupted
"""

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def load_catalog(service: str, path: str | None) -> Catalog:
    """The catalog of ``service`` (``path``: a file to use instead of the built-in one), loaded
    up front so that a bad --catalog is one usage error, not one per file."""
    from gpujob import catalog

    return catalog.load(service, path)
