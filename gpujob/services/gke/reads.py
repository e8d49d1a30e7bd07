"""Reads of the user's cluster for what a JobSet needs (``preflight``; ``networks`` and
``domains`` on a submit): any path of the Kubernetes API, 403 and 404 answered as codes, not
raised; what the kubeconfig's user may not read is said in ``notes``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpujob.services.gke.api import Api


class Cluster:
    """Reads of one cluster: (status, object), 403 and 404 answered, not raised; what the
    kubeconfig's user may not read is said in ``notes`` (not checked, not missing)."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.notes: list[str] = []

    def get(self, path: str, **query: str) -> tuple[int, Any]:
        from kubernetes.client.exceptions import ApiException

        client = self.api.conn.client

        def read() -> tuple[int, Any]:
            request = client.param_serialize("GET", path, query_params=list(query.items()),
                                             header_params={"Accept": "application/json"},
                                             auth_settings=["BearerToken"])
            response = client.call_api(*request, _request_timeout=self.api.timeout)
            response.read()
            text = (response.data or b"").decode("utf-8", "replace")
            if 200 <= response.status <= 299 or response.status in (403, 404):
                try:
                    found = json.loads(text or "{}")
                except ValueError:
                    found = {}
                return response.status, found if isinstance(found, dict) else {}
            raise ApiException.from_response(http_resp=response, body=text, data=None)

        code, found = self.api.call(f"read {path}", read)
        if code == 403:
            self.notes.append(f"not checked: {path} (403 Forbidden: the kubeconfig's user may "
                              "not read it)")
        return code, found
