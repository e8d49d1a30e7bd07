"""A loaded config: its data, its format, and where each value (and each key) was written."""

from __future__ import annotations

from typing import Any

from gpujob.findings import JsonPath, Location


class Document:
    """The Job dict plus the origin of every value in it.

    ``values`` maps a JSON path to where its value starts; ``keys`` maps the path of a mapping entry
    to where its key was written (the better place to point at for an unknown or misplaced key).
    ``texts`` keeps the text of plain scalars that YAML read as numbers, booleans or null, so a
    message can show what was written (``2.10`` read as the number 2.1).
    Overrides from the command line replace the entries under the paths they set.
    """

    def __init__(self, source: str, data: dict[str, Any],
                 values: dict[JsonPath, Location] | None = None,
                 keys: dict[JsonPath, Location] | None = None,
                 texts: dict[JsonPath, str] | None = None) -> None:
        self.source = source
        self.data = data
        self.values = values if values is not None else {}
        self.keys = keys if keys is not None else {}
        self.texts = texts if texts is not None else {}
        self._form: str | None = None
        self._form_read = False

    @property
    def form(self) -> str | None:
        """The config's format, read from its keys once: the kind of a native Vertex config
        (``CustomJobSpec``, ``CustomJob``, ``HyperparameterTuningJob``: ``native_form.kind``),
        None for an AI Platform Job, the form every service reads."""
        if not self._form_read:
            from gpujob.config.native_form import kind

            self._form, self._form_read = kind(self.data), True
        return self._form

    def locate(self, path: JsonPath, *, key: bool = False) -> Location:
        """The origin of ``path`` (its key with ``key=True``), else of its nearest ancestor's key,
        else the start of the document."""
        found = (key and self.keys.get(path)) or self.values.get(path)
        for end in range(len(path) - 1, 0, -1):
            if found:
                break
            found = self.keys.get(path[:end])
        return found or self.values.get(()) or Location(self.source)

    def forget(self, path: JsonPath) -> None:
        """Drop the origins at and under ``path`` (about to be replaced)."""
        n = len(path)
        for table in (self.values, self.keys, self.texts):
            for p in [p for p in table if p[:n] == path]:
                del table[p]
