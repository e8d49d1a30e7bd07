"""Suggestions and list wording shared by the schema messages, the rules and ``gpujob gpus``:
did-you-mean over a list of names, and lists written as people write them."""

from __future__ import annotations

from collections.abc import Sequence


def _norm(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def did_you_mean(word: str, choices: Sequence[str]) -> str | None:
    """The choice the user most likely meant: same letters ignoring case and separators, else
    the one choice ending in the word (T4 -> NVIDIA_TESLA_T4), else the closest spelling."""
    found = candidates(word, choices)
    return found[0] if found else None


# a runner-up spelt this close to the best match makes a guess ambiguous (difflib's ratio):
# workerConf is 0.91 like workerConfig and 0.86 like workerCount
_CLOSE_RUNNER_UP = 0.06


def candidates(word: str, choices: Sequence[str]) -> list[str]:
    """What ``word`` may be a misspelling of, the likeliest (``did_you_mean``'s guess) first:
    one choice when the guess is clear, more when others are spelt almost as close."""
    by_norm = {_norm(c): c for c in choices}
    wanted = _norm(word)
    if wanted in by_norm:
        return [by_norm[wanted]]
    ends = [c for n, c in by_norm.items() if len(wanted) >= 2 and n.endswith(wanted)]
    if len(ends) == 1:
        return ends
    import difflib  # only a miss pays for it

    close = difflib.get_close_matches(wanted, list(by_norm), n=3, cutoff=0.75)
    if len(close) > 1:
        best = difflib.SequenceMatcher(None, wanted, close[0]).ratio()
        close = [close[0]] + [n for n in close[1:] if difflib.SequenceMatcher(
            None, wanted, n).ratio() >= best - _CLOSE_RUNNER_UP]
    return [by_norm[n] for n in close]


def same_name(word: str, choices: Sequence[str]) -> str | None:
    """The choice spelt like ``word`` but for case and separators (masterType for master_type)."""
    return {_norm(c): c for c in choices}.get(_norm(word))


def or_list(items: Sequence[object]) -> str:
    """``1, 2, 4 or 8``."""
    words = [str(i) for i in items]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def and_list(items: Sequence[object]) -> str:
    """``K80, P100 and T4``."""
    return or_list(items).replace(" or ", " and ")


def describe_list(items: Sequence[str], limit: int = 8) -> str:
    """``a, b, c`` or ``a, b, c … (12 in all)``."""
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} … ({len(items)} in all)"


def camel(name: str) -> str:
    """``worker_pool_specs`` -> ``workerPoolSpecs``: a proto field's name as JSON spells it."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
