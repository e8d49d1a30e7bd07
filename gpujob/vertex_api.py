"""What the Vertex AI API (aiplatform v1) fixes that several layers share: its regional address
and gpujob's own label on every job it submits (set by the backend, read by the API client to
find a job whose create answer was lost, warned about in a native config). Imports nothing:
``validate`` reads it."""

ENDPOINT = "https://{region}-aiplatform.googleapis.com/"  # regional: one per location
SUBMISSION_LABEL = "gpujob-submission"
