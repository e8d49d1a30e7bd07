"""What does a GKE submit cost beside a plain create of the same JobSet? Prints ratios against
baselines measured in the same run (no timed assertion).

Against the fake cluster of the tests (tests/fakes/kubernetes.py, arranged by
tests/fakes/kube_cluster.py) served over TLS on 127.0.0.1, with a kubeconfig that names it (its
CA, a bearer token), each round runs, one after the other so that machine noise hits all alike:

- ``kubectl create --validate=false -f JOBSET`` of the JobSet gpujob's ``--dry-run`` prints,
  when kubectl is on PATH (its discovery cache warmed by the first round, as a user's is; the
  fake serves no OpenAPI document for kubectl's own validation): the issue's baseline;
- the minimal create with the ``kubernetes`` client alone: ``load_kube_config`` and
  ``CustomObjectsApi.create_namespaced_custom_object`` of the same JobSet, in a new Python;
- ``gpujob submit CONFIG --service gke`` (what a user runs).

Each is a new process, as a user's is; its CPU time (user + system, ``getrusage`` of the
children) is what is compared: the median over the rounds of each round's ratio. Target (issue
34): gpujob at most 10 x kubectl. The cluster forgets its JobSets between runs, so each create
is a first one. It also says which of the client's API modules a submit loads (target: only
``CustomObjectsApi``, the JobSet's).

Usage: python benchmarks/gke_submit.py [--runs N]
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import compile_gpujob, gpujob_command, run

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))
from gke_cluster import custom_job  # noqa: E402  (the tests' helpers, on the path just above)
from gke_cluster import kubeconfig as write_kubeconfig  # noqa: E402
from tls import certificate  # noqa: E402

TARGET = 10.0  # x kubectl create
CONFIG = custom_job()
# the kubernetes client alone: the same JobSet, created as the client's README shows
CLIENT_ALONE = """\
import sys, yaml
from kubernetes import client, config
config.load_kube_config()
body = yaml.safe_load(open(sys.argv[1]))
client.CustomObjectsApi().create_namespaced_custom_object(
    "jobset.x-k8s.io", "v1alpha2", "default", "jobsets", body)
"""
# which API modules of the client a gpujob submit loads (run in the submit's process)
LOADED = """\
import sys
from gpujob.cli import main
try:
    main(sys.argv[1:])
finally:
    print(" ".join(sorted(m.rsplit(".", 1)[1] for m in sys.modules
                          if m.startswith("kubernetes.client.api."))), file=sys.stderr)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    kubectl = shutil.which("kubectl")
    from fakes import kube_cluster
    from fakes.kubernetes import FakeKubernetes

    compile_gpujob()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cert, key = certificate(tmp, "127.0.0.1", hours=2)
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(cert, key)
        with FakeKubernetes(tls=tls) as fake:
            kube_cluster.ready(fake)
            kubeconfig = write_kubeconfig(
                tmp / "kubeconfig", fake.url, {"token": fake.token},
                {"certificate-authority-data": base64.b64encode(cert.read_bytes()).decode()})
            config = tmp / "config.yaml"
            config.write_text(CONFIG, encoding="utf-8")
            # HOME: kubectl's discovery cache (~/.kube/cache) and gpujob's are the run's own
            env = {**{k: v for k, v in os.environ.items()
                      if not k.startswith(("GPUJOB_", "KUBE"))},
                   "KUBECONFIG": str(kubeconfig), "HOME": str(tmp)}
            jobset = tmp / "jobset.yaml"
            dry = subprocess.run([*gpujob_command(), "submit", str(config), "--service", "gke",
                                  "--dry-run"], env=env, capture_output=True, text=True)
            if dry.returncode != 0:
                sys.exit(f"gpujob submit --dry-run exited {dry.returncode}:\n{dry.stderr}")
            jobset.write_text(dry.stdout, encoding="utf-8")
            cases = {
                "kubectl": [kubectl or "kubectl", "create", "--validate=false", "-f", str(jobset)],
                "client": [sys.executable, "-c", CLIENT_ALONE, str(jobset)],
                "gpujob": [*gpujob_command(), "submit", str(config), "--service", "gke"],
            }
            if kubectl is None:
                del cases["kubectl"]
            fake.jobsets.clear()
            _, loaded = run([sys.executable, "-c", LOADED, *cases["gpujob"][-4:]], env)
            times: dict[str, list[float]] = {name: [] for name in cases}
            requests: dict[str, int] = {}  # each one's in its last round
            for i in range(args.runs + 1):  # the first round warms caches: not counted
                for name, cmd in cases.items():
                    fake.jobsets.clear()
                    before = len(fake.calls)
                    spent, _ = run(cmd, env)
                    if i:
                        times[name].append(spent)
                        requests[name] = len(fake.calls) - before
    ours = times["gpujob"]
    print(f"gpujob submit --service gke: {statistics.median(ours) * 1000:.0f} ms of CPU "
          f"(median of {args.runs})")
    for name, label in (("client", "the kubernetes client alone"),
                        ("kubectl", "kubectl create -f")):
        if name not in times:
            print(f"{label}: not on PATH, no ratio")
            continue
        ratio = statistics.median(o / b for o, b in zip(ours, times[name], strict=True))
        mark = f" (target <= {TARGET:g}) {'OK' if ratio <= TARGET else 'MISSED'}" \
            if name == "kubectl" else ""
        print(f"{label}: {statistics.median(times[name]) * 1000:.0f} ms of CPU: gpujob's "
              f"ratio {ratio:.2f}{mark}")
    sent = ", ".join(f"{name} {count}" for name, count in requests.items())
    print(f"requests of one create (discovery cache warm): {sent}; target gpujob 1 "
          f"{'OK' if requests['gpujob'] == 1 else 'MISSED'}")
    apis = loaded.strip().splitlines()[-1] if loaded.strip() else ""
    print(f"client API modules a submit loads: {apis or 'none'}; target custom_objects_api "
          f"{'OK' if apis == 'custom_objects_api' else 'MISSED'}")


if __name__ == "__main__":
    main()
