"""``gpujob.tuples.NamedTuple`` makes the class ``typing.NamedTuple`` makes, less the checks of
its annotations (which made each class cost three times a ``collections.namedtuple``)."""

from __future__ import annotations

import pickle
import typing

import pytest

from gpujob import tuples


def _made(base: typing.Any) -> typing.Any:
    class Price(base):
        """A price."""

        amount: float | None
        currency: str = "USD"
        tags: tuple[str, ...] = ()

        def doubled(self) -> float:
            return 2 * (self.amount or 0)

        @property
        def label(self) -> str:
            return f"{self.amount} {self.currency}"

    return Price


Price = _made(tuples.NamedTuple)


class Money(tuples.NamedTuple):  # at module level, as gpujob's are: pickled by name
    amount: float


def test_the_class_is_typings_but_for_its_annotations():
    ours, theirs = Price, _made(typing.NamedTuple)
    assert ours._fields == theirs._fields == ("amount", "currency", "tags")
    assert ours._field_defaults == theirs._field_defaults == {"currency": "USD", "tags": ()}
    assert ours.__doc__ == theirs.__doc__ == "A price."
    assert ours.__bases__ == theirs.__bases__ == (tuple,)
    assert ours.__module__ == theirs.__module__ == __name__
    p = ours(1.5)
    assert p == theirs(1.5) == (1.5, "USD", ())
    assert repr(p) == "Price(amount=1.5, currency='USD', tags=())"
    assert p.doubled() == 3.0 and p.label == "1.5 USD"
    assert p._replace(currency="EUR")._asdict() == {"amount": 1.5, "currency": "EUR", "tags": ()}
    assert pickle.loads(pickle.dumps(Money(2.0))) == Money(2.0)
    assert set(ours.__annotations__) == {"amount", "currency", "tags"}  # strings, unchecked


def test_what_typing_refuses_is_refused():
    with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow"):
        class Bad(tuples.NamedTuple):
            a: int = 0
            b: int
    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):
        class Worse(tuples.NamedTuple):
            a: int

            def _replace(self) -> None: ...
