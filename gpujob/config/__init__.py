"""The first stages: load configs (safe YAML/JSON with the position of every value), parse
command-line overrides and merge them. Nothing here imports a later stage."""
