"""``submit --dry-run``: what would be staged and sent (stderr), and the request's body
(stdout): the request a submit would send."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpujob.console import CONSOLE

if TYPE_CHECKING:
    from gpujob.services.base import Service
    from gpujob.submit.packages import Prepared
    from gpujob.submit.settings import SubmitSettings


def show(settings: SubmitSettings, service: Service, prepared: Prepared) -> int:
    """Say what would be staged and sent, and print the body; exit 0."""
    from gpujob.packages.staging import human_size

    for upload in prepared.uploads:
        CONSOLE.err(f"Dry run: would stage {upload.path.name} "
                    f"({human_size(upload.digest.size)}) at {upload.uri} unless it is there "
                    "already (nothing uploaded)")
    request = prepared.request
    assert request is not None, "a dry-run prepares a request"
    CONSOLE.err(f"Dry run: would {request.method} this {request.noun} to {request.url} "
                "(nothing sent)" + ("" if settings.project or not request.project_scoped
                                    else "; no project given (--project or GPUJOB_PROJECT)"))
    # what the service makes with the job (GKE: a ComputeDomain), printed before it
    for obj in request.companions:
        CONSOLE.err(f"Dry run: would also create {obj['kind']} {obj['metadata']['name']} "
                    f"(printed before the {request.noun}; nothing sent)")
    if prepared.cost is not None:
        for line in service.describe_costs([(None, prepared.cost)]):
            CONSOLE.err(line)
    if request.media == "yaml" and settings.output_format != "json":
        import yaml

        CONSOLE.out(yaml.safe_dump_all([*request.companions, request.body], sort_keys=False,
                                       allow_unicode=True, width=100))
    else:
        CONSOLE.json(request.body)
    return 0
