"""Trainer packages: built from ``--package-path`` into an sdist (``build``), and staged in Cloud
Storage under names that are their content (``staging``)."""
