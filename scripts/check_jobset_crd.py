"""Check the JobSets gpujob writes against the JobSet CRD's own schema, for a developer who has a
copy of it: kubernetes-sigs/jobset, config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml. The
CRD belongs to its authors and is not in this repository; gpujob's own checks
(gpujob/services/gke/jobset.py) state what it needs of a JobSet, and the tests hold them.

    python scripts/check_jobset_crd.py PATH/TO/jobset.x-k8s.io_jobsets.yaml [CONFIG ...]

Each CONFIG (default: the configs gke takes in configs/) is converted with
``gpujob convert --to gke``; prints each schema error, and exits 1 when there is one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    crd = yaml.safe_load(Path(argv[0]).read_text(encoding="utf-8"))
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    configs = argv[1:] or [str(ROOT / "configs" / "t4-compute-engine.yaml")]
    failed = 0
    for config in configs:
        done = subprocess.run([sys.executable, "-m", "gpujob", "convert", config, "--to", "gke",
                               "--queue", "team-a", "--", "--epochs", "2"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{config}: not converted (exit {done.returncode}):\n{done.stderr}")
            failed += 1
            continue
        errors = [e.message for e in
                  jsonschema.Draft7Validator(schema).iter_errors(yaml.safe_load(done.stdout))]
        print(f"{config}: {len(errors)} schema error{'s' if len(errors) != 1 else ''}")
        for error in errors:
            print(f"  {error}")
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
