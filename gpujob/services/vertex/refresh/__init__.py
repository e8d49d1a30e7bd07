"""``gpujob catalog refresh``: the live parts of the Vertex catalog, read from Google's APIs.

``zones`` (Compute Engine: where each GPU and GPU machine type is offered, and the most GPUs per
VM) and ``images`` (Artifact Registry: the prebuilt training images that exist now) turn the
APIs' answers into catalog sections; they are pure and take the current catalog's data.
``run`` reads each part (one that cannot be read keeps what it had, and says why) and writes
the dated overlay (``gpujob.catalog.overlay``) that every command then reads;
``scripts/refresh_catalog.py`` writes the same parts into the built-in catalog
(``gpujob/services/vertex/catalog.json``).
"""
