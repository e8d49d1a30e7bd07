"""``gpujob gpus``: which GPUs, on which machine types, how many, and where, from the catalog of
the service (its ``offerings``)."""

from __future__ import annotations

import json
from pathlib import Path

from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK
from gpujob.settings import GpusSettings


def execute(settings: GpusSettings) -> int:
    """The offerings that pass the filters (exit 1 when none), or the catalog itself."""
    settings = settings._replace(check=settings.check.loaded())
    cat = settings.check.catalog
    assert cat is not None, "the command loads the catalog it browses"
    if settings.export_catalog:
        # the catalog in use: the built-in file, or its data with the refreshed parts in place
        CONSOLE.out(Path(cat.path).read_text(encoding="utf-8") if cat.document is None
                    else json.dumps(cat.document, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    return settings.check.service.offerings(settings)
