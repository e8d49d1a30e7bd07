"""Record the body a real gcloud sends for each command line of tests/cases/gcloud/cases.json,
against a recorder on 127.0.0.1, into tests/cases/gcloud/recorded/NAME.json (the peer test,
tests/integration/cases/test_gcloud_peer.py, compares gpujob's dry-run body with each).

    python scripts/record_gcloud_bodies.py PATH/TO/google-cloud-sdk [NAME ...]

PATH/TO/google-cloud-sdk is an unpacked Cloud SDK (its bin/gcloud and lib/), e.g. a checkout of
github.com/google-cloud-sdk-unofficial/google-cloud-sdk outside this repository; it is run with
CLOUDSDK_PYTHON (default: this Python) and a private, temporary CLOUDSDK_CONFIG whose
properties send the aiplatform API to the recorder (api_endpoint_overrides/aiplatform: gcloud's
command_lib/ai/endpoint_util.py adds the region to the host only when it starts with
"aiplatform", so 127.0.0.1 is kept), with credentials disabled (auth/disable_credentials) and
project my-project. The recorder answers each create with a minimal job so that gcloud exits 0.
Nothing reaches the internet. Exits 1 when a command line fails or sends no create.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "gcloud"
PROJECT = "my-project"


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Keeps every request; answers a create with the job it was sent, named."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def _answer(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw) if raw else None
        self.requests.append({"method": "POST", "path": self.path, "body": body})
        collection = self.path.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
        parent = self.path.split("?")[0].strip("/").split("/", 1)[-1].rsplit("/", 1)[0]
        answer = dict(body or {})
        answer.update({"name": f"{parent}/{collection}/1234567890",
                       "state": "JOB_STATE_PENDING", "createTime": "2026-01-01T00:00:00Z"})
        self._answer(answer)

    def do_GET(self) -> None:
        self.requests.append({"method": "GET", "path": self.path, "body": None})
        self._answer({})

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _version(sdk: Path) -> str:
    return (sdk / "VERSION").read_text(encoding="utf-8").strip()


def record(sdk: Path, case: dict[str, Any], port: int, config_dir: str) -> dict[str, Any]:
    """Run one case's gcloud command line; the create it sent, with what gcloud printed."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("CLOUDSDK_")}
    env.update({
        "CLOUDSDK_CONFIG": config_dir,
        "CLOUDSDK_PYTHON": os.environ.get("CLOUDSDK_PYTHON", sys.executable),
        "CLOUDSDK_AUTH_DISABLE_CREDENTIALS": "true",
        "CLOUDSDK_CORE_PROJECT": PROJECT,
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_AIPLATFORM": f"http://127.0.0.1:{port}/",
        "CLOUDSDK_CORE_DISABLE_USAGE_REPORTING": "true",
        "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "true",
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "true",
        "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
    })
    _Recorder.requests = []
    done = subprocess.run([str(sdk / "bin" / "gcloud"), *case["gcloud"]], cwd=CASES, env=env,
                          capture_output=True, text=True, timeout=300)
    creates = [r for r in _Recorder.requests if r["method"] == "POST"]
    if done.returncode != 0 or len(creates) != 1:
        raise RuntimeError(f"{case['name']}: gcloud exited {done.returncode} after "
                           f"{len(_Recorder.requests)} request(s):\n{done.stderr}")
    python = subprocess.run([env["CLOUDSDK_PYTHON"], "--version"], capture_output=True,
                            text=True).stdout.strip()
    return {"name": case["name"], "gcloud_version": _version(sdk), "python": python,
            "gcloud": ["gcloud", *case["gcloud"]], "method": "POST",
            "path": creates[0]["path"], "body": creates[0]["body"],
            "other_requests": [r for r in _Recorder.requests if r is not creates[0]],
            "gcloud_stderr": done.stderr.replace(str(port), "PORT").splitlines()}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    sdk = Path(argv[0]).resolve()
    cases = json.loads((CASES / "cases.json").read_text(encoding="utf-8"))["cases"]
    wanted = set(argv[1:])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = CASES / "recorded"
    out.mkdir(exist_ok=True)
    failed = 0
    try:
        with tempfile.TemporaryDirectory() as config_dir:
            for case in cases:
                if wanted and case["name"] not in wanted:
                    continue
                try:
                    recorded = record(sdk, case, server.server_address[1], config_dir)
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    print(exc, file=sys.stderr)
                    failed += 1
                    continue
                path = out / f"{case['name']}.json"
                path.write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")
                print(f"{path.relative_to(ROOT)}: {recorded['path']}")
    finally:
        server.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
