"""Named tuples returned by ops with several outputs (``max(dim=...)``, ``sort``, ``topk``, ...)."""

from __future__ import annotations

from typing import Any, NamedTuple


class _ReturnRepr:
    """torch's layout: one field per line after the qualified name."""

    __slots__ = ()

    def __repr__(self: Any) -> str:
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"tensorlib.return_types.{type(self).__name__}(\n{fields})"


def _make(name: str, fields: tuple[str, ...]) -> type:
    base = NamedTuple(name, [(f, Any) for f in fields])  # type: ignore[misc]
    cls = type(name, (_ReturnRepr, base), {"__slots__": (), "__module__": __name__})
    cls.__doc__ = f"Result of ``{name}``: a named tuple ({', '.join(fields)})."
    return cls


max = _make("max", ("values", "indices"))  # noqa: A001
min = _make("min", ("values", "indices"))  # noqa: A001
median = _make("median", ("values", "indices"))
nanmedian = _make("nanmedian", ("values", "indices"))
mode = _make("mode", ("values", "indices"))
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))
aminmax = _make("aminmax", ("min", "max"))
cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
frexp = _make("frexp", ("mantissa", "exponent"))
histogram = _make("histogram", ("hist", "bin_edges"))
histogramdd = _make("histogramdd", ("hist", "bin_edges"))

__all__ = ["aminmax", "cummax", "cummin", "frexp", "histogram", "histogramdd", "kthvalue", "max", "median", "min", "mode", "nanmedian", "sort", "topk"]
