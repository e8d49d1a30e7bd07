"""Rules about what the service needs when the job is sent (``submit``, not ``validate`` or
local runs): a config may leave these to the command line."""

from __future__ import annotations

from gpujob import gsuri
from gpujob.checks.context import Checking, Context
from gpujob.checks.registry import rule
from gpujob.config.job import TI, as_str


@rule("submit.region", "A job is sent with a region.", submit=True)
def submit_region(ctx: Checking) -> None:
    if "region" not in ctx.ti:
        ctx.emit((TI,), "no region for the job",
                 "pass --region (or set GPUJOB_REGION, or trainingInput.region)", key=True)


@rule("submit.packages", "A job without a custom container is sent with its trainer's "
      "packages.", submit=True)
def submit_packages(ctx: Context) -> None:
    if not ctx.replicas[0].image and not ctx.ti.get("packageUris"):
        ctx.emit((TI,), "no trainer package to run",
                 "pass --package-path DIR (or --packages), or set trainingInput.packageUris; a "
                 "custom container needs none", key=True)


@rule("submit.module", "A job without a custom container is sent with the module to run.",
      submit=True)
def submit_module(ctx: Context) -> None:
    if not ctx.replicas[0].image and "pythonModule" not in ctx.ti:
        ctx.emit((TI,), "no Python module to run",
                 "pass --module-name (e.g. trainer.task), or set trainingInput.pythonModule",
                 key=True)


@rule("submit.job-dir", "jobDir is a Cloud Storage path (gs://BUCKET/PATH).", submit=True)
def submit_job_dir(ctx: Checking) -> None:
    job_dir = as_str(ctx.ti.get("jobDir"))
    if job_dir and not job_dir.startswith("gs://"):
        ctx.emit((TI, "jobDir"), f"jobDir {job_dir!r} is not a Cloud Storage path",
                 "a cloud job writes to gs://BUCKET/PATH (a local directory works only with "
                 "--local)")
    elif job_dir and gsuri.split(job_dir) is None:
        ctx.emit((TI, "jobDir"), f"jobDir {job_dir!r} names no valid bucket",
                 f"write gs://BUCKET/PATH; {gsuri.BUCKET_RULES}")
