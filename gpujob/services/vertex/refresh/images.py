"""The prebuilt images section from the registry's listing: every image gpujob knew is kept with
its dates (the registry gives none: Google publishes them on the prebuilt-containers page,
https://cloud.google.com/vertex-ai/docs/training/pre-built-containers); an image the registry
lists and gpujob did not know is added, its framework, version, Python and device read from
its name the way the known images of its family (``pytorch-gpu``) are named, with the day it
was first listed and no dates: it is usable until Google publishes its end of availability.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_NAME = re.compile(r"(?P<family>[a-z][a-z0-9-]*)\.(?P<major>[0-9]+)-(?P<minor>[0-9]+)"
                   r"\.(?:py|cp)(?P<py>3[0-9]+)")


def describe(name: str, known: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """A catalog entry for the image ``name`` (``tf-gpu.2-18.py311``), or None when its name
    does not say its Python or its family is not one gpujob knows."""
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    family = next((i for n, i in known.items() if n.split(".", 1)[0] == found["family"]), None)
    if family is None:
        return None
    py = found["py"]
    return {"framework": family["framework"], "version": f"{found['major']}.{found['minor']}",
            "python": f"{py[0]}.{py[1:]}", "accelerators": list(family["accelerators"])}


def section(known: Mapping[str, Mapping[str, Any]], listed: Iterable[str], today: str
            ) -> tuple[dict[str, Any], list[str], list[str]]:
    """(the images, the names added, the names listed that could not be read) from the images
    gpujob knows (the current catalog's, with their dates) and the names the registry lists."""
    images = {name: dict(entry) for name, entry in known.items()}
    added, unread = [], []
    for name in listed:
        if name in images:
            continue
        entry = describe(name, known)
        if entry is None:
            unread.append(name)
            continue
        images[name] = {**entry, "listed": today}
        added.append(name)
    return images, sorted(added), sorted(unread)
