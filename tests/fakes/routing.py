"""How the fake Google finds the code for a request: a table of routes, each with the discovery
method it is checked against and the handler that answers it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakes.errors import Refused, invalid_field

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
IAM = "https://www.googleapis.com/auth/iam"

Answer = tuple[int, Any, dict[str, str]]


@dataclass
class Call:
    """An authenticated API request, as a handler sees it."""

    route: str
    params: dict[str, str]  # the path's named groups
    query: dict[str, list[str]]
    body: Any
    principal: str


def first_problem(problems: list[tuple[str, str]]) -> Refused:
    field_name, description = problems[0]
    return Refused(400, invalid_field(field_name, description))


@dataclass(frozen=True)
class Route:
    """``verb`` and ``pattern`` (a regular expression for the whole path) select it; ``name`` is
    what ``inject`` and ``calls`` use. A route with ``doc`` has its query and body checked
    against that discovery document's ``method`` (``strict``: as ``fakes.discovery`` defines
    it); ``guard`` runs before that check (access rules), ``invalid`` words the refusal."""

    verb: str
    pattern: str
    name: str
    handler: Callable[[Any, Call], Answer]
    doc: str = ""
    method: tuple[str, ...] = ()
    strict: bool = False
    scopes: frozenset[str] = frozenset({CLOUD_PLATFORM})
    guard: Callable[[Any, Call], None] | None = None
    invalid: Callable[[list[tuple[str, str]]], Refused] = first_problem
    api_key: bool = False  # read with an API key (the ``key`` parameter), not a token
