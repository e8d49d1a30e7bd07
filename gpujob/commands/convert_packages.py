"""The trainer packages ``convert`` is given (``--package-path``, local files in ``--packages``):
built and staged as ``submit`` builds and stages them (``submit.packages``), so that the
converted config names each at the ``gs://`` address ``submit`` would use, and the package is
there when ``gpujob submit`` sends the converted config (which names packages by URI and
uploads nothing).

Order, as for a submit: the flags (exit 2), the checks with the packages standing in as gs://
URIs (exit 1, nothing built), the staging location (exit 2), the credentials (exit 3), the
build (exit 1), the upload (exit 3); then the config is converted again with the real URIs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from gpujob.config.merge import apply
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import GpujobError
from gpujob.submit.packages import PACKAGE_URIS, Wanted

if TYPE_CHECKING:
    from gpujob.config.document import Document
    from gpujob.submit.settings import SubmitSettings


def wanted(doc: Document, settings: SubmitSettings) -> tuple[Wanted, SubmitSettings] | None:
    """The packages to stage (``settings``: convert's, which submit's steps read), checked
    (exit 2); None when there are none."""
    found = Wanted(doc, settings)
    return (found, settings) if found else None


def stand_ins(doc: Document, found: Wanted) -> Document:
    """``doc`` as the checks see it before the build: each package to stage as a gs:// URI."""
    return apply(doc, [found.for_check()])


def stage(doc: Document, found: Wanted, settings: SubmitSettings) -> Document:
    """Build the packages, upload each to its content address (unless it is there already),
    and return ``doc`` naming them there."""
    from gpujob.gcp.session import Session
    from gpujob.gcp.storage import StorageClient

    location = found.location(doc, settings)
    try:  # the credentials are checked before anything is built
        session = Session(settings.gcp)
    except GpujobError as exc:
        exc.message = f"convert uploads the packages to {location.url}: {exc.message}"
        exc.hint = (f"{exc.hint}; or stage the package yourself and give its gs:// URI "
                    "with --packages" if exc.hint else None)
        raise
    with tempfile.TemporaryDirectory(prefix="gpujob-convert-") as workdir:
        prepared = found.build(doc, settings, Path(workdir), location)
        count = len(prepared.uploads)
        CONSOLE.err(f"Staging {count} package{'s' if count > 1 else ''} in {location.url} "
                    f"(from {location.source}):")
        StorageClient(session).stage(prepared.uploads, CONSOLE.err)
    override = found.for_check()
    uris = [prepared.uris.get(uri, uri) if isinstance(uri, str) else uri
            for uri in override.value]
    return apply(doc, [Override(PACKAGE_URIS, uris, override.origin)])
