"""Talking to Google Cloud, in two parts.

Transport, shared by every service: ``settings`` (addresses, retry policy), ``credentials``,
``http`` (the authorized HTTP object), ``session`` (one command's credentials, project and HTTP,
and the one way a call is made), ``retry``, ``errors`` (a failure as one line and a hint),
``clock``, ``discovery`` (each API's bundled discovery document, parsed once, and the service
objects built from it), ``proto3`` (JSON as an API understands it), ``storage`` (staging in
Cloud Storage) and ``logs`` (reading and tailing Cloud Logging).

One client module per training API: ``aiplatform`` (Vertex AI, aiplatform v1; its creates in
``vertex_create``, sent through ``once``, a transport that never resends) and ``ml`` (AI Platform
Training, ml v1). Each states, call by call, the permission, role and service its errors advise
about and whether the call may be retried; its address (per region, where the API has regional
ones); its jobs' log filter.

Every module imports google-auth and google-api-python-client inside its functions, so that
importing any of them (as the command line does) costs nothing.
"""
