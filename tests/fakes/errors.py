"""Error answers shaped like Google's (``{"error": {code, message, status, details}}``), for the
fake's own refusals and for tests to inject with ``Reply``.

The messages follow what users have reported from the real services (sources beside each);
where a wording could not be confirmed the docstring says so, and code under test should rely
on the status and the ``details`` rather than on the prose."""

from __future__ import annotations

from typing import Any

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"
HELP = "type.googleapis.com/google.rpc.Help"
LOCALIZED = "type.googleapis.com/google.rpc.LocalizedMessage"


class Refused(Exception):
    """Raised by a handler: answer with this status and body."""

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def error_body(code: int, status: str, message: str,
               details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return {"error": error}


def service_disabled(project_number: str = "123456789", service: str = "ml.googleapis.com",
                     title: str = "AI Platform Training & Prediction API") -> dict[str, Any]:
    """403 for an API the project has not enabled: the ErrorInfo (reason SERVICE_DISABLED,
    metadata service, consumer, activationUrl) is what clients should read."""
    url = (f"https://console.developers.google.com/apis/api/{service}/overview?project="
           f"{project_number}")
    message = (f"{title} has not been used in project {project_number} before or it is "
               f"disabled. Enable it by visiting {url} then retry. If you enabled this API "
               "recently, wait a few minutes for the action to propagate to our systems and "
               "retry.")
    details: list[dict[str, Any]] = [
        {"@type": ERROR_INFO, "reason": "SERVICE_DISABLED", "domain": "googleapis.com",
         "metadata": {"service": service, "consumer": f"projects/{project_number}",
                      "activationUrl": url}}]
    if service != "ml.googleapis.com":  # newer answers also carry these (ml's recorded ones not)
        details[0]["metadata"].update(serviceTitle=title,
                                      containerInfo=project_number)
        details += [{"@type": LOCALIZED, "locale": "en-US", "message": message},
                    {"@type": HELP, "links": [{"description": "Google developers console API "
                                                              "activation", "url": url}]}]
    return error_body(403, "PERMISSION_DENIED", message, details)


def vertex_disabled(project_number: str) -> dict[str, Any]:
    """``service_disabled`` for aiplatform.googleapis.com. The title the real
    message uses after the 2026 rename is not confirmed; the ErrorInfo is."""
    return service_disabled(project_number, "aiplatform.googleapis.com", "Vertex AI API")


def permission_denied(permission: str, resource: str) -> dict[str, Any]:
    return error_body(403, "PERMISSION_DENIED",
                      f"Permission '{permission}' denied on resource '{resource}' (or it may "
                      "not exist).", [
                          {"@type": ERROR_INFO,
                           "reason": "IAM_PERMISSION_DENIED", "domain": "iam.googleapis.com",
                           "metadata": {"permission": permission}}])


def vertex_permission_denied(permission: str, project: str, location: str) -> dict[str, Any]:
    """403 naming the permission (e.g. ``aiplatform.customJobs.create``) on the location, as
    Vertex words resources (``//aiplatform.googleapis.com/projects/P/locations/L``)."""
    resource = f"//aiplatform.googleapis.com/projects/{project}/locations/{location}"
    body = permission_denied(permission, resource)
    body["error"]["details"][0]["metadata"]["resource"] = f"projects/{project}/locations/{location}"
    return body


def shutdown() -> dict[str, Any]:
    """What the API answered creates with after the 2025-01-31 shutdown
    (hashicorp/terraform-provider-google#22249)."""
    return error_body(400, "FAILED_PRECONDITION",
                      "Cloud AI Platform has been deprecated. Please use Vertex AI "
                      "(https://cloud.google.com/vertex-ai) instead.")


def quota_exceeded() -> dict[str, Any]:
    return error_body(429, "RESOURCE_EXHAUSTED",
                      "Quota exceeded for quota metric 'Job create requests' and limit 'Job "
                      "create requests per minute' of service 'ml.googleapis.com'.")


def vertex_quota_exceeded(metric: str, region: str, limit: int = 0,
                          details: bool = True) -> dict[str, Any]:
    """429 RESOURCE_EXHAUSTED for a resource quota, e.g. metric
    ``aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus``. The message is the one
    users report (GoogleCloudPlatform/stable-diffusion-on-gcp#12, google-deepmind/xmanager#29),
    which came without details; ``details=True`` adds a QuotaFailure naming metric and region
    as newer answers carry (google.rpc.QuotaFailure.Violation fields)."""
    short = metric.rsplit("/", 1)[-1]
    body = error_body(429, "RESOURCE_EXHAUSTED",
                      f"The following quota metrics exceed quota limits: {metric}")
    if details:
        body["error"]["details"] = [{
            "@type": QUOTA_FAILURE,
            "violations": [{
                "subject": f"Quota limit '{short}' in region {region}",
                "description": f"Quota exceeded for {metric} in region {region}: limit "
                               f"{limit}.",
                "apiService": "aiplatform.googleapis.com", "quotaMetric": metric,
                "quotaId": f"{short}-per-project-region".replace("_", "-"),
                "quotaDimensions": {"region": region}, "quotaValue": str(limit)}]}]
    return body


def unavailable() -> dict[str, Any]:
    return error_body(503, "UNAVAILABLE", "The service is currently unavailable.")


def rate_limited(service: str = "aiplatform.googleapis.com") -> dict[str, Any]:
    """429 for too many requests per minute (a retryable one, unlike a resource quota)."""
    return error_body(429, "RESOURCE_EXHAUSTED",
                      f"Quota exceeded for quota metric 'Resource management (CRUD) requests' "
                      f"and limit 'Resource management (CRUD) requests per minute per region' "
                      f"of service '{service}'.", [
                          {"@type": ERROR_INFO, "reason": "RATE_LIMIT_EXCEEDED",
                           "domain": "googleapis.com", "metadata": {"service": service}}])


def invalid_field(field_name: str, description: str) -> dict[str, Any]:
    return error_body(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", [
        {"@type": BAD_REQUEST,
         "fieldViolations": [{"field": field_name, "description": description}]}])


def field_violations(found: list[tuple[str, str]]) -> dict[str, Any]:
    """400 INVALID_ARGUMENT listing every (field path, message), as Vertex does (quoted in
    prefect-archive/prefect-gcp#175:
    "List of found errors: 1.Field: job_spec.worker_pool_specs[0].machine_spec.accelerator_type;
    Message: Both accelerator_type and accelerator_count should be specified or none.")."""
    listed = "".join(f"{i}.Field: {name}; Message: {text}\t"
                     for i, (name, text) in enumerate(found, 1))
    return error_body(400, "INVALID_ARGUMENT", f"List of found errors:\t{listed}", [
        {"@type": BAD_REQUEST,
         "fieldViolations": [{"field": name, "description": text} for name, text in found]}])


def not_found(message: str) -> dict[str, Any]:
    return error_body(404, "NOT_FOUND", message)


# -- how Vertex jobs end when something went wrong (the job's ``error``, a google.rpc.Status) ---

def insufficient_resources(region: str) -> dict[str, Any]:
    """A job that failed for lack of capacity after Vertex's retries (Vertex's troubleshooting
    page; openreview/openreview-expertise#401 quotes "Resources are insufficient in region:
    us-central1")."""
    return {"code": 8, "message": f"Resources are insufficient in region: {region}. Please try "
                                  "a different region."}


def preempted(region: str) -> dict[str, Any]:
    """How Vertex AI ends a Spot job whose VMs were preempted, once Compute Engine's restarts
    ran out: "fails with a STOCKOUT error" ("Use Spot VMs with training"), whose message is the
    stockout's ("Understand the serverless training service": "Resources are insufficient in
    region: REGION_NAME. Try a different region or use a different accelerator."). The code
    is not documented: 8 (RESOURCE_EXHAUSTED), as seen with a quota failure."""
    return {"code": 8, "message": f"Resources are insufficient in region: {region}. Try a "
                                  "different region or use a different accelerator."}


def quota_failure(metric: str) -> dict[str, Any]:
    """A job that failed on a resource quota (GoogleCloudPlatform/vertex-ai-samples#700:
    ``code: 8 message: "The following quota metrics exceed quota limits: …"``)."""
    return {"code": 8, "message": f"The following quota metrics exceed quota limits: {metric}"}


def replica_failure(job_id: str, project_number: str, task: str = "workerpool0-0",
                    status: int = 1) -> dict[str, Any]:
    """A replica that exited non-zero (wording from tensorflow/models#10735's job log)."""
    link = (f"https://console.cloud.google.com/logs/viewer?project={project_number}&resource="
            f"ml_job%2Fjob_id%2F{job_id}&advancedFilter=resource.type%3D%22ml_job%22%0A"
            f"resource.labels.job_id%3D%22{job_id}%22")
    return {"code": 3, "message": f"The replica {task} exited with a non-zero status of "
                                  f"{status}. To find out more about why your job exited please "
                                  f"check the logs: {link}"}


CANCELLED_ERROR = {"code": 1, "message": "CANCELED"}
