"""The toy service's catalog: which machines take how many TOY_GPUs, and where it runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

SERVICE = "toy"
LIVE = False
DATA_FILE = "catalog.json"
SCHEMA = "catalog.ai-platform.schema.json"  # (read for --catalog files only: unused here)
NOUN = "toy catalog"
EXPORT = "gpujob gpus --service toy --export-catalog"
INTEGRITY_HINT = "name every machine's GPUs"


class ToyCatalog(NamedTuple):
    service: str
    path: str
    machines: dict[str, tuple[int, ...]]
    accelerators: tuple[str, ...]
    regions: tuple[str, ...]
    refreshed: Mapping[str, Any] = {}  # never refreshed: its file's data
    document: dict[str, Any] | None = None

    @property
    def choices(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The Job schema's catalog lists: this service's GPUs, and no scale tiers of AI
        Platform's but BASIC and CUSTOM."""
        return (("accelerator_types", self.accelerators), ("python_versions", ("3.11",)),
                ("scale_tiers", ("BASIC", "CUSTOM")))

    @property
    def sources(self) -> dict[str, Any]:
        return {}  # no dated sections: nothing to refresh, nothing ages

    @property
    def scale_tiers(self) -> tuple[str, ...]:
        return ("BASIC", "CUSTOM")


def build(data: dict[str, Any], path: str) -> ToyCatalog:
    return ToyCatalog(data["service"], path,
                      {name: tuple(m["gpus"]) for name, m in data["machines"].items()},
                      tuple(data["accelerators"]), tuple(data["regions"]))


def integrity(data: dict[str, Any]) -> list[str]:
    return []
