"""gpujob: validate and submit GPU training jobs written as AI Platform Training Job resources."""

__version__ = "0.1.0"
