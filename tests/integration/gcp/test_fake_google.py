"""The fake refuses what Google would: the other tests rely on these checks having teeth."""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
from typing import Any

from fakes.keys import service_account_key


def _call(url: str, body: Any = None, token: str | None = None,
          form: dict[str, str] | None = None) -> tuple[int, Any]:
    data, headers = None, {}
    if form is not None:
        data = "&".join(f"{k}={v}" for k, v in form.items()).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers,
                                     method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_call_without_a_token_it_issued_is_unauthenticated(google):
    status, answer = _call(google.url + "v1/projects/p/jobs", {"jobId": "j"})
    assert (status, answer["error"]["status"]) == (401, "UNAUTHENTICATED")
    status, _ = _call(google.url + "v1/projects/p/jobs", {"jobId": "j"}, token="ya29.forged")
    assert status == 401


def test_a_body_the_discovery_document_refuses(google):
    token = google.issue_token("someone@p.iam.gserviceaccount.com")
    bad = {"jobId": "j", "trainingInput": {"masterTyp": "x", "workerCount": "two",
                                           "scaleTier": "HUGE", "args": "--x"}}
    status, answer = _call(google.url + "v1/projects/p/jobs", bad, token=token)
    assert status == 400
    assert answer["error"]["status"] == "INVALID_ARGUMENT"
    ((route, problems),) = google.rejected
    assert route == "jobs.create"
    assert [path for path, _ in problems] == ["trainingInput.masterTyp",
                                              "trainingInput.workerCount",
                                              "trainingInput.scaleTier", "trainingInput.args"]
    assert google.jobs == {}


def test_a_jwt_signed_by_another_key_is_refused(google):
    trusted = service_account_key("a@p.iam.gserviceaccount.com", "p", google.token_uri)
    other = service_account_key("a@p.iam.gserviceaccount.com", "p", google.token_uri, slot=1)
    google.trust(trusted)
    from google.oauth2 import service_account

    signer = service_account.Credentials.from_service_account_info(
        {**other.info, "private_key_id": trusted.key_id}).signer
    now = int(time.time())

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": trusted.key_id}).encode())
    claims = b64(json.dumps({"iss": trusted.email, "aud": "https://oauth2.googleapis.com/token",
                             "scope": "https://www.googleapis.com/auth/cloud-platform",
                             "iat": now, "exp": now + 600}).encode())
    forged = f"{head}.{claims}.{b64(signer.sign(f'{head}.{claims}'.encode()))}"
    status, answer = _call(google.token_uri, form={
        "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": forged})
    assert (status, answer) == (400, {"error": "invalid_grant",
                                      "error_description": "Invalid JWT Signature."})
    assert google.issued == []
