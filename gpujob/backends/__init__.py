"""Where a checked Job goes: AI Platform, or processes on this machine (``local``)."""
