"""The fake's credential endpoints: the OAuth 2.0 token endpoint (JWT bearer grants signed by
keys the test made), IAM Credentials ``generateAccessToken`` (impersonation) and enough of the
metadata server for Application Default Credentials."""

from __future__ import annotations

import base64
import json
import time
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from fakes.errors import Refused, invalid_field, permission_denied
from fakes.routing import CLOUD_PLATFORM, IAM, Answer, Call, Route

if TYPE_CHECKING:
    from fakes.google import FakeGoogle

# Google's token endpoint wants this audience in JWT grants, wherever they are sent
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"


def verify_jwt(fake: FakeGoogle, assertion: str) -> tuple[str, list[str]] | str:
    """(account, scopes) of a valid grant, else the reason it is refused."""

    def b64(part: str) -> bytes:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    try:
        head, claims_part, signature = assertion.split(".")
        header, claims = json.loads(b64(head)), json.loads(b64(claims_part))
    except ValueError:
        return "malformed JWT"
    key = fake.keys.get(claims.get("iss", ""))
    if key is None or header.get("alg") != "RS256" or header.get("kid") != key.key_id:
        return "unknown signing key"
    try:
        key.public_key.verify(b64(signature), f"{head}.{claims_part}".encode(),
                              padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return "Invalid JWT Signature."
    now = time.time()
    if claims.get("aud") != GOOGLE_TOKEN_AUDIENCE:
        return "Invalid JWT: wrong audience"
    if not claims.get("iat", 0) - 300 <= now < claims.get("exp", 0) <= claims["iat"] + 3600:
        return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."
    return claims["iss"], str(claims.get("scope", "")).split()


def token(fake: FakeGoogle, form: dict[str, list[str]]) -> Answer:
    """``POST /token``."""
    grant = form.get("grant_type", [""])[0]
    if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer":
        return 400, {"error": "unsupported_grant_type"}, {}
    verdict = verify_jwt(fake, form.get("assertion", [""])[0])
    if isinstance(verdict, str):
        return 400, {"error": "invalid_grant", "error_description": verdict}, {}
    account, scopes = verdict
    issued = fake.issue_token(account)
    with fake.lock:
        fake.tokens[issued].scopes = scopes
    return 200, {"access_token": issued, "expires_in": 3599, "token_type": "Bearer"}, {}


def metadata(fake: FakeGoogle, path: str, headers: dict[str, str]) -> Answer:
    """``GET /computeMetadata/v1/PATH``."""
    flavor = {"Metadata-Flavor": "Google"}
    if headers.get("metadata-flavor") != "Google":
        return 403, b"Missing Metadata-Flavor:Google header.", flavor
    account = fake.metadata_account
    # as the real server, it answers for the default account by its email too: older google-auth
    # releases (2.22 to 2.26 at least) ask for the token by email
    path = path.replace(f"instance/service-accounts/{account}/",
                        "instance/service-accounts/default/")
    answers: dict[str, Any] = {
        "": b"computeMetadata/\n",
        "project/project-id": fake.metadata_project.encode(),
        "universe/universe-domain": b"googleapis.com",
        "universe/universe_domain": b"googleapis.com",
        "instance/service-accounts/default/": {"email": account, "aliases": ["default"],
                                               "scopes": [CLOUD_PLATFORM]},
        "instance/service-accounts/default/email": account.encode(),
    }
    if path == "instance/service-accounts/default/token":
        issued = fake.issue_token(account)
        return 200, {"access_token": issued, "expires_in": 3599, "token_type": "Bearer"}, flavor
    if path in answers:
        return 200, answers[path], flavor
    return 404, b"not found", flavor


def _generate_access_token(fake: FakeGoogle, call: Call) -> Answer:
    target = call.params["target"]
    if (call.principal, target) not in fake.impersonation:
        raise Refused(403, permission_denied("iam.serviceAccounts.getAccessToken",
                                             f"projects/-/serviceAccounts/{target}"))
    if not isinstance(call.body, dict) or CLOUD_PLATFORM not in call.body.get("scope", []):
        raise Refused(400, invalid_field("scope", "the cloud-platform scope is needed"))
    issued = fake.issue_token(target)
    expires = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return 200, {"accessToken": issued, "expireTime": expires}, {}


# IAM Credentials also takes the narrower iam scope google-auth gives source credentials
ROUTES = [Route("POST", r"/v1/projects/-/serviceAccounts/(?P<target>[^/:]+):generateAccessToken",
                "iam.generateAccessToken", _generate_access_token, "iamcredentials.v1",
                ("projects", "serviceAccounts", "generateAccessToken"),
                scopes=frozenset({CLOUD_PLATFORM, IAM}))]
