"""What a GKE submit loads of the kubernetes client: the API it calls (CustomObjectsApi for
JobSets), not CoreV1Api, whose module loads some 250 models for pods and logs a submit never
reads, nor the subpackages the package's ``__init__`` imports (``config``'s loader brings
google-auth, requests and oauthlib; ``watch``, ``stream``, ...), though nothing of the package is
lost (issue 34: a submit's CPU was 19x kubectl's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fakes.kubernetes import FakeKubernetes
from gke_cluster import custom_job
from gke_cluster import kubeconfig as write_kubeconfig

CONFIG = custom_job(workers=0)
SUBMIT = """\
import sys
from importlib.metadata import version
from gpujob.cli import main
UNUSED = {"requests", "oauthlib", "requests_oauthlib", "cryptography", "websocket"}
code = main(["submit", sys.argv[1], "--service", "gke"])
print(code, "kubernetes.client.api.core_v1_api" in sys.modules,
      "kubernetes.client.api.custom_objects_api" in sys.modules, file=sys.stderr)
print(*sorted(m for m in sys.modules if m.split(".")[0] in UNUSED
              or m.startswith(("kubernetes.config", "google.auth"))), file=sys.stderr)
import kubernetes
from kubernetes import config, watch
print(kubernetes.__version__ == version("kubernetes"), callable(config.load_kube_config),
      callable(watch.Watch), file=sys.stderr)
"""


def test_a_submit_loads_no_core_v1_api(tmp_path: Path):
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    with FakeKubernetes() as fake:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", fake.url, {"token": fake.token},
                                      context="c")
        done = subprocess.run([sys.executable, "-c", SUBMIT, str(config)], capture_output=True,
                              text=True, timeout=120,
                              env={"PATH": "/usr/bin:/bin", "KUBECONFIG": str(kubeconfig),
                                   "HOME": str(tmp_path)})
        assert list(fake.jobsets) == [("default", "run-1")], done.stderr
    assert done.stdout == "run-1\n"
    assert done.stderr.splitlines()[-3:] == ["0 False True", "", "True True True"], done.stderr


# threads that look at the bare package at once (logs --follow's and a bounded call's, say)
THREADS = """\
import sys, threading
from gpujob.services.gke import kubelib
kubelib.bare_package()
import kubernetes
got, barrier = [], threading.Barrier(8)

def look():
    barrier.wait()
    got.append((kubernetes.__version__, kubernetes.watch.Watch.__name__))

threads = [threading.Thread(target=look) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(got), len(set(got)))
"""


def test_threads_that_look_at_the_package_at_once_all_get_its_names():
    """The package's __init__ runs once, on the first look; a thread looking meanwhile waits for
    it rather than finding a half-made package (AttributeError in that thread)."""
    done = subprocess.run([sys.executable, "-c", THREADS], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["8", "1"], done.stderr
