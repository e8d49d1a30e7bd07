"""Wheels made offline from distributions installed in the test environment, so that builds in an
isolated environment (pip installing the build backend into it) can run without an index: pip is
pointed at these with PIP_NO_INDEX and PIP_FIND_LINKS.

A pure-Python distribution's installed files are its wheel's contents: each file its RECORD
lists, under site-packages, goes back into a zip with a RECORD of fresh hashes.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from importlib import metadata
from pathlib import Path

_INSTALL_ONLY = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def wheel_from_installed(name: str, out: Path) -> Path:
    dist = metadata.distribution(name)
    files = dist.files or []
    info = next(f.parent.name for f in files if f.parent.name.endswith(".dist-info"))
    project = dist.metadata["Name"].replace("-", "_")
    wheel = out / f"{project}-{dist.version}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files:
            path = str(file)
            if path.startswith("..") or "__pycache__" in path or path.endswith(".pyc"):
                continue  # scripts (pip makes them again from the entry points) and caches
            if file.parent.name == info and file.name in _INSTALL_ONLY:
                continue
            data = Path(str(dist.locate_file(file))).read_bytes()
            archive.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{path},sha256={digest.decode()},{len(data)}")
        records.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel
