"""Vertex AI's rules: over an AI Platform config's translation (``translated``, which runs them
all; ``machine_rules``: where and on what the job runs; ``translation_rules``: what the
translation reports; ``scheduling`` and ``scheduling_rules``: the scheduling strategy), what they
read (``context``), and how a refused GPU name is reworded (``gpu_names``). Each module is
imported when first needed: importing this package registers nothing."""
