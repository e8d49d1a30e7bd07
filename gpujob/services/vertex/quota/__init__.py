"""Where a Vertex AI job can run now: the quota preflight (``preflight``, over the quota metrics
a job draws on, ``metrics``), the failover across --region and --strategy choices
(``failover``), Compute Engine's capacity advice (``advice``: ``gpujob gpus --availability``
and the preflight's ranking) and ``gpujob reserve`` (``reserve``). Each module is imported
when first needed."""
