"""The cache: a miss is a missing key, never a false or zero value."""

_MISSING = object()


class Cache:
    def __init__(self) -> None:
        self._values: dict[str, object] = {}

    def set(self, key: str, value: object) -> None:
        self._values[key] = value

    def get(self, key: str, default: object = None) -> object:
        value = self._values.get(key, _MISSING)
        return default if value is _MISSING else value
