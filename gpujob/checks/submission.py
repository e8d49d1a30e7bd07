"""Checks of what a service needs when the job is sent (``submit``, not ``validate`` or local
runs) that AI Platform and Vertex AI share; each registers them under its own rule ids
(``submit.*``, ``vertex.submit-*``)."""

from __future__ import annotations

from gpujob import gsuri
from gpujob.checks.context import Checking
from gpujob.config.job import TI, as_str


def submit_region(ctx: Checking) -> None:
    if "region" not in ctx.ti:
        ctx.emit((TI,), "no region for the job",
                 "pass --region (or set GPUJOB_REGION, or trainingInput.region)", key=True)


def submit_job_dir(ctx: Checking) -> None:
    job_dir = as_str(ctx.ti.get("jobDir"))
    if job_dir and not job_dir.startswith("gs://"):
        ctx.emit((TI, "jobDir"), f"jobDir {job_dir!r} is not a Cloud Storage path",
                 "a cloud job writes to gs://BUCKET/PATH (a local directory works only with "
                 "--local)")
    elif job_dir and gsuri.split(job_dir) is None:
        ctx.emit((TI, "jobDir"), f"jobDir {job_dir!r} names no valid bucket",
                 f"write gs://BUCKET/PATH; {gsuri.BUCKET_RULES}")
