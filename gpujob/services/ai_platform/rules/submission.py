"""Rules about what the service needs when the job is sent (``submit``, not ``validate`` or
local runs): a config may leave these to the command line. The region's and the job
directory's are checks Vertex AI's rules register too (``gpujob.checks.submission``)."""

from __future__ import annotations

from gpujob.checks import submission
from gpujob.checks.context import Checking
from gpujob.checks.registry import rule
from gpujob.config.job import TI
from gpujob.services.ai_platform.rules.context import AI_PLATFORM, Context


@rule("submit.region", "A job is sent with a region.", services=AI_PLATFORM, submit=True)
def submit_region(ctx: Checking) -> None:
    submission.submit_region(ctx)


@rule("submit.packages", "A job without a custom container is sent with its trainer's "
      "packages.", services=AI_PLATFORM, submit=True)
def submit_packages(ctx: Context) -> None:
    if not ctx.replicas[0].image and not ctx.ti.get("packageUris"):
        ctx.emit((TI,), "no trainer package to run",
                 "pass --package-path DIR (or --packages), or set trainingInput.packageUris; a "
                 "custom container needs none", key=True)


@rule("submit.module", "A job without a custom container is sent with the module to run.",
      services=AI_PLATFORM, submit=True)
def submit_module(ctx: Context) -> None:
    if not ctx.replicas[0].image and "pythonModule" not in ctx.ti:
        ctx.emit((TI,), "no Python module to run",
                 "pass --module-name (e.g. trainer.task), or set trainingInput.pythonModule",
                 key=True)


@rule("submit.job-dir", "jobDir is a Cloud Storage path (gs://BUCKET/PATH).",
      services=AI_PLATFORM, submit=True)
def submit_job_dir(ctx: Checking) -> None:
    submission.submit_job_dir(ctx)
