"""``NamedTuple`` for gpujob's own record types: ``typing.NamedTuple`` to the type checker, and
at run time the same class made without typing's checks of each field's annotation.

Under ``from __future__ import annotations`` every annotation is a string, which
``typing.NamedTuple`` turns into a ``ForwardRef``, compiling it: about 0.12 ms a class, three
times what ``collections.namedtuple`` costs, and a ``validate`` defines some 40 of them (5 ms of
its start-up). This builds the class as ``typing.NamedTupleMeta`` does (Python 3.10-3.12: the
fields, their defaults, the class body's methods and docstring), keeping the annotations as the
strings they are. No generic named tuples: gpujob has none.

Usage, in place of ``from typing import NamedTuple``::

    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from gpujob.tuples import NamedTuple
"""

from __future__ import annotations

import collections
from typing import Any

# what typing.NamedTupleMeta refuses in a class body, and what it does not copy from it
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                         "_field_defaults", "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_namedtuple: Any = collections.namedtuple  # called with names known at run time only


class _Meta(type):
    def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if bases != (_Root,):
            raise TypeError("can only inherit from NamedTuple")
        types: dict[str, Any] = ns.get("__annotations__", {})
        defaults: list[str] = []
        for name in types:
            if name in ns:
                defaults.append(name)
            elif defaults:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow default "
                                f"field{'s' if len(defaults) > 1 else ''} {', '.join(defaults)}")
        made = _namedtuple(typename, list(types), defaults=[ns[n] for n in defaults],
                           module=ns["__module__"])
        made.__annotations__ = made.__new__.__annotations__ = dict(types)
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in made._fields:
                setattr(made, key, value)
        return made


_Root = type.__new__(_Meta, "NamedTuple", (), {})
NamedTuple = _Root
