"""Vertex AI's rules that adopt what the translation of an AI Platform config reports (each
value it translated, dropped or cannot translate, as it made them: nothing is reported twice),
and those a job about to be sent needs."""

from __future__ import annotations

from collections.abc import Callable

from gpujob.checks import submission
from gpujob.checks.registry import rule
from gpujob.services.vertex.rules.context import VERTEX, VertexContext
from gpujob.services.vertex.translate.notes import RULE as TRANSLATE
from gpujob.services.vertex.translate.notes import RULES as TRANSLATION_RULES

# -- what the translation reports: one rule per name of translate/notes.py's RULES --------------

# what only a job about to be sent needs: validate takes a config whose package comes later
# (submit's --package-path builds and stages it), as the ai-platform service does
SUBMIT_ONLY = frozenset({"package"})


def _adopter(rule_id: str) -> Callable[[VertexContext], None]:
    def adopt(ctx: VertexContext) -> None:
        ctx.adopt(rule_id)

    adopt.__name__ = f"adopt_{rule_id.rsplit('.', 1)[-1].replace('-', '_')}"
    return adopt


for _name, (_severity, _doc) in TRANSLATION_RULES.items():
    rule(f"{TRANSLATE}.{_name}", _doc, services=VERTEX, severity=_severity,
         submit=_name in SUBMIT_ONLY)(_adopter(f"{TRANSLATE}.{_name}"))


# -- what the service needs when the job is sent --------------------------------------------------

@rule("vertex.submit-region", "A job is sent with a region (its endpoint's and its location).",
      services=VERTEX, submit=True)
def submit_region(ctx: VertexContext) -> None:
    submission.submit_region(ctx)


@rule("vertex.submit-job-dir", "jobDir is a Cloud Storage path (gs://BUCKET/PATH).",
      services=VERTEX, submit=True)
def submit_job_dir(ctx: VertexContext) -> None:
    submission.submit_job_dir(ctx)
