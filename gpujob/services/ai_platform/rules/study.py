"""Rules about a hyperparameter tuning study (``trainingInput.hyperparameters``): what AI
Platform's API refuses, checked on the config. The checks are those Vertex AI's rules register
too (``gpujob.checks.study``), under AI Platform's ids (``study.*``)."""

from __future__ import annotations

from gpujob.checks import study
from gpujob.checks.context import Checking
from gpujob.checks.registry import rule
from gpujob.services.ai_platform.rules.context import AI_PLATFORM


@rule("study.unique-name", "Each tuned parameter has its own parameterName.",
      services=AI_PLATFORM)
def unique_name(ctx: Checking) -> None:
    study.unique_name(ctx)


@rule("study.grid-search", "GRID_SEARCH searches INTEGER, CATEGORICAL and DISCRETE parameters "
      "only.", services=AI_PLATFORM)
def grid_search(ctx: Checking) -> None:
    study.grid_search(ctx)
