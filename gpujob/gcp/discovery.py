"""The APIs' discovery documents, each read and parsed once per process, and the service
objects googleapiclient builds from them.

The documents are those bundled with google-api-python-client (no discovery request is made);
Vertex AI's and Service Usage's are cut to the resources gpujob calls (``discovery_cut``).
Parsing one is most of what ``googleapiclient.discovery.build`` costs (Vertex AI's is about 3 MB
of JSON: some 50 ms), and gpujob needs each in several places in one run: its types for reading
answers (``answers``, ``proto3``), its regional addresses (``aiplatform.regions``), and a service
object per HTTP transport and address (Vertex AI's reads and its single-send creates, for
instance). ``build_from_document`` given the parsed document builds one in well under a
millisecond, so every client builds through ``service`` and the parse happens once.

``service`` builds from the document with its schemas cut to their top-level fields
(``buildable``): googleapiclient writes a docstring for every method of every resource it
builds, pretty-printing the method's request and response schemas whole (Vertex AI's CustomJob
runs to thousands of lines), which was a third of a submit's CPU. What a request is made of (the
methods, their parameters and paths) is untouched, and the top-level fields still name each
listing's ``nextPageToken``; answers are read with the full document (``answers``, ``proto3``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any


@cache
def document(api: str, version: str) -> dict[str, Any]:
    """The discovery document of ``api`` ``version`` bundled with google-api-python-client,
    parsed; for the APIs of ``discovery_cut.RESOURCES``, cut to the resources gpujob calls
    (kept in gpujob's cache directory, see ``discovery_cut``). Shared: gpujob's code only reads
    it (``service`` copies what it replaces); googleapiclient's build fills in a few method
    defaults, the same on every build (the cut is written before any build)."""
    from gpujob.gcp import discovery_cut

    cut = discovery_cut.document(api, version)
    if cut is not None:
        return cut
    from googleapiclient.discovery_cache import get_static_doc

    return json.loads(get_static_doc(api, version) or "{}")


_PLAIN = frozenset({"string", "integer", "number", "boolean"})


@cache
def buildable(api: str, version: str) -> dict[str, Any]:
    """``document`` with each schema cut to its fields' names and plain types (see the module's
    docstring): what ``build_from_document`` needs, without what only its docstrings read."""
    doc = document(api, version)

    def shallow(name: str, schema: dict[str, Any]) -> dict[str, Any]:
        fields = {field: {"type": spec.get("type") if spec.get("type") in _PLAIN else "any"}
                  for field, spec in (schema.get("properties") or {}).items()}
        return {"id": name, "type": schema.get("type", "object"), "properties": fields}

    return {**doc, "schemas": {name: shallow(name, schema)
                               for name, schema in (doc.get("schemas") or {}).items()}}


def service(api: str, version: str, http: Any, api_endpoint: str | None = None,
            root_url: str | None = None, developer_key: str | None = None) -> Any:
    """googleapiclient's service object for ``api`` ``version`` sending through ``http`` to
    ``api_endpoint`` (None: the document's address), built from the parsed ``document``.
    ``root_url``: the document's ``rootUrl`` replaced (Cloud Storage's media uploads are
    addressed from it, not from ``api_endpoint``). ``developer_key``: an API key, sent as the
    ``key`` query parameter (Cloud Billing's catalog takes one instead of OAuth)."""
    from googleapiclient.discovery import build_from_document

    doc = buildable(api, version)
    if root_url is not None:
        doc = {**doc, "rootUrl": root_url}
    options = {"api_endpoint": api_endpoint} if api_endpoint else None
    return build_from_document(doc, http=http, client_options=options,
                               developerKey=developer_key)


def base(api: str, version: str, root: str) -> str:
    """The address ``api``'s method paths are joined onto, from its root URL (``root``, as
    ``settings.api_endpoint`` gives it): the root and the document's ``servicePath``
    (``compute/v1/`` for Compute Engine)."""
    return root + document(api, version).get("servicePath", "")
