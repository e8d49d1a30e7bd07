"""Where a checked Job goes: the AI Platform Training API (``aiplatform``), or a dry run."""
