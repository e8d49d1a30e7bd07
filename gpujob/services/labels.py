"""The label every service puts on the job a submit makes: one random token per submit, by which
a retried create finds the job it made, and a Cloud Billing export its lines. Its own module, so
that what only names it (``vertex.paths``, which ``validate`` loads) need not load the service
seam (``base``: its dataclasses and protocols are a tenth of validate's start-up)."""

SUBMISSION_LABEL = "gpujob-submission"
