"""Trainer packages: built from ``--package-path`` into an sdist, staged content-addressed in Cloud
Storage, and what a submit or a local run asks for."""
