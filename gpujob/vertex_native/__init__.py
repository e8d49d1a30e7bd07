"""Native Vertex AI configs: files that are a ``CustomJobSpec`` (what ``gcloud ai custom-jobs
create --config`` reads), a whole ``CustomJob``, or a ``HyperparameterTuningJob``."""
