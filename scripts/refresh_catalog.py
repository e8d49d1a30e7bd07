"""Regenerate the live parts of gpujob's built-in Vertex catalog from Google's APIs, with the
code of ``gpujob catalog refresh``:

    python scripts/refresh_catalog.py --project MY_PROJECT            # zones and images
    python scripts/refresh_catalog.py --project P --parts images      # one part
    git diff gpujob/services/vertex/catalog.json                   # review, commit

The zones (Compute Engine, in --project) and the prebuilt images (Artifact Registry) replace the
sections of ``gpujob/services/vertex/catalog.json`` they come from, laid out as the file lays
out its data, so the update is one command and reads as a diff of the facts. Images gpujob knew keep
their dates; a new one comes without dates (none published yet): add them from
https://cloud.google.com/vertex-ai/docs/training/pre-built-containers when Google publishes
them. Credentials are Application Default Credentials (or --credentials-file); the endpoints
are those of GPUJOB_<API>_ENDPOINT. Exit 0 when every part was read, 3 when one could not be (the
others are written), 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpujob.gcp.settings import GcpSettings, environment_endpoints  # noqa: E402
from gpujob.services.vertex import catalog as vertex_data  # noqa: E402
from gpujob.services.vertex.refresh import run, snapshot  # noqa: E402

CATALOG = ROOT / "gpujob" / "services" / "vertex" / "catalog.json"
PARTS = ("zones", "images")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", help="the project whose Compute Engine zones are read")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="zones, images or both, separated by commas (default: both)")
    parser.add_argument("--credentials-file", help="a key file instead of ADC")
    parser.add_argument("--catalog-file", type=Path, default=CATALOG,
                        help="the catalog file to update (default: gpujob's built-in one)")
    args = parser.parse_args(argv)
    parts = tuple(p.strip() for p in args.parts.split(",") if p.strip())
    if not parts or any(p not in PARTS for p in parts):
        parser.error(f"--parts: name some of {', '.join(PARTS)}")
    settings = GcpSettings(project=args.project, credentials_file=args.credentials_file,
                           endpoints=environment_endpoints(os.environ))
    text = args.catalog_file.read_text(encoding="utf-8")
    data = json.loads(text)
    result = run.refresh(settings, parts, data, None)
    read = {}
    for outcome in result.outcomes:
        name = run.NAMES[outcome.part]
        if outcome.data is None:
            print(f"error: {name}: {outcome.problem}", file=sys.stderr)
            if outcome.hint:
                print(f"  hint: {outcome.hint}", file=sys.stderr)
            print(f"{name}: not read; {args.catalog_file.name} keeps its own")
            continue
        print(f"{name}: {outcome.read}")
        read[outcome.part] = outcome.data
    if read:
        updated = snapshot.replace(text, read)
        problems = vertex_data.integrity(json.loads(updated))
        if problems:
            print(f"error: the refreshed catalog is not consistent: {problems[0]}",
                  file=sys.stderr)
            return 70
        temporary = args.catalog_file.with_name(f".{args.catalog_file.name}.tmp")
        temporary.write_text(updated, encoding="utf-8")
        os.replace(temporary, args.catalog_file)  # the file is whole, old or new
        print(f"wrote {args.catalog_file}")
    return 3 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
