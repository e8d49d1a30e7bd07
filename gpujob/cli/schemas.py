"""``gpujob schema``: the JSON Schemas gpujob checks files against, for editors and other tools.

The schemas are installed with gpujob (the wheel carries them as ``gpujob/schemas/``), so an
editor can be pointed at the installed file from any directory: ``--path`` says where it is,
``--uri`` the same as a ``file://`` URI.
"""

from __future__ import annotations

import click

from gpujob.cli.common import CONTEXT, GpujobCommand, exit_codes_help
from gpujob.console import CONSOLE
from gpujob.errors import EXIT_OK
from gpujob.resources import SCHEMA_ALIASES, SCHEMAS, schema_path


@click.command(cls=GpujobCommand, context_settings=CONTEXT, epilog=exit_codes_help(
    0, 1, 2, 130, c1="standard output could not be written (closed, or a full disk)"))
@click.argument("name", type=click.Choice([*SCHEMAS, *SCHEMA_ALIASES]), default="job",
                required=False, metavar="[NAME]")
@click.option("--path", "show", flag_value="path",
              help="Print where the installed schema file is, instead of the schema.")
@click.option("--uri", "show", flag_value="uri",
              help="Print the installed file as a file:// URI (for editor settings).")
def schema(name: str, show: str | None) -> int:
    """Print a JSON Schema gpujob checks files against, for editors and other tools.

    \b
    NAME:
      job                  job configs (the default)
      ai-platform-catalog  --catalog files of the ai-platform service (gpujob gpus
                           --export-catalog prints one); also named catalog
      vertex-catalog       Vertex AI catalog files
      vertex-custom-job-spec  native Vertex configs: a CustomJobSpec (gcloud ai
                           custom-jobs create --config reads it)
      vertex-custom-job    native Vertex configs: a whole CustomJob
      vertex-tuning-job    native Vertex configs: a HyperparameterTuningJob

    Each schema has a stable $id, urn:gpujob:schema:NAME:VERSION; the version changes only when
    a file the schema accepted could be refused.

    \b
    Examples:
      gpujob schema > job.schema.json
      gpujob schema --path job
      gpujob schema catalog --uri
    At the top of a config, for editors that use yaml-language-server (VS Code's YAML
    extension, …), with PATH what gpujob schema --path job prints:
      # yaml-language-server: $schema=PATH
    """
    path = schema_path(SCHEMAS[SCHEMA_ALIASES.get(name, name)]).resolve()
    if show == "path":
        CONSOLE.line(str(path))
    elif show == "uri":
        CONSOLE.line(path.as_uri())
    else:
        CONSOLE.out(path.read_text(encoding="utf-8"))
    return EXIT_OK
