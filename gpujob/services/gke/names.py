"""What Kubernetes takes as a name (its API conventions: DNS labels), and the check of a flag
that names a namespace or a LocalQueue, as the command line reads it (``ServiceFlag.check``)."""

from __future__ import annotations

import re
from collections.abc import Callable

DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")  # a JobSet, a replicated Job
DNS_1123 = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # a namespace, a LocalQueue


def label(what: str) -> Callable[[str], tuple[str, str] | None]:
    """The check of a value that must be a DNS-1123 label naming ``what``."""

    def check(value: str) -> tuple[str, str] | None:
        if len(value) <= 63 and DNS_1123.fullmatch(value):
            return None
        return (f"cannot name {what}", "use at most 63 lower-case letters, digits and '-', "
                "starting and ending with a letter or digit")

    return check
