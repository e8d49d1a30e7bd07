"""Wheels made offline from distributions installed in the test environment, so that builds in an
isolated environment (pip installing the build backend into it) can run without an index: pip is
pointed at these with PIP_NO_INDEX and PIP_FIND_LINKS.

A pure-Python distribution's installed files are its wheel's contents: each file its RECORD
lists, under site-packages, goes back into a zip with a RECORD of fresh hashes. ``make_wheel``
writes a small wheel from given files (the extra packages of local runs).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import struct
import zipfile
from importlib import metadata
from pathlib import Path

_INSTALL_ONLY = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def wheel_from_installed(name: str, out: Path, *, compiled: bool = False,
                         extras: bool = True) -> Path:
    """The wheel of the installed distribution ``name``, written to ``out``. ``compiled``: its
    modules' bytecode goes in too, as unchecked hash-based .pyc files (PEP 552) that hold
    wherever pip puts the sources: an environment that pip fills with ``--no-compile`` (pypa/build
    fills its isolated one so), under PYTHONDONTWRITEBYTECODE, would compile every module it
    imports, in every process, again (setuptools: a quarter of each trainer package build).
    ``extras=False``: its metadata leaves out the requirements of its extras, which pip parses
    on every install whether or not they are asked for (setuptools' 50: a tenth of a build)."""
    dist = metadata.distribution(name)
    files = dist.files or []
    info = next(f.parent.name for f in files if f.parent.name.endswith(".dist-info"))
    project = dist.metadata["Name"].replace("-", "_")
    contents = {}
    for file in files:
        path = str(file)
        if path.startswith("..") or "__pycache__" in path or path.endswith(".pyc"):
            continue  # scripts (pip makes them again from the entry points) and caches
        if file.parent.name == info and file.name in _INSTALL_ONLY:
            continue
        contents[path] = Path(str(dist.locate_file(file))).read_bytes()
        if not extras and path == f"{info}/METADATA":
            contents[path] = b"".join(line for line in contents[path].splitlines(keepends=True)
                                      if not (line.startswith(b"Requires-Dist:")
                                              and b"extra ==" in line))
        if compiled and path.endswith(".py"):
            pyc = _unchecked_pyc(Path(str(dist.locate_file(file))), contents[path])
            if pyc is not None:
                contents[importlib.util.cache_from_source(path)] = pyc
    return _write(out / f"{project}-{dist.version}-py3-none-any.whl", info, contents)


def _unchecked_pyc(source: Path, data: bytes) -> bytes | None:
    """The installed bytecode of ``source`` (its bytes: ``data``) with an unchecked hash-based
    header instead of its timestamp one; None when there is none, or it is not of this source."""
    try:
        pyc = Path(importlib.util.cache_from_source(str(source))).read_bytes()
    except (OSError, NotImplementedError):
        return None
    stat = source.stat()
    flags, mtime, size = struct.unpack("<III", pyc[4:16])
    if (pyc[:4] != importlib.util.MAGIC_NUMBER or flags != 0
            or (mtime, size) != (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)):
        return None
    # flags 0b01: hash-based, source not checked; then the source's hash as the loader computes it
    return pyc[:4] + struct.pack("<I", 0b01) + importlib.util.source_hash(data) + pyc[16:]


def make_wheel(out: Path, name: str, version: str, files: dict[str, str],
               tag: str = "py3-none-any") -> Path:
    """A wheel of ``files`` (paths in the wheel -> text), as a build backend makes one:
    METADATA, WHEEL and a RECORD of their hashes; ``tag``: the Python and platform it is for."""
    info = f"{name}-{version}.dist-info"
    contents = {**files,
                f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: gpujob-tests\n"
                                 f"Root-Is-Purelib: true\nTag: {tag}\n"}
    return _write(out / f"{name}-{version}-{tag}.whl", info,
                  {path: text.encode("utf-8") for path, text in contents.items()})


def _write(wheel: Path, info: str, contents: dict[str, bytes]) -> Path:
    """The wheel file of ``contents`` (path in the wheel -> bytes) with a RECORD of their
    hashes, as pip checks it."""
    records = []
    # stored, not deflated: compressing google-api-python-client's 100 MB of discovery documents
    # took seconds, and pip reads each of these once, from a local directory
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for path, data in contents.items():
            archive.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{path},sha256={digest.decode()},{len(data)}")
        records.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel
