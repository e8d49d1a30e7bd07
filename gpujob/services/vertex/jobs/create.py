"""One Vertex AI job per submission, as far as a create without a request ID allows.

A create is sent once, on a transport that never resends it by itself (``gpujob.gcp.once``).
When it fails in a way that leaves open whether the service made the job, gpujob looks for the
job by the submission's label before doing anything else:

- refused (a 4xx other than 429, a resource quota, bad credentials) or never sent (an unknown
  host, an untrusted certificate): nothing was made; the error is reported, nothing is tried
  again; no access token (the token endpoint not reached): never sent, tried again as the
  retry policy says, without a look-up, and reported as nothing sent;
- a 429 or 5xx, a timeout, a reset, an answer lost before its status line: gpujob waits as the
  retry policy says (``Retry-After`` first), lists the jobs carrying the label, adopts the job
  if there is one (``Created(recovered=True)``), and only when there is none sends the create
  again; when the tries run out it looks once more before giving up;
- a 401: the service should not have acted, but the 401 may have come after it did (a proxy,
  a token that expired on the way). The job is looked up and adopted if found; it is never
  sent again, since a job made a moment ago may not be listed yet (google-auth's
  ``AuthorizedHttp`` would renew the token and resend at once: for creates it is told not to,
  ``gpujob.gcp.http``);
- a 2xx answer gpujob cannot read or that names no job (``{}``), or any other failure once the
  request was out (an answer that is not HTTP): the job may have been made; it is looked up,
  never created again (when none is found, the error says how to look again).

The look-up checks the label of each job the listing returns: a listing that does not apply
the filter (a proxy, a filter read otherwise) must not pass another job off as this one.

When the look-up itself fails, nothing is sent again: the error says how to look.

What this cannot rule out: a service that acts on a request after its client gave up on it,
later than the look-up before the resend. After a create that needed a resend, gpujob looks
once more and names any extra job with the command that cancels it; a job made later still
goes unseen. Only a request ID, which Vertex AI's create does not take, would close that gap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from gpujob.errors import RemoteError
from gpujob.gcp import retry
from gpujob.gcp.answers import BadAnswer, Created, short
from gpujob.gcp.errors import Action, ServiceError, explain, parse_http_error, raise_explained
from gpujob.services.vertex.jobs.api import WORDS, JobName, Place, resource_quota, submission_filter
from gpujob.services.vertex.paths import SUBMISSION_LABEL

if TYPE_CHECKING:
    from gpujob.services.vertex.jobs.api import VertexClient

Refusal = Callable[[ServiceError, Action], RemoteError | None]


class _Attempts:
    """The create's tries, under the retry policy (``retry.next_delay``), with a look-up for
    the job between them (``create``)."""

    def __init__(self, client: VertexClient, action: Action) -> None:
        self.session = client.session
        self.clock = self.session.clock
        self.action = action
        self.started = self.clock.monotonic()
        self.count = 1
        self.stopped = ""  # why the policy allows no more tries, once it does not
        self.reached = False  # whether a try may have reached the service

    def wait(self, why: retry.Transient, sent: bool = True) -> bool:
        """Sleep before the next try and say so; False when the policy allows none. ``sent``:
        the failed try may have reached the service."""
        delay = retry.next_delay(self.session.settings.retry, self.count, self.started,
                                 self.clock, why)
        if isinstance(delay, str):
            self.stopped = delay
            return False
        self.session.note_retry(self.action, self.count, why, delay,
                                " unless the job turns out to have been made" if sent else "")
        self.clock.sleep(delay)
        self.count += 1
        return True

    def gave_up(self, exc: BaseException) -> RemoteError:
        """The last failure, once the look-up found no job: safe to submit again."""
        error = explain(retry.GaveUp(exc, self.count, self.stopped),
                        replace(self.action, retry_safe=True))
        if error is None:
            raise exc
        return RemoteError(f"{error.message}; no job was made (none carries this submission's "
                           "label)", error.hint)


def _no_token(exc: BaseException) -> bool:
    """Whether ``exc`` is google-auth's failure to reach the token endpoint: the create was
    never sent (``gcp.credentials`` makes an unreached token endpoint this too)."""
    from google.auth.exceptions import TransportError

    return isinstance(exc, TransportError)


def find_command(place: Place, token: str) -> str:
    """The command that lists the jobs carrying the submission label ``token``."""
    return (f"gpujob list --service vertex --project {place.project} --region "
            f"{place.location} --filter '{submission_filter(token)}'")


def _retry_worthy(exc: BaseException) -> retry.Transient | None:
    """Why ``exc`` may be tried again (it may also have made the job); None: it may not."""
    from googleapiclient.errors import HttpError

    if isinstance(exc, HttpError) and resource_quota(parse_http_error(exc)):
        return None
    return retry.transient(exc)


def _unauthenticated(exc: BaseException) -> bool:
    from googleapiclient.errors import HttpError

    return isinstance(exc, HttpError) and exc.resp.status == 401


def _named(job: Any) -> dict[str, Any]:
    """The create's answer, when it names the job it made; else ``BadAnswer``: the job was
    made, but which one it is takes a look-up."""
    name = job.get("name")
    if name is None:
        raise BadAnswer("the service's answer has no job name")
    if not isinstance(name, str) or JobName.parse(name) is None:
        raise BadAnswer(f"the service's answer has name = {short(name)}, not a "
                        "job's resource name")
    return job


def _no_job_made(exc: BaseException, action: Action) -> bool:
    """Whether ``exc`` settles that the create made nothing: the service refused it (an error
    answer), it never left (no access token, an unknown host, an untrusted certificate), or
    ``exc`` is a bug rather than a remote failure. Any other failure may have come after the
    service acted."""
    import ssl

    from google.auth.exceptions import DefaultCredentialsError, RefreshError
    from googleapiclient.errors import HttpError
    from httplib2 import ServerNotFoundError

    return isinstance(exc, (HttpError, RefreshError, DefaultCredentialsError,
                            ServerNotFoundError, ssl.SSLCertVerificationError)) \
        or explain(exc, action) is None


def create(client: VertexClient, url: str, body: dict[str, Any],
           explain_refusal: Refusal | None = None) -> Created:
    """Create the job ``body`` at ``url`` once (see the module's docstring)."""
    place = client.place_of(url)
    token = (body.get("labels") or {}).get(SUBMISSION_LABEL)
    if not token:
        raise ValueError(f"a Vertex AI create must carry the {SUBMISSION_LABEL} label")
    what = f"submitting {WORDS[place.collection]} {body.get('displayName') or ''}".rstrip()
    action = replace(client.action(what, place, "create", retry_safe=False), answer_hint=(
        f"the service answered, so the job was probably made: {find_command(place, token)} "
        "shows it"))
    jobs = client.collection(place, single_send=True)

    def request() -> Any:
        made = jobs.create(parent=place.parent, body=body)
        if (made.method, made.uri.partition("?")[0]) != ("POST", url):
            raise AssertionError(f"the create goes to {made.method} {made.uri}, not to "
                                 f"POST {url}")
        return made

    attempts = _Attempts(client, action)
    while True:
        try:
            job = _named(client.session.execute_raw(action, request))
        except BadAnswer as exc:  # a 2xx: the job was made
            found = _look_up(client, place, token, action, exc)
            if found is not None:
                return found
            raise_explained(exc, action)
        except Exception as exc:
            if _no_token(exc) and not attempts.reached:  # never sent: no look-up is needed
                if not attempts.wait(retry.transient(exc) or retry.Transient(
                        "could not reach the token endpoint"), False):
                    raise_explained(retry.GaveUp(exc, attempts.count, attempts.stopped),
                                    replace(action, retry_safe=True))
                continue
            attempts.reached = True
            if _unauthenticated(exc):  # look, never send again
                found = _look_up(client, place, token, action, exc)
                if found is not None:
                    return found
                raise _not_found_yet(exc, action, place, token) from exc
            why = _retry_worthy(exc)
            if why is None and _no_job_made(exc, action):
                _refused(exc, action, explain_refusal)
            if why is None:  # an answer that cannot be read: look, never send again
                found = _look_up(client, place, token, action, exc)
                if found is not None:
                    return found
                raise _not_found_yet(exc, action, place, token) from exc
            retrying = attempts.wait(why)
            found = _look_up(client, place, token, action, exc)
            if found is not None:
                return found
            if not retrying:
                raise attempts.gave_up(exc) from exc
        else:
            if attempts.count > 1:  # an earlier try may have been acted on after it was looked for
                _look_again(client, place, token, job)
            return Created(job)


def _refused(exc: BaseException, action: Action, explain_refusal: Refusal | None) -> NoReturn:
    from googleapiclient.errors import HttpError

    if explain_refusal is not None and isinstance(exc, HttpError) and exc.resp.status == 400:
        parsed = parse_http_error(exc)
        # the API's own reading first: a region without training is the region's fault (the
        # service names the request's parent), not a value of the config
        advised = action.advice(parsed) if action.advice is not None else None
        error = None if advised else explain_refusal(parsed, action)
        if error is not None:
            raise error from exc
    raise_explained(exc, replace(action, retry_safe=True))  # nothing was made: say so


def _not_found_yet(exc: BaseException, action: Action, place: Place, token: str) -> RemoteError:
    """A create whose fate is unknown and whose job the look-up did not find (yet)."""
    error = explain(exc, action)
    return RemoteError(error.message if error else f"{action.what} failed",
                       "the request may have reached the service; no job carried its label "
                       "when gpujob looked: look again before submitting again: "
                       f"{find_command(place, token)}")


def _look_up(client: VertexClient, place: Place, token: str, action: Action,
             failure: BaseException) -> Created | None:
    """The job this submission made, found by its label; None when there is none."""
    try:
        found = labelled(client.list(place, submission_filter(token)), token)
    except RemoteError as exc:
        first = explain(failure, action)
        raise RemoteError(
            f"{first.message if first else action.what + ' failed'}; whether the job was made "
            f"could not be checked: {exc.message}",
            f"do not submit again before looking for it: {find_command(place, token)}"
        ) from failure
    if not found:
        return None
    found.sort(key=lambda job: str(job.get("createTime", "")))
    _warn_of_extras(client, token, found[0], found)
    return Created(found[0], recovered=True)


def labelled(listed: Iterable[dict[str, Any]], token: str) -> list[dict[str, Any]]:
    """The jobs of ``listed`` that carry the submission label ``token``: the service's filter
    is checked again, so that a listing that ignores it cannot pass another job off as this
    submission's."""
    return [job for job in listed if isinstance(job.get("labels"), dict)
            and job["labels"].get(SUBMISSION_LABEL) == token]


def _look_again(client: VertexClient, place: Place, token: str, job: dict[str, Any]) -> None:
    """After a create that was sent more than once: warn of a job an earlier try made after all
    (the service may act on a request its client gave up on, after the look-up that preceded
    the resend). One it makes later still is not seen: Vertex AI takes no request ID that would
    let it refuse the second create."""
    try:
        found = labelled(client.list(place, submission_filter(token)), token)
    except RemoteError as exc:
        client.session.echo(f"warning: whether an earlier try of this submission made a job too "
                            f"could not be checked: {exc.message}; look with: "
                            f"{find_command(place, token)}")
        return
    _warn_of_extras(client, token, job, found)


def _warn_of_extras(client: VertexClient, token: str, kept: dict[str, Any],
                    found: list[dict[str, Any]]) -> None:
    """Name the jobs of ``found`` other than ``kept`` (one submission's), with how to cancel."""
    extras = [str(job.get("name")) for job in found if job.get("name") != kept.get("name")]
    if not extras:
        return
    client.session.echo(f"warning: {len(extras) + 1} jobs carry this submission's label "
                        f"{SUBMISSION_LABEL}={token} (more than one try of the create was acted "
                        f"on); gpujob keeps {kept.get('name')}")
    for name in extras:
        client.session.echo(f"  cancel the extra one: gpujob cancel {name} --service vertex")
