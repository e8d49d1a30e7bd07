"""Where a checked Job goes: the AI Platform Training API (``aiplatform``), a dry run, or
processes on this machine (``local``)."""
