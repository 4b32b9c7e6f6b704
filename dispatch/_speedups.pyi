"""Types of the optional C extension built from ``_speedups.c`` (see ``dispatch._speedups_loader``)."""

from typing import Any, Callable

SOURCE_SHA256: str

def slow_path(
    protocol: Any, slow_general: Callable[..., Any], plain: set[type], disabling: list[Any], tls: Any, method: str,
    enabled: int, subclasses_disabled: int, /,
) -> Callable[[Any, tuple[Any, ...], dict[str, Any] | None], Any]: ...
