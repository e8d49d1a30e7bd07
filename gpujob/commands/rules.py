"""``gpujob rules``: the compatibility rules of a service, as linters list theirs."""

from __future__ import annotations

from gpujob.checks.listing import REPORTERS
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK


def execute(service: str, output_format: str) -> int:
    """The rules of ``service``, in the order they run."""
    from gpujob import services

    CONSOLE.out(REPORTERS[output_format](services.get(service).listed_rules()))
    return EXIT_OK
