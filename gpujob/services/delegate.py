"""The job methods of a service whose ``jobs`` module defines them as functions: ``status``,
``parse_ref``, ``links`` and ``commands``, imported when first used (naming a service imports no
job client)."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.services.base import Commands, JobRef, JobStatus, Links


class JobsInModule:
    jobs_module: str  # gpujob.services.NAME.jobs

    def _jobs(self) -> ModuleType:
        return import_module(self.jobs_module)

    def status(self, raw: dict[str, Any]) -> JobStatus:
        return self._jobs().status(raw)  # type: ignore[no-any-return]

    def parse_ref(self, text: str) -> JobRef:
        return self._jobs().parse_ref(text)  # type: ignore[no-any-return]

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        return self._jobs().links(job_id, project, location)  # type: ignore[no-any-return]

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands:
        return self._jobs().commands(job_id, project, location)  # type: ignore[no-any-return]
