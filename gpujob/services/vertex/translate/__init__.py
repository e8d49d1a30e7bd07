"""Translations of a job into another service's request: AI Platform Training -> Vertex AI."""
