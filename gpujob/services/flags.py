"""The flags a service adds to the command line (``Service.flags``), apart from the protocol's
other types: the command line reads them while it is built, ``validate``'s included, which
imports nothing else of a service it is not checking for."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

Scope = Literal["all", "job", "checks"]
# the commands that take a flag of each scope, as ``service_flags_of`` names them
TAKEN_BY: dict[str, tuple[Scope, ...]] = {"job": ("all", "job", "checks"),
                                          "validate": ("checks",), "place": ("all",)}


class ServiceFlag(NamedTuple):
    """A flag that only this service reads (GKE's ``--namespace``, Vertex AI's
    ``--reservation``): the command line adds it, and its value reaches the service in
    ``JobOptions.extra`` (or ``RemoteSettings.extra``) under ``name``; given with another service,
    it is a usage error."""

    name: str  # --namespace
    help: str
    envvar: str | None = None
    metavar: str = "TEXT"
    switch: bool = False  # takes no value: given, its value is "true"
    # which commands take it: "all" (it says where jobs are: describe, list, cancel, wait and
    # logs too), "job" (it changes the job: submit, local and convert), or "checks" (what the
    # checks see too: validate, submit, local and convert)
    scope: Scope = "all"
    # a value the service cannot take: (message, hint), checked as the command line is read
    check: Callable[[str], tuple[str, str] | None] | None = None
