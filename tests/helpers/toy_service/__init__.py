"""A third training service, defined in the tests: one package and one registry line
(``tests/unit/services/test_third_service.py`` registers it), as a new service of gpujob's would be.

It reads AI Platform configs: its rules check the master's machine type and GPU count against
its catalog, its request is the config as it is, and ``gpujob gpus`` lists its machines."""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

from gpujob.catalog.offer import Accelerator, Offer
from gpujob.checks.engine import Checked, CheckOptions
from gpujob.config.document import Document
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_INVALID, EXIT_OK
from gpujob.findings import Finding, JsonPath, error
from gpujob.services.base import Commands, JobRef, JobStatus, Links, Request, Service
from gpujob.services.capabilities import DEFAULT_LACKS, Capability, ServiceBase

TI = "trainingInput"


class Toy(ServiceBase):
    """Writes what every service writes, and no more: it lacks every capability (the base's
    defaults), two of them with reasons of its own."""

    name = "toy"
    title = "Toy training"
    unsupported_flags: ClassVar[dict[str, str]] = {"--strategy": "toy jobs are never preempted"}
    lacks: ClassVar[dict[Capability, str]] = {
        **DEFAULT_LACKS, Capability.JOBS: "it sends nothing (use --dry-run)",
        Capability.LOCAL: "toy jobs do not run here"}

    @property
    def catalog(self) -> ModuleType:
        from toy_service import catalog

        return catalog

    def rules(self, doc: Document, cat: Any, refused: set[JsonPath],
              options: CheckOptions) -> Checked:
        ti = doc.data.get(TI, {})
        found: list[Finding] = []
        machine = ti.get("masterType")
        count = ti.get("masterConfig", {}).get("acceleratorConfig", {}).get("count", 0)
        path: JsonPath = (TI, "masterType")
        if machine is not None and path not in refused:
            if machine not in cat.machines:
                found.append(error("toy.machine", f"{machine} is not a toy machine", path,
                                   doc.locate(path), f"use one of {', '.join(cat.machines)}"))
            elif count not in cat.machines[machine]:
                found.append(error("toy.gpus", f"{machine} takes {cat.machines[machine]} GPUs, "
                                   f"not {count}", path, doc.locate(path), "change the count"))
        if options.submit and not options.local and ti.get("region") not in cat.regions:
            found.append(error("toy.region", "a toy job runs in toy-east1", (TI,),
                               doc.locate((TI,)), "set trainingInput.region: toy-east1"))
        return Checked(found, None if found else doc.data)

    def request(self, job: dict[str, Any], gcp: Any, project: str | None,
                options: Any) -> Request:
        return Request("POST", f"https://toy.example/v1/{project or 'PROJECT'}/jobs", job,
                       "ToyJob", job_id=job.get("jobId"))

    def status(self, raw: dict[str, Any]) -> JobStatus:
        return JobStatus(raw.get("jobId", "?"), "DONE", True, True)

    def parse_ref(self, text: str) -> JobRef:
        return JobRef(text)

    def links(self, job_id: str, project: str, location: str | None = None) -> Links:
        return Links("https://toy.example", "https://toy.example/logs")

    def commands(self, job_id: str, project: str, location: str | None = None) -> Commands:
        return Commands(*(f"gpujob {verb} {job_id} --service toy"
                          for verb in ("describe", "wait", "logs", "logs --follow", "cancel")))

    def offerings(self, settings: Any) -> int:
        cat = settings.check.catalog
        rows = [(m, g) for m, g in cat.machines.items()
                if settings.machine_type in (None, m) and settings.count in (None, *g)]
        for machine, gpus in rows:
            CONSOLE.out(f"{machine}  {', '.join(map(str, gpus))} GPUs\n")
        return EXIT_OK if rows else EXIT_INVALID

    def completions(self, cat: Any) -> Offer:
        return Offer((Accelerator("TOY_GPU", "TOY", "gpu", (1, 2)),),
                     dict.fromkeys(cat.machines, "toy"), dict.fromkeys(cat.regions, "toy"), {},
                     lambda machine, accelerator: cat.machines.get(machine, ()))

SERVICE: Service = Toy()
