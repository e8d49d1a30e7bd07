"""Discovery documents cut to the resources gpujob calls, kept in gpujob's cache directory.

Vertex AI's document, as google-api-python-client bundles it, is some 3 MB of JSON for 48
resources and 1,673 schemas; a submit calls two of its resources (custom jobs, tuning jobs),
whose methods reach 46 schemas. Parsing it whole, and the garbage collector scanning what the
parse made, was about a tenth of a submit's CPU. So, for the APIs in ``RESOURCES``,
``document`` gives the bundled document cut (``cut``) to:

- every top-level member but ``resources``, ``schemas`` and ``methods`` as it is (``rootUrl``,
  ``servicePath``, the regional ``endpoints``, the common ``parameters``);
- the resources named, whole (their methods and nested resources), under the resources that
  lead to them (without their own methods);
- the schemas those resources' methods reach (every ``$ref`` within them, transitively), whole.

Each kept part is the bundled document's own, unchanged: the service objects are still built
by google-api-python-client (``build_from_document``) from the document it bundles, the
requests are the same, and answers are read with the same types. A method outside the cut is
not in the service object built from it: a client that calls another resource of these APIs
adds it to ``RESOURCES``.

The cut is kept in ``CACHE/discovery/API.VERSION.json`` (``gpujob.catalog.overlay.cache_dir``):
one header line (the format, the resources, the bundled file it was cut from: its path, size
and modification time, and the SHA-256 of the text below) and the cut as JSON. A file that
cannot be read, names another bundled file (google-api-python-client upgraded), other
resources or format, or whose text does not match its digest (truncated, damaged) is never
used: the bundled document is parsed and cut again and the file replaced (written whole, then
renamed into place). A cache directory that cannot be written costs only the parse.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

FORMAT = 1
# the resources of each API (dotted paths from the document's top) that gpujob's clients call
RESOURCES: dict[tuple[str, str], tuple[str, ...]] = {
    ("aiplatform", "v1"): ("projects.locations.customJobs",
                           "projects.locations.hyperparameterTuningJobs"),
    ("serviceusage", "v1beta1"): ("services.consumerQuotaMetrics",),
}


def bundled_path(api: str, version: str) -> str:
    """The file google-api-python-client's ``get_static_doc`` reads for ``api`` ``version``."""
    from googleapiclient.discovery_cache import DISCOVERY_DOC_DIR

    return os.path.join(DISCOVERY_DOC_DIR, f"{api}.{version}.json")


def cache_file(api: str, version: str) -> Path:
    from gpujob.catalog.overlay import cache_dir

    return Path(cache_dir(), "discovery", f"{api}.{version}.json")


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.add(value)
            else:
                _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def cut(doc: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """``doc`` with only the resources at ``paths`` and the schemas they reach (see the
    module's docstring). ``KeyError`` when a path is not in ``doc``."""
    resources: dict[str, Any] = {}
    for path in paths:
        source, target = doc, resources
        *above, last = path.split(".")
        for name in above:
            source = source["resources"][name]
            target = target.setdefault(name, {"resources": {}})["resources"]
        target[last] = source["resources"][last]
    schemas = doc.get("schemas") or {}
    wanted: set[str] = set()
    _refs(resources, wanted)
    todo = list(wanted)
    while todo:
        found: set[str] = set()
        _refs(schemas.get(todo.pop()), found)
        todo.extend(found - wanted)
        wanted |= found
    kept = {key: value for key, value in doc.items()
            if key not in ("resources", "schemas", "methods")}
    return {**kept, "resources": resources,
            "schemas": {name: schema for name, schema in schemas.items() if name in wanted}}


def _header(api: str, version: str, digest: str) -> dict[str, Any]:
    source = bundled_path(api, version)
    info = os.stat(source)
    return {"format": FORMAT, "resources": list(RESOURCES[api, version]),
            "source": {"path": source, "size": info.st_size, "mtime_ns": info.st_mtime_ns},
            "sha256": digest}


def _read(api: str, version: str) -> dict[str, Any] | None:
    """The cut kept in the cache, when it is whole and cut from the bundled file there now."""
    try:
        head, _, body = cache_file(api, version).read_bytes().partition(b"\n")
        header = json.loads(head)
        if header != _header(api, version, hashlib.sha256(body).hexdigest()):
            return None
        doc = json.loads(body)
    except (OSError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _write(api: str, version: str, doc: dict[str, Any]) -> None:
    from gpujob.catalog.overlay import write_atomic

    body = json.dumps(doc, separators=(",", ":")).encode()
    header = json.dumps(_header(api, version, hashlib.sha256(body).hexdigest()))
    # unwritable: no cache, and the next run parses the bundled document again
    with contextlib.suppress(OSError):
        write_atomic(cache_file(api, version), header.encode() + b"\n" + body, dir_mode=0o700)


def document(api: str, version: str) -> dict[str, Any] | None:
    """The cut of ``api`` ``version``'s bundled document, from the cache when it holds it, else
    made (and kept); the whole document when it lacks a resource of ``RESOURCES`` (nothing is
    kept); None for an API without ``RESOURCES`` or a document not bundled."""
    paths = RESOURCES.get((api, version))
    if paths is None:
        return None
    kept = _read(api, version)
    if kept is not None:
        return kept
    from googleapiclient.discovery_cache import get_static_doc

    text = get_static_doc(api, version)
    if text is None:
        return None
    whole = json.loads(text)
    try:
        made = cut(whole, paths)
    except (KeyError, TypeError, AttributeError):  # a bundled document without those resources:
        return whole  # used whole, as before (a client's call says what is missing)
    _write(api, version, made)
    return made
