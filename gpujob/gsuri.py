"""Cloud Storage paths, ``gs://BUCKET/OBJECT``, taken apart and checked (no library needed).

Bucket names follow Cloud Storage's rules: 3 to 63 characters of lower-case letters, digits,
``-``, ``_`` and ``.``, starting and ending with a letter or digit; names with dots may be up to
222 characters, each dot-separated part at most 63.
"""

from __future__ import annotations

import re

_BUCKET = re.compile(r"[a-z0-9][a-z0-9._-]*[a-z0-9]")
BUCKET_RULES = ("bucket names have 3 to 63 lower-case letters, digits, '-', '_' and '.', and "
                "start and end with a letter or digit")


def valid_bucket(name: str) -> bool:
    if not _BUCKET.fullmatch(name) or ".." in name:
        return False
    if "." in name:
        return len(name) <= 222 and all(0 < len(part) <= 63 for part in name.split("."))
    return 3 <= len(name) <= 63


def split(uri: str) -> tuple[str, str] | None:
    """``gs://b/a/c`` -> ``("b", "a/c")``; None when ``uri`` is not a ``gs://`` path with a
    valid bucket name."""
    if not uri.startswith("gs://"):
        return None
    bucket, _, path = uri[len("gs://"):].partition("/")
    return (bucket, path) if valid_bucket(bucket) else None
